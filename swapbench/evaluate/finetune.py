"""Fine-tuning a base model on SNLI with the reference recipe, cached so that a second eval reuses it.

The recipe (max length 128, AdamW, lr 2e-5, batch 32, 3 epochs, best epoch on validation) runs through the
transformers Trainer, so `torchrun` / `accelerate launch` spread it over several GPUs unchanged: the batch of 32
is split across the processes, only the main process writes the checkpoint.

The checkpoint is keyed by the base model and its revision, the recipe and the fingerprints of the training and
validation pairs; it is written to a staging folder and moved into place when complete.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..errors import SwapbenchError
from ..hub_access import cache_only
from ..labels import LABEL_NAMES
from ..output import atomic_directory, content_fingerprint
from ..snli import ENV_DIR, HUB_DATASET, Pair, SNLISplit, load_snli
from .models import load_config, model_revision
from .schema import EpochLog, FineTuningInfo, Recipe, TrainingData

INFO_FILE = "swapbench_finetune.json"
CACHE_FORMAT = 1  # bump when a change of this module makes old checkpoints unfit


def reference_recipe(**overrides) -> Recipe:
    settings = dict(max_length=128, optimizer="adamw_torch", learning_rate=2e-5, lr_scheduler="linear",
                    warmup_ratio=0.0, weight_decay=0.0, batch_size=32, epochs=3, seed=0,
                    best_by="validation accuracy, checked after every epoch")
    settings.update({k: v for k, v in overrides.items() if v is not None})
    return Recipe(**settings)


@dataclass
class DataChoice:
    train_source: str | None = None  # SNLI file, folder or Hub id; None: $SWAPBENCH_SNLI_DIR, then the Hub
    train_split: str = "train"
    train_limit: int | None = None
    val_source: str | None = None  # None: the training source
    val_split: str = "validation"
    val_limit: int | None = None
    val_holdout: int | None = None  # hold this many training pairs out as validation instead


@dataclass
class FineTuned:
    path: Path
    info: FineTuningInfo
    main_process: bool  # false on the other processes of a distributed run: they stop after training


def world_size() -> int:
    return int(os.environ.get("WORLD_SIZE", "1"))


def read_pairs(source: str | None, split: str, limit: int | None, option: str) -> SNLISplit:
    """load_snli, with an unreachable Hub copy of SNLI explained: what was read, and how to read local files."""
    try:
        return load_snli(source, split, limit)
    except ConnectionError as err:  # datasets' error for a Hub dataset it can neither download nor find cached
        chosen = source or os.environ.get(ENV_DIR) or f"{HUB_DATASET} (no {option} given and ${ENV_DIR} is unset)"
        raise SwapbenchError(f"cannot read SNLI's {split} split from the Hub: {chosen}: {err}. Point at local SNLI "
                             f"1.0 files with {option} path/to/snli_1.0 or ${ENV_DIR}") from err


def load_training_data(choice: DataChoice, seed: int) -> tuple[list[Pair], TrainingData, list[Pair], TrainingData]:
    train = read_pairs(choice.train_source, choice.train_split, choice.train_limit, "--train-source")
    train_pairs = train.pairs
    if choice.val_holdout:
        if choice.val_holdout >= len(train_pairs):
            raise SwapbenchError(f"--val-holdout {choice.val_holdout} leaves no training pairs "
                                 f"(the training data have {len(train_pairs)})")
        held = set(np.random.default_rng(seed).permutation(len(train_pairs))[:choice.val_holdout].tolist())
        val_pairs = [p for i, p in enumerate(train_pairs) if i in held]
        train_pairs = [p for i, p in enumerate(train_pairs) if i not in held]
        val_source, val_split, val_limit = train.source, train.split, None
    else:
        val = read_pairs(choice.val_source or choice.train_source, choice.val_split, choice.val_limit, "--val-source")
        val_pairs, val_source, val_split, val_limit = val.pairs, val.source, val.split, choice.val_limit
        overlap = {p.pair_id for p in val_pairs} & {p.pair_id for p in train_pairs}
        if overlap:
            raise SwapbenchError(f"the validation pairs ({val.source}, {val.split}) overlap the training pairs "
                                 f"({len(overlap)} shared pairIDs): give --val-source/--val-split, or "
                                 "--val-holdout N to hold pairs out of the training data")
    return (train_pairs, describe(train_pairs, train.source, train.split, choice.train_limit, held_out=False),
            val_pairs, describe(val_pairs, val_source, val_split, val_limit, held_out=bool(choice.val_holdout)))


def describe(pairs: list[Pair], source: str, split: str, limit: int | None, held_out: bool) -> TrainingData:
    fingerprint = content_fingerprint([p.pair_id for p in pairs], [p.premise for p in pairs],
                                      [p.hypothesis for p in pairs], [p.label for p in pairs])
    return TrainingData(source=source, split=split, fingerprint=fingerprint, n=len(pairs), limit=limit,
                        held_out=held_out)


def cache_key(base: str, revision: str | None, recipe: Recipe, train: TrainingData, val: TrainingData) -> str:
    identity = {"format": CACHE_FORMAT, "base": base, "revision": revision, "recipe": recipe.model_dump(),
                "train": train.fingerprint, "validation": val.fingerprint}
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


def checkpoint_folder(cache_dir: Path, base: str, key: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(base).name if Path(base).exists() else base.replace("/", "__"))
    return cache_dir / "finetuned" / f"{slug}-{key[:16]}"


def finetune(base: str, *, revision: str | None, recipe: Recipe, data: DataChoice, cache_dir: Path,
             device: torch.device, dtype: torch.dtype, progress: bool = True, log=print) -> FineTuned:
    """The cached fine-tuning of `base` for this recipe and data, training it first when there is none."""
    config = load_config(base, revision)
    base_revision = model_revision(base, config)
    try:
        train_pairs, train_info, val_pairs, val_info = load_training_data(data, recipe.seed)
    except SwapbenchError as err:
        raise SwapbenchError(f"{base} is fine-tuned on SNLI before it is scored (it is a base model, or --finetune "
                             f"was given), but its training data cannot be used: {err}") from err
    key = cache_key(base, base_revision, recipe, train_info, val_info)
    folder = checkpoint_folder(cache_dir, base, key)
    if (folder / INFO_FILE).is_file():
        info = FineTuningInfo.model_validate_json((folder / INFO_FILE).read_text(encoding="utf-8"))
        log(f"Reusing the fine-tuned checkpoint {folder}")
        return FineTuned(path=folder, info=info.model_copy(update={"reused": True}), main_process=is_main())

    log(f"Fine-tuning {base} on {train_info.n} pairs of {train_info.source} ({train_info.split}); "
        f"validation: {val_info.n} pairs; checkpoint: {folder}")
    started = time.perf_counter()
    trainer = make_trainer(base, revision, recipe, train_pairs, val_pairs, folder.with_name(f".{folder.name}.work"),
                           device, dtype, progress)
    trainer.train()
    history = epoch_history(trainer.state.log_history)
    best = max(history, key=lambda e: e.validation_accuracy)  # what load_best_model_at_end kept (first of ties)
    info = FineTuningInfo(base_model=base, base_revision=base_revision, recipe=recipe, train=train_info,
                          validation=val_info, best_epoch=best.epoch,
                          best_validation_accuracy=best.validation_accuracy, history=history, cache_key=key,
                          checkpoint=str(folder), reused=False, train_seconds=time.perf_counter() - started,
                          devices=world_size())
    if trainer.is_world_process_zero():
        with atomic_directory(folder) as staging:
            trainer.model.save_pretrained(staging)
            trainer.processing_class.save_pretrained(staging)
            (staging / INFO_FILE).write_text(info.model_dump_json(indent=2) + "\n", encoding="utf-8")
        shutil.rmtree(trainer.args.output_dir, ignore_errors=True)
    trainer.accelerator.wait_for_everyone()
    return FineTuned(path=folder, info=info, main_process=trainer.is_world_process_zero())


def is_main() -> bool:
    return int(os.environ.get("RANK", "0")) == 0


def make_trainer(base: str, revision: str | None, recipe: Recipe, train_pairs: list[Pair], val_pairs: list[Pair],
                 work: Path, device: torch.device, dtype: torch.dtype, progress: bool):
    from transformers import (AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding, Trainer,
                              TrainingArguments)

    processes = world_size()
    if recipe.batch_size % processes:
        raise SwapbenchError(f"--batch-size {recipe.batch_size} does not split evenly over {processes} processes")
    local = cache_only(base)
    tokenizer = AutoTokenizer.from_pretrained(base, revision=revision, local_files_only=local)
    id2label = dict(enumerate(LABEL_NAMES))

    def model_init():  # called by the Trainer after it has seeded, so the new head is initialised reproducibly
        return AutoModelForSequenceClassification.from_pretrained(
            base, revision=revision, num_labels=len(LABEL_NAMES), id2label=id2label,
            label2id={name: i for i, name in id2label.items()}, ignore_mismatched_sizes=True, dtype=torch.float32,
            local_files_only=local)

    on_gpu = device.type == "cuda"
    args = TrainingArguments(
        output_dir=str(work), num_train_epochs=recipe.epochs,
        learning_rate=recipe.learning_rate, optim=recipe.optimizer, lr_scheduler_type=recipe.lr_scheduler,
        warmup_steps=recipe.warmup_ratio, weight_decay=recipe.weight_decay,
        per_device_train_batch_size=recipe.batch_size // processes, per_device_eval_batch_size=64,
        eval_strategy="epoch", save_strategy="epoch", logging_strategy="epoch", load_best_model_at_end=True,
        metric_for_best_model="accuracy", greater_is_better=True, save_total_limit=1, save_only_model=True,
        seed=recipe.seed, data_seed=recipe.seed, report_to="none", disable_tqdm=not progress,
        use_cpu=device.type == "cpu", bf16=on_gpu and dtype == torch.bfloat16,
        fp16=on_gpu and dtype == torch.float16)
    return Trainer(model_init=model_init, args=args, processing_class=tokenizer,
                   data_collator=DataCollatorWithPadding(tokenizer),
                   train_dataset=encode_pairs(tokenizer, train_pairs, recipe.max_length),
                   eval_dataset=encode_pairs(tokenizer, val_pairs, recipe.max_length),
                   compute_metrics=accuracy_metrics)


def accuracy_metrics(prediction) -> dict:
    """The Trainer's compute_metrics: accuracy of the arg-max class."""
    return {"accuracy": float((prediction.predictions.argmax(-1) == prediction.label_ids).mean())}


def encode_pairs(tokenizer, pairs: list[Pair], max_length: int) -> list[dict]:
    """Tokenized pairs with their label index; the collator pads each batch."""
    encoded = tokenizer([p.premise for p in pairs], [p.hypothesis for p in pairs], truncation=True,
                        max_length=max_length)
    label_ids = {name: i for i, name in enumerate(LABEL_NAMES)}
    return [{**{key: values[i] for key, values in encoded.items()}, "labels": label_ids[p.label]}
            for i, p in enumerate(pairs)]


def epoch_history(log_history: list[dict]) -> list[EpochLog]:
    losses = {round(e["epoch"]): e["loss"] for e in log_history if "loss" in e}
    return [EpochLog(epoch=round(e["epoch"]), train_loss=losses.get(round(e["epoch"])),
                     validation_accuracy=e["eval_accuracy"]) for e in log_history if "eval_accuracy" in e]
