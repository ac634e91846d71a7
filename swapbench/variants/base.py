"""The interface of a perturbation: given a pair and its parse, a perturbed row or None when it does not apply."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import datasets

from ..parsing.base import Parse
from ..sources.pair import Pair
from .randomness import ExampleRandom


@dataclass(slots=True)
class Perturbed:
    premise: str  # the perturbed premise (tokens joined by single spaces)
    hypothesis: str
    label: str  # the new gold label: unchanged for shuffles, contradiction for role swaps
    permutation: list[int]  # for premise shuffles, token k of `premise` is original token permutation[k]; else []
    tags: list[str]  # slice tags, HANS style: accuracy can be broken down by them
    extra: dict = field(default_factory=dict)  # the variant's own columns
    # The unperturbed pair in the same tokenization as the perturbed one; None: the premise parse's tokens
    # and the hypothesis as read.
    original_premise: str | None = None
    original_hypothesis: str | None = None


class Variant(ABC):
    name: str
    description: str
    spacy_pipeline: str | None = None  # the spaCy pipeline prepare() ran (pipeline_version), if any

    @property
    def extra_features(self) -> dict[str, datasets.Feature]:
        """The columns this variant adds to the common ones."""
        return {}

    def prepare(self, pairs: list[Pair], originals: dict[str, tuple[str, str]] | None = None) -> None:
        """Batch work over all pairs before `apply` is called on each (e.g. running a role labeler). `originals`:
        each pair's original (premise, hypothesis) as the build renders it (variants/originals.py), by pairID."""

    @abstractmethod
    def apply(self, pair: Pair, parse: Parse, rng: ExampleRandom) -> Perturbed | None:
        """Perturb one pair, or return None when the variant does not apply to it."""

    def statistics(self) -> dict:
        """Figures for the dataset card, gathered over the last prepare/apply run (e.g. drop reasons)."""
        return {}
