"""The transformers Trainer as swapbench runs it, on transformers 4 and 5 alike (the keywords that differ come from
swapbench.core.compat).

- Progress: the Trainer's own tqdm bars (nested, written with cursor-up escapes) and its `{'loss': ...}` lines
  (printed to stdout) are replaced by one rich bar (on a terminal) or plain lines at intervals (in a log file), and
  readable log lines, all on stderr; the time the training takes is said from its first steps.
- transformers' own loading report is not printed (models.loading.library_quiet): swapbench judges and reports
  what a checkpoint lacks, and the Trainer calls `model_init` twice (once when it is made, once more when
  training starts, after seeding).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from transformers import Trainer, TrainerCallback
from transformers.trainer_callback import PrinterCallback, ProgressCallback

from ..core.progress import LINE_SECONDS, format_duration


class LengthGroupedOrder(torch.utils.data.Sampler):
    """The training pairs' order for one epoch, batches of like-length pairs in random order, so that a batch is
    padded to little more than its own pairs: the pairs are shuffled, cut into pools of `pool` batches, each pool
    sorted by length and cut into batches of `batch_size` (over all devices), and the batches shuffled. Everything
    is drawn from (seed, epoch): the same seed gives the same batches, run to run; every pair comes once an epoch.

    Unlike transformers' LengthGroupedSampler (whose batches come longest first within each pool, and whose
    keyword differs between transformers 4 and 5), no batch's place depends on its length. The few pairs that do
    not fill a batch, drawn at random, make the epoch's last batch, so that every other batch is whole and a
    DataLoader's batches (of `batch_size` / processes, each process taking its turn) keep to the groups."""

    def __init__(self, lengths: list[int], batch_size: int, seed: int, pool: int = 16):
        self.lengths, self.batch_size, self.seed, self.pool = np.asarray(lengths), batch_size, seed, pool
        self.epoch = 0

    def set_epoch(self, epoch: int) -> None:  # called by the Trainer (or accelerate) before each epoch
        self.epoch = epoch

    def __len__(self) -> int:
        return len(self.lengths)

    def __iter__(self):
        return iter(self.order().tolist())

    def order(self) -> np.ndarray:
        rng = np.random.default_rng([self.seed, self.epoch])
        shuffled = rng.permutation(len(self.lengths))
        rest = len(shuffled) % self.batch_size
        left, grouped = shuffled[:rest], shuffled[rest:]
        size = self.batch_size * self.pool
        batches = []
        for start in range(0, len(grouped), size):
            pool = grouped[start : start + size]
            pool = pool[np.argsort(-self.lengths[pool], kind="stable")]
            batches += [pool[i : i + self.batch_size] for i in range(0, len(pool), self.batch_size)]
        batches = [batches[i] for i in rng.permutation(len(batches))]
        return np.concatenate([*batches, left]).astype(np.int64)


KEEP_BEST_FILE = "swapbench_best_epoch.safetensors"  # KeepBest's state in a saved training state


class KeepBest(TrainerCallback):
    """The weights of the epoch with the best validation accuracy (the first of ties, as the Trainer's
    load_best_model_at_end keeps), copied in memory when it is evaluated and put back when the training ends: the
    same model as the Trainer's own save of every epoch and reload of the best, without the files. For a model
    whose weights each process holds whole (one process, or DDP); FSDP and DeepSpeed shard them, and keep the
    Trainer's checkpoints. A resumable training saves its best epoch so far with each state (`save_state`) and
    takes it up again when it resumes (`load_state`; evaluation.resume)."""

    def __init__(self, metric: str = "eval_accuracy"):
        self.metric, self.best, self.weights, self.best_is_last = metric, None, None, False

    def on_evaluate(self, args, state, control, metrics=None, model=None, **kwargs):
        value = (metrics or {}).get(self.metric)
        if value is None or model is None or (self.best is not None and value <= self.best):
            return
        self.best = value
        is_last = state.max_steps and state.global_step >= state.max_steps
        # The last epoch's weights are the model's own at the end: no copy needed.
        self.weights = (
            None
            if is_last
            else {name: tensor.detach().to("cpu", copy=True) for name, tensor in model.state_dict().items()}
        )
        self.best_is_last = bool(is_last)

    def on_train_end(self, args, state, control, model=None, **kwargs):
        if self.weights is not None and model is not None and not self.best_is_last:
            model.load_state_dict(self.weights)
        self.weights = None

    def save_state(self, folder: Path) -> None:
        """Write the best epoch so far into a saved state's `folder` (KEEP_BEST_FILE), for a resumed training."""
        from safetensors.torch import save_file

        metadata = {"best": json.dumps(self.best), "best_is_last": json.dumps(self.best_is_last)}
        save_file(
            {name: tensor.contiguous() for name, tensor in (self.weights or {}).items()},
            str(folder / KEEP_BEST_FILE),
            metadata=metadata,
        )

    def load_state(self, folder: Path) -> None:
        """Take up the best epoch so far that `save_state` wrote into `folder`."""
        from safetensors import safe_open

        with safe_open(str(folder / KEEP_BEST_FILE), framework="pt") as handle:
            metadata, names = handle.metadata(), handle.keys()
            weights = {name: handle.get_tensor(name) for name in names}
        self.best, self.best_is_last = json.loads(metadata["best"]), json.loads(metadata["best_is_last"])
        self.weights = weights or None


def optimisation_steps(pairs: int, batch_size: int, epochs: int) -> int:
    """The Trainer's optimiser steps for `pairs` examples in batches of `batch_size` (over all devices)."""
    return math.ceil(pairs / batch_size) * epochs


# Figures of the Trainer's logs, renamed for the log lines; the others (runtimes, FLOPs) are left out.
LOG_NAMES = {
    "loss": "loss",
    "eval_loss": "validation loss",
    "eval_accuracy": "validation accuracy",
    "learning_rate": "learning rate",
    "train_loss": "mean training loss",
}


def describe_log(logs: dict) -> str | None:
    """One line for a Trainer log, e.g. "epoch 1: loss 0.693, learning rate 1.33e-05"; None when it holds
    nothing worth showing."""
    parts = [
        f"{LOG_NAMES[key]} {value:.1%}" if key.endswith("accuracy") else f"{LOG_NAMES[key]} {value:.4g}"
        for key, value in logs.items()
        if key in LOG_NAMES and isinstance(value, (int, float))
    ]
    if not parts:
        return None
    epoch = logs.get("epoch")
    return (f"epoch {epoch:g}: " if isinstance(epoch, (int, float)) else "") + ", ".join(parts)


def format_rate(seconds_per_step: float) -> str:
    return f"{seconds_per_step:.2g} s a step" if seconds_per_step >= 1 else f"{1 / seconds_per_step:.3g} steps a second"


class LossTally:
    """The loss of each training batch since the tally was last read, summed where it was computed: reading it
    (a GPU sync) happens once per progress line, not once per step."""

    def __init__(self):
        self.total, self.batches = None, 0

    def add(self, loss) -> None:
        loss = loss.detach()
        self.total = loss if self.total is None else self.total + loss
        self.batches += 1

    def take(self) -> float | None:
        """The mean batch loss since the last take; None when no batch was trained since."""
        if not self.batches:
            return None
        mean = float(self.total) / self.batches
        self.total, self.batches = None, 0
        return mean


class LossKeepingTrainer(Trainer):
    """The Trainer, keeping each batch's loss for the progress lines (its own logs give one per epoch), and taking
    its training pairs in `train_order` when one is given (else the Trainer's random order)."""

    def __init__(self, *args, train_order: torch.utils.data.Sampler | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tally = LossTally()
        self.train_order = train_order

    def _get_train_sampler(self, *args, **kwargs):  # its parameters differ between transformers 4 and 5
        return self.train_order if self.train_order is not None else super()._get_train_sampler(*args, **kwargs)

    def training_step(self, *args, **kwargs):  # its parameters differ between transformers 4 and 5
        loss = super().training_step(*args, **kwargs)
        self.loss_tally.add(loss)
        return loss


# A progress line at most this often, in steps and in seconds both: every ~30 s on a GPU's fast steps, every 10
# steps (about 45 s for a base model) on a CPU's slow ones.
EVERY_STEPS = 10
EVERY_SECONDS = LINE_SECONDS


class TrainingProgress(TrainerCallback):
    """The training's progress on `console` (stderr): a rich bar on a terminal, else (a log file, --no-progress)
    a plain line every `every_steps` steps or `every_seconds` seconds, whichever is sparser, with the loss, the
    pace and the time left; the Trainer's logs (the epochs' losses and validation) as lines of their own."""

    def __init__(
        self,
        console: Console,
        bar: bool,
        description: str = "fine-tuning",
        tally: LossTally | None = None,
        every_steps: int | None = None,
        every_seconds: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.console, self.description, self.tally, self.clock = console, description, tally, clock
        self.use_bar = bar and console.is_terminal
        self.every_steps = EVERY_STEPS if every_steps is None else every_steps
        self.every_seconds = EVERY_SECONDS if every_seconds is None else every_seconds
        self.bar: Progress | None = None
        self.task = None
        self.started = self.last_time = 0.0
        self.last_step = 0

    def on_train_begin(self, args, state, control, **kwargs):
        self.started = self.last_time = self.clock()
        self.last_step = state.global_step
        if self.use_bar and state.is_world_process_zero:
            self.bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[loss]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=self.console,
            )
            self.bar.start()
            self.task = self.bar.add_task(self.description, total=state.max_steps, loss="")

    def on_step_end(self, args, state, control, **kwargs):
        if not state.is_world_process_zero:
            return
        now = self.clock()
        due = state.global_step - self.last_step >= self.every_steps and now - self.last_time >= self.every_seconds
        if self.bar is not None:
            loss = self.tally.take() if due and self.tally else None
            self.bar.update(
                self.task, completed=state.global_step, **({"loss": f"loss {loss:.4g}"} if loss is not None else {})
            )
        elif due:
            self.console.print(escape(self.describe_step(state, now)), highlight=False, soft_wrap=True)
        if due:
            self.last_step, self.last_time = state.global_step, now

    def describe_step(self, state, now: float) -> str:
        """e.g. "fine-tuning: step 120 of 51,504 (epoch 0.007), loss 1.099, 0.22 steps a second, 9 min so far,
        about 65 h 10 min left"."""
        step, total, elapsed = state.global_step, state.max_steps, now - self.started
        parts = [f"{self.description}: step {step:,} of {total:,} (epoch {state.epoch or 0:.3g})"]
        loss = self.tally.take() if self.tally else None
        if loss is not None:
            parts.append(f"loss {loss:.4g}")
        if step and elapsed > 0:
            per_step = elapsed / step  # validation passes included, as they recur
            parts += [format_rate(per_step), f"{format_duration(elapsed)} so far"]
            if step < total:
                parts.append(f"about {format_duration(per_step * (total - step))} left")
        return ", ".join(parts)

    def on_log(self, args, state, control, logs=None, **kwargs):
        line = describe_log(logs or {})
        if line and state.is_world_process_zero:
            (self.bar.console if self.bar is not None else self.console).print(escape(line), highlight=False)

    def on_train_end(self, args, state, control, **kwargs):
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


class TimeEstimate(TrainerCallback):
    """The training's time, said once from the pace of its first steps on the device it runs on: the first step
    (which warms the device up) is left out, then at least `first_steps` more are timed, until `min_seconds` have
    passed or `most_steps` were timed. `slow_hint(seconds_per_step)` says how to cut a run on a CPU that would
    take more than an hour."""

    def __init__(
        self,
        console: Console,
        device: str,
        on_cpu: bool,
        slow_hint: Callable[[float], str] | None = None,
        first_steps: int = 3,
        min_seconds: float = 10.0,
        most_steps: int = 10,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.console, self.device, self.on_cpu, self.slow_hint, self.clock = console, device, on_cpu, slow_hint, clock
        self.first_steps, self.min_seconds, self.most_steps = first_steps, min_seconds, most_steps
        self.began = self.start_time = 0.0
        self.start_step: int | None = None
        self.said = False

    def on_train_begin(self, args, state, control, **kwargs):
        self.began = self.clock()

    def on_step_end(self, args, state, control, **kwargs):
        if self.said or not state.is_world_process_zero:
            return
        now, step = self.clock(), state.global_step
        if self.start_step is None:
            self.start_step, self.start_time = step, now
            return
        timed, seconds = step - self.start_step, now - self.start_time
        if timed < self.first_steps or (seconds < self.min_seconds and timed < self.most_steps):
            return
        self.said = True
        if step >= state.max_steps:
            return  # trained already
        self.console.print(
            escape(self.estimate(seconds / timed, step, state.max_steps, now - self.began)),
            highlight=False,
            soft_wrap=True,
        )  # one line, as a log file is searched

    def estimate(self, per_step: float, step: int, steps: int, elapsed: float) -> str:
        total = elapsed + per_step * (steps - step)
        text = (
            f"About {steps:,} optimiser steps, measured {per_step:.3g} s/step on {self.device} (steps "
            f"{self.start_step + 1}-{step}): about {format_duration(total)} in all, the validation after each "
            "epoch not counted"
        )
        if self.on_cpu and total > 3600 and self.slow_hint:
            text += ". " + self.slow_hint(per_step)
        return text


def show_progress(
    trainer, console: Console, enabled: bool, description: str = "fine-tuning", estimate: TimeEstimate | None = None
) -> None:
    """Replace the Trainer's tqdm bars and printed logs by TrainingProgress, and add `estimate`."""
    trainer.remove_callback(ProgressCallback)
    trainer.remove_callback(PrinterCallback)
    trainer.add_callback(TrainingProgress(console, enabled, description, getattr(trainer, "loss_tally", None)))
    if estimate is not None:
        trainer.add_callback(estimate)
