"""Resumable fine-tuning (issue 45, item 4): a fine-tune stopped by an exception inside the real Trainer at step k
resumes from its last saved state and ends with the same weights, bit for bit (CPU, float32), as one that was not
stopped; a partial state of another fine-tuning or with a damaged file is set aside with a warning, never used."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest
import torch
from eval_models import save_base, write_training_file
from rich.console import Console
from safetensors.torch import load_file
from transformers import TrainerCallback

from swapbench.core.logs import PlainFormatter
from swapbench.evaluation.finetune import DataChoice, finetune, reference_recipe
from swapbench.evaluation.resume import NEVER, RESUME_FILE, CheckpointEvery, PeriodicCheckpoints, partial_folder
from swapbench.evaluation.scored_data import ScoredPairs

CPU = torch.device("cpu")
NOTHING_SCORED = ScoredPairs(dataset="sha256:" + "0" * 64, path="scored", pair_ids=frozenset(), premises=frozenset())
# 39 training pairs in batches of 8: 5 steps an epoch, 15 in all; validation after each epoch (steps 5 and 10).
RECIPE = reference_recipe(
    learning_rate=1e-3, batch_size=8, epochs=3, max_length=32, precision="float32", batch_order="length-grouped"
)
EVERY_3 = CheckpointEvery(steps=3, minutes=None)


class LastStep(TrainerCallback):
    """The weights after the last optimiser step, before the best epoch's are put back."""

    def on_step_end(self, args, state, control, model=None, **kwargs):
        if state.global_step == state.max_steps:
            self.weights = {k: v.detach().clone() for k, v in model.state_dict().items()}


class Stop(Exception):
    pass


class StopAt(TrainerCallback):
    """Raises inside the Trainer's loop when step `step` ends: what Ctrl-C or a crash does to the training."""

    def __init__(self, step: int):
        self.step = step

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step == self.step:
            raise Stop(f"stopped at step {self.step}")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("resume")
    return save_base(root / "base"), write_training_file(root / "snli_1.0_train.jsonl", "train")


def tune(inputs, cache: Path, every=EVERY_3, callbacks=(), recipe=RECIPE, out: io.StringIO | None = None):
    """The fine-tuning, and what it said: its messages, logged (to a handler of the test's own on "swapbench", as
    a program that uses swapbench as a library attaches one), and its training's lines."""
    base, train = inputs
    out = out or io.StringIO()
    handler, logger = logging.StreamHandler(out), logging.getLogger("swapbench")
    handler.setFormatter(PlainFormatter("%(message)s"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        tuned = finetune(
            str(base),
            revision=None,
            recipe=recipe,
            scored=NOTHING_SCORED,
            cache_dir=cache,
            device=CPU,
            dtype=torch.float32,
            data=DataChoice(train_source=str(train), val_holdout=8),
            progress=False,
            console=Console(file=out, width=400),
            precision="float32",
            checkpoint_every=every,
            callbacks=callbacks,
        )
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    return tuned, out.getvalue()


def weights(tuned) -> dict[str, torch.Tensor]:
    return load_file(str(tuned.path / "model.safetensors"))


def same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def uninterrupted(inputs, tmp_path_factory):
    """The fine-tuning run through without a stop and without any saved state, and its last step's weights."""
    last = LastStep()
    tuned, _ = tune(inputs, tmp_path_factory.mktemp("whole"), every=NEVER, callbacks=[last])
    return tuned, last.weights


# Saved at 3 (mid-epoch 1), at 6 (with epoch 1's validation, the best, kept by KeepBest), at 12 (two validations).
@pytest.mark.parametrize("stop_at", [4, 8, 14])
def test_a_fine_tune_stopped_and_resumed_ends_with_the_same_weights(inputs, uninterrupted, tmp_path, stop_at):
    uninterrupted, last_step = uninterrupted
    stopped = io.StringIO()
    with pytest.raises(Stop):
        tune(inputs, tmp_path, callbacks=[StopAt(stop_at)], out=stopped)
    folder = Path(uninterrupted.path.name)
    partial = partial_folder(tmp_path / "finetuned" / folder)
    assert (partial / RESUME_FILE).is_file() and not (tmp_path / "finetuned" / folder).exists()
    saved = stop_at // 3 * 3
    assert f"its state at step {saved} of 15 is kept in" in stopped.getvalue()
    assert [p.name for p in partial.glob("checkpoint-*")] == [f"checkpoint-{saved}"]  # older states removed

    last = LastStep()
    resumed, said = tune(inputs, tmp_path, callbacks=[last])
    assert f"Resuming from step {saved} of 15" in said
    assert not partial.exists()  # the finished checkpoint replaces the partial state
    assert same(weights(resumed), weights(uninterrupted))  # the best epoch's, kept
    assert same(last.weights, last_step)  # and those of the last step
    info, whole = resumed.info, uninterrupted.info
    assert [e.validation_accuracy for e in info.history] == [e.validation_accuracy for e in whole.history]
    assert (info.best_epoch, info.cache_key) == (whole.best_epoch, whole.cache_key)
    # The losses logged: the epochs before the stop come from the saved state, those after it are the same; the
    # epoch that was resumed logs the mean over its steps trained since.
    resumed_epoch = saved // 5
    losses, whole_losses = [e.train_loss for e in info.history], [e.train_loss for e in whole.history]
    assert losses[:resumed_epoch] == whole_losses[:resumed_epoch]
    assert losses[resumed_epoch + 1 :] == whole_losses[resumed_epoch + 1 :]


def stopped_state(inputs, cache: Path) -> Path:
    with pytest.raises(Stop):
        tune(inputs, cache, callbacks=[StopAt(4)])
    return next((cache / "finetuned").glob("*.partial"))


def test_a_damaged_state_is_set_aside_with_a_warning(inputs, uninterrupted, tmp_path):
    uninterrupted, _ = uninterrupted
    partial = stopped_state(inputs, tmp_path)
    optimizer = partial / "checkpoint-3" / "optimizer.pt"
    optimizer.write_bytes(optimizer.read_bytes()[:-100])  # cut short
    tuned, said = tune(inputs, tmp_path)
    assert "warning:" in said and "is not resumed from" in said and "optimizer.pt is not the file" in said
    assert "Resuming" not in said
    assert len(list((tmp_path / "finetuned").glob("*.partial.damaged-*"))) == 1  # kept, not deleted
    assert same(weights(tuned), weights(uninterrupted))  # trained from step 0


def test_an_unreadable_record_is_set_aside(inputs, tmp_path):
    partial = stopped_state(inputs, tmp_path)
    (partial / RESUME_FILE).write_text("{not json", encoding="utf-8")
    _, said = tune(inputs, tmp_path)
    assert f"its {RESUME_FILE} does not read" in said and "Resuming" not in said


def test_the_state_of_another_recipe_is_not_resumed(inputs, tmp_path):
    import shutil

    partial = stopped_state(inputs, tmp_path)
    other = RECIPE.model_copy(update={"learning_rate": 5e-4})
    # The other recipe's partial folder holds this recipe's state (a copy, a prefix shared by two keys).
    tuned, _ = tune(inputs, tmp_path, recipe=other, every=NEVER)
    whole = weights(tuned)
    shutil.rmtree(tuned.path)
    partial.rename(partial_folder(tuned.path))
    again, said = tune(inputs, tmp_path, recipe=other)
    assert "is the state of another fine-tuning" in said and "Resuming" not in said
    assert same(weights(again), whole)  # trained from step 0


def test_a_state_is_saved_every_n_steps_or_minutes_whichever_comes_first():
    from transformers import TrainerControl, TrainerState

    now = [0.0]
    periodic = PeriodicCheckpoints("k", CheckpointEvery(steps=100, minutes=2), clock=lambda: now[0])
    state, saves = TrainerState(max_steps=1000), []
    periodic.on_train_begin(None, state, TrainerControl())
    for step in range(1, 1000):
        state.global_step, now[0] = step, step * 3.0  # 3 s a step: 2 minutes are 40 steps
        control = TrainerControl()
        periodic.on_step_end(None, state, control)
        if control.should_save:
            saves.append(step)
            periodic.last_step, periodic.last_time = step, now[0]  # as on_save sets them
    assert saves[:3] == [40, 80, 120]
    every_steps = PeriodicCheckpoints("k", CheckpointEvery(steps=100, minutes=None), clock=lambda: 0.0)
    control = TrainerControl()
    state.global_step = 100
    every_steps.on_step_end(None, state, control)
    assert control.should_save
    state.global_step = state.max_steps  # the finished checkpoint is written instead
    control = TrainerControl()
    every_steps.on_step_end(None, state, control)
    assert not control.should_save and not NEVER.enabled


def test_the_command_line_option_sets_the_interval():
    from swapbench.evaluation.scorers.classifier import checkpoint_every

    assert checkpoint_every(None) is None  # finetune's default, every 10 minutes
    assert checkpoint_every(0) == NEVER
    assert checkpoint_every(2.5) == CheckpointEvery(steps=None, minutes=2.5)
