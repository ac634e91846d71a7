"""What a model that saw the hypotheses alone tells of each role configuration: the file `swapbench leak` writes
from a `swapbench eval --hypothesis-only` results file, and the dataset card reads.

A role configuration pairs each original hypothesis with its role swap. A model that never sees the premise can
tell the two apart only from the hypothesis itself (a thing now acting on a person, an implausible event): when it
predicts non-entailment more often on the swaps than on the originals, or less often, the hypotheses alone move
its answers, and the configuration leaks. Its measure is the same paired difference as role sensitivity: the share of
swapped hypotheses predicted non-entailment minus the share of originals, 0 for a model that cannot tell them apart.
The file holds figures and pair counts only, never a sentence of the source.

Beside it, optionally, a plausibility baseline (`swapbench leak --plausibility MODEL`): a language model that scores
each row's two hypotheses alone, with no training and no premise, and predicts entailment for the more probable one
and non-entailment for the other. Where it prefers the original hypothesis more often than half the time, the swaps
can be told from their originals by plausibility alone. A row whose two pairs share their hypothesis (a premise
swap: role-quartets, shuffle-sr-premise's premise rows) gives it nothing to compare: both pairs get the same
answer, so the baseline is at chance there by construction and such rows are counted, never scored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError, model_validator

from ..core.errors import SwapbenchError
from ..core.strict import Strict

# The rule (the margin, the verdict) and the committed file's place, read from here too
from .leak_verdict import LEAKS, MARGIN, Verdict, check_verdict, verdict  # noqa: F401
from .schema import TOLERANCE, ConfidenceInterval, Recipe, TrainingData


class ConfigurationLeak(Strict):
    fingerprint: str = Field(
        description="content fingerprint of the configuration scored, as build_info.json records it"
    )
    n: int = Field(ge=1, description="pairs: an original hypothesis and its swap")
    clusters: int = Field(ge=1, description="clusters the interval and the test resample: pairs sharing a premise")
    swapped_non_entailment: float = Field(ge=0, le=1, description="share of swapped pairs predicted non-entailment")
    original_non_entailment: float = Field(ge=0, le=1, description="share of original pairs predicted non-entailment")
    leak: float = Field(
        ge=-1,
        le=1,
        description="swapped_non_entailment - original_non_entailment: how well the "
        "hypotheses alone tell swapped from original; 0 when they do not",
    )
    leak_ci: ConfidenceInterval = Field(description="bootstrap interval of leak, resampled by cluster")
    p_value: float = Field(
        ge=0,
        le=1,
        description="clustered exact sign-flip test of the null that the model "
        "cannot tell swapped from original hypotheses",
    )
    verdict: Verdict = Field(
        description=f"leaks: the interval lies wholly beyond ±{MARGIN}; near chance: wholly "
        "within it; undecided otherwise"
    )

    @model_validator(mode="after")
    def _consistent(self):
        if abs(self.leak - (self.swapped_non_entailment - self.original_non_entailment)) > TOLERANCE:
            raise ValueError("leak is not swapped_non_entailment - original_non_entailment")
        check_verdict(self.verdict, self.leak_ci.low, self.leak_ci.high)
        return self


class PlausibilityFigures(Strict):
    fingerprint: str = Field(
        description="content fingerprint of the configuration scored, as build_info.json records it"
    )
    n: int = Field(ge=1, description="rows: an original pair and a perturbed pair")
    identical: int = Field(
        ge=0,
        description="rows whose two hypotheses are the same text (a premise swap): "
        "nothing to compare, the baseline answers both pairs alike",
    )
    compared: int = Field(ge=0, description="rows whose two hypotheses differ: n - identical")
    clusters: int = Field(ge=0, description="clusters (rows sharing an original premise) among the compared rows")
    prefers_original: int = Field(
        ge=0, description="compared rows whose original hypothesis has the higher headline score"
    )
    prefers_perturbed: int = Field(
        ge=0,
        description="compared rows whose perturbed hypothesis has the higher headline score (the rest, if any, tie)",
    )
    prefers_original_other: int = Field(
        ge=0, description="the same count under the other score (sum if the headline is mean, mean if it is sum)"
    )
    share: float | None = Field(
        ge=0,
        le=1,
        description="prefers_original / compared: the baseline's pair accuracy "
        "on the compared rows, 0.5 at chance; null when no row "
        "is compared (not applicable: 0.5 by construction)",
    )
    share_ci: ConfidenceInterval | None = Field(
        description="bootstrap interval of share, resampled by cluster; null when no row is compared"
    )
    p_value: float = Field(
        ge=0, le=1, description="clustered exact sign-flip test of share = 0.5 (1 when no row is compared)"
    )
    binomial_p_value: float = Field(
        ge=0, le=1, description="exact two-sided binomial test of share = 0.5, the rows taken as independent"
    )
    leak: float = Field(
        ge=-1,
        le=1,
        description="over all n rows, as the classifier's leak: the share of perturbed "
        "pairs it calls non-entailment minus the share of originals, "
        "(prefers_original - prefers_perturbed) / n; 0 exactly "
        "when no row is compared",
    )
    leak_ci: ConfidenceInterval = Field(description="bootstrap interval of leak, resampled by cluster")
    verdict: Verdict = Field(
        description=f"leaks: the leak's interval lies wholly beyond ±{MARGIN}; near chance: "
        "wholly within it; undecided otherwise"
    )

    @model_validator(mode="after")
    def _consistent(self):
        if (
            self.compared != self.n - self.identical
            or max(self.prefers_original + self.prefers_perturbed, self.prefers_original_other) > self.compared
        ):
            raise ValueError("compared is not n - identical, or a count exceeds it")
        if (self.share is None) != (self.compared == 0) or (
            self.share is not None and abs(self.share - self.prefers_original / self.compared) > TOLERANCE
        ):
            raise ValueError("share is not prefers_original / compared (null exactly when nothing is compared)")
        if abs(self.leak - (self.prefers_original - self.prefers_perturbed) / self.n) > TOLERANCE:
            raise ValueError("leak is not (prefers_original - prefers_perturbed) / n")
        check_verdict(self.verdict, self.leak_ci.low, self.leak_ci.high)
        return self


class PlausibilityBaseline(Strict):
    model: str = Field(description="the language model (Hub id, or a folder by its last parts; its GGUF file named)")
    revision: str | None = Field(description="its Hub commit, or sha256 of a local folder's or GGUF file's weights")
    score: Literal["sum", "mean"] = Field(
        description="the headline score of a hypothesis: sum, its total log-probability; mean, per token"
    )
    text: str = Field(description="what is scored: the hypothesis as rendered, after which prefix")
    dataset: str = Field(description="the benchmark scored")
    dataset_fingerprint: str = Field(description="dataset_fingerprint() of the role configurations scored")
    command: list[str] = Field(description="the `swapbench leak` command that measured it")
    configurations: dict[str, PlausibilityFigures] = Field(min_length=1, description="figures per role configuration")


class HypothesisOnlyLeaks(Strict):
    model: str = Field(
        description="the base model fine-tuned on the hypotheses alone (Hub id, or a folder by its last parts)"
    )
    base_revision: str | None = Field(description="its Hub commit, or sha256 of a local folder's files")
    recipe: Recipe = Field(description="the fine-tuning recipe, the premise removed from every input")
    train: TrainingData = Field(description="the training pairs")
    validation: TrainingData = Field(description="the pairs the best checkpoint was chosen on")
    validation_accuracy: float = Field(
        ge=0, le=1, description="3-way accuracy of the hypotheses alone on the validation pairs (chance is about 1/3)"
    )
    dataset: str = Field(description="the benchmark scored, as its results file names it")
    dataset_fingerprint: str = Field(description="its fingerprint")
    results_sha256: str = Field(description="sha256 of the results file the figures come from")
    eval_command: list[str] = Field(description="the `swapbench eval --hypothesis-only` command that scored it")
    command: list[str] = Field(description="the `swapbench leak` command that wrote this file")
    margin: float = Field(description="the distance from 0 within which a separation is not called a leak")
    configurations: dict[str, ConfigurationLeak] = Field(min_length=1, description="figures per role configuration")
    plausibility: PlausibilityBaseline | None = Field(
        None, description="the plausibility baseline of the same configurations (`--plausibility`), if measured"
    )


def read_leaks(path: Path = LEAKS) -> dict | None:
    """The recorded hypothesis-only figures, as plain data for the card; None when no file records them."""
    if not path.is_file():
        return None
    try:
        return HypothesisOnlyLeaks.model_validate_json(path.read_bytes()).model_dump(mode="json")
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(map(str, first["loc"])) or "the file"
        raise SwapbenchError(
            f"{path}: not a hypothesis-only record ({err.error_count()} problem(s); {where}: "
            f"{first['msg']}); write it again with `swapbench leak`"
        ) from err
