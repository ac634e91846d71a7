"""What a model that saw the hypotheses alone tells of each role configuration: the file `swapbench leak` writes
from a `swapbench eval --hypothesis-only` results file, and the dataset card reads.

A role configuration pairs each original hypothesis with its role swap. A model that never sees the premise can
tell the two apart only from the hypothesis itself (a thing now acting on a person, an implausible event): when it
predicts non-entailment more often on the swaps than on the originals, or less often, the hypotheses alone move
its answers, and the configuration leaks. Its measure is the same paired difference as role sensitivity: the share of
swapped hypotheses predicted non-entailment minus the share of originals, 0 for a model that cannot tell them apart.
The file holds figures and pair counts only, never a sentence of the source.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, ValidationError, model_validator

from ..core.errors import SwapbenchError
from ..core.strict import Strict
# The rule (the margin, the verdict) and the committed file's place, read from here too
from .leak_verdict import LEAKS, MARGIN, Verdict, verdict  # noqa: F401
from .schema import TOLERANCE, ConfidenceInterval, Recipe, TrainingData


class ConfigurationLeak(Strict):
    fingerprint: str = Field(description="content fingerprint of the configuration scored, as build_info.json "
                                         "records it")
    n: int = Field(ge=1, description="pairs: an original hypothesis and its swap")
    clusters: int = Field(ge=1, description="clusters the interval and the test resample: pairs sharing a premise")
    swapped_non_entailment: float = Field(ge=0, le=1, description="share of swapped pairs predicted non-entailment")
    original_non_entailment: float = Field(ge=0, le=1, description="share of original pairs predicted "
                                                                   "non-entailment")
    leak: float = Field(ge=-1, le=1, description="swapped_non_entailment - original_non_entailment: how well the "
                                                 "hypotheses alone tell swapped from original; 0 when they do not")
    leak_ci: ConfidenceInterval = Field(description="bootstrap interval of leak, resampled by cluster")
    p_value: float = Field(ge=0, le=1, description="clustered exact sign-flip test of the null that the model "
                                                   "cannot tell swapped from original hypotheses")
    verdict: Verdict = Field(description=f"leaks: the interval lies wholly beyond ±{MARGIN}; near chance: wholly "
                                         "within it; undecided otherwise")

    @model_validator(mode="after")
    def _consistent(self):
        if abs(self.leak - (self.swapped_non_entailment - self.original_non_entailment)) > TOLERANCE:
            raise ValueError("leak is not swapped_non_entailment - original_non_entailment")
        if self.verdict != verdict(self.leak_ci.low, self.leak_ci.high):
            raise ValueError(f"verdict {self.verdict!r} does not follow from the interval")
        return self


class HypothesisOnlyLeaks(Strict):
    model: str = Field(description="the base model fine-tuned on the hypotheses alone (Hub id, or a folder by its "
                                   "last parts)")
    base_revision: str | None = Field(description="its Hub commit, or sha256 of a local folder's files")
    recipe: Recipe = Field(description="the fine-tuning recipe, the premise removed from every input")
    train: TrainingData = Field(description="the training pairs")
    validation: TrainingData = Field(description="the pairs the best checkpoint was chosen on")
    validation_accuracy: float = Field(ge=0, le=1, description="3-way accuracy of the hypotheses alone on the "
                                                               "validation pairs (chance is about 1/3)")
    dataset: str = Field(description="the benchmark scored, as its results file names it")
    dataset_fingerprint: str = Field(description="its fingerprint")
    results_sha256: str = Field(description="sha256 of the results file the figures come from")
    eval_command: list[str] = Field(description="the `swapbench eval --hypothesis-only` command that scored it")
    command: list[str] = Field(description="the `swapbench leak` command that wrote this file")
    margin: float = Field(description="the distance from 0 within which a separation is not called a leak")
    configurations: dict[str, ConfigurationLeak] = Field(min_length=1, description="figures per role "
                                                                                   "configuration")


def read_leaks(path: Path = LEAKS) -> dict | None:
    """The recorded hypothesis-only figures, as plain data for the card; None when no file records them."""
    if not path.is_file():
        return None
    try:
        return HypothesisOnlyLeaks.model_validate_json(path.read_bytes()).model_dump(mode="json")
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(map(str, first["loc"])) or "the file"
        raise SwapbenchError(f"{path}: not a hypothesis-only record ({err.error_count()} problem(s); {where}: "
                             f"{first['msg']}); write it again with `swapbench leak`") from err
