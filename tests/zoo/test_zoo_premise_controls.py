"""The zoo earns its verdicts: each encoding against its premise-blind control, comparisons resampled from the pairs'
outcomes with the same premises drawn for both sides, and Holm over each report table's family; on constructed
predictions, no model trained."""

from __future__ import annotations

import pytest

from swapbench.evaluation.stats import holm
from swapbench.results.schema import PredictionRow
from swapbench.zoo.compare import (
    PREMISE_FAMILY,
    ROLE_TRAINING_FAMILY,
    comparisons,
    from_rows,
    outcomes_of,
    premise_test,
    reads_premise,
    references_family,
)

N = 240  # pairs, three per premise
SHUFFLE = "shuffle-random"
SEEDS = 3


def rows(right: set[int], changed: set[int] = frozenset()) -> list[PredictionRow]:
    """A shuffle's predictions on N entailment pairs: the original right on the pairs in `right`, the perturbed
    pair predicted as the original but on those in `changed`."""
    out = []
    for i in range(N):
        original = "entailment" if i in right else "contradiction"
        perturbed = ("neutral" if original == "entailment" else "entailment") if i in changed else original
        out.append(
            PredictionRow(
                pair_id=f"p{i:03d}",
                configuration=SHUFFLE,
                gold="entailment",
                gold_original="entailment",
                prediction_original=original,
                prediction_perturbed=perturbed,
                cluster=f"c{i // 3}",
                tags=[],
            )
        )
    return out


def seeds(*predictions) -> list[dict]:
    """One model's outcomes per seed, as outcomes_of gives them: (figure, configuration) -> Outcomes."""
    return [
        {(figure, SHUFFLE): from_rows(p, figure) for figure in ("changed", "delta", "accuracy")} for p in predictions
    ]


HALF = set(range(0, N, 2))  # right on half the originals, in every premise alike
MOST = set(range(N)) - set(range(0, N, 5))  # right on 80%


def test_an_encoding_whose_accuracy_equals_its_hypothesis_only_control_is_flagged_as_not_reading_the_premise():
    model = seeds(*[rows(HALF, changed={1, 4})] * SEEDS)
    control = seeds(*[rows(HALF)] * SEEDS)  # the same accuracy on the same originals, premise unseen
    reader = seeds(*[rows(MOST)] * SEEDS)
    found = comparisons(
        {("random", "none"): model, ("random", "alibi"): reader},
        SHUFFLE,
        None,
        controls={("random", "none"): control, ("random", "alibi"): control},
        resamples=500,
    )
    test = premise_test(found, "random", "none")
    assert test.family == PREMISE_FAMILY and test.alternative == "greater" and test.b.hypothesis_only
    assert test.difference == 0.0 and test.p_value == 1.0 and not reads_premise(found, "random", "none")
    # an encoding 30 points above its control on 80 premises reads the premise, after Holm over both controls
    assert premise_test(found, "random", "alibi").difference == pytest.approx(0.3)
    assert reads_premise(found, "random", "alibi")
    # no control: not shown to read the premise
    alone = comparisons({("random", "alibi"): reader}, SHUFFLE, None, resamples=200)
    assert premise_test(alone, "random", "alibi") is None and not reads_premise(alone, "random", "alibi")


def test_a_control_below_the_encoding_by_less_than_the_premises_vary_is_not_enough():
    # 2 pairs in 240 more right than the control: one-sided p well above 0.05
    model = seeds(*[rows(HALF | {1, 3})] * SEEDS)
    found = comparisons(
        {("random", "none"): model},
        SHUFFLE,
        None,
        controls={("random", "none"): seeds(*[rows(HALF)] * SEEDS)},
        resamples=1000,
    )
    test = premise_test(found, "random", "none")
    assert test.difference == pytest.approx(2 / N) and test.p_value > 0.05
    assert not reads_premise(found, "random", "none")


def test_two_encodings_with_the_same_predictions_differ_by_exactly_0_in_every_resample():
    # the same premises are drawn for both sides: a difference of 0 and an interval of [0, 0], whatever is drawn
    same = seeds(*[rows(HALF, changed=set(range(0, N, 7)))] * SEEDS)
    found = comparisons({("random", "none"): same, ("random", "alibi"): same}, SHUFFLE, None, resamples=500)
    [changed] = [c for c in found if c.figure == "changed"]
    assert (changed.difference, changed.low, changed.high, changed.p_value) == (0.0, 0.0, 0.0, 1.0)
    assert changed.paired and changed.family == references_family("random")


def test_comparisons_are_made_from_the_pairs_outcomes_or_not_at_all():
    from types import SimpleNamespace

    # a results file's counts without its pairs' outcomes give no comparison (they cannot pair the premises)
    results = SimpleNamespace(results={SHUFFLE: SimpleNamespace(non_entailment_rate=None)})
    assert outcomes_of(results, SimpleNamespace(outcomes=None), None) == {}
    none = [outcomes_of(results, SimpleNamespace(outcomes=None), None)] * SEEDS
    assert comparisons({("random", "none"): none, ("random", "alibi"): none}, SHUFFLE, None, resamples=100) == []


def test_holm_is_applied_within_each_report_tables_family():
    encodings = {
        name: seeds(*[rows(HALF, changed=set(range(0, N, step)))] * SEEDS)
        for name, step in (("none", N + 1), ("learned_absolute", 3), ("alibi", 5), ("rope", 40))
    }
    outcomes = {(setup, name): runs for setup in ("random", "random+role-swaps") for name, runs in encodings.items()}
    found = comparisons(outcomes, SHUFFLE, None, resamples=400)
    families = {c.family for c in found}
    # no role configuration: the role-swap training table has no cell, hence no family
    assert families == {references_family("random"), references_family("random+role-swaps")}
    assert ROLE_TRAINING_FAMILY not in families
    for family in families:
        members = [c for c in found if c.family == family]
        assert [c.p_holm for c in members] == holm([c.p_value for c in members])
    table = [c for c in found if c.family == references_family("random")]
    # five against the references, two cells each (changed and Δ on the shuffle): ten tests in the family
    assert len(table) == 10
    assert any(c.p_holm > c.p_value for c in table)  # adjusted, not copied
    assert all(c.p_holm >= c.p_value for c in found)


def test_the_report_names_the_encodings_not_reading_the_premise_and_interprets_none_of_their_comparisons():
    from types import SimpleNamespace

    from swapbench.zoo.report import NOT_READING, comparisons_table, premise_line

    model = seeds(*[rows(HALF, changed={1, 4})] * SEEDS)
    reader = seeds(*[rows(MOST, changed=set(range(0, N, 4)))] * SEEDS)
    control = seeds(*[rows(HALF)] * SEEDS)
    outcomes = {("random", "none"): model, ("random", "learned_absolute"): reader, ("random", "alibi"): reader}
    found = comparisons(outcomes, SHUFFLE, None, controls={key: control for key in outcomes}, resamples=500)
    summary = SimpleNamespace(
        comparisons=found,
        accuracy_configuration=SHUFFLE,
        relabelled=[],
        of=lambda setup: [SimpleNamespace(encoding=name) for name in ("none", "learned_absolute", "alibi")],
        premise_test=lambda setup, name: premise_test(found, setup, name),
        reads_premise=lambda setup, name: reads_premise(found, setup, name),
    )
    line = premise_line(summary, "random")
    assert "`none` does not beat its premise-blind control" in line
    assert "`alibi`" not in line and "`learned_absolute`" not in line
    rows_of = {line.split(" | ")[0].strip("| `"): line for line in comparisons_table(summary, "random").splitlines()}
    # every comparison with `none` is withheld; alibi against learned_absolute, both reading, is shown with p_Holm
    assert rows_of["alibi"].count(NOT_READING) == 2 and "p_Holm" in rows_of["alibi"]
    assert rows_of["learned_absolute"].count(NOT_READING) == 2
