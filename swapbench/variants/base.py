"""The interface of a perturbation: given a pair and its parse, a perturbed row or None when it does not apply.

A variant owns itself: besides `apply`, its class declares the options it takes (`Options`, a CommandOptions
model: the build's command line and API take them, and only this variant's `create` receives them), the columns and
slice tags it adds with what they mean, its sections of the dataset card, whether it needs the spaCy Docs of the
sentences, and what it records in the build record. The build, the card and the leaderboard ask the class; none
of them names a variant.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..core.command_options import CommandOptions
from ..core.registry import VARIANTS
from ..parsing.base import Parse
from ..sources.pair import Pair
from .randomness import ExampleRandom


@dataclass(slots=True)
class Perturbed:
    # The perturbed pair, each side tokens joined by single spaces (the build writes them as text: writing.py), or
    # a side as the source gave it where the variant leaves it as it was.
    premise: str
    hypothesis: str
    label: str  # the new gold label: unchanged for shuffles, contradiction for role swaps
    # For premise shuffles, token k of `premise` is token permutation[k] of the premise's parse; else [].
    permutation: list[int]
    tags: list[str]  # slice tags, HANS style: accuracy can be broken down by them
    extra: dict = field(default_factory=dict)  # the variant's own columns
    # The unperturbed pair in the same tokenization as the perturbed one; None: the premise parse's tokens
    # and the hypothesis as read.
    original_premise: str | None = None
    original_hypothesis: str | None = None
    # Set by a variant that writes its own original pair (shuffle-sr-reversible writes the entailed hypothesis from
    # a frame): then original_premise and original_hypothesis are that pair and this its label, in place of the
    # source pair's.
    original_label: str | None = None


if TYPE_CHECKING:  # datasets: only when a build writes (`swapbench build --help` imports the variants)
    import datasets

    from ..results.build_record import BuildInfo, ConfigInfo


class NoOptions(CommandOptions):
    """The options of a variant that takes none."""


class Variant(ABC):
    name: str
    description: str
    spacy_pipeline: str | None = None  # the spaCy pipeline prepare() ran (pipeline_version), if any
    options: CommandOptions | None = None  # its own options, as make_variant received them

    # The variant's own options. A field named as one of the build's own options (spacy_model) is not a new
    # option: the variant receives the build's value.
    Options: ClassVar[type[CommandOptions]] = NoOptions
    # Options that change nothing unless this variant is built: given to a build without it, they are refused.
    refused_without: ClassVar[tuple[str, ...]] = ()
    needs_docs: ClassVar[bool] = False  # prepare() reads the spaCy Docs of the sentences: the build keeps them
    column_descriptions: ClassVar[dict[str, str]] = {}  # what each of extra_features' columns holds, for the card
    # Slice tags by kind (the part before ":"): (the tag as the card shows it, what it means).
    tag_descriptions: ClassVar[dict[str, tuple[str, str]]] = {}
    card_limitations: ClassVar[tuple[str, ...]] = ()  # bullets of the card's Limitations when it is built
    usage: ClassVar[str | None] = None  # how error messages list the name, when it is a family (shuffle-N)
    # What the board's column headers add to the configuration's name, where the name alone would let two
    # unlike configurations pass for one (which side a role swap tries first); "" for none.
    board_note: ClassVar[str] = ""
    # The build record's fields (BuildInfo) that shape this configuration's rows, each with the word a column header
    # names it by: where the paper built its data with another value, the board's headers say both.
    paper_settings: ClassVar[dict[str, str]] = {}
    # The judged validity of the configuration's labels (a sample judged by hand): the card has a section for it,
    # which says validity was not measured while the file is absent. None: its labels are not judged.
    validity_file: ClassVar[Path | None] = None
    # Its pairs are made so that only the premise tells a swap from its original: a
    # hypothesis-only model must sit near chance on it, and the card says it fails its purpose when it does not.
    needs_premise: ClassVar[bool] = False
    # It makes several rows of a pair (unlu's K permutations): its rows are not its pairs, so the board never takes
    # its originals for the split's.
    several_rows_per_pair: ClassVar[bool] = False

    @classmethod
    def options_model(cls) -> type[CommandOptions]:
        """The options model, made when the command line or the API call is (a help may list a registry)."""
        return cls.Options

    @classmethod
    def create(cls, name: str, options: CommandOptions) -> Variant:
        """The variant `name` (a member of the family, for a pattern entry) from its own options."""
        return cls()

    @classmethod
    def check(cls, options: CommandOptions) -> None:
        """Refuse a bad value of its options before any work, whether or not the build makes this variant."""

    @classmethod
    def record(cls, options: CommandOptions, built: bool) -> dict[str, Any]:
        """Fields of the build record (BuildInfo) this variant sets; `built`: whether the build made it."""
        return {}

    @classmethod
    def card_notes(cls, info: BuildInfo) -> list[str]:
        """Bullets of the card's "How the data were built", when the build made this variant."""
        return []

    @classmethod
    def card_sections(cls, config: ConfigInfo, info: BuildInfo, validity: dict | None = None) -> dict[str, list[str]]:
        """The card's sections about one configuration of this variant, by title: the lines of configurations
        with the same title are gathered under one heading. `validity`: the judged validity of this
        configuration's labels, read from its validity_file where that exists."""
        return {}

    @property
    def extra_features(self) -> dict[str, datasets.Feature]:
        """The columns this variant adds to the common ones."""
        return {}

    def prepare(self, pairs: list[Pair], originals: dict[str, tuple[str, str]] | None = None) -> None:
        """Batch work over all pairs before `apply` is called on each (e.g. running a role labeler). `originals`:
        each pair's original (premise, hypothesis) as the build tokenizes it, tokens joined by single spaces
        (variants/originals.py), by pairID."""

    @abstractmethod
    def apply(self, pair: Pair, parse: Parse, rng: ExampleRandom) -> Perturbed | list[Perturbed] | None:
        """Perturb one pair, or return None when the variant does not apply to it; a variant that makes several
        rows of one pair (unlu's permutations) returns them in order, and a column of its own tells them apart."""

    def statistics(self) -> dict:
        """Figures for the dataset card, gathered over the last prepare/apply run (e.g. drop reasons)."""
        return {}


VARIANTS.accepts(Variant, "class or factory")  # what its entries must be: core/registry.py checks each
