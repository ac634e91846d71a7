"""Whether a model is degenerate, so that its figures are flagged, never ranked.

A model at chance loses no accuracy to a shuffle and gains a large Δ on shuffle-sr by predicting anything but
entailment, with narrow intervals and tiny p-values: nothing in the figures themselves gives it away. Three
checks do, on the distinct original pairs (each pair once, whatever configurations hold it):
- its accuracy is not above the majority-class rate by MARGIN;
- its predictions collapse onto one class (at least COLLAPSE of them) while the gold labels do not;
- its fine-tuning here never took the training loss clearly below chance, ln(number of classes).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from ..results.schema import EpochLog, FineTuningInfo, ModelHealth, PredictionRow

MARGIN = 0.10  # a real NLI model beats the majority class by far more; a near-chance run by less
COLLAPSE = 0.95
LOSS_SLACK = 0.02  # "never left chance": every epoch's loss within this of ln(classes)

ACCURACY_CHECK, COLLAPSE_CHECK, LOSS_CHECK = "accuracy above majority", "predictions not collapsed", "training loss"


def model_health(rows: Iterable[PredictionRow], fine_tuning: FineTuningInfo | None, classes: int) -> ModelHealth:
    originals = list({row.pair_id: row for row in rows}.values())
    n = len(originals)
    gold = Counter(r.gold_original for r in originals).most_common(1)[0][1] / n
    predicted = Counter(r.prediction_original for r in originals).most_common(1)[0][1] / n
    accuracy = sum(r.prediction_original == r.gold_original for r in originals) / n
    reasons = []
    # With (nearly) one gold label, as on shuffle-sr alone, no accuracy beats the majority class by the margin:
    # only the collapse and loss checks can tell.
    checks = [ACCURACY_CHECK] * (gold + MARGIN <= 1) + [COLLAPSE_CHECK] + [LOSS_CHECK] * (fine_tuning is not None)
    if ACCURACY_CHECK in checks and accuracy < gold + MARGIN:
        reasons.append(f"original accuracy {accuracy:.1%} is not above the majority-class rate {gold:.1%} by "
                       f"{100 * MARGIN:.0f} points")
    if predicted >= COLLAPSE > gold:
        reasons.append(f"{predicted:.1%} of the predictions on the original pairs are one class")
    loss_reason, min_loss = loss_at_chance(fine_tuning.history if fine_tuning else [], classes)
    reasons += loss_reason
    return ModelHealth(at_chance=bool(reasons), reasons=reasons,
                       checks=checks,
                       accuracy_original=accuracy, majority_rate=gold, top_prediction_share=predicted,
                       min_train_loss=min_loss)


def loss_at_chance(history: list[EpochLog] | list[dict], classes: int) -> tuple[list[str], float | None]:
    """The reason, if the training loss never left chance, and the lowest loss (None without one).

    Takes EpochLog objects or their dicts, so that a migration reads an older file with it."""
    losses = [e["train_loss"] if isinstance(e, dict) else e.train_loss for e in history]
    losses = [loss for loss in losses if loss is not None]
    if not losses:
        return [], None
    chance = math.log(classes)
    lowest = min(losses)
    if lowest > chance - LOSS_SLACK:
        return [f"the fine-tuning loss never left chance (lowest {lowest:.3f}, chance ln {classes} = "
                f"{chance:.3f})"], lowest
    return [], lowest
