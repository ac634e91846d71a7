"""A results file over several fine-tuning seeds (`eval --seeds`) on the board: its row shows the mean, the seeds'
spread and how many there were, a one-seed row beside it is unchanged, and `swapbench submit` takes it, refuses it
when its figures are not the means of its seeds' or a seed's training was not checked, and still takes a file
written before seeds were recorded."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
from board_helpers import empty_board, make_results, markdown_rows, save

from swapbench.commands.main import main
from swapbench.core.text import points


@pytest.fixture
def board(tmp_path) -> Path:
    return empty_board(tmp_path / "board")


def submit(path: Path, board: Path) -> int:
    return main(["submit", str(path), "--board", str(board)])


def over_two_seeds(**options) -> dict:
    """The results of a model trained here over seeds 0 and 1, seed 1 dropping one more pair per configuration
    (board_helpers.honest): its results the means over them, the tests' counts summed over the two, each seed's
    figures and their spread in seed_variance, all made from the predictions by eval's own functions."""
    return make_results("org/tuned", trained_on="snli_1.0_dev.jsonl", seeds=(0, 1), **options)


def test_a_multi_seed_row_shows_its_mean_the_seeds_spread_and_how_many(tmp_path, board):
    seeds = over_two_seeds(drops={"shuffle-3": 9})
    one = make_results("org/once", trained_on="snli_1.0_dev.jsonl")
    assert submit(save(seeds, tmp_path / "seeds.json"), board) == 0
    assert submit(save(one, tmp_path / "one.json"), board) == 0

    header, *rows = markdown_rows((board / "README.md").read_text(encoding="utf-8"))
    cells = {row[0].split("]")[0].lstrip("["): dict(zip(header, row)) for row in rows}
    tuned, once = cells["org/tuned · SNLI dev"], cells["org/once · SNLI dev"]
    # seed 1 has one more of shuffle-3's 90 pairs right on the original only: Δ -9/90 + 1/90 and -10/90 + 1/90
    each = [run["results"]["shuffle-3"]["delta"] for run in seeds["seed_variance"]["runs"]]
    assert each == pytest.approx([-8 / 90, -9 / 90])
    std = np.std(each, ddof=1)
    mean = seeds["results"]["shuffle-3"]["delta"]
    assert mean == pytest.approx(np.mean(each))
    assert tuned["Δ shuffle-3"].startswith(f"{points(mean)} ±{100 * std:.1f} (2 seeds)<br>")
    role = next(key for key in header if key.startswith("Role sensitivity (sr"))
    role_std = np.std(
        [run["results"]["shuffle-sr"]["role_sensitivity"] for run in seeds["seed_variance"]["runs"]], ddof=1
    )
    assert f"±{100 * role_std:.1f} (2 seeds)" in tuned[role]
    assert "mean of 2 fine-tunings (seeds 0, 1)" in tuned["Training data"]
    # a one-seed row is what it was
    assert "seeds)" not in " ".join(once.values())
    assert once["Δ shuffle-3"].startswith(f"{points(one['results']['shuffle-3']['delta'])}<br>")

    table = {row["model"]: row for row in csv.DictReader(io.StringIO((board / "leaderboard.csv").read_text()))}
    assert table["org/tuned · SNLI dev"]["seeds"] == "2" and table["org/once · SNLI dev"]["seeds"] == "1"
    assert float(table["org/tuned · SNLI dev"]["delta_shuffle_3_seed_sd"]) == pytest.approx(std)
    assert float(table["org/tuned · SNLI dev"]["delta_shuffle_3"]) == pytest.approx(mean)
    assert table["org/once · SNLI dev"]["delta_shuffle_3_seed_sd"] == ""

    page = (board / "index.html").read_text(encoding="utf-8")
    assert f"{points(mean)} ±{100 * std:.1f} (2 seeds)" in page
    assert page.count('<table class="seeds">') == 1  # the details of the multi-seed row list each seed


def refused(tmp_path, board, capsys, data: dict) -> list[str]:
    assert submit(save(data, tmp_path / "submitted.json"), board) == 1
    return [line.strip()[2:] for line in capsys.readouterr().out.splitlines() if line.strip().startswith("- ")]


def test_a_multi_seed_file_whose_figures_are_not_its_seeds_means_is_refused(tmp_path, board, capsys):
    data = over_two_seeds()
    data["seed_variance"]["spread"]["shuffle-3"]["delta"]["mean"] += 0.05
    problems = refused(tmp_path, board, capsys, data)
    assert any("shuffle-3: delta" in p and "is not the mean over the seeds" in p for p in problems), problems


def test_each_seed_s_training_must_have_been_checked_against_the_scored_data(tmp_path, board, capsys):
    data = over_two_seeds()
    data["seed_variance"]["runs"][1]["fine_tuning"]["data_overlap"] = None
    problems = refused(tmp_path, board, capsys, data)
    assert any(
        p.startswith("seed_variance.runs.1.fine_tuning.data_overlap: the training data were not checked")
        for p in problems
    ), problems


def test_a_file_written_before_seeds_were_recorded_still_validates(tmp_path, board, capsys):
    data = make_results("org/older", trained_on="snli_1.0_dev.jsonl")
    data["schema_version"] = "2.3"
    assert "seed_variance" in data
    del data["seed_variance"]
    assert submit(save(data, tmp_path / "older.json"), board) == 0
    assert "accepted (migrated 2.3 -> 2.4)" in capsys.readouterr().out
