"""Models at chance are flagged by `swapbench eval`: the three checks on hand-made predictions, judged against the
whole split's originals whatever configurations were scored."""

from __future__ import annotations

import math

import pytest

from swapbench.evaluation.health import model_health
from swapbench.results.schema import EpochLog, PredictionRow

GOLD = ["entailment", "neutral", "contradiction"] * 20  # majority-class rate 1/3
SPLIT = {f"p{i}": g for i, g in enumerate(GOLD)}  # the whole split's originals, scored or not
ROLE = ("shuffle-sr",)


def rows(
    predictions: list[str],
    gold: list[str] = GOLD,
    configurations=("shuffle-3", "shuffle-random"),
    perturbed: list[str] | None = None,
):
    """The same pairs in every configuration, as eval lays them out. A role configuration's originals are
    entailment pairs and its swaps contradiction."""
    out = []
    for config in configurations:
        role = config in ROLE
        for i, (g, p) in enumerate(zip(gold, predictions)):
            out.append(
                PredictionRow(
                    pair_id=f"p{i}",
                    configuration=config,
                    gold="contradiction" if role else g,
                    gold_original="entailment" if role else g,
                    prediction_original=p,
                    prediction_perturbed=(perturbed or predictions)[i],
                    cluster=f"c{i // 3}",
                    tags=[],
                )
            )
    return out


def health_of(scored_rows, fine_tuning=None, split=SPLIT, classes=3):
    keeping = sorted({r.configuration for r in scored_rows} - set(ROLE))
    return model_health(
        scored_rows, fine_tuning, classes, split_gold=split, split_from="test split", label_keeping=keeping
    )


class Tuning:  # the part of FineTuningInfo the check reads
    def __init__(self, *losses):
        self.history = [
            EpochLog(epoch=i + 1, train_loss=loss, validation_accuracy=0.4) for i, loss in enumerate(losses)
        ]


def test_a_model_well_above_the_majority_class_is_healthy():
    predictions = GOLD[:45] + ["neutral"] * 15  # 45 + 5 of 60 right: 83%
    health = health_of(rows(predictions), Tuning(0.9, 0.6))
    assert not health.at_chance and health.reasons == []
    assert health.accuracy_original == pytest.approx(50 / 60) and health.accuracy_pairs == 60
    assert health.majority_rate == pytest.approx(1 / 3) and health.majority_from == "test split"
    assert health.p_value < 1e-6
    assert health.min_train_loss == 0.6


def test_an_accuracy_not_clearly_above_the_majority_class_is_flagged():
    predictions = GOLD[:24] + ["neutral", "contradiction", "entailment"] * 12  # 24 + 0 of 60 right: 40%
    health = health_of(rows(predictions))
    assert health.at_chance
    [reason] = health.reasons
    assert reason.startswith(
        "original accuracy 40.0% on 60 pairs is not above chance: the majority-class rate of "
        "the whole split is 33.3%, and a binomial test against 40.0% gives p = "
    )
    assert health.checks == ["accuracy above chance", "predictions not collapsed"]  # no training to check


def test_the_majority_rate_is_the_whole_splits_not_that_of_the_originals_scored():
    """Role originals are all entailment: scored beside a shuffle they once raised the rate from 1/3 to over 1/2,
    and a model at 50% looked at chance. Against the split's own rate it is not."""
    split = {f"p{i}": g for i, g in enumerate(GOLD * 10)}  # 600 pairs, a third of each
    scored = {f"p{i}": g for i, g in list(split.items())[:300]}
    right = [g if i % 2 == 0 else "neutral" if g != "neutral" else "entailment" for i, g in enumerate(scored.values())]
    shuffle_rows = rows(right, gold=list(scored.values()), configurations=("shuffle-random",))
    role_rows = [
        PredictionRow(
            pair_id=f"r{i}",
            configuration="shuffle-sr",
            gold="contradiction",
            gold_original="entailment",
            prediction_original="neutral",
            prediction_perturbed="neutral",
            cluster=f"r{i}",
            tags=[],
        )
        for i in range(300)
    ]
    health = health_of(shuffle_rows + role_rows, split=split)
    assert health.accuracy_original == pytest.approx(0.5) and health.majority_rate == pytest.approx(1 / 3)
    assert not health.at_chance, health.reasons


@pytest.mark.parametrize(
    "configurations", [("shuffle-3", "shuffle-random"), ("shuffle-sr",), ("shuffle-3", "shuffle-sr")]
)
def test_a_constant_model_is_flagged_whatever_configurations_were_scored(configurations):
    health = health_of(rows(["contradiction"] * 60, configurations=configurations))
    assert health.at_chance
    assert "100.0% of the predictions scored (originals and perturbed pairs) are contradiction" in health.reasons[-1]


def test_without_a_label_keeping_configuration_the_accuracy_check_says_it_did_not_run():
    """A model that reads role swaps (entailment before, contradiction after) splits its answers: not collapsed,
    and the accuracy check is named as not run."""
    health = health_of(rows(["entailment"] * 60, configurations=ROLE, perturbed=["contradiction"] * 60))
    assert not health.at_chance
    assert health.checks == ["predictions not collapsed"]
    assert health.not_run[0].startswith("accuracy above chance: no configuration that keeps the source's labels")
    assert health.accuracy_original is None and health.majority_rate == pytest.approx(1 / 3)


def test_a_fine_tuning_loss_that_never_left_chance_is_flagged():
    predictions = GOLD[:54] + ["neutral"] * 6
    health = health_of(rows(predictions), Tuning(1.1000, 1.0955, 1.0940))
    assert health.reasons == [f"the fine-tuning loss never left chance (lowest 1.094, chance ln 3 = {math.log(3):.3f})"]
    assert not health_of(rows(predictions), Tuning(1.10, 1.05)).at_chance


def test_a_split_of_one_gold_label_leaves_the_accuracy_check_unrun_not_failed():
    gold = ["entailment"] * 60  # a constant answer is right on every original: no accuracy beats it
    split = {f"p{i}": g for i, g in enumerate(gold)}
    health = health_of(rows(gold, gold=gold), split=split)
    assert not health.at_chance and health.p_value is None
    assert [line.split(":")[0] for line in health.not_run] == ["accuracy above chance"]
