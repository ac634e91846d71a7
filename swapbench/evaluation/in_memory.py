"""A model handed to `swapbench.evaluate` as an object (a transformers PreTrainedModel in a notebook) rather than
by name.

It is saved with its tokenizer to a temporary folder, which is scored as any local folder is (loaded again from
there, so it briefly takes twice its memory), and recorded honestly: model.name_or_path is the name it was loaded
under (config._name_or_path, else its class's name), and model.revision is "in-memory:" followed by the sha256 of
the saved files, which identifies the weights scored but says nowhere where they can be found again. The
leaderboard refuses such results for that reason: save the model (save_pretrained) or push it to the Hub, and
evaluate that.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

from ..core.errors import SwapbenchError
from ..core.registry import SCORERS
from ..results.schema import IN_MEMORY
from .scorers import Prepared, Run, Scorer


def is_model_object(value) -> bool:
    """Whether `value` is a transformers model object (not a name)."""
    from transformers import PreTrainedModel

    return isinstance(value, PreTrainedModel)


def recorded_name(model) -> str:
    """The name an in-memory model is recorded under: the Hub id or folder it was loaded from, else its class."""
    return getattr(model.config, "_name_or_path", "") or type(model).__name__


def save(model, tokenizer, folder: Path) -> Path:
    """Write `model` and `tokenizer` to `folder`, as a local model folder that `swapbench eval` reads."""
    if tokenizer is None:
        raise SwapbenchError(
            f"an in-memory model ({type(model).__name__}) is scored with its tokenizer: pass "
            "tokenizer=... (the one it was loaded or trained with)"
        )
    if not hasattr(tokenizer, "save_pretrained"):
        raise SwapbenchError(f"tokenizer: expected a transformers tokenizer, not {type(tokenizer).__name__}")
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def temporary_folder() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="swapbench-in-memory-")


def in_memory_scorer(mode: str, folder: Path, name: str) -> Scorer:
    """The scorer of `mode`, scoring the model saved in `folder` and recording it as `name`, at revision
    in-memory:<sha256 of the saved files>; its messages name the model as `name`, not the temporary folder."""
    scorer_class = SCORERS.get(mode)

    class InMemory(scorer_class):
        def prepare(self, run: Run) -> Prepared | None:
            try:
                prepared = super().prepare(run)
            except SwapbenchError as err:
                raise SwapbenchError(str(err).replace(str(folder), f"{name} (in memory)")) from err
            if prepared is None:
                return None
            revision = IN_MEMORY + (prepared.revision or "")
            training = prepared.fine_tuning
            if training is not None and training.base_model == str(folder):
                training = training.model_copy(update={"base_model": name, "base_revision": revision})
            return replace(prepared, name=name, revision=revision, fine_tuning=training)

    InMemory.__name__ = f"InMemory{scorer_class.__name__}"
    return InMemory()
