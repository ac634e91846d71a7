"""The transformers Trainer as swapbench runs it, on transformers 4 and 5 alike (the keywords that differ come from
swapbench.core.compat).

- Progress: the Trainer's own tqdm bars (nested, written with cursor-up escapes) and its `{'loss': ...}` lines
  (printed to stdout) are replaced by one rich bar and readable log lines, both on stderr.
- transformers' own loading report is not printed (models.loading.library_quiet): swapbench judges and reports
  what a checkpoint lacks, and the Trainer calls `model_init` twice (once when it is made, once more when
  training starts, after seeding).
"""

from __future__ import annotations

import math

from rich.console import Console
from rich.markup import escape
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)
from transformers import TrainerCallback
from transformers.trainer_callback import PrinterCallback, ProgressCallback


def optimisation_steps(pairs: int, batch_size: int, epochs: int) -> int:
    """The Trainer's optimiser steps for `pairs` examples in batches of `batch_size` (over all devices)."""
    return math.ceil(pairs / batch_size) * epochs


# Figures of the Trainer's logs, renamed for the log lines; the others (runtimes, FLOPs) are left out.
LOG_NAMES = {"loss": "loss", "eval_loss": "validation loss", "eval_accuracy": "validation accuracy",
             "learning_rate": "learning rate", "train_loss": "mean training loss"}


def describe_log(logs: dict) -> str | None:
    """One line for a Trainer log, e.g. "epoch 1: loss 0.693, learning rate 1.33e-05"; None when it holds
    nothing worth showing."""
    parts = [f"{LOG_NAMES[key]} {value:.1%}" if key.endswith("accuracy") else f"{LOG_NAMES[key]} {value:.4g}"
             for key, value in logs.items() if key in LOG_NAMES and isinstance(value, (int, float))]
    if not parts:
        return None
    epoch = logs.get("epoch")
    return (f"epoch {epoch:g}: " if isinstance(epoch, (int, float)) else "") + ", ".join(parts)


class RichProgress(TrainerCallback):
    """The training steps as one rich bar, and each log as a line above it, on `console` (stderr)."""

    def __init__(self, console: Console, enabled: bool, description: str = "fine-tuning"):
        self.console, self.enabled, self.description = console, enabled, description
        self.bar: Progress | None = None
        self.task = None

    def on_train_begin(self, args, state, control, **kwargs):
        if self.enabled and state.is_world_process_zero:
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), TimeRemainingColumn(), console=self.console)
            self.bar.start()
            self.task = self.bar.add_task(self.description, total=state.max_steps)

    def on_step_end(self, args, state, control, **kwargs):
        if self.bar is not None:
            self.bar.update(self.task, completed=state.global_step)

    def on_log(self, args, state, control, logs=None, **kwargs):
        line = describe_log(logs or {})
        if line and state.is_world_process_zero:
            (self.bar.console if self.bar is not None else self.console).print(escape(line), highlight=False)

    def on_train_end(self, args, state, control, **kwargs):
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def show_progress(trainer, console: Console, enabled: bool, description: str = "fine-tuning") -> None:
    """Replace the Trainer's tqdm bars and printed logs by RichProgress."""
    trainer.remove_callback(ProgressCallback)
    trainer.remove_callback(PrinterCallback)
    trainer.add_callback(RichProgress(console, enabled, description))
