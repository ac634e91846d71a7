"""Fine-tuning says how long it will take, from its first steps timed on the device, and shows its progress in a
log file: plain lines at intervals, with the loss, the pace and the time left."""

from __future__ import annotations

import io
import re

import pytest
import torch
from eval_models import save_base, write_training_file
from rich.console import Console
from transformers import TrainerControl, TrainerState, TrainingArguments

from swapbench.commands.main import main
from swapbench.evaluation import trainer as training
from swapbench.evaluation.finetune import cutting_hint, reference_recipe
from swapbench.evaluation.trainer import LossTally, TimeEstimate, TrainingProgress, format_duration


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def console(terminal: bool = False) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=400), out


def run_steps(callbacks, steps: int, max_steps: int, seconds_per_step: float, clock: Clock, tally=None, tmp_path=None):
    """The callbacks' hooks called as the Trainer calls them, `steps` steps of `seconds_per_step` each."""
    args = TrainingArguments(output_dir=str(tmp_path), report_to="none", use_cpu=True)
    state, control = TrainerState(max_steps=max_steps, global_step=0, epoch=0.0), TrainerControl()
    for callback in callbacks:
        callback.on_train_begin(args, state, control)
    for step in range(1, steps + 1):
        clock.now += seconds_per_step
        if tally is not None:
            tally.add(torch.tensor(0.5 + step / 100))
        state.global_step, state.epoch = step, step / 100
        for callback in callbacks:
            callback.on_step_end(args, state, control)


def test_durations_read_as_a_reader_plans():
    assert format_duration(40) == "40 s" and format_duration(14 * 60 + 10) == "14 min"
    assert format_duration(65.8 * 3600) == "65 h 48 min" and format_duration(3600 + 5 * 60) == "1 h 05 min"


def test_the_estimate_leaves_the_first_step_out_and_says_how_to_cut_hours_on_a_cpu(tmp_path):
    clock, (out_console, out) = Clock(), console()
    estimate = TimeEstimate(
        out_console,
        "the CPU (2 threads)",
        on_cpu=True,
        slow_hint=lambda per_step: cutting_hint(reference_recipe(), per_step),
        clock=clock,
    )
    run_steps([estimate], 3, 51_504, 4.6, clock, tmp_path=tmp_path)
    assert out.getvalue() == ""  # two steps timed after the first: not yet
    estimate = TimeEstimate(
        out_console,
        "the CPU (2 threads)",
        on_cpu=True,
        slow_hint=lambda per_step: cutting_hint(reference_recipe(), per_step),
        clock=clock,
    )
    run_steps([estimate], 10, 51_504, 4.6, clock, tmp_path=tmp_path)
    text = " ".join(out.getvalue().split())
    assert text.count("optimiser steps") == 1  # said once
    assert "About 51,504 optimiser steps, measured 4.6 s/step on the CPU (2 threads) (steps 2-4)" in text
    assert "about 65 h 49 min in all" in text
    assert "--train-limit N" in text and "(3 epochs of about 8,300 pairs take an hour here)" in text
    assert "--device cuda" in text and "already fine-tuned on SNLI" in text


def test_a_short_or_gpu_run_gets_no_hint(tmp_path):
    clock, (out_console, out) = Clock(), console()
    fast = TimeEstimate(out_console, "cuda:0 (NVIDIA H100)", on_cpu=False, slow_hint=lambda s: "HINT", clock=clock)
    run_steps([fast], 30, 51_504, 0.1, clock, tmp_path=tmp_path)  # 10 s timed: 10 steps are enough
    text = " ".join(out.getvalue().split())
    assert "measured 0.1 s/step on cuda:0 (NVIDIA H100) (steps 2-11): about 1 h 26 min in all" in text
    assert "HINT" not in text
    clock, (out_console, out) = Clock(), console()
    short = TimeEstimate(out_console, "the CPU", on_cpu=True, slow_hint=lambda s: "HINT", clock=clock)
    run_steps([short], 30, 300, 4.0, clock, tmp_path=tmp_path)
    assert "about 20 min in all" in out.getvalue() and "HINT" not in out.getvalue()


def test_plain_lines_come_at_the_sparser_of_the_step_and_time_intervals(tmp_path):
    clock, (out_console, out) = Clock(), console(terminal=False)
    tally = LossTally()
    progress = TrainingProgress(out_console, bar=True, tally=tally, every_steps=10, every_seconds=30, clock=clock)
    run_steps([progress], 100, 200, 2.0, clock, tally=tally, tmp_path=tmp_path)
    lines = out.getvalue().splitlines()
    # every 15 steps: 10 steps come first, 30 seconds later
    assert [line.split(",")[0] for line in lines] == [
        f"fine-tuning: step {s} of 200 (epoch {s / 100:g})" for s in range(15, 101, 15)
    ]
    assert lines[0] == (
        "fine-tuning: step 15 of 200 (epoch 0.15), loss 0.58, 2 s a step, 30 s so far, about 6 min left"
    )  # the mean of the batch losses 0.51 ... 0.65
    assert "loss 0.73," in lines[1]  # since the line before
    assert lines[-1].endswith("3 min so far, about 4 min left")
    fast = TrainingProgress(console()[0], bar=False, every_steps=10, every_seconds=30, clock=clock)
    fast.on_train_begin(None, TrainerState(), None)
    assert (
        fast.describe_step(TrainerState(max_steps=1000, global_step=500, epoch=1.0), clock.now + 10)
        == "fine-tuning: step 500 of 1,000 (epoch 1), 50 steps a second, 10 s so far, about 10 s left"
    )
    assert (
        fast.describe_step(TrainerState(max_steps=1000, global_step=1000, epoch=2.0), clock.now + 20)
        == "fine-tuning: step 1,000 of 1,000 (epoch 2), 50 steps a second, 20 s so far"
    )


def test_a_terminal_gets_the_bar_and_no_plain_lines(tmp_path):
    clock, (out_console, out) = Clock(), console(terminal=True)
    progress = TrainingProgress(out_console, bar=True, every_steps=1, every_seconds=0, clock=clock)
    run_steps([progress], 5, 10, 1.0, clock, tmp_path=tmp_path)
    progress.on_train_end(None, None, None)
    assert "fine-tuning" in out.getvalue() and "step 5 of" not in out.getvalue()


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3"])


def test_eval_in_a_log_file_times_the_training_warns_of_a_cut_split_and_logs_progress(
    dataset, tmp_path, capfd, monkeypatch
):
    """stderr captured (not a terminal), as `eval ... 2> log.txt` has it."""
    monkeypatch.setattr(training, "EVERY_SECONDS", 0.0)
    monkeypatch.setattr(training, "EVERY_STEPS", 5)
    base = save_base(tmp_path / "base")
    snli = tmp_path / "snli"
    write_training_file(snli / "snli_1.0_train.jsonl", "train")  # 48 pairs, SNLI's train by its name
    monkeypatch.setenv("SWAPBENCH_SNLI_DIR", str(snli))
    capfd.readouterr()
    rc = main(
        [
            "eval",
            str(base),
            "--data",
            str(dataset),
            "--output",
            str(tmp_path / "r.json"),
            "--no-probe",
            "--val-holdout",
            "8",
            "--epochs",
            "2",
            "--train-batch-size",
            "2",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--bootstrap",
            "200",
        ]
    )
    out, raw_err = capfd.readouterr()
    err = " ".join(raw_err.split())
    assert rc == 0, err
    assert "step" not in out and "warning" not in out  # stdout holds the results table alone
    announced = err.index("is scored after fine-tuning")
    assert "549,367" not in err[: err.index("warning")]  # no size claimed before the data are read
    warning = err.index("warning: the training data are not the whole split")
    assert "holds 48 labelled pairs, but SNLI 1.0's train split has 549,367" in err
    read = err.index("on 39 pairs of")  # 9 held out for validation
    estimate = err.index("About 40 optimiser steps, measured")
    first_epoch = err.index("epoch 1: loss")
    assert announced < warning < read < estimate < first_epoch
    assert re.search(r"measured [0-9.e-]+ s/step on the CPU \(\d+ threads?\) \(steps 2-\d+\): about ", err)
    lines = [line for line in raw_err.splitlines() if line.startswith("fine-tuning: step ")]
    assert [line.split(" (")[0] for line in lines[:3]] == [
        "fine-tuning: step 5 of 40",
        "fine-tuning: step 10 of 40",
        "fine-tuning: step 15 of 40",
    ]
    assert all(", loss " in line and " so far" in line for line in lines) and " left" in lines[0]
    assert not [line for line in raw_err.splitlines() if "fine-tuning" in line and "━" in line]  # no bar drawn at
    # the end of a log file
