"""A fine-tuning that learnt nothing is said so as soon as it ends, before any pair is scored, by the rules the
results' health check judges a scored model with (health.py): its loss never left ln 3, or its best validation
accuracy is not above the validation pairs' majority rate. --stop-at-chance stops there; one that learnt says
nothing."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from eval_models import SMALL, SUBJECTS, VERBS, save_tokenizer
from transformers import AutoModel, BertConfig

from swapbench.commands.main import main
from swapbench.evaluation.health import training_reasons
from swapbench.results.schema import EpochLog, EvalResults

# Each label has its own word in the hypothesis, so that a tiny encoder learns the labels in a few epochs.
# (Sentences written for this test; none occurs in SNLI.)
SIGNAL = {"entailment": "fast", "neutral": "tall", "contradiction": "sad"}


def write_learnable_pairs(path: Path) -> Path:
    """216 pairs over 72 premises, SNLI's format; the label is the hypothesis's own word."""
    pairs = [
        (f"Two {subject} {verb} near the city car.", f"Some {subject} near {word} water.", label)
        for subject in SUBJECTS
        for verb in VERBS
        for label, word in SIGNAL.items()
    ]
    rows = [
        {"gold_label": label, "pairID": f"learn{i}", "sentence1": premise, "sentence2": hypothesis}
        for i, (premise, hypothesis, label) in enumerate(pairs)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def save_learner(folder: Path) -> Path:
    """A tiny random base BERT initialised as BERT is (eval_models' range 0.5 makes random models disagree, and
    learns slowly)."""
    tokenizer = save_tokenizer(folder)
    config = BertConfig(vocab_size=len(tokenizer), pad_token_id=0, **{**SMALL, "initializer_range": 0.02})
    with torch.random.fork_rng():
        torch.manual_seed(0)
        AutoModel.from_config(config).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3"])


@pytest.fixture
def setup(tmp_path, dataset):
    base = save_learner(tmp_path / "base")
    train = write_learnable_pairs(tmp_path / "snli" / "snli_1.0_train.jsonl")
    return base, train, dataset, tmp_path / "cache"


def run_eval(setup, output: Path, lr: str, *extra) -> int:
    base, train, data, cache = setup
    return main(
        [
            "eval",
            str(base),
            "--data",
            str(data),
            "--output",
            str(output),
            "--no-progress",
            "--no-probe",
            "--train-source",
            str(train),
            "--val-holdout",
            "45",
            "--epochs",
            "8",
            "--train-batch-size",
            "16",
            "--lr",
            lr,
            "--cache-dir",
            str(cache),
            *extra,
        ]
    )


def said(capsys) -> str:
    return " ".join(capsys.readouterr().err.split())


def test_a_fine_tuning_that_cannot_learn_is_stopped_before_anything_is_scored(setup, tmp_path, capsys):
    output = tmp_path / "stopped.json"
    assert run_eval(setup, output, "1e-9", "--stop-at-chance") == 2
    text = said(capsys)
    assert "learnt nothing that shows" in text
    assert "the fine-tuning loss never left chance" in text
    assert "the best validation accuracy" in text and "majority-class rate of the validation pairs is 33.3%" in text
    assert "more training pairs (171 now, the whole split)" in text and "more epochs (--epochs, 8 now)" in text
    assert "a learning rate that works for this model (--lr, 1e-09 now" in text
    assert "Nothing was scored; the checkpoint stays cached" in text
    assert not output.exists()
    assert not list((setup[3]).rglob("*.sqlite*"))  # the scores cache was never opened

    # Without the flag, the same checkpoint (reused) is said so before it is scored, and scored all the same.
    assert run_eval(setup, output, "1e-9") == 0
    text = said(capsys)
    assert "Reusing the fine-tuned checkpoint" in text and "cached from the same fine-tuning: no training" in text
    # the first line says a cached checkpoint may be reused, not that the model is fine-tuned (issue 45, item 9)
    assert "is scored after fine-tuning" in text and "is reused instead of training" in text
    assert "is fine-tuned before" not in text and "Fine-tuning " not in text
    assert text.index("learnt nothing that shows") < text.index("Wrote ")
    assert "--stop-at-chance stops here instead" in text
    assert EvalResults.model_validate_json(output.read_text()).health.at_chance


def test_a_fine_tuning_that_learns_says_nothing(setup, tmp_path, capsys):
    output = tmp_path / "learnt.json"
    assert run_eval(setup, output, "5e-3", "--stop-at-chance") == 0
    assert "learnt nothing" not in said(capsys)
    tuning = EvalResults.model_validate_json(output.read_text()).model.fine_tuning
    assert min(e.train_loss for e in tuning.history) < math.log(3) - 0.1
    assert tuning.best_validation_accuracy > 0.8  # 100% here


def test_the_check_reads_the_loss_and_the_validation_accuracy_by_the_health_rules():
    labels = ["entailment"] * 20 + ["neutral"] * 15 + ["contradiction"] * 15  # majority 40%
    learnt = [
        EpochLog(epoch=1, train_loss=0.9, validation_accuracy=0.5),
        EpochLog(epoch=2, train_loss=0.5, validation_accuracy=0.9),
    ]
    assert training_reasons(learnt, 3, labels) == []
    flat = [EpochLog(epoch=1, train_loss=1.0980, validation_accuracy=0.9)]
    assert [r.split(" (")[0] for r in training_reasons(flat, 3, labels)] == ["the fine-tuning loss never left chance"]
    at_majority = [EpochLog(epoch=1, train_loss=0.6, validation_accuracy=0.42)]
    [reason] = training_reasons(at_majority, 3, labels)
    assert reason.startswith(
        "the best validation accuracy 42.0% on 50 pairs is not above chance: the majority-class "
        "rate of the validation pairs is 40.0%"
    )
    assert training_reasons(at_majority, 3, ["entailment"] * 50) == []  # one label: a constant answer is right
