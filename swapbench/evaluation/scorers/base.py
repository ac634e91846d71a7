"""What a scorer is: how `swapbench eval` gets a label for every distinct pair from a model (`--mode`).

A scoring mode is one module that subclasses `Scorer` and registers it in swapbench.core.registry.SCORERS under
the name `--mode` takes. The pipeline looks the scorer up and calls it in order, knowing no mode itself:

    check(options)                  refuse options that do not apply, before anything is read or loaded
    prepare(run)                    the model to score (loaded; fine-tuned first, ...) and what the results record
                                    of it: revision, training, the name it goes by
    score(run, prepared, pairs, …)  the output index predicted for every distinct pair, and the scoring's record
    reference_predictions(…)        in a dtype other than float32, the output index a float32 copy of the model
                                    predicts for a sample of the pairs (evaluation/agreement.py)

A scorer owns its options as a variant does: its class declares them (`Options`, a CommandOptions model), and
`swapbench eval`'s command line and `swapbench.evaluate`'s keywords take every registered scorer's
(evaluation/options.py: `eval_options_model`). Those that change nothing in another mode are in its
`refused_without`; every other mode refuses them, so a new mode's options need no edit anywhere else. This module
loads nothing heavy: the command line reads the registry to list the modes each time it is built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ...core.command_options import CommandOptions, flag_of
from ...core.errors import SwapbenchError
from ...core.registry import SCORERS
from ..agreement import NotMeasured

if TYPE_CHECKING:
    import torch
    from rich.console import Console

    from ...models.loading import LoadedModel
    from ...results.schema import FineTuningInfo, Mode, PromptInfo
    from ..data import Benchmark


@dataclass
class Run:
    """What every step of a scorer is given: the options, the benchmark read, where and how the model runs."""

    options: object  # the EvalOptions of this evaluation
    benchmark: Benchmark
    device: torch.device
    dtype: torch.dtype
    console: Console  # the progress bars' (stderr); messages are logged
    seed: int  # the fine-tuning's seed: one of options.fine_tuning_seeds, each prepared and scored in turn


@dataclass
class Prepared:
    """The model to score and what the results say about it."""

    loaded: LoadedModel
    revision: str | None  # model.revision: the Hub commit, or the sha256 of a local folder's files
    fine_tuning: FineTuningInfo | None = None  # its training: done in this run, or the checkpoint's own record
    train_seconds: float = 0.0  # provenance.timings.fine_tuning: seconds this run spent training it
    # Of train_seconds, those spent before evaluate() began (a zoo encoder is trained, then scored): they are
    # added to the total, which otherwise counts from the start of evaluate().
    earlier_seconds: float = 0.0
    name: str | None = None  # model.name_or_path; None: the model as given on the command line
    # What the scores cache keys the model by (see evaluation/score_cache.py): its revision, or a checkpoint
    # fine-tuned here by its training record; None: its scores are not cached.
    identity: str | None = None


@dataclass
class Scores:
    """The output index predicted for each distinct pair, and what the results record of the scoring."""

    predictions: Sequence[int]  # one per distinct pair, in their order
    truncated: int  # pairs cut to fit max_tokens
    batch_size: int  # the batch size in use at the end (0: nothing was run, the scores were cached)
    seconds: float
    max_tokens: int  # the length limit applied: provenance.scoring.max_length
    # How the warning about cut pairs goes on after "N of M distinct pairs are ...".
    truncation: str
    forwards: int | None = None  # forward passes run, when the scorer counts them
    prompt: PromptInfo | None = None  # the prompt, for a scorer of mode "prompted"
    pair_template: str | None = None  # how each pair was joined into one text, when not by the tokenizer's own template


class Scorer:
    """One scoring mode. Subclasses set `mode`, `Options` and `refused_without`, and implement `prepare` and `score`;
    the registered class is instantiated once per evaluation, with no arguments."""

    mode: ClassVar[Mode] = "fine-tuned"  # model.mode in the results: how the labels were read off the model
    # Its own options: every mode's are `swapbench eval`'s (a field named as one of eval's own is refused there).
    Options: ClassVar[type[CommandOptions]] = CommandOptions
    # The options (field names) that change nothing unless this mode scores: another mode refuses them when given.
    refused_without: ClassVar[tuple[str, ...]] = ()

    def check(self, options) -> None:
        """Refuse options this mode cannot honour; called before the data are read or the model loaded."""

    def prepare(self, run: Run) -> Prepared:
        """The model to score, on every process of a distributed run (each scores a shard of the pairs)."""
        raise NotImplementedError

    def score(
        self, run: Run, prepared: Prepared, pairs: list[tuple[str, str]], progress: Callable[[int], None]
    ) -> Scores:
        """Score every (premise, hypothesis) of `pairs`, calling `progress(n)` as n more are done."""
        raise NotImplementedError

    def reference_predictions(self, run: Run, prepared: Prepared, pairs: list[tuple[str, str]]) -> Sequence[int]:
        """The output index predicted for each of `pairs` (a sample of those scored) as `score` would predict it with
        the model in float32; called on the main process alone, after `score`, when run.dtype is not float32.
        NotMeasured says why it cannot be (the results record it)."""
        raise NotMeasured(f"--mode {self.mode} scores no float32 reference")


SCORERS.accepts(Scorer, "class")  # what its entries must be: core/registry.py checks each


def scorer_for(options, scorer: Scorer | None = None) -> Scorer:
    """The scorer of `options.mode` (or `scorer`, given by a caller that scores its own way, such as the zoo),
    once the options it does not take are refused."""
    scorer = scorer if scorer is not None else SCORERS.make(options.mode)
    fields = type(options).model_fields
    for entry in SCORERS:
        if isinstance(scorer, entry.value):
            continue
        foreign = [
            flag_of(key, fields[key])
            for key in entry.value.refused_without
            if key not in scorer.refused_without and getattr(options, key, None)
        ]
        if foreign:
            raise SwapbenchError(
                f"{listed(foreign)} {'is' if len(foreign) == 1 else 'are'} for --mode {entry.name}, "
                f"not --mode {options.mode}"
            )
    scorer.check(options)
    return scorer


def listed(flags: Sequence[str]) -> str:
    """ "--a", "--a and --b", "--a, --b and --c"."""
    return " and ".join([", ".join(flags[:-1]), flags[-1]] if len(flags) > 1 else flags)


def given(options, names) -> list[str]:
    """The flags of those of `names` that `options` hold other than at their default (a split compared by its
    canonical name: dev is validation), so that a scorer can refuse options it would not read."""
    from ...sources.options import canonical_split

    fields = type(options).model_fields
    flags = []
    for name in names:
        value, default = getattr(options, name), fields[name].default
        if isinstance(value, str) and isinstance(default, str):
            value, default = canonical_split(value), canonical_split(default)
        if value != default:
            flags.append(flag_of(name, fields[name]))
    return flags


def mode_help() -> str:
    """Every registered mode with its help, for the command line."""
    return SCORERS.help_text()
