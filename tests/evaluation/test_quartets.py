"""Pair and quartet accuracy from prediction rows (evaluation/quartets.py), on hand-made rows."""

from __future__ import annotations

import numpy as np
import pytest

from swapbench.evaluation.quartets import (
    CELLS,
    CHANCE,
    CI_METHOD,
    SEED_CI_METHOD,
    QuartetPrediction,
    quartet_figures,
    quartets_from_rows,
)
from swapbench.results.schema import PredictionRow

E, N = "entailment", "neutral"


def rows_of(pair_id: str, answers: dict[str, str], cluster: str = "c", seed: int | None = None) -> list[PredictionRow]:
    """The two rows of a quartet whose cells were answered `answers` (CELLS -> label)."""

    def row(tag, original, perturbed, row_cluster):
        return PredictionRow(
            pair_id=pair_id,
            configuration="role-quartets",
            gold="non-entailment",
            gold_original=E,
            prediction_original=answers[original],
            prediction_perturbed=answers[perturbed],
            cluster=row_cluster,
            tags=[tag, "source:x"],
            seed=seed,
        )

    return [row("cell:P'H", "PH", "P'H", cluster), row("cell:PH'", "P'H'", "PH'", cluster + "-primed")]


RIGHT = {"PH": E, "P'H'": E, "PH'": N, "P'H": "contradiction"}
ALL_ENTAILMENT = dict.fromkeys(CELLS, E)
WRONG = {"PH": N, "P'H'": N, "PH'": E, "P'H": E}


def rng():
    return np.random.default_rng(0)


def test_rows_make_quartets_keyed_by_pair_and_clustered_by_the_source_premise():
    rows = rows_of("a", RIGHT, "p1") + rows_of("b", WRONG, "p2")
    quartets = quartets_from_rows(rows)
    assert [(q.pair_id, q.cluster) for q in quartets] == [("a", "p1"), ("b", "p2")]
    assert quartets[0].predicted == (E, E, N, "contradiction") and all(quartets[0].correct)
    assert not any(quartets[1].correct)
    # a quartet cut in half (eval --limit) is left out
    assert [q.pair_id for q in quartets_from_rows(rows[:3])] == ["a"]
    with pytest.raises(ValueError, match="no cell tag"):
        quartets_from_rows([rows[0].model_copy(update={"tags": ["source:x"]})])
    with pytest.raises(ValueError, match="two rows"):
        quartets_from_rows([rows[0], rows[0]])


def test_pair_and_quartet_accuracy_with_their_chance_levels():
    quartets = quartets_from_rows(
        rows_of("a", RIGHT, "p1") + rows_of("b", ALL_ENTAILMENT, "p2") + rows_of("c", WRONG, "p3")
    )
    figures = quartet_figures(quartets, rng(), resamples=500)
    assert (figures.quartets, figures.clusters, figures.seeds) == (3, 3, 1)
    assert figures.pair_accuracy == pytest.approx(6 / 12) and figures.quartet_accuracy == pytest.approx(1 / 3)
    assert figures.cells == {"PH": 2 / 3, "P'H'": 2 / 3, "PH'": 1 / 3, "P'H": 1 / 3}
    assert figures.shuffle_sr == figures.cells["P'H"]
    assert figures.chance == CHANCE == {"pair_accuracy": 0.5, "quartet_accuracy": 0.0}
    for ci, value in (
        (figures.pair_accuracy_ci, figures.pair_accuracy),
        (figures.quartet_accuracy_ci, figures.quartet_accuracy),
    ):
        assert ci.low <= value <= ci.high and ci.method == CI_METHOD and ci.resamples == 500
    # a constant answer is right on the two entailed pairs of every quartet, and on no quartet whole
    constant = quartet_figures(
        quartets_from_rows(rows_of("a", ALL_ENTAILMENT) + rows_of("b", ALL_ENTAILMENT, "q")), rng(), resamples=100
    )
    assert (constant.pair_accuracy, constant.quartet_accuracy) == (0.5, 0.0)
    assert (constant.quartet_accuracy_ci.low, constant.quartet_accuracy_ci.high) == (0.0, 0.0)


def test_the_interval_is_clustered_by_premise():
    # ten quartets right and ten wrong: in twenty clusters the interval is narrower than in two
    answers = [RIGHT] * 10 + [WRONG] * 10
    apart = quartets_from_rows([r for i, a in enumerate(answers) for r in rows_of(f"q{i}", a, f"p{i}")])
    together = quartets_from_rows([r for i, a in enumerate(answers) for r in rows_of(f"q{i}", a, f"p{i // 10}")])
    wide, narrow = (quartet_figures(q, rng(), resamples=2000).quartet_accuracy_ci for q in (together, apart))
    assert wide.high - wide.low > narrow.high - narrow.low
    assert (wide.low, wide.high) == (0.0, 1.0)


def test_several_seeds_are_averaged_and_must_hold_the_same_quartets():
    rows = (
        rows_of("a", RIGHT, "p1", seed=1)
        + rows_of("b", WRONG, "p2", seed=1)
        + rows_of("a", RIGHT, "p1", seed=2)
        + rows_of("b", RIGHT, "p2", seed=2)
    )
    figures = quartet_figures(quartets_from_rows(rows), rng(), resamples=200)
    assert (figures.quartets, figures.seeds) == (2, 2)
    assert figures.quartet_accuracy == 0.75 and figures.pair_accuracy == 0.75
    assert figures.quartet_accuracy_ci.method == SEED_CI_METHOD
    with pytest.raises(ValueError, match="same quartets"):
        quartet_figures(quartets_from_rows(rows[:4] + rows_of("c", RIGHT, seed=2) + rows_of("a", RIGHT, seed=2)), rng())
    with pytest.raises(ValueError, match="no whole quartet"):
        quartet_figures([], rng())


def test_a_quartet_is_right_in_the_binary_view():
    assert QuartetPrediction("a", "c", (E, E, "contradiction", N)).correct == (True, True, True, True)
    assert QuartetPrediction("a", "c", (E, "non-entailment", N, E)).correct == (True, False, True, False)
