"""Models at chance are flagged by `swapbench eval`: the three checks on hand-made predictions."""

from __future__ import annotations

import math

import pytest

from swapbench.evaluation.health import model_health
from swapbench.results.schema import EpochLog, PredictionRow

GOLD = ["entailment", "neutral", "contradiction"] * 20  # majority-class rate 1/3


def rows(predictions: list[str], gold: list[str] = GOLD, configurations=("shuffle-3", "shuffle-random")):
    """The same pairs in every configuration, as eval lays them out: each original counted once."""
    return [PredictionRow(pair_id=f"p{i}", configuration=config, gold=g, gold_original=g, prediction_original=p,
                          prediction_perturbed=p, cluster=f"c{i // 3}", tags=[])
            for config in configurations for i, (g, p) in enumerate(zip(gold, predictions))]


class Tuning:  # the part of FineTuningInfo the check reads
    def __init__(self, *losses):
        self.history = [EpochLog(epoch=i + 1, train_loss=loss, validation_accuracy=0.4)
                        for i, loss in enumerate(losses)]


def test_a_model_well_above_the_majority_class_is_healthy():
    predictions = GOLD[:45] + ["neutral"] * 15  # 45 + 5 of 60 right: 83%
    health = model_health(rows(predictions), Tuning(0.9, 0.6), classes=3)
    assert not health.at_chance and health.reasons == []
    assert health.accuracy_original == pytest.approx(50 / 60)
    assert health.majority_rate == pytest.approx(1 / 3)
    assert health.min_train_loss == 0.6


def test_an_accuracy_within_the_margin_of_the_majority_class_is_flagged():
    predictions = GOLD[:24] + ["neutral", "contradiction", "entailment"] * 12  # 24 + 0 of 60 right: 40%
    health = model_health(rows(predictions), None, classes=3)
    assert health.at_chance
    assert health.reasons == ["original accuracy 40.0% is not above the majority-class rate 33.3% by 10 points"]
    assert health.checks == ["accuracy above majority", "predictions not collapsed"]  # no training to check


def test_predictions_collapsed_onto_one_class_are_flagged_unless_the_gold_labels_are_too():
    health = model_health(rows(["contradiction"] * 60), None, classes=3)
    assert "100.0% of the predictions on the original pairs are one class" in health.reasons
    # shuffle-sr alone: every original is an entailment pair, a model right on all of them is not collapsed.
    right = model_health(rows(["entailment"] * 60, gold=["entailment"] * 60, configurations=["shuffle-sr"]),
                         None, classes=3)
    assert not right.at_chance


def test_a_fine_tuning_loss_that_never_left_chance_is_flagged():
    predictions = GOLD[:54] + ["neutral"] * 6
    health = model_health(rows(predictions), Tuning(1.1000, 1.0955, 1.0940), classes=3)
    assert health.reasons == [f"the fine-tuning loss never left chance (lowest 1.094, chance ln 3 = "
                              f"{math.log(3):.3f})"]
    assert not model_health(rows(predictions), Tuning(1.10, 1.05), classes=3).at_chance
