"""The chance check cannot be switched off: a constant model, scored by `swapbench eval` on any subset of the
configurations, role configurations alone included, is flagged and refused by `swapbench submit`; and submit takes
only files that scored every configuration the board shows, every pair of each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from board_helpers import empty_board, make_results, save
from eval_models import save_classifier

from swapbench.commands.main import main
from swapbench.leaderboard.reference import reference_from_build, write_reference
from swapbench.results.schema import EvalResults

CONFIGS = ["shuffle-3", "shuffle-random", "shuffle-sr"]  # shuffle-sr: all originals entailment, swaps contradiction
HEALTH = "health: the model is at chance, its figures are no result to rank: "


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset) -> Path:
    return build_fixture_dataset(CONFIGS)


@pytest.fixture(scope="module")
def constant(tmp_path_factory) -> dict[str, Path]:
    """Classifiers whose zeroed head and biased output answer one label whatever the pair."""
    root = tmp_path_factory.mktemp("constant")
    return {
        "3-way": save_classifier(
            root / "three", {0: "entailment", 1: "neutral", 2: "contradiction"}, bias=[0.0, 0.0, 4.0]
        ),
        "binary": save_classifier(root / "binary", {0: "entailment", 1: "not_entailment"}, bias=[0.0, 4.0]),
    }


def problems_of(out: str) -> list[str]:
    return [line.strip()[2:] for line in out.splitlines() if line.strip().startswith("- ")]


@pytest.mark.parametrize("view", ["3-way", "binary"])
@pytest.mark.parametrize(
    "configs", [["shuffle-sr"], ["shuffle-3"], ["shuffle-random"], ["shuffle-3", "shuffle-sr"], CONFIGS], ids="+".join
)
def test_a_constant_model_is_refused_whatever_configurations_it_was_scored_on(
    configs, view, constant, dataset, tmp_path, capsys
):
    output = tmp_path / "constant.json"
    assert (
        main(
            [
                "eval",
                str(constant[view]),
                "--data",
                str(dataset),
                "--output",
                str(output),
                "--no-progress",
                "--no-probe",
                "--bootstrap",
                "200",
                "--configs",
                ",".join(configs),
            ]
        )
        == 0
    )
    health = EvalResults.model_validate_json(output.read_text()).health
    assert health.at_chance
    assert "predictions not collapsed" in health.checks  # never switched off, role configurations alone or not
    assert any("100.0% of the predictions scored" in reason for reason in health.reasons)
    role_only = configs == ["shuffle-sr"]
    assert (health.accuracy_original is None) is role_only
    said = " ".join(capsys.readouterr().out.split())
    assert ("Not checked: accuracy above chance: no configuration that keeps the source's labels" in said) is role_only
    if role_only:
        assert health.not_run[0].startswith("accuracy above chance: no configuration that keeps the source's labels")
    # The rate is the whole split's, read from shuffle-3 and shuffle-random whether or not they were scored.
    assert health.majority_from.startswith("the 7 distinct original pairs of shuffle-3, shuffle-random")

    board = tmp_path / "board"
    board.mkdir()
    write_reference(board, reference_from_build(dataset))
    assert main(["submit", str(output), "--board", str(board)]) == 1
    out = capsys.readouterr().out
    assert f"{output}: refused" in " ".join(out.split())
    problems = problems_of(out)
    assert any(p.startswith(HEALTH) for p in problems)
    missing = [c for c in CONFIGS if c not in configs]
    assert any(p.startswith(f"dataset.configurations: {', '.join(missing)} not scored") for p in problems) is bool(
        missing
    )


def test_submit_refuses_a_file_lacking_a_configuration_the_board_shows(tmp_path, capsys):
    board = empty_board(tmp_path / "board")
    path = save(make_results("org/model", skip=("shuffle-sr",)), tmp_path / "partial.json")
    assert main(["submit", str(path), "--board", str(board)]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert f"{path}: refused, 1 problem(s):" in out
    assert (
        "dataset.configurations: shuffle-sr not scored: the board shows every configuration of its reference "
        "dataset (shuffle-3, shuffle-4, shuffle-5, shuffle-random, shuffle-sr), so a file must score them all; "
        "leave out --configs"
    ) in out
    assert not (board / "results").exists()


def test_submit_refuses_a_file_scored_on_part_of_the_split(tmp_path, capsys):
    board = empty_board(tmp_path / "board")
    limited = make_results("org/model")
    limited["dataset"]["limit"] = 10
    fewer = make_results("org/other")
    fewer["dataset"]["configurations"][0]["rows"] -= 1  # a cut copy of the split
    for data, expected in [
        (
            limited,
            "dataset.limit: only the first 10 rows of each configuration were scored "
            "(--limit); the board takes full runs",
        ),
        (fewer, "dataset.configurations.0.rows: 89 rows; the reference shuffle-3 has 90"),
    ]:
        path = save(data, tmp_path / "submitted.json")
        assert main(["submit", str(path), "--board", str(board)]) == 1
        out = capsys.readouterr().out
        assert f"{path}: refused" in " ".join(out.split())
        assert expected in problems_of(out)


def test_eval_with_limit_is_refused_by_submit(constant, dataset, tmp_path, capsys):
    """--limit, end to end: the file says so and submit names it (beside the constant model's health)."""
    output = tmp_path / "limited.json"
    assert (
        main(
            [
                "eval",
                str(constant["3-way"]),
                "--data",
                str(dataset),
                "--output",
                str(output),
                "--no-progress",
                "--no-probe",
                "--bootstrap",
                "200",
                "--limit",
                "2",
            ]
        )
        == 0
    )
    assert json.loads(output.read_text())["dataset"]["limit"] == 2
    board = tmp_path / "board"
    board.mkdir()
    write_reference(board, reference_from_build(dataset))
    capsys.readouterr()
    assert main(["submit", str(output), "--board", str(board)]) == 1
    assert (
        "dataset.limit: only the first 2 rows of each configuration were scored (--limit); the board takes full runs"
    ) in problems_of(capsys.readouterr().out)
