"""A suite file: the models `swapbench suite` scores, each with its revision, mode, options and seeds.

    data: data/snli-test              # the dataset every model is scored on (default: data/snli-test)
    options: {no_probe: true}         # `swapbench eval` options of every model, as swapbench.evaluate's keywords
    models:
      - model: roberta-large-mnli     # Hub id, local folder, or .gguf file (or a folder and options: {gguf_file: NAME})
        revision: 130fb28e...         # Hub branch, tag or commit (default: the main branch)
        mode: classifier              # classifier (a base model is fine-tuned first), fine-tune, or prompt
        seeds: [0, 1]                 # one run each (fine-tuning, bootstrap and probe seed; default: [0])
        options: {eval_batch_size: 64}

Every model's options are checked as `swapbench eval` checks its own, when the file is read: a suite with one bad
entry is refused at once, naming the file and line, before any model runs. YAML anchors and aliases are refused
(core/declared.py): nested aliases would expand a few hundred bytes into billions of values. An error quotes at
most an excerpt of what it refuses (core/errors.py `excerpt`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import Field, field_validator, model_validator

from ..core.declared import line_of, read_declaration, refusal
from ..core.errors import SwapbenchError, excerpt
from ..core.options import seeds_problem
from ..core.strict import Strict
from ..evaluation.options import EvalOptions, eval_options_model
from ..evaluation.scorers import scorer_for

# What the suite sets itself for each run: the model, its revision, mode and seed from the entry, where the results
# go and how progress shows from the suite's own options.
SET_BY_SUITE = ("model", "revision", "mode", "finetune", "seed", "seeds", "data", "output", "progress", "command")

MODES = {
    "classifier": {"mode": "classifier"},
    "fine-tune": {"mode": "classifier", "finetune": True},
    "prompt": {"mode": "prompt"},
}


def _own_options(options: dict[str, Any]) -> dict[str, Any]:
    taken = sorted(set(options) & set(SET_BY_SUITE))
    if taken:
        raise ValueError(
            f"{', '.join(taken)} {'is' if len(taken) == 1 else 'are'} set by the suite (an entry's "
            "model, revision, mode and seeds; the suite's data), not among the options"
        )
    return options


class SuiteModel(Strict):
    """One model of the suite."""

    model: str = Field(
        min_length=1,
        description="Hub id, local folder, or .gguf file (a folder's or a Hub "
        "repository's GGUF file is also named by options.gguf_file)",
    )
    revision: str | None = Field(default=None, description="Hub branch, tag or commit; null: the main branch")
    mode: Literal["classifier", "fine-tune", "prompt"] = Field(
        default="classifier",
        description="classifier: a classification head scores the pairs, a base model "
        "fine-tuned on SNLI first; fine-tune: fine-tuned even when it is a "
        "classifier; prompt: a decoder scores each label's verbalizer",
    )
    seeds: list[int] = Field(default=[0], min_length=1, description="one run per seed")
    options: dict[str, Any] = Field(default_factory=dict, description="`swapbench eval` options, as keywords")

    @field_validator("options")
    @classmethod
    def _options(cls, value: dict[str, Any]) -> dict[str, Any]:
        return _own_options(value)

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, value: list[int]) -> list[int]:
        problem = seeds_problem(value)
        if problem:
            raise ValueError(problem)
        return value


class Suite(Strict):
    """A suite file."""

    data: str = Field(default="data/snli-test", description="dataset folder or Hub dataset id, for every model")
    options: dict[str, Any] = Field(default_factory=dict, description="`swapbench eval` options of every model")
    models: list[SuiteModel] = Field(min_length=1)

    @field_validator("options")
    @classmethod
    def _options(cls, value: dict[str, Any]) -> dict[str, Any]:
        return _own_options(value)

    @model_validator(mode="after")
    def _distinct(self):
        seen = set()
        for entry in self.models:
            for seed in entry.seeds:
                run = (entry.model, entry.options.get("gguf_file"), entry.revision, entry.mode, seed)
                if run in seen:
                    raise ValueError(f"{excerpt(entry.model)} ({entry.mode}, seed {seed}) is declared twice")
                seen.add(run)
        return self


class Run(NamedTuple):
    """One model at one seed: what the suite scores, as `swapbench eval` options."""

    label: str  # how the suite names it: "model (mode, seed N)"
    options: EvalOptions


def eval_options(
    suite: Suite, entry: SuiteModel, seed: int, *, progress: bool = True, command: list[str] | None = None
) -> EvalOptions:
    """The `swapbench eval` options of `entry` at `seed` (the results file's place is the suite's to choose)."""
    keywords = {
        **suite.options,
        **entry.options,
        "model": entry.model,
        "revision": entry.revision,
        **MODES[entry.mode],
        "seed": seed,
        "data": suite.data,
        "progress": progress,
        "command": command or [],
    }
    options = eval_options_model().from_keywords(**keywords)
    scorer_for(options)  # the options its mode refuses, refused now
    return options


def read_suite(path: Path, *, progress: bool = True, command: list[str] | None = None) -> list[Run]:
    """Every run of the suite file at `path`, in order; InputError naming the file and line of a declaration or
    of an entry's options that `swapbench eval` would refuse, every such entry listed."""
    suite, root = read_declaration(path, Suite)
    runs, problems = [], []
    for index, entry in enumerate(suite.models):
        for seed in entry.seeds:
            try:
                options = eval_options(suite, entry, seed, progress=progress, command=command)
            except SwapbenchError as err:  # every entry's, as a declaration's own problems are all listed
                where = ("models", index, "options") if entry.options else ("models", index)
                problem = f"models.{index} ({excerpt(entry.model)}): {excerpt(err, 1000)}"
                problems.append((line_of(root, where), problem))
                break  # its other seeds would say the same
            runs.append(Run(label=f"{entry.model} ({entry.mode}, seed {seed})", options=options))
    if problems:
        raise refusal(problems, path)
    return runs
