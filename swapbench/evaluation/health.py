"""Whether a model is degenerate, so that its figures are flagged, never ranked.

A model at chance loses no accuracy to a shuffle and gains a large Δ on a role swap by predicting anything but
entailment, with narrow intervals and tiny p-values: nothing in the figures themselves gives it away. Three
checks do, and none of them is switched off by the configurations scored (the accuracy check needs one that keeps
the source's labels, and says so when there is none):

- accuracy: a one-sided exact binomial test of the model's accuracy on the original pairs it scored of the
  configurations that keep the source's labels, against what a constant answer scores on the whole split. That
  rate is the majority class among every original of those configurations, scored or not (a role configuration's
  originals are selected entailment pairs: counting them would raise the rate towards 1 as they are scored). The
  null is the majority rate plus CHANCE_GAIN of the way from it to 1, not the rate itself: on thousands of pairs a model
  one point above a constant answer beats it "significantly" and still reads nothing, while a tenth of the gap (43%
  against SNLI's 34%, 91% against a 90% majority) asks for real evidence on any class balance. The level, CHANCE_LEVEL,
  is one-sided 0.01: a healthy model clears it by orders of magnitude, and a refusal costs a re-run, not a
  publication. When no label-keeping configuration was scored the test cannot run, and the record says so.
- collapse: at least COLLAPSE of every prediction scored, originals and perturbed pairs alike, is one class. A
  role configuration's originals are all entailment and its swaps non-entailment, so a model that reads them
  splits its answers; a constant one does not, whatever configurations it was scored on. Only gold labels that
  collapse as much (a source of one label) excuse it.
- loss: its fine-tuning here never took the training loss clearly below chance, ln(number of classes).

The same rules judge a fine-tuning as soon as it ends, before anything is scored (training_reasons): its loss
(the loss check) and its best validation accuracy against the validation pairs' majority rate (the accuracy check,
on the validation pairs): a model that learnt nothing is said so before the scoring spends minutes or hours on it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from ..results.schema import CHANCE_GAIN, CHANCE_LEVEL, EpochLog, FineTuningInfo, ModelHealth, PredictionRow

COLLAPSE = 0.95
LOSS_SLACK = 0.02  # "never left chance": every epoch's loss within this of ln(classes)

ACCURACY_CHECK, COLLAPSE_CHECK, LOSS_CHECK = "accuracy above chance", "predictions not collapsed", "training loss"


def chance_bar(majority_rate: float) -> float:
    """The accuracy the test must show the model above: the majority rate plus CHANCE_GAIN of the way to 1."""
    return majority_rate + CHANCE_GAIN * (1 - majority_rate)


def accuracy_test(correct: int, n: int, majority_rate: float) -> float:
    """One-sided exact binomial p-value of `correct` of `n` against chance_bar(majority_rate)."""
    from scipy.stats import binomtest

    return float(binomtest(correct, n, chance_bar(majority_rate), alternative="greater").pvalue)


def majority_rate(labels: Iterable[str]) -> float | None:
    """The share of the commonest label: what a constant answer scores; None without labels."""
    counts = Counter(labels)
    return counts.most_common(1)[0][1] / counts.total() if counts else None


def accuracy_reason(
    accuracy: float,
    n: int,
    majority_rate: float,
    p_value: float,
    *,
    what: str = "original accuracy",
    rate_of: str = "the whole split",
) -> list[str]:
    if p_value < CHANCE_LEVEL:
        return []
    return [
        f"{what} {accuracy:.1%} on {n:,} pairs is not above chance: the majority-class rate of "
        f"{rate_of} is {majority_rate:.1%}, and a binomial test against {chance_bar(majority_rate):.1%} gives "
        f"p = {p_value:.2g}, not below {CHANCE_LEVEL:g}"
    ]


def chance_reasons(
    *,
    accuracy: float | None,
    pairs: int | None,
    majority_rate: float | None,
    top_share: float | None,
    gold_share: float | None,
    min_train_loss: float | None,
    classes: int,
    top: str = "one label",
) -> tuple[list[str], float | None]:
    """The rule that makes a model at chance, from its health figures: why it is (no reason: it is not), and the
    accuracy test's p-value (None where that test cannot run). Eval judges its model with it, and the board judges a
    file's health block with it again, so that a file cannot say a model is healthy that its own figures say is not.

    A figure that is None leaves its check out: `accuracy`, `pairs` or `majority_rate` the accuracy check (also left
    out when every original has one gold label, majority_rate 1), `top_share` the collapse check, `min_train_loss`
    the loss check. `gold_share` is the share of the gold labels, originals and perturbed pairs, that are the top
    prediction `top`: a collapse as deep in the gold labels excuses the predictions'; None (a file does not record
    it) excuses nothing."""
    reasons, p_value = [], None
    if accuracy is not None and pairs and majority_rate is not None and majority_rate < 1:
        p_value = accuracy_test(round(accuracy * pairs), pairs, majority_rate)
        reasons += accuracy_reason(accuracy, pairs, majority_rate, p_value)
    if top_share is not None and top_share >= COLLAPSE > (gold_share or 0.0):
        gold = "" if gold_share is None else f", where {gold_share:.1%} of the gold labels are"
        reasons.append(f"{top_share:.1%} of the predictions scored (originals and perturbed pairs) are {top}{gold}")
    if min_train_loss is not None:
        reasons += loss_reason(min_train_loss, classes)
    return reasons, p_value


def model_health(
    rows: Iterable[PredictionRow],
    fine_tuning: FineTuningInfo | None,
    classes: int,
    *,
    split_gold: Mapping[str, str],
    split_from: str,
    label_keeping: Iterable[str],
) -> ModelHealth:
    """The health of a model from its prediction rows. `split_gold` is the gold label, in the rows' label view, of
    every original pair of the split in a configuration that keeps the source's labels (by pair id), scored or
    not; `split_from` says which configurations those were; `label_keeping` names the scored configurations that
    keep the source's labels."""
    rows = list(rows)
    keeping = set(label_keeping)
    originals = list({row.pair_id: row for row in rows if row.configuration in keeping}.values())
    checks, not_run = [], []
    majority = majority_rate(split_gold.values())
    accuracy = None
    if not originals:
        not_run.append(
            f"{ACCURACY_CHECK}: no configuration that keeps the source's labels was scored (a role "
            "configuration's originals are all entailment pairs, so accuracy on them says nothing "
            "against chance)"
        )
    elif majority is None:
        not_run.append(
            f"{ACCURACY_CHECK}: the data hold no original pair of a configuration that keeps the source's labels"
        )
    elif majority == 1:
        not_run.append(
            f"{ACCURACY_CHECK}: every original pair of the split has one gold label, which a constant answer gets right"
        )
    else:
        checks.append(ACCURACY_CHECK)
        accuracy = sum(r.prediction_original == r.gold_original for r in originals) / len(originals)
    predicted, gold = Counter(), Counter()
    for row in rows:
        predicted.update((row.prediction_original, row.prediction_perturbed))
        gold.update((row.gold_original, row.gold))
    total = sum(predicted.values())
    top, count = predicted.most_common(1)[0]
    checks.append(COLLAPSE_CHECK)
    if fine_tuning is not None:
        checks.append(LOSS_CHECK)
    _, min_loss = loss_at_chance(fine_tuning.history if fine_tuning else [], classes)
    reasons, p_value = chance_reasons(
        accuracy=accuracy,
        pairs=len(originals),
        majority_rate=majority,
        top_share=count / total,
        gold_share=gold[top] / total,
        min_train_loss=min_loss,
        classes=classes,
        top=top,
    )
    return ModelHealth(
        at_chance=bool(reasons),
        reasons=reasons,
        checks=checks,
        not_run=not_run,
        accuracy_original=accuracy,
        accuracy_pairs=len(originals) if originals else None,
        majority_rate=majority,
        majority_from=split_from if split_gold else None,
        p_value=p_value,
        top_prediction_share=count / total,
        min_train_loss=min_loss,
    )


def loss_at_chance(history: list[EpochLog] | list[dict], classes: int) -> tuple[list[str], float | None]:
    """The reason, if the training loss never left chance, and the lowest loss (None without one).

    Takes EpochLog objects or their dicts, so that a migration reads an older file with it."""
    losses = [e["train_loss"] if isinstance(e, dict) else e.train_loss for e in history]
    losses = [loss for loss in losses if loss is not None]
    if not losses:
        return [], None
    lowest = min(losses)
    return loss_reason(lowest, classes), lowest


def loss_reason(lowest: float, classes: int) -> list[str]:
    """The reason, if the lowest training loss never left chance, ln(classes)."""
    chance = math.log(classes)
    if lowest > chance - LOSS_SLACK:
        return [f"the fine-tuning loss never left chance (lowest {lowest:.3f}, chance ln {classes} = {chance:.3f})"]
    return []


def training_reasons(history: list[EpochLog], classes: int, validation_labels: Sequence[str]) -> list[str]:
    """Why a fine-tuning learnt nothing, by the rules above, judged as soon as it ends: its training loss never
    left chance (the loss check), or its best validation accuracy, the epoch kept, is not above chance against the
    validation pairs' majority rate (the accuracy check on the validation pairs, `validation_labels`). Empty: it
    learnt something."""
    reasons, _ = loss_at_chance(history, classes)
    accuracies = [epoch.validation_accuracy for epoch in history]
    majority, n = majority_rate(validation_labels), len(validation_labels)
    if accuracies and majority is not None and majority < 1:
        best = max(accuracies)
        reasons += accuracy_reason(
            best,
            n,
            majority,
            accuracy_test(round(best * n), n, majority),
            what="the best validation accuracy",
            rate_of="the validation pairs",
        )
    return reasons
