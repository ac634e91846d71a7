"""Locality as a curve: the share of predictions changed and Δ per distance bin, and the slope of changed on distance
with its interval clustered by premise. An order-blind model's slope interval covers 0 (no gradient); a model whose
flips grow with distance gets an interval above 0. The figure round-trips through the results file, reaches the
terminal, the API and a PNG, and a results file written before it (the committed board's) still reads alike."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from committed_results import committed_minilm, written_before
from pydantic import ValidationError
from rich.console import Console

from swapbench.api import Evaluated
from swapbench.evaluation.figures import LOCALITY, bootstrap_rng, configuration_result
from swapbench.evaluation.locality import locality
from swapbench.evaluation.report import locality_table, print_table
from swapbench.results.schema import ConfigurationResult, EvalResults, Locality, PredictionRow

REPO = Path(__file__).resolve().parents[2]
LABELS = ("entailment", "neutral", "contradiction")


def shuffled_rows(flip, pairs: int = 600, seed: int = 0) -> list[PredictionRow]:
    """Rows of a shuffle configuration, three pairs a premise, each with a distance from 2 to 40; `flip(distance,
    rng)` says whether the model's answer on the perturbed pair differs from its answer on the original."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(pairs):
        distance = int(rng.integers(2, 41))
        original = LABELS[i % 3]
        perturbed = LABELS[(i + 1) % 3] if flip(distance, rng) else original
        rows.append(
            PredictionRow(
                pair_id=f"p{i}",
                configuration="shuffle-3",
                gold=LABELS[i % 3],
                gold_original=LABELS[i % 3],
                prediction_original=original,
                prediction_perturbed=perturbed,
                cluster=f"premise{i // 3}",
                tags=["moved:1"],
                distance=distance,
                moved=3,
            )
        )
    return rows


def curve(rows, resamples: int = 1000) -> Locality:
    return locality(rows, bootstrap_rng(0, "shuffle-3", figure=LOCALITY), resamples, 0.95)


def test_an_order_blind_model_shows_no_gradient():
    found = curve(shuffled_rows(lambda distance, rng: False))
    assert found.slope == 0 and found.slope_ci.low <= 0 <= found.slope_ci.high
    assert not found.gradient
    assert all(b.changed == 0 and b.delta == 0 for b in found.bins)


def test_flips_that_do_not_depend_on_distance_show_no_gradient():
    found = curve(shuffled_rows(lambda distance, rng: rng.random() < 0.3))
    assert found.slope_ci.low <= 0 <= found.slope_ci.high and not found.gradient


def test_flips_that_grow_with_distance_show_a_gradient():
    found = curve(shuffled_rows(lambda distance, rng: rng.random() < distance / 50))
    assert found.slope == pytest.approx(1 / 50, abs=0.005)
    assert found.slope_ci.low > 0 and found.gradient
    changed = [b.changed for b in found.bins]
    assert changed[0] < changed[-1]
    # every flip here makes the perturbed answer wrong (the original answer is the gold label): Δ = -changed
    assert [b.delta for b in found.bins] == pytest.approx([-c for c in changed])


def test_the_bins_of_hand_made_rows():
    rows = shuffled_rows(lambda distance, rng: False, pairs=4)
    for row, distance, changed in zip(rows, (2, 3, 4, 70), (False, True, False, True)):
        row.distance = distance
        row.prediction_perturbed = (
            "neutral"
            if changed and row.prediction_original != "neutral"
            else ("entailment" if changed else row.prediction_original)
        )
    found = curve(rows, resamples=200)
    assert [(b.distance_min, b.distance_max, b.rows, b.changed) for b in found.bins] == [
        (0, 2, 1, 0.0),
        (3, 4, 2, 0.5),
        (65, None, 1, 1.0),
    ]
    assert (found.rows, found.clusters) == (4, 2)


def test_rows_with_one_distance_have_no_slope_and_no_gradient():
    rows = shuffled_rows(lambda distance, rng: rng.random() < 0.5, pairs=30)
    for row in rows:
        row.distance = 6
    found = curve(rows, resamples=100)
    assert found.slope is None and found.slope_ci is None and not found.gradient


def test_a_configuration_without_distances_has_no_locality():
    rows = shuffled_rows(lambda distance, rng: False, pairs=30)
    for row in rows:
        row.distance = row.moved = None
    result = configuration_result(rows, label_view="3-way", non_entailment_view=False, seed=0, resamples=100)
    assert result.locality is None and "locality" not in result.model_dump(mode="json")


def test_the_gradient_follows_the_interval_and_nothing_else():
    found = curve(shuffled_rows(lambda distance, rng: rng.random() < distance / 50), resamples=200)
    data = found.model_dump()
    data["gradient"] = False
    with pytest.raises(ValidationError, match="gradient is true exactly when slope_ci excludes 0"):
        Locality.model_validate(data)


def test_the_locality_round_trips_through_the_results_file():
    rows = shuffled_rows(lambda distance, rng: rng.random() < distance / 50)
    result = configuration_result(rows, label_view="3-way", non_entailment_view=False, seed=0, resamples=300)
    assert result.locality == curve(rows, resamples=300)  # its own generator: the same whatever else is computed
    again = ConfigurationResult.model_validate_json(result.model_dump_json())
    assert again == result and again.locality.gradient


def committed() -> EvalResults:
    """The committed MiniLM results as a file written before the locality curve reads (its curves stripped)."""
    data = written_before(committed_minilm(), "locality")
    return EvalResults.model_validate(data), data


def test_a_results_file_written_before_the_locality_reads_and_writes_alike():
    results, data = committed()
    assert all(r.locality is None for r in results.results.values())
    assert results.model_dump(mode="json")["results"] == data["results"]


def with_curves(blind: bool = False) -> EvalResults:
    """The committed results with shuffle-3 given an order-blind model's curve and shuffle-5 a growing one."""
    results, _ = committed()
    edited = results.model_copy(deep=True)
    edited.results["shuffle-3"].locality = curve(shuffled_rows(lambda distance, rng: False), resamples=200)
    edited.results["shuffle-5"].locality = curve(
        shuffled_rows(lambda distance, rng: rng.random() < distance / 50), resamples=200
    )
    return EvalResults.model_validate(edited.model_dump())


def test_the_terminal_shows_each_curve_and_its_verdict():
    console = Console(width=160, record=True, file=io.StringIO(), color_system=None)
    print_table(with_curves(), console)
    text = console.export_text()
    assert "Locality" in text and "slope = 0: changes do not grow with displacement" in " ".join(text.split())
    lines = {
        line.split()[0]: line
        for line in text.splitlines()
        if line.split()[:1] in (["shuffle-3"], ["shuffle-5"]) and ("gradient" in line)
    }
    assert lines["shuffle-3"].rstrip().endswith("no gradient")
    assert lines["shuffle-5"].rstrip().endswith("gradient") and "no gradient" not in lines["shuffle-5"]
    narrow = Console(width=80, record=True, file=io.StringIO(), color_system=None)
    narrow.print(locality_table(with_curves()))
    text = narrow.export_text()
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80 and "…" not in text
    assert "33-64: 66.1 / -66.1" in text  # a bin a line


def test_the_api_gives_the_curve_the_slope_and_a_figure(tmp_path):
    run = Evaluated(with_curves(), tmp_path / "results.json")
    frame = run.configurations.set_index("configuration")
    assert not frame.loc["shuffle-3", "locality_gradient"] and frame.loc["shuffle-5", "locality_gradient"]
    assert frame.loc["shuffle-5", "locality_slope_low"] > 0
    assert pd.isna(frame.loc["shuffle-4", "locality_slope"])
    curves = run.locality
    assert set(curves["configuration"]) == {"shuffle-3", "shuffle-5"}
    assert curves.groupby("configuration")["rows"].sum().to_dict() == {"shuffle-3": 600, "shuffle-5": 600}
    png = run.plot_locality(tmp_path / "locality.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="no locality curve"):
        Evaluated(committed()[0], tmp_path / "r.json").plot_locality(tmp_path / "none.png")


def test_the_interval_resamples_premises_not_rows():
    # a premise's ten rows share its distance and its fate: ten times fewer independent units than rows
    rows = shuffled_rows(lambda distance, rng: False, pairs=600)
    rng = np.random.default_rng(1)
    for start in range(0, 600, 10):
        distance, flip = int(rng.integers(2, 41)), bool(rng.random() < 0.5)
        for row in rows[start : start + 10]:
            row.cluster, row.distance = f"premise{start}", distance
            row.prediction_perturbed = (
                "neutral"
                if flip and row.prediction_original != "neutral"
                else ("entailment" if flip else row.prediction_original)
            )
    clustered = curve(rows).slope_ci
    for i, row in enumerate(rows):
        row.cluster = f"row{i}"
    alone = curve(rows).slope_ci
    assert clustered.high - clustered.low > 2 * (alone.high - alone.low)


def test_the_board_shows_the_slope_once_a_row_has_it_and_the_missing_marker_elsewhere(tmp_path):
    from swapbench.leaderboard.markdown import render_csv, render_readme
    from swapbench.leaderboard.reference import load_reference
    from swapbench.leaderboard.store import Stored
    from swapbench.leaderboard.table import cell_text, interval_text, locality_key, make_board

    reference = load_reference(REPO / "leaderboard")
    older = Stored(path=tmp_path / "older.json", results=committed()[0], migrated=[])
    assert not [c for c in make_board([older], reference).columns if c.kind == "slope"]
    assert "locality_slope" not in render_csv(make_board([older], reference))

    newer = Stored(path=tmp_path / "newer.json", results=with_curves(), migrated=[])
    board = make_board([older, newer], reference)
    slopes = {c.config: c for c in board.columns if c.kind == "slope"}
    assert set(slopes) == {"shuffle-3", "shuffle-5"}
    by_file = {row.file: row for row in board.rows}
    shown = newer.results.results["shuffle-5"].locality
    assert by_file["newer.json"].values[locality_key("shuffle-5")] == shown.slope
    assert interval_text(by_file["newer.json"], slopes["shuffle-5"]).endswith(", gradient")
    assert interval_text(by_file["newer.json"], slopes["shuffle-3"]).endswith(", no gradient")
    assert cell_text(by_file["older.json"], slopes["shuffle-5"]) == ""
    assert interval_text(by_file["older.json"], slopes["shuffle-5"]) == ""
    readme = render_readme(board, reference)
    assert "**Locality slope** (`shuffle-3`, `shuffle-5`)" in readme and "no gradient" in readme
    assert "Locality slope" not in render_readme(make_board([older], reference), reference)
    header = render_csv(board).splitlines()[0].split(",")
    assert "locality_slope_shuffle_5_low" in header and "locality_slope_shuffle_4" not in header
