"""Fine-tuning a base model on SNLI with the reference recipe, cached so that a second eval reuses it.

The recipe (max length 128, AdamW, lr 2e-5, batch 32, 3 epochs, best epoch on validation) runs through the
transformers Trainer, so `torchrun` / `accelerate launch` spread it over several GPUs unchanged: the batch of 32
is split across the processes, only the main process writes the checkpoint.

The checkpoint is keyed by the base model's revision (a Hub id with its commit; a local folder by the sha256 of its
files alone, so that a relative and an absolute path to it, or a copy of it, find the same checkpoint; a GGUF
file by its own sha256 and its name), the recipe and the fingerprints of the training and validation pairs; it is
written to a staging folder and moved into place when complete, a base read from a GGUF file saved as an ordinary
(safetensors) checkpoint, with the sha256 of each of its files (CONTENTS_FILE) beside its training record. Before
a cached checkpoint is reused its files are hashed again and opened: one whose record does not read, whose files
are not byte for byte those its training wrote (weights edited, or cut short by a full disk or a copy), or that
does not open is never served under its recorded revision. It is moved aside to <folder>.damaged-<time> (what the
user had is kept, never deleted) and the model trained again, with a warning saying why and where it went.

No pair that is scored may be trained or selected on: training and validation pairs that share a pairID or a
premise with the scored data are refused, whatever split they were read from, and --val-holdout holds out whole
premises (SNLI writes about three hypotheses per premise).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import partial
from itertools import count
from pathlib import Path

import numpy as np
import torch
from rich.console import Console

from ..core.compat import dtype_argument, rng_states_loadable
from ..core.destination import atomic_directory
from ..core.errors import SwapbenchError
from ..core.fingerprint import content_fingerprint, folder_sha256
from ..core.hub_access import cache_only
from ..core.labels import LABEL_NAMES
from ..core.text import slug
from ..models.gguf import as_dense, checkpoint_name, gguf_arguments
from ..models.loading import (
    check_positional_support,
    check_weights,
    is_head,
    library_quiet,
    load_config,
    model_revision,
    prepare_tokenizer,
    weight_problems,
)
from ..results.schema import (
    REFERENCE_RECIPE,
    DtypeAgreement,
    EpochLog,
    FineTuningInfo,
    OverlapCheck,
    Recipe,
    TrainingData,
)
from ..sources import HUB_PREFIX, Columns, Pair, SourceSplit, load_split
from .scored_data import ScoredPairs, image_id, overlap_key, premise_key
from .sharding import is_main, world_size

logger = logging.getLogger(__name__)

INFO_FILE = "swapbench_finetune.json"
CONTENTS_FILE = "swapbench_sha256.json"  # a cached checkpoint's files and the sha256 of each, as its training wrote
TRAINING_DTYPE = torch.float32  # the base's weights as they are trained (the master weights under autocast)
CACHE_FORMAT = 3  # bump when a change of this module makes old checkpoints unfit
# The values of the recipe's later settings that every checkpoint had before they were recorded: left out of the
# cache key, so that those checkpoints keep their keys.
FORMER_SETTINGS = {"batch_order": "random", "precision": "float32"}
FUSED_ADAMW = "adamw_torch_fused"


def reference_recipe(**overrides) -> Recipe:
    return Recipe(**{**REFERENCE_RECIPE.model_dump(), **{k: v for k, v in overrides.items() if v is not None}})


def fused_adamw_runs_on(device: torch.device) -> bool:
    """Whether torch's fused AdamW kernel runs on `device`: CUDA, and the CPU since torch 2.4."""
    if device.type == "cuda":
        return True
    major, minor = (int(part) for part in torch.__version__.split(".")[:2])
    return device.type == "cpu" and (major, minor) >= (2, 4)


def training_precision(device: torch.device, precision: str = "auto") -> str:
    """The fine-tuning's arithmetic on `device`: with "auto", bfloat16 autocast (float32 master weights) where the
    device runs bf16 fast (models.precision.fast_bfloat16: AMX, AVX512-BF16, CUDA), else float32. Not the scoring's
    dtype: one run prepares its model in several dtypes (the float32 agreement copy), and each must find the same
    checkpoint."""
    from ..models.precision import fast_bfloat16

    if precision != "auto":
        return precision
    return "bfloat16-autocast" if fast_bfloat16(device) else "float32"


def on_device(recipe: Recipe, device: torch.device, precision: str = "auto") -> Recipe:
    """`recipe` as it runs on `device`: its precision (training_precision: "auto", "float32" or
    "bfloat16-autocast"), and the single-tensor AdamW where the fused kernel does not run (the same update)."""
    optimizer = (
        "adamw_torch" if recipe.optimizer == FUSED_ADAMW and not fused_adamw_runs_on(device) else recipe.optimizer
    )
    return recipe.model_copy(update={"precision": training_precision(device, precision), "optimizer": optimizer})


@dataclass
class DataChoice:
    train_source: str | None = None  # see sources.loading; None: $SWAPBENCH_SNLI_DIR, then the SNLI 1.0 archive
    train_split: str = "train"
    train_limit: int | None = None
    val_source: str | None = None  # None: the training source
    val_split: str = "validation"
    val_limit: int | None = None
    val_holdout: int | None = None  # hold this many training pairs out as validation instead
    columns: Columns | None = None  # the columns of a hub:ORG/NAME source, training and validation alike


@dataclass
class FineTuned:
    path: Path
    info: FineTuningInfo


OVERLAP_METHOD = (
    "pairIDs, and premises (SNLI's text, case folded, runs of white space made one space), against "
    "every row of every configuration scored; the Flickr images they share (the pairID before '#') "
    "counted"
)


def shared_images(pairs: list[Pair], images: frozenset[str]) -> int:
    """How many distinct `images` the `pairs` were also written about."""
    return len({image_id(p.pair_id) for p in pairs} & images)


# SNLI's splits repeat a few caption texts across splits (dev and test share 3 premises); pairs with such a premise
# are set apart from training. A larger share, or any shared pairID, means the data are the scored data themselves.
INCIDENTAL_SHARE = 0.01


def separate_from_scored(
    train: list[Pair], train_info: TrainingData, val: list[Pair], val_info: TrainingData, scored: ScoredPairs
) -> tuple[list[Pair], TrainingData, list[Pair], TrainingData, OverlapCheck]:
    """The training and validation pairs without the few whose premise is also scored, and the record of the
    check; SwapbenchError when they share a pairID, or more than INCIDENTAL_SHARE of them a premise, with the
    scored pairs."""
    kept, infos, counts = {}, {}, {}
    for role, pairs, info in (("train", train, train_info), ("validation", val, val_info)):
        shared = refuse_scored(role, pairs, info.source, info.split, scored)
        kept[role] = [p for p in pairs if not scored.holds_premise(p.premise)] if shared else pairs
        infos[role] = describe(kept[role], info.source, info.split, info.limit, info.held_out) if shared else info
        counts.update(
            {
                f"{role}_shared_pair_ids": 0,
                f"{role}_shared_premises": 0,
                f"{role}_set_apart": len(shared),
                f"{role}_shared_images": shared_images(pairs, scored.images),
            }
        )
    check = OverlapCheck(scored_dataset=scored.dataset, method=OVERLAP_METHOD, **counts)
    return kept["train"], infos["train"], kept["validation"], infos["validation"], check


def refuse_scored(role: str, pairs: list[Pair], source: str, split: str, scored: ScoredPairs) -> list[Pair]:
    """The pairs of `role` ("train" or "validation") whose premise is also scored, a few (INCIDENTAL_SHARE) at
    most; SwapbenchError when they share a pairID with the scored pairs (they are the scored split itself) or more
    premises than that."""
    ids = sum(p.pair_id in scored.pair_ids for p in pairs)
    shared = [p for p in pairs if scored.holds_premise(p.premise)]
    if ids or len(shared) > INCIDENTAL_SHARE * len(pairs):
        what = "training" if role == "train" else "validation"
        # A shared pairID: these are the scored pairs themselves, not a few captions that recur across splits.
        scored_split = f"you are {'training' if role == 'train' else 'validating'} on the scored split: " if ids else ""
        raise SwapbenchError(
            f"{scored_split}the {what} pairs ({source}, {split}) overlap the scored data ({scored.path}): {ids:,} of "
            f"{len(pairs):,} share a pairID and {len(shared):,} a premise with a scored pair. Train and validate on "
            "pairs the benchmark does not score (for a build of SNLI's test split: --train-split train, "
            "--val-split dev)"
        )
    return shared


def load_training_data(
    choice: DataChoice, seed: int, warn: Callable[[str], None] | None = None, scored: ScoredPairs | None = None
) -> tuple[list[Pair], TrainingData, list[Pair], TrainingData]:
    """The training and validation pairs `choice` names; `warn` hears of a split read whole that holds fewer pairs
    than its source declares (a cut copy of the release). Training pairs that are `scored` pairs are refused as
    soon as they are read, before the validation pairs are compared with them: the scored split named for
    training is said to be that."""
    train = load_split(
        choice.train_source, choice.train_split, choice.train_limit, option="--train-source", columns=choice.columns
    )
    report_shortfall(train, "training", choice.train_limit, warn)
    if scored is not None:
        refuse_scored("train", train.pairs, train.source, train.split, scored)
    train_pairs = train.pairs
    if choice.val_holdout:
        train_pairs, val_pairs = hold_out_premises(train_pairs, choice.val_holdout, seed)
        val_source, val_split, val_limit = train.source, train.split, None
    else:
        val_text = choice.val_source or choice.train_source
        val = load_split(
            val_text,
            choice.val_split,
            choice.val_limit,
            option="--val-source",
            columns=choice.columns if str(val_text or "").startswith(HUB_PREFIX) else None,
        )
        report_shortfall(val, "validation", choice.val_limit, warn)
        val_pairs, val_source, val_split, val_limit = val.pairs, val.source, val.split, choice.val_limit
        shared_ids = {p.pair_id for p in val_pairs} & {p.pair_id for p in train_pairs}
        shared_premises = {overlap_key(p.premise) for p in val_pairs} & {overlap_key(p.premise) for p in train_pairs}
        if shared_ids or shared_premises:
            raise SwapbenchError(
                f"the validation pairs ({val.source}, {val.split}) overlap the training pairs "
                f"({len(shared_ids)} shared pairIDs, {len(shared_premises)} shared premises): give "
                "--val-source/--val-split, or --val-holdout N to hold premises out of the training "
                "data"
            )
    return (
        train_pairs,
        describe(train_pairs, train.source, train.split, choice.train_limit, held_out=False),
        val_pairs,
        describe(val_pairs, val_source, val_split, val_limit, held_out=bool(choice.val_holdout)),
    )


def report_shortfall(split: SourceSplit, role: str, limit: int | None, warn: Callable[[str], None] | None) -> None:
    problem = split.shortfall()
    if problem and warn:
        asked = f" (--{'train' if role == 'training' else 'val'}-limit {limit:,} asked for more)" if limit else ""
        warn(f"the {role} data are not the whole split: {problem}{asked}")


def hold_out_premises(pairs: list[Pair], wanted: int, seed: int) -> tuple[list[Pair], list[Pair]]:
    """(training, validation): whole premises, drawn with `seed`, held out until they hold at least `wanted`
    pairs, so that no validation pair shares its premise with a training pair."""
    premises = list(dict.fromkeys(premise_key(p.premise) for p in pairs))
    held, count = set(), 0
    sizes = Counter(premise_key(p.premise) for p in pairs)
    for index in np.random.default_rng(seed).permutation(len(premises)):
        if count >= wanted:
            break
        held.add(premises[index])
        count += sizes[premises[index]]
    train = [p for p in pairs if premise_key(p.premise) not in held]
    if not train:
        raise SwapbenchError(
            f"--val-holdout {wanted} leaves no training pairs (the training data have "
            f"{len(pairs)} pairs over {len(premises)} premises)"
        )
    return train, [p for p in pairs if premise_key(p.premise) in held]


def describe(pairs: list[Pair], source: str, split: str, limit: int | None, held_out: bool) -> TrainingData:
    fingerprint = content_fingerprint(
        {
            "pair_id": [p.pair_id for p in pairs],
            "premise": [p.premise for p in pairs],
            "hypothesis": [p.hypothesis for p in pairs],
            "label": [p.label for p in pairs],
        }
    )
    return TrainingData(
        source=source, split=split, fingerprint=fingerprint, n=len(pairs), limit=limit, held_out=held_out
    )


def cache_key(
    base: str,
    revision: str | None,
    recipe: Recipe,
    train: TrainingData,
    val: TrainingData,
    hypothesis_only: bool = False,
    joined_by: str | None = None,
    gguf_file: str | None = None,
) -> str:
    # A local folder is its files' content (its revision), wherever it lies and however its path is typed.
    model = {"revision": revision} if Path(base).is_dir() else {"base": base, "revision": revision}
    if gguf_file is not None:  # only then, as below: a Hub repository's commit holds every GGUF file it has
        model["gguf_file"] = gguf_file
    settings = {name: value for name, value in recipe.model_dump().items() if FORMER_SETTINGS.get(name, ...) != value}
    identity = {
        "format": CACHE_FORMAT,
        **model,
        "recipe": settings,
        "train": train.fingerprint,
        "validation": val.fingerprint,
    }
    if hypothesis_only:  # only then: the keys of the checkpoints trained on whole pairs stay what they were
        identity["inputs"] = "hypothesis only"
    elif joined_by is not None:  # a decoder's pair joined by a declared template; an encoder's key stays as it was
        identity["pair_template"] = joined_by
    return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


def training_pair_template(base: str, revision: str | None, gguf_file: str | None = None) -> str | None:
    """How the fine-tuning joins each pair for `base`'s tokenizer (scoring.pair_template): the same join that its
    scoring then uses, since both go through scoring.tokenize."""
    from .scoring import pair_template

    with library_quiet():
        tokenizer = base_tokenizer(base, revision, gguf_file)
    return pair_template(tokenizer)


def base_tokenizer(base: str, revision: str | None, gguf_file: str | None = None):
    """The tokenizer of the base model (a GGUF file's, with `gguf_file`)."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(
        base, revision=revision, local_files_only=cache_only(base), **({"gguf_file": gguf_file} if gguf_file else {})
    )


def checkpoint_folder(cache_dir: Path, base: str, key: str, gguf_file: str | None = None) -> Path:
    name = Path(gguf_file).stem if gguf_file else Path(base).resolve().name if Path(base).is_dir() else base
    return cache_dir / "finetuned" / f"{slug(name)}-{key[:16]}"


def read_training_record(path: Path) -> FineTuningInfo | None:
    """The training record at `path`; None when there is none, or when it does not read (a warning logged, and
    the checkpoint is then not trusted)."""
    from pydantic import ValidationError

    if not path.is_file():
        return None
    try:
        return FineTuningInfo.model_validate_json(path.read_bytes())
    except (OSError, ValidationError) as err:
        why = (
            err.strerror
            if isinstance(err, OSError)
            else f"{err.error_count()} problem(s), the first: {err.errors()[0]['msg']}"
        )
        logger.warning(f"the training record {path} does not read ({why}); it is ignored")
        return None


def file_hashes(folder: Path) -> dict[str, str]:
    """The sha256 of every file of a checkpoint but its two records, by its path inside `folder`; hidden files
    left out, as models.loading.model_revision leaves them out of a local folder's revision."""
    return folder_sha256(folder, skip=(INFO_FILE, CONTENTS_FILE))


def write_file_hashes(folder: Path) -> None:
    hashes = {"sha256": file_hashes(folder)}
    (folder / CONTENTS_FILE).write_text(json.dumps(hashes, indent=2) + "\n", encoding="utf-8")


def checkpoint_problem(folder: Path) -> str | None:
    """What makes the cached checkpoint in `folder` unfit to serve, or None: its files must be those its training
    wrote (CONTENTS_FILE), byte for byte, and it must open (its config read, its safetensors files' headers)."""
    try:
        recorded = json.loads((folder / CONTENTS_FILE).read_text(encoding="utf-8"))["sha256"]
        if not isinstance(recorded, dict) or not all(isinstance(v, str) for v in recorded.values()):
            raise TypeError
    except FileNotFoundError:
        return f"it has no {CONTENTS_FILE}, the sha256 of its files (an older swapbench wrote it without one)"
    except (OSError, ValueError, KeyError, TypeError):
        return f"its {CONTENTS_FILE}, the sha256 of its files, does not read"
    try:
        found = file_hashes(folder)
    except OSError as err:
        return f"its files cannot be read ({err.strerror}: {err.filename})"
    problems = [
        *(f"{name} is missing" for name in recorded if name not in found),
        *(
            f"{name} is not the file its training wrote (another sha256: edited, or cut short)"
            for name in recorded
            if name in found and found[name] != recorded[name]
        ),
        *(f"{name} was not written by its training" for name in found if name not in recorded),
    ]
    return "; ".join(problems) or unopened(folder)


def unopened(folder: Path) -> str | None:
    """Why the checkpoint in `folder` does not open, or None: its config is read and the header of each
    safetensors file (the weights themselves are read when it is scored)."""
    from safetensors import safe_open

    try:
        load_config(str(folder))
        for weights in sorted(folder.rglob("*.safetensors")):
            with safe_open(str(weights), framework="pt") as handle:
                handle.keys()
    except Exception as err:  # noqa: BLE001  (whatever a loader raises, the checkpoint is not served)
        return f"it does not open ({type(err).__name__}: {err})"
    return None


def set_aside_checkpoint(folder: Path) -> Path:
    """Move a cached checkpoint that is not served to a free name beside it, <folder>.damaged-<UTC time>: what the
    user had is kept, never deleted."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    aside = next(
        candidate
        for n in count(1)
        if not (candidate := folder.with_name(f"{folder.name}.damaged-{stamp}" + (f"-{n}" if n > 1 else ""))).exists()
    )
    os.replace(folder, aside)
    return aside


def finetune(
    base: str,
    *,
    revision: str | None,
    recipe: Recipe,
    data: DataChoice,
    scored: ScoredPairs,
    cache_dir: Path,
    device: torch.device,
    dtype: torch.dtype,
    progress: bool = True,  # noqa: ARG001
    console: Console | None = None,
    hypothesis_only: bool = False,
    gguf_file: str | None = None,
    precision: str = "auto",
    stop_at_chance: bool = False,
    checkpoint_every=None,
    callbacks=(),
) -> FineTuned:
    """The cached fine-tuning of `base` (a GGUF file of it, with `gguf_file`: dequantized to float32, and saved
    fine-tuned as an ordinary checkpoint) for this recipe and data (with `hypothesis_only`, on the hypotheses
    alone), training it first when there is none; refused when the data overlap the `scored` pairs. It trains in
    `precision` (training_precision), whatever the scoring's `dtype`. Its messages are logged; its bars and the
    training's log lines go to `console` (stderr by default). A fine-tuning that learnt nothing
    (health.training_reasons), trained now or reused, is said so with what to change before anything is scored: a
    warning, or with `stop_at_chance` a SwapbenchError (the checkpoint stays cached).

    The training's state is saved every `checkpoint_every` (resume.CheckpointEvery; by default every 10 minutes)
    into <checkpoint>.partial, and a run stopped (Ctrl-C, a crash) is resumed from it by the next fine-tuning of the
    same key, to the same weights; a partial state that does not fit is set aside with a warning. `callbacks` are
    added to the Trainer's."""
    console = console or Console(stderr=True, soft_wrap=True)
    log, warn = logger.info, logger.warning
    recipe = on_device(recipe, device, precision)

    config = load_config(base, revision, gguf_file=gguf_file)
    check_positional_support(base, config, trust_remote_code=False)
    base_revision = model_revision(base, config, revision, gguf_file)
    try:
        train_pairs, train_info, val_pairs, val_info = load_training_data(data, recipe.seed, warn=warn, scored=scored)
    except SwapbenchError as err:
        raise SwapbenchError(
            f"{base} is fine-tuned on SNLI before it is scored (it is a base model, or --finetune "
            f"was given), but its training data cannot be used: {err}"
        ) from err
    train_pairs, train_info, val_pairs, val_info, overlap = separate_from_scored(
        train_pairs, train_info, val_pairs, val_info, scored
    )
    for role, apart in (("training", overlap.train_set_apart), ("validation", overlap.validation_set_apart)):
        if apart:
            log(f"Set apart {apart} {role} pair{'s' * (apart != 1)} whose premise is also a scored premise")
    for role, images in (("training", overlap.train_shared_images), ("validation", overlap.validation_shared_images)):
        if images:
            log(
                f"The {role} pairs share {images:,} Flickr image{'s' * (images != 1)} with the scored pairs "
                "(pairs written about other captions of one photograph: reported, not set apart)"
            )
    key = cache_key(
        base,
        base_revision,
        recipe,
        train_info,
        val_info,
        hypothesis_only,
        joined_by=training_pair_template(base, revision, gguf_file),
        gguf_file=gguf_file,
    )
    folder = checkpoint_folder(cache_dir, base, key, gguf_file)
    info = read_training_record(folder / INFO_FILE)
    problem = "its training record is missing or does not read" if info is None else checkpoint_problem(folder)
    if problem is None:
        log(f"Reusing the fine-tuned checkpoint {folder}, cached from the same fine-tuning: no training")
        # The base as named in this run: the entry is found by content, whatever path was typed when it was made.
        info = info.model_copy(update={"reused": True, "data_overlap": overlap, "base_model": base})
        check_learnt(info, val_pairs, stop_at_chance, warn)
        return FineTuned(path=folder, info=info)

    if folder.exists() and is_main():  # under a launcher, the main process alone moves it
        aside = set_aside_checkpoint(folder)
        warn(
            f"the cached checkpoint {folder} is not used: {problem}. It was moved to {aside} (delete it when you "
            "no longer want it), and the model is fine-tuned again"
        )

    # Here: they import transformers.
    from .resume import CheckpointEvery, PeriodicCheckpoints, partial_folder, resume_problem
    from .trainer import optimisation_steps

    steps = optimisation_steps(train_info.n, recipe.batch_size, recipe.epochs)
    every = checkpoint_every or CheckpointEvery()
    unfinished = partial_folder(folder)
    point, problem = resume_problem(unfinished, key) if every.enabled else (None, None)
    if problem is not None and is_main():
        aside = set_aside_checkpoint(unfinished)
        warn(
            f"the partial fine-tuning {unfinished} is not resumed from: {problem}. It was moved to {aside} "
            "(delete it when you no longer want it), and the fine-tuning starts from step 0"
        )
    inputs = " (hypotheses alone: --hypothesis-only)" if hypothesis_only else ""
    log(
        f"Fine-tuning {checkpoint_name(base, gguf_file)}{inputs} on {train_info.n:,} pairs of {train_info.source} "
        f"({train_info.split}), {recipe.epochs} epoch{'s' * (recipe.epochs != 1)} in {recipe.batch_order} batches "
        f"of {recipe.batch_size}, {recipe.precision}: {steps:,} optimiser "
        f"steps on {describe_device(device)}, timed over the first few; validation: {val_info.n:,} pairs; "
        f"checkpoint: {folder}"
    )
    if point is not None:
        log(f"Resuming from step {point.step:,} of {point.max_steps:,}: the state saved in {unfinished}")
    started = time.perf_counter()
    periodic = PeriodicCheckpoints(key, every) if every.enabled else None
    work = unfinished if periodic is not None else folder.with_name(f".{folder.name}.work")
    trainer = make_trainer(
        base,
        revision,
        recipe,
        train_pairs,
        val_pairs,
        work,
        device,
        progress,
        console,
        slow_hint=partial(cutting_hint, recipe),
        hypothesis_only=hypothesis_only,
        gguf_file=gguf_file,
        periodic=periodic,
        callbacks=callbacks,
    )
    if periodic is not None:
        periodic.resuming = point.checkpoint if point else None
    try:
        with rng_states_loadable():
            trainer.train(resume_from_checkpoint=str(point.checkpoint) if point else None)
    except BaseException:  # Ctrl-C, a crash: say what the next run takes up
        kept, _ = resume_problem(unfinished, key) if periodic is not None else (None, None)
        if kept is not None and is_main():
            log(
                f"The fine-tuning stopped; its state at step {kept.step:,} of {kept.max_steps:,} is kept in "
                f"{unfinished}: the same command resumes from it"
            )
        raise
    history = epoch_history(trainer.state.log_history)
    best = max(history, key=lambda e: e.validation_accuracy)  # what load_best_model_at_end kept (first of ties)
    info = FineTuningInfo(
        base_model=base,
        base_revision=base_revision,
        recipe=recipe,
        train=train_info,
        validation=val_info,
        best_epoch=best.epoch,
        best_validation_accuracy=best.validation_accuracy,
        history=history,
        cache_key=key,
        checkpoint=str(folder),
        reused=False,
        train_seconds=time.perf_counter() - started,
        devices=world_size(),
        data_overlap=overlap,  # kept: the checkpoint scored by its path
        hypothesis_only=hypothesis_only,
        validation_agreement=float32_agreement(trainer),
    )
    if trainer.is_world_process_zero():
        # The cache is swapbench's own: whatever is in the folder is an unfinished or outdated checkpoint.
        with atomic_directory(folder, marker=INFO_FILE, overwrite=True) as staging:
            trainer.model.save_pretrained(staging)
            trainer.data_collator.tokenizer.save_pretrained(staging)  # the Trainer's own name for it varies
            write_file_hashes(staging)  # checked each time the checkpoint is reused
            (staging / INFO_FILE).write_text(info.model_dump_json(indent=2) + "\n", encoding="utf-8")
        shutil.rmtree(trainer.args.output_dir, ignore_errors=True)
    trainer.accelerator.wait_for_everyone()
    check_learnt(info, val_pairs, stop_at_chance, warn)
    return FineTuned(path=folder, info=info)


def check_learnt(info: FineTuningInfo, val_pairs: list[Pair], stop: bool, warn: Callable[[str], None]) -> None:
    """Say, before anything is scored, that the fine-tuning learnt nothing (health.training_reasons) and what to
    change: a warning, or with `stop` a SwapbenchError."""
    from .health import loss_at_chance, training_reasons

    classes = len(LABEL_NAMES)
    reasons = training_reasons(info.history, classes, [p.label for p in val_pairs])
    if not reasons:
        return
    loss_fell = not loss_at_chance(info.history, classes)[0]
    message = (
        f"the fine-tuning of {info.base_model} learnt nothing that shows: {'; '.join(reasons)}. Scored, it "
        f"would be a model at chance (its figures are no result, and the leaderboard refuses them). "
        f"{training_remedy(info, loss_fell)}"
    )
    if stop:
        raise SwapbenchError(f"{message}. Nothing was scored; the checkpoint stays cached ({info.checkpoint})")
    warn(f"{message}. Scoring it all the same (--stop-at-chance stops here instead; Ctrl-C stops now)")


def training_remedy(info: FineTuningInfo, loss_fell: bool) -> str:
    """What to change in a fine-tuning that learnt nothing: more pairs, more epochs, another learning rate; a
    larger validation set where the loss fell but the validation did not show it."""
    recipe, train, val = info.recipe, info.train, info.validation
    limit = f"--train-limit {train.limit:,}" if train.limit else "the whole split"
    reference = REFERENCE_RECIPE.learning_rate
    reference = (
        ", the reference recipe's, for BERT-size encoders"
        if recipe.learning_rate == reference
        else f"; the reference recipe's {reference:g} suits BERT-size encoders"
    )
    remedies = [
        f"more training pairs ({train.n:,} now, {limit})",
        f"more epochs (--epochs, {recipe.epochs} now)",
        (
            f"a learning rate that works for this model (--lr, {recipe.learning_rate:g} now{reference}; a loss "
            "that stays at chance can mean a rate too high or too low for it)"
        ),
    ]
    if loss_fell:
        remedies.append(f"more validation pairs ({val.n:,} now; --val-holdout or --val-limit), too few to show a gain")
    return "Try " + ", ".join(remedies[:-1]) + " or " + remedies[-1]


def describe_device(device: torch.device) -> str:
    """The device for a message: "cpu (2 threads)", "cuda:0 (NVIDIA H100)", ..."""
    if device.type == "cpu":
        threads = torch.get_num_threads()
        return f"the CPU ({threads} thread{'s' * (threads != 1)})"
    if device.type == "cuda":
        processes = world_size()
        name = torch.cuda.get_device_name(device)
        return f"{device} ({name})" + (f", one of {processes} processes" if processes > 1 else "")
    return str(device)


def cutting_hint(recipe: Recipe, seconds_per_step: float) -> str:
    """How to shorten a fine-tuning that takes hours on a CPU, at the pace measured."""
    pairs = int(3600 / seconds_per_step / recipe.epochs) * recipe.batch_size  # what an hour trains on
    pairs = pairs // 100 * 100 if pairs >= 1000 else pairs
    return (
        f"To cut it (Ctrl-C stops this run): --train-limit N trains on the first N pairs ({recipe.epochs} "
        f"epoch{'s' * (recipe.epochs != 1)} of about {pairs:,} pairs take an hour here), a GPU (--device cuda) "
        "takes minutes, and a checkpoint already fine-tuned on SNLI is scored as it is, without training"
    )


def make_trainer(
    base: str,
    revision: str | None,
    recipe: Recipe,
    train_pairs: list[Pair],
    val_pairs: list[Pair],
    work: Path,
    device: torch.device,
    progress: bool,
    console: Console,
    slow_hint: Callable[[float], str] | None = None,
    hypothesis_only: bool = False,
    gguf_file: str | None = None,
    checkpoints: bool = False,
    periodic=None,
    callbacks=(),
):
    from transformers import AutoModelForSequenceClassification

    processes = world_size()
    if recipe.batch_size % processes:
        raise SwapbenchError(f"--train-batch-size {recipe.batch_size} does not split evenly over {processes} processes")
    local = cache_only(base)
    # A decoder-only model classifies from its last non-pad token: it needs a pad token and right padding.
    tokenizer = prepare_tokenizer(base_tokenizer(base, revision, gguf_file))
    id2label = dict(enumerate(LABEL_NAMES))

    # The Trainer calls it twice; the second time after it has seeded, so the new head is initialised
    # reproducibly. No parameter: the Trainer would pass a hyper-parameter trial to one.
    def model_init():
        with library_quiet():
            model, info = AutoModelForSequenceClassification.from_pretrained(
                base,
                revision=revision,
                num_labels=len(LABEL_NAMES),
                id2label=id2label,
                label2id={name: i for i, name in id2label.items()},
                pad_token_id=tokenizer.pad_token_id,
                ignore_mismatched_sizes=True,
                **dtype_argument(TRAINING_DTYPE),
                output_loading_info=True,
                local_files_only=local,
                **gguf_arguments(base, gguf_file, revision),
            )
        # Only the classification head may be new; weights left unused (pre-training heads) are expected.
        weights = weight_problems(base, {**info, "unexpected_keys": ()}, may_be_new=lambda key: is_head(model, key))
        check_weights(base, weights, allow_missing=False)
        return as_dense(model)

    return snli_trainer(
        model_init,
        tokenizer,
        recipe,
        train_pairs,
        val_pairs,
        work,
        device,
        progress,
        console,
        slow_hint=slow_hint,
        hypothesis_only=hypothesis_only,
        checkpoints=checkpoints,
        periodic=periodic,
        callbacks=callbacks,
    )


@contextlib.contextmanager
def mixed_precision_environment(bf16: bool):
    """ACCELERATE_MIXED_PRECISION as the Trainer being made must read it, and as it was once it is made.

    transformers 4 hands the precision to accelerate through this variable when a Trainer is made (its
    TrainingArguments write it) and transformers 5 reads it for bf16=False: a float32 fine-tune after a bf16 one
    would train under autocast. Left set afterwards, it would put the next Trainer of the process, a user's own,
    under bf16 autocast too."""
    before = os.environ.get("ACCELERATE_MIXED_PRECISION")
    os.environ["ACCELERATE_MIXED_PRECISION"] = "bf16" if bf16 else "no"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("ACCELERATE_MIXED_PRECISION", None)
        else:
            os.environ["ACCELERATE_MIXED_PRECISION"] = before


def snli_trainer(
    model_init,
    tokenizer,
    recipe: Recipe,
    train_pairs: list[Pair],
    val_pairs: list[Pair],
    work: Path,
    device: torch.device,
    progress: bool,
    console: Console,
    eval_batch_size: int = 128,
    description: str = "fine-tuning",
    slow_hint: Callable[[float], str] | None = None,
    hypothesis_only: bool = False,
    checkpoints: bool = False,
    periodic=None,
    callbacks=(),
):
    """The Trainer of swapbench's recipes (fine-tuning here, the zoo's training from scratch): `recipe` on the
    pairs (its batch order and precision included), evaluated every epoch, the best epoch by validation accuracy
    kept; its progress, log lines and the time it takes (measured over its first steps; `slow_hint` says how to
    cut hours on a CPU) on `console` (stderr).

    The best epoch's weights are kept in memory (trainer.KeepBest), the validation pairs scored longest first so
    that each batch pads little; with `checkpoints` (and always under FSDP or DeepSpeed, which shard the weights),
    the Trainer's own way: a checkpoint saved every epoch and the best reloaded, the validation pairs in their
    order. Both end with the same weights. `periodic` (resume.PeriodicCheckpoints) saves the training's state
    every so often into `work`, so that it can resume; `callbacks` are added to the Trainer's."""
    from transformers import DataCollatorWithPadding, TrainingArguments

    from ..core.compat import trainer_tokenizer_argument, warmup_arguments
    from .trainer import KeepBest, LengthGroupedOrder, LossKeepingTrainer, TimeEstimate, show_progress

    sharded = bool(
        os.environ.get("ACCELERATE_USE_FSDP") == "true" or os.environ.get("ACCELERATE_USE_DEEPSPEED") == "true"
    )
    checkpoints = checkpoints or sharded
    train_dataset = encode_pairs(tokenizer, train_pairs, recipe.max_length, hypothesis_only)
    eval_dataset = encode_pairs(tokenizer, val_pairs, recipe.max_length, hypothesis_only)
    if not checkpoints:  # accuracy does not depend on the order
        eval_dataset.sort(key=lambda row: -len(row["input_ids"]))
    order = (
        LengthGroupedOrder([len(row["input_ids"]) for row in train_dataset], recipe.batch_size, recipe.seed)
        if recipe.batch_order == "length-grouped"
        else None
    )
    bf16 = recipe.precision == "bfloat16-autocast"
    with mixed_precision_environment(bf16):
        args = TrainingArguments(
            output_dir=str(work),
            num_train_epochs=recipe.epochs,
            learning_rate=recipe.learning_rate,
            optim=recipe.optimizer,
            lr_scheduler_type=recipe.lr_scheduler,
            **warmup_arguments(recipe.warmup_ratio),
            weight_decay=recipe.weight_decay,
            per_device_train_batch_size=recipe.batch_size // world_size(),
            per_device_eval_batch_size=eval_batch_size,
            eval_strategy="epoch",
            save_strategy="epoch" if checkpoints else "no",
            logging_strategy="epoch",
            load_best_model_at_end=checkpoints,
            metric_for_best_model="accuracy",
            greater_is_better=True,
            # Resumable, every state is saved whole and PeriodicCheckpoints removes the old ones once the new is
            # recorded.
            save_total_limit=None if periodic else 1,
            save_only_model=not periodic,
            seed=recipe.seed,
            data_seed=recipe.seed,
            report_to="none",
            disable_tqdm=True,
            use_cpu=device.type == "cpu",
            bf16=bf16,
            bf16_full_eval=False,
        )
        trainer = LossKeepingTrainer(
            model_init=model_init,
            args=args,
            **trainer_tokenizer_argument(tokenizer),
            data_collator=DataCollatorWithPadding(tokenizer),
            train_dataset=train_dataset,
            eval_dataset=eval_dataset,
            compute_metrics=accuracy_metrics,
            train_order=order,
        )
    keep_best = None if checkpoints else KeepBest()
    for callback in (keep_best, periodic, *callbacks):
        if callback is not None:
            trainer.add_callback(callback)
    if periodic is not None:
        periodic.keep_best = keep_best
    estimate = TimeEstimate(console, describe_device(device), on_cpu=device.type == "cpu", slow_hint=slow_hint)
    show_progress(trainer, console, progress, description=description, estimate=estimate)
    return trainer


def float32_agreement(trainer, batch_size: int = 128) -> DtypeAgreement | None:
    """Under bfloat16 autocast: the validation pairs labelled by the weights kept, under autocast as trained and in
    float32, and how many labels agree (as scoring records provenance.scoring.dtype_agreement); None in float32."""
    if not trainer.args.bf16:
        return None
    from accelerate.utils import extract_model_from_parallel

    # The bare model: accelerate wraps its forward in autocast for the training.
    model = extract_model_from_parallel(trainer.model, keep_fp32_wrapper=False).eval()
    rows, collate = trainer.eval_dataset, trainer.data_collator
    device = next(model.parameters()).device
    labels = {}
    for autocast in (True, False):
        found = []
        with torch.no_grad(), torch.autocast(device.type, dtype=torch.bfloat16, enabled=autocast):
            for start in range(0, len(rows), batch_size):
                batch = collate(
                    [{k: v for k, v in row.items() if k != "labels"} for row in rows[start : start + batch_size]]
                )
                found.append(model(**{k: v.to(device) for k, v in batch.items()}).logits.float().argmax(-1).cpu())
        labels[autocast] = torch.cat(found)
    pairs, agreeing = len(rows), int((labels[True] == labels[False]).sum())
    return DtypeAgreement(
        dtype="bfloat16-autocast",
        sample="every validation pair, labelled by the weights kept",
        pairs=pairs,
        agreeing=agreeing,
        fraction=agreeing / pairs if pairs else 1.0,
    )


def accuracy_metrics(prediction) -> dict:
    """The Trainer's compute_metrics: accuracy of the arg-max class."""
    return {"accuracy": float((prediction.predictions.argmax(-1) == prediction.label_ids).mean())}


def encode_pairs(tokenizer, pairs: list[Pair], max_length: int, hypothesis_only: bool = False) -> list[dict]:
    """Tokenized pairs (with `hypothesis_only`, their hypotheses alone) with their label index; the collator pads
    each batch."""
    from .scoring import tokenize

    encoded = tokenize(
        tokenizer,
        [p.premise for p in pairs],
        [p.hypothesis for p in pairs],
        hypothesis_only,
        truncation=True,
        max_length=max_length,
    )
    label_ids = {name: i for i, name in enumerate(LABEL_NAMES)}
    return [
        {**{key: values[i] for key, values in encoded.items()}, "labels": label_ids[p.label]}
        for i, p in enumerate(pairs)
    ]


def epoch_history(log_history: list[dict]) -> list[EpochLog]:
    losses = {round(e["epoch"]): e["loss"] for e in log_history if "loss" in e}
    return [
        EpochLog(
            epoch=round(e["epoch"]), train_loss=losses.get(round(e["epoch"])), validation_accuracy=e["eval_accuracy"]
        )
        for e in log_history
        if "eval_accuracy" in e
    ]
