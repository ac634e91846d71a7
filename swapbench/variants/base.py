"""The interface of a perturbation: given a pair and its parse, a perturbed row or None when it does not apply."""

from __future__ import annotations

import _random
import hashlib
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import datasets

from ..parsing.base import Parse
from ..sources.pair import Pair


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
    def apply(self, pair: Pair, parse: Parse, rng: random.Random) -> Perturbed | None:
        """Perturb one pair, or return None when the variant does not apply to it."""

    def statistics(self) -> dict:
        """Figures for the dataset card, gathered over the last prepare/apply run (e.g. drop reasons)."""
        return {}


def example_rng(seed: int, pair_id: str, variant: str) -> random.Random:
    """A generator that depends only on the seed, the pair and the variant: order and parallelism do not matter.

    The standard library's Mersenne Twister: seeding one costs a few microseconds, where a numpy PCG64 cost the
    largest part of a ptb build's per-pair work, and each pair draws only a handful of numbers."""
    digest = hashlib.sha256(f"{seed}\x00{variant}\x00{pair_id}".encode()).digest()
    rng = _new_random(random.Random)
    _seed(rng, int.from_bytes(digest[:16], "little"))  # as random.Random(n) seeds it, without its Python layers
    rng.gauss_next = None
    return rng


_new_random = random.Random.__new__
_seed = _random.Random.seed


def shuffled(words: list[str], rng: random.Random, max_tries: int = 1000) -> list[int] | None:
    """A uniformly drawn order of `words` that reads differently, ignoring case, or None if none can.

    Case is ignored so that an uncased model never sees an unchanged sentence ("The the" -> "the The").
    Drawing until the sequence changes samples uniformly among the orders that change it; with two or more
    distinct words at least half of all orders do, so the loop ends fast.
    """
    items = [w.casefold() for w in words]
    if len(set(items)) < 2:
        return None
    getrandbits = rng.getrandbits
    for _ in range(max_tries):
        # random.shuffle's Fisher-Yates with its unbiased draws (_randbelow), written out: the same orders from
        # the same generator, without two calls a draw.
        order = list(range(len(items)))
        for i in range(len(order) - 1, 0, -1):
            bits = (i + 1).bit_length()
            j = getrandbits(bits)
            while j > i:
                j = getrandbits(bits)
            order[i], order[j] = order[j], order[i]
        if [items[k] for k in order] != items:
            return order
    return None
