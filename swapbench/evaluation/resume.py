"""Resumable fine-tuning: the training's state saved every so often into a partial folder beside its cache folder,
and taken up again by the next run of the same fine-tuning, after Ctrl-C, a crash or a lost machine.

The Trainer writes each state (checkpoint-N: the weights, the optimiser and scheduler, the RNG states, its own state
with the step and the logs) as it resumes from it; the epoch's batch order is redrawn from (seed, epoch) and the
batches already trained skipped, and KeepBest's best epoch so far is saved beside it. A state counts only once
RESUME_FILE names it: the record, with the sha256 of each of the state's files, the fine-tuning's cache key and the
libraries' versions, is renamed into place after the files are written, and only then are the older states removed.
So a run killed while it saves leaves the previous state in force, and a state whose files changed since (cut short,
edited), from another fine-tuning, or from other library versions is never resumed from: `resume_problem` says why,
and the caller sets the folder aside. Resumed, a fine-tuning in float32 on the CPU ends with the same weights, bit
for bit, as one that was not interrupted.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
import transformers
from transformers import TrainerCallback

from ..core.files import replace_files
from ..core.fingerprint import folder_sha256
from .sharding import world_size
from .trainer import KeepBest

RESUME_FILE = "swapbench_resume.json"
RESUME_FORMAT = 1
CHECKPOINT_PREFIX = "checkpoint-"  # the Trainer's name for a saved state, checkpoint-<step>
DEFAULT_MINUTES = 10.0  # a state saved at most this long ago: about a second of saving (a base model) in 10 min


@dataclass(frozen=True)
class CheckpointEvery:
    """How often the training's state is saved: after `steps` optimiser steps, after `minutes` of training, or
    whichever comes first; neither (both None): never, and the fine-tuning does not resume."""

    steps: int | None = None
    minutes: float | None = DEFAULT_MINUTES

    @property
    def enabled(self) -> bool:
        return bool(self.steps) or bool(self.minutes)


NEVER = CheckpointEvery(steps=None, minutes=None)


def partial_folder(folder: Path) -> Path:
    """Where the unfinished fine-tuning whose checkpoint goes to `folder` keeps its state (same cache key)."""
    return folder.with_name(f"{folder.name}.partial")


def library_versions() -> dict[str, str]:
    return {"torch": torch.__version__, "transformers": transformers.__version__}


@dataclass(frozen=True)
class ResumePoint:
    checkpoint: Path
    step: int
    max_steps: int


def resume_problem(partial: Path, key: str) -> tuple[ResumePoint | None, str | None]:
    """The state to resume the fine-tuning `key` from in `partial` (None when there is none), or why the folder's
    state must not be used (then the caller sets it aside)."""
    record_path = partial / RESUME_FILE
    if not record_path.is_file():
        # The Trainer's files without a record: a run stopped before its first save was complete.
        return None, None if not any(
            partial.glob(f"{CHECKPOINT_PREFIX}*")
        ) else f"it holds no {RESUME_FILE}: its states were never completely written"
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
        name, step, max_steps, recorded = (
            record["checkpoint"],
            int(record["step"]),
            int(record["max_steps"]),
            record["sha256"],
        )
        if record["format"] != RESUME_FORMAT or not isinstance(recorded, dict):
            raise ValueError
    except (OSError, ValueError, KeyError, TypeError):
        return None, f"its {RESUME_FILE} does not read"
    if record.get("cache_key") != key:
        return None, (
            f"it is the state of another fine-tuning (cache key {str(record.get('cache_key'))[:16]}..., "
            f"not {key[:16]}...: another base, recipe or data)"
        )
    if record.get("versions") != library_versions():
        return None, (
            f"it was saved by other library versions ({record.get('versions')}, these are "
            f"{library_versions()}): its optimiser and RNG states may not resume the same"
        )
    if record.get("processes") != world_size():
        return None, f"it was trained by {record.get('processes')} processes, this run has {world_size()}"
    checkpoint = partial / name
    try:
        found = folder_sha256(checkpoint) if checkpoint.is_dir() else {}
    except OSError as err:
        return None, f"its files cannot be read ({err.strerror}: {err.filename})"
    problems = [
        *(f"{name}/{file} is missing" for file in recorded if file not in found),
        *(
            f"{name}/{file} is not the file that was saved (another sha256: cut short or edited)"
            for file in recorded
            if file in found and found[file] != recorded[file]
        ),
    ]
    if problems:
        return None, "; ".join(problems)
    return ResumePoint(checkpoint=checkpoint, step=step, max_steps=max_steps), None


class PeriodicCheckpoints(TrainerCallback):
    """Saves the training's state every `every.steps` steps or `every.minutes` minutes, whichever comes first,
    into the Trainer's output folder (the partial folder), and records it (RESUME_FILE) once it is whole; with
    `keep_best`, its best epoch so far is saved with it and put back when the training resumes (`resuming`)."""

    def __init__(
        self,
        key: str,
        every: CheckpointEvery,
        keep_best: KeepBest | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.key, self.every, self.keep_best, self.clock = key, every, keep_best, clock
        self.resuming: Path | None = None
        self.last_step, self.last_time = 0, 0.0

    def on_train_begin(self, args, state, control, **kwargs):
        self.last_step, self.last_time = state.global_step, self.clock()
        if self.resuming is not None and self.keep_best is not None:
            self.keep_best.load_state(self.resuming)

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step >= state.max_steps:
            return  # the finished checkpoint is written next
        steps = self.every.steps and state.global_step - self.last_step >= self.every.steps
        minutes = self.every.minutes and self.clock() - self.last_time >= self.every.minutes * 60
        if steps or minutes:
            control.should_save = True

    def on_save(self, args, state, control, **kwargs):
        self.last_step, self.last_time = state.global_step, self.clock()
        if not state.is_world_process_zero:
            return
        output = Path(args.output_dir)
        name = f"{CHECKPOINT_PREFIX}{state.global_step}"
        if self.keep_best is not None:
            self.keep_best.save_state(output / name)
        record = {
            "format": RESUME_FORMAT,
            "cache_key": self.key,
            "checkpoint": name,
            "step": state.global_step,
            "max_steps": state.max_steps,
            "versions": library_versions(),
            "processes": world_size(),
            "sha256": folder_sha256(output / name),
        }
        replace_files({output / RESUME_FILE: json.dumps(record, indent=2) + "\n"})
        # Only now the older states go: the best epoch's checkpoint too when the Trainer keeps none.
        keep = {name, Path(state.best_model_checkpoint or "").name}
        for old in output.glob(f"{CHECKPOINT_PREFIX}*"):
            if old.name not in keep:
                shutil.rmtree(old, ignore_errors=True)
