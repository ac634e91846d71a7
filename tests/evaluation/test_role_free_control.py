"""A role-free control beside every role figure (issue 44, item 2): the role score (share predicted non-entailment
after minus before) on the entailment pairs of a configuration that reorders words with no role swapped, so that a
reader sees how much of a role figure any reordering gives."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from rich.console import Console

from swapbench.evaluation.figures import configuration_result, role_free_controls
from swapbench.evaluation.report import role_table
from swapbench.results.schema import PredictionRow


def row(config: str, i: int, gold: str, before: str, after: str) -> PredictionRow:
    return PredictionRow(
        pair_id=f"{config}-{i}",
        configuration=config,
        gold=gold,
        gold_original=gold,
        prediction_original=before,
        prediction_perturbed=after,
        cluster=f"c{i // 2}",
        tags=[],
    )


def shuffled(config: str = "shuffle-random") -> list[PredictionRow]:
    """40 entailment pairs, 12 turned non-entailment by the reordering and 2 turned back; 20 neutral pairs that all
    turn contradiction, which the control must not count."""
    rows = [row(config, i, "entailment", "entailment", "neutral" if i < 12 else "entailment") for i in range(38)]
    rows += [row(config, 38 + i, "entailment", "contradiction", "entailment") for i in range(2)]
    return rows + [row(config, 40 + i, "neutral", "neutral", "contradiction") for i in range(20)]


def swapped() -> list[PredictionRow]:
    return [
        PredictionRow(
            pair_id=f"s{i}",
            configuration="shuffle-sr",
            gold="contradiction",
            gold_original="entailment",
            prediction_original="entailment",
            prediction_perturbed="neutral" if i % 2 else "entailment",
            cluster=f"c{i}",
            tags=[],
        )
        for i in range(30)
    ]


def test_the_control_is_the_role_score_of_the_reordered_entailment_pairs():
    rows = {"shuffle-sr": swapped(), "shuffle-random": shuffled(), "unlu": shuffled("unlu")[:40]}
    controls = role_free_controls(rows, {"shuffle-sr"}, seed=0, resamples=200)
    assert [c.configuration for c in controls] == ["shuffle-random", "unlu"]
    first = controls[0]
    assert first.n == 40 and first.non_entailment_original == pytest.approx(2 / 40)
    assert first.non_entailment_perturbed == pytest.approx(12 / 40) and first.value == pytest.approx(10 / 40)
    assert first.ci.low <= first.value <= first.ci.high and 0 < first.test.p_value < 1
    # the role configuration's own score, computed by the same function, on its own rows
    role = configuration_result(swapped(), label_view="3-way", non_entailment_view=True, seed=0, resamples=200)
    assert role.role_sensitivity.value == pytest.approx(15 / 30)


def test_no_control_without_a_role_configuration_or_a_reordering_one():
    assert role_free_controls({"shuffle-random": shuffled()}, {"shuffle-sr"}, seed=0, resamples=50) is None
    assert (
        role_free_controls(
            {"shuffle-sr": swapped(), "shuffle-3": shuffled("shuffle-3")}, {"shuffle-sr"}, seed=0, resamples=50
        )
        is None
    )


def test_the_terminal_shows_the_control_beside_the_role_figures():
    result = configuration_result(swapped(), label_view="3-way", non_entailment_view=True, seed=0, resamples=200)
    controls = role_free_controls(
        {"shuffle-sr": swapped(), "shuffle-random": shuffled()}, {"shuffle-sr"}, seed=0, resamples=200
    )
    results = SimpleNamespace(results={"shuffle-sr": result}, seed_variance=None, role_free_controls=controls)
    console = Console(width=120, record=True, file=io.StringIO(), color_system=None)
    console.print(role_table(results))
    text = console.export_text()
    line = next(line for line in text.splitlines() if "control: shuffle-random" in line)
    assert "+25.0" in line and " 40 " in line and "any reordering gives" in " ".join(text.split())
    assert next(line for line in text.splitlines() if "shuffle-sr " in line).split()[-1] == "-100.0"
