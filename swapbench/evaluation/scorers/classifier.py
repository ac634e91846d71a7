"""`--mode classifier` (also `finetune`, its first name): a classification head scores each pair. A sequence
classifier with NLI labels is scored as it is; a base model (or any model, with --finetune) is fine-tuned on SNLI
first with the reference recipe, and the checkpoint cached. A decoder-only model gets its head on its last
non-pad token."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Literal

from pydantic import field_validator

from ...core.command_options import CommandOptions, option
from ...core.errors import SwapbenchError
from ...core.options import MIN_MAX_LENGTH, comma_separated, seeds_problem
from ...core.options import seed as seed_number
from ...core.registry import SCORERS
from .base import Prepared, Run, Scorer, Scores, given, listed

logger = logging.getLogger(__name__)

# The scoring truncation when --max-length is not given: a classifier's pairs are cut to this many tokens; a
# prompt is cut (from the left) to the model's own context length instead.
DEFAULT_MAX_LENGTH = 128

# The fine-tuning's settings: no other mode trains, so they are this mode's own (a classifier used as is refuses
# them in prepare, once its config says it is one).
RECIPE = ("epochs", "learning_rate", "train_batch_size", "train_max_length", "seeds")


class ClassifierOptions(CommandOptions):
    """The options of `--mode classifier`: reading its labels (labels), and fine-tuning a base model first."""

    label_map: str | None = option(
        None,
        group="labels",
        metavar="MAP",
        help="model outputs to NLI labels when config.id2label cannot tell, e.g. "
        "0=entailment,1=neutral,2=contradiction or LABEL_0=entailment,LABEL_1="
        "not_entailment; refused for a model whose own label names map otherwise, "
        "unless --force",
    )
    force: bool = option(False, group="labels", help="let --label-map override the labels the model names itself")

    finetune: bool = option(
        False, group="fine-tuning", help="fine-tune even when MODEL already is a sequence classifier"
    )
    hypothesis_only: bool = option(
        False,
        group="fine-tuning",
        help="remove the premise from every input, in training, validation and scoring: "
        "the model sees the hypothesis alone. A diagnostic of what the hypotheses "
        "give away (`swapbench leak` reads its results), not an NLI model: submit "
        "refuses it",
    )
    epochs: int | None = option(None, ge=1, group="fine-tuning", help="default: 3")
    learning_rate: float | None = option(
        None, gt=0, flag="--lr", group="fine-tuning", help="learning rate (default: 2e-5)"
    )
    train_batch_size: int | None = option(
        None, ge=1, group="fine-tuning", deprecated="--batch-size", help="training batch over all devices (default: 32)"
    )
    train_max_length: int | None = option(
        None,
        ge=MIN_MAX_LENGTH,
        group="fine-tuning",
        help="truncate training and validation pairs to N tokens (default: 128); --max-length is the scoring's",
    )
    train_precision: Literal["auto", "float32"] = option(
        "auto",
        group="fine-tuning",
        help="auto: bf16 autocast (float32 master weights) where the device runs bf16 fast (a CPU with AMX or "
        "AVX512-BF16, a GPU), float32 elsewhere; float32: always. Recorded as fine_tuning.recipe.precision, "
        "with the validation labels' agreement with float32 (fine_tuning.validation_agreement)",
    )
    seeds: list[int] | None = option(
        None,
        group="fine-tuning",
        metavar="A,B,...",
        parse=comma_separated(seed_number),
        help="fine-tune once per seed (two or more, each a checkpoint cached of its own) and score each: the "
        "results hold the mean over the seeds with their spread, and each seed's figures; the interval "
        "resamples seeds and pairs together. One fine-tuning says little of role sensitivity (McCoy et al. "
        "2020). Default: one fine-tuning, with --seed",
    )
    stop_at_chance: bool = option(
        False,
        group="fine-tuning",
        keyed=False,
        help="stop before scoring when the fine-tuning learnt nothing (its training loss "
        "never left chance, or its best validation accuracy is not above the "
        "validation pairs' majority rate, by the rules of the results' health "
        "check); without it, eval warns and scores all the same",
    )
    train_checkpoint_minutes: float | None = option(
        None,
        ge=0,
        group="fine-tuning",
        keyed=False,
        metavar="MINUTES",
        help="save the fine-tuning's state this often (default: 10), beside its cache folder, so that a run stopped "
        "(Ctrl-C, a crash) resumes from it with the same command, to the same weights; 0: never",
    )

    @field_validator("seeds", mode="after")
    @classmethod
    def _distinct_seeds(cls, value):
        if value is None:
            return value
        if len(value) < 2:
            raise ValueError(
                f"{value[0] if value else 'nothing'} is one seed: --seeds takes two or more, and one "
                "fine-tuning's seed is --seed"
            )
        problem = seeds_problem(value)
        if problem:
            raise ValueError(problem)
        return value


@SCORERS.register(
    "classifier",
    pattern="classifier|finetune",
    help="score with a classification head, fine-tuning a base model first, a decoder-only model's "
    "on its last non-pad token (also named finetune)",
)
class ClassifierScorer(Scorer):
    mode = "fine-tuned"
    Options = ClassifierOptions
    refused_without = (
        "finetune",
        "label_map",
        "hypothesis_only",
        "stop_at_chance",
        "train_checkpoint_minutes",
        *RECIPE,
    )

    def prepare(self, run: Run) -> Prepared:
        from ...core.labels import LABEL_NAMES
        from ...core.paths import default_cache_dir
        from ...models.gguf import checkpoint_name, gguf_record
        from ...models.label_map import LabelMap
        from ...models.loading import is_classifier, load_classifier, load_config, map_labels, model_revision
        from ..finetune import TRAINING_DTYPE, finetune, reference_recipe
        from ..scored_data import scored_pairs

        options, device, dtype = run.options, run.device, run.dtype
        config = load_config(options.model, options.revision, options.trust_remote_code, options.gguf_file)
        if not options.finetune and is_classifier(config):
            if options.seeds:
                raise SwapbenchError(
                    f"--seeds fine-tunes the model once per seed, but {options.model} already is a "
                    "sequence classifier, which is scored as it is: add --finetune to fine-tune it "
                    "once per seed, or leave --seeds out"
                )
            trained = recorded_training(options.model, run.benchmark)
            # a checkpoint swapbench trained on the hypotheses alone (a zoo encoder's premise-blind control) is
            # scored as it was trained, with --hypothesis-only, and only so
            blind = trained is not None and trained.hypothesis_only
            refuse_training(options, keep=("hypothesis_only",) if blind else ())
            if blind and not options.hypothesis_only:
                raise SwapbenchError(
                    f"{options.model} was trained on the hypotheses alone: scored on whole pairs, "
                    "its figures would mean nothing. Score it, or its base model, with "
                    "--hypothesis-only (a cached checkpoint is reused)"
                )
            labels = map_labels(config, options.label_map, options.force)  # refuses before the weights are loaded
            loaded = load_classifier(
                options.model,
                config,
                labels,
                revision=options.revision,
                device=device,
                dtype=dtype,
                trust_remote_code=options.trust_remote_code,
                allow_missing=options.allow_missing,
                placement=options.placement,
                gguf_file=options.gguf_file,
            )
            revision = model_revision(options.model, config, options.revision, options.gguf_file)
            return Prepared(
                loaded, revision, fine_tuning=trained, identity=None if random_weights(loaded.weights) else revision
            )
        if options.label_map:
            raise SwapbenchError(
                "--label-map is for a classifier used as is; a model fine-tuned here gets SNLI's labels"
            )
        recipe = reference_recipe(
            epochs=options.epochs,
            learning_rate=options.learning_rate,
            batch_size=options.train_batch_size,
            max_length=options.train_max_length,
            seed=run.seed,
        )
        logger.info(
            announce_fine_tuning(
                checkpoint_name(options.model, options.gguf_file),
                options.training,
                recipe,
                is_classifier(config),
                device,
                options.hypothesis_only,
            )
        )
        tuned = finetune(
            options.model,
            revision=options.revision,
            recipe=recipe,
            data=options.training,
            scored=scored_pairs(run.benchmark),
            cache_dir=options.cache_dir or default_cache_dir(),
            device=device,
            dtype=dtype,
            progress=options.progress,
            console=run.console,
            hypothesis_only=options.hypothesis_only,
            gguf_file=options.gguf_file,
            precision=options.train_precision,
            stop_at_chance=options.stop_at_chance,
            checkpoint_every=checkpoint_every(options.train_checkpoint_minutes),
        )
        # Every process of a distributed training loads the checkpoint the main process wrote: each scores a shard.
        loaded = load_classifier(
            str(tuned.path),
            load_config(str(tuned.path)),
            LabelMap(LABEL_NAMES, source="fine-tuned"),
            device=device,
            dtype=dtype,
            placement=options.placement,
        )
        loaded.gguf = gguf_record(options.model, options.gguf_file, TRAINING_DTYPE, options.revision)
        return Prepared(
            loaded,
            tuned.info.base_revision,
            fine_tuning=tuned.info,
            train_seconds=0.0 if tuned.info.reused else tuned.info.train_seconds,
            identity=checkpoint_identity(tuned.path),
        )

    def score(self, run: Run, prepared: Prepared, pairs: list[tuple[str, str]], progress) -> Scores:
        """Each pair's label, read off its logits: those of pairs scored before under the same key from the scores
        cache, the others from the model."""
        import numpy as np

        from ..score_cache import cached_outputs, open_cache, report
        from ..scoring import pair_template, predict

        loaded, max_length, options = prepared.loaded, run.options.max_length or DEFAULT_MAX_LENGTH, run.options
        joined_by = None if options.hypothesis_only else pair_template(loaded.tokenizer)
        identity = (
            None
            if prepared.identity is None
            else {
                "mode": self.mode,
                "model": prepared.identity,
                "max_length": max_length,
                "dtype": str(run.dtype),
                "device": run.device.type,
                **({"inputs": "hypothesis only"} if options.hypothesis_only else {}),
                **({"pair_template": joined_by} if joined_by is not None else {}),
            }
        )
        width = loaded.model.config.num_labels
        cache = open_cache(options, prepared.name or options.model, identity, width, np.float32)
        runs = []

        def score_missing(todo, on_batch):
            runs.append(
                predict(
                    loaded.model,
                    loaded.tokenizer,
                    todo,
                    max_length=max_length,
                    batch_size=options.eval_batch_size,
                    progress=progress,
                    on_batch=on_batch,
                    hypothesis_only=options.hypothesis_only,
                )
            )
            return runs[-1].logits, runs[-1].cut

        try:
            outputs = cached_outputs(cache, pairs, width, np.float32, score_missing, progress)
        finally:
            if cache:
                cache.close()
        report(outputs, cache)
        scored = runs[0] if runs else None
        return Scores(
            predictions=outputs.values.argmax(axis=1),
            truncated=int(outputs.cut.sum()),
            batch_size=scored.batch_size if scored else 0,
            seconds=scored.seconds if scored else 0.0,
            max_tokens=max_length,
            truncation=f"longer than --max-length {max_length} tokens and were truncated",
            pair_template=joined_by,
        )

    def reference_predictions(self, run: Run, prepared: Prepared, pairs: list[tuple[str, str]]):
        """The pairs scored by a float32 copy of the model as `score` scores them (the scores cache is not read)."""
        from ..agreement import float32_copy
        from ..scoring import predict

        options = run.options
        with float32_copy(prepared.loaded.model) as model:
            return predict(
                model,
                prepared.loaded.tokenizer,
                pairs,
                max_length=options.max_length or DEFAULT_MAX_LENGTH,
                batch_size=options.eval_batch_size,
                hypothesis_only=options.hypothesis_only,
            ).predictions


def checkpoint_every(minutes: float | None):
    """How often --train-checkpoint-minutes saves the fine-tuning's state (None: the default, 0: never)."""
    from ..resume import NEVER, CheckpointEvery

    return None if minutes is None else NEVER if minutes == 0 else CheckpointEvery(minutes=minutes)


def refuse_training(options, keep: tuple[str, ...] = ()) -> None:
    """A classifier is scored as it is: training options given for it would be read by nothing, and its head
    scored untrained where the user meant to train it, so they are refused, pointing to --finetune (but those in
    `keep`, which apply to this classifier)."""
    from ...sources.options import COLUMN_FIELDS
    from ..training_options import TrainingDataOptions

    fields = [
        *TrainingDataOptions.model_fields,
        *COLUMN_FIELDS,
        *RECIPE,
        "hypothesis_only",
        "stop_at_chance",
        "train_checkpoint_minutes",
    ]
    ignored = given(options, [name for name in fields if name not in keep])
    if ignored:
        raise SwapbenchError(
            f"{options.model} already is a sequence classifier, which is scored as it is: "
            f"{listed(ignored)} would be ignored. Add --finetune to fine-tune it on them before "
            f"it is scored, or leave {'it' if len(ignored) == 1 else 'them'} out"
        )


def recorded_training(model: str, benchmark):
    """How swapbench trained a checkpoint scored as it is (swapbench_finetune.json, which a cached fine-tuning and
    a zoo encoder both carry), as a FineTuningInfo; None for any other model, and for a record that does not
    read (a warning logged). Its check of the training data against scored data is kept when those were the data
    of `benchmark`, and dropped otherwise: it says nothing of other data, and the board refuses the file
    (leaderboard/validate.py)."""
    from ..finetune import INFO_FILE, read_training_record
    from ..scored_data import dataset_info

    folder = Path(model)
    info = read_training_record(folder / INFO_FILE)
    if info is None:
        return None
    scored = dataset_info(benchmark).fingerprint
    check = info.data_overlap if info.data_overlap and info.data_overlap.scored_dataset == scored else None
    return info.model_copy(update={"checkpoint": str(folder), "reused": True, "data_overlap": check})


def checkpoint_identity(folder: Path) -> str:
    """What the scores cache knows a checkpoint fine-tuned here by: the sha256 of its training record, which each
    training writes with its own timings and the checkpoint's cache key (hashing the weights would cost more)."""
    from ...core.fingerprint import file_sha256
    from ..finetune import INFO_FILE

    return "fine-tuned:sha256:" + file_sha256(folder / INFO_FILE)


def random_weights(weights) -> bool:
    """Whether some weights were newly initialised (--allow-missing), at random: such a model's scores are not
    its files', and are not cached."""
    return weights is not None and bool(weights.missing or weights.mismatched)


def announce_fine_tuning(model: str, data, recipe, classifier: bool, device, hypothesis_only: bool = False) -> str:
    """What is about to happen, said before the training data are read: a base model is fine-tuned first, or its
    cached checkpoint reused (known only once the data are read and the cache key made: finetune says which). The
    pairs are counted, and the time measured, once they are read (a folder of SNLI files may hold a cut copy)."""
    from rich.markup import escape

    from ...sources import default_source
    from ..finetune import describe_device

    why = "--finetune was given" if classifier else "it is a base model, not a sequence classifier"
    size = f"at most the first {data.train_limit:,} pairs of " if data.train_limit else ""
    if data.train_source:
        source = data.train_source
    else:
        snli = default_source()
        folder = os.environ.get(snli.dir_env) if snli.dir_env else None
        source = f"${snli.dir_env} ({folder})" if folder else f"the {snli.release} release archive"
    alone = (
        " It sees the hypotheses alone (--hypothesis-only: the premise is removed in training, validation and "
        "scoring): a diagnostic of what the hypotheses give away, not an NLI model."
        if hypothesis_only
        else ""
    )
    return (
        f"{escape(model)} is scored after fine-tuning ({why}): {recipe.epochs} "
        f"epoch{'s' * (recipe.epochs != 1)} on {size}the {data.train_split} split of {escape(str(source))}, in "
        f"batches of {recipe.batch_size} on {describe_device(device)}. A checkpoint cached from the same "
        "fine-tuning is reused instead of training, and the next line says which happens: the pairs are counted "
        "once read, and a training's time measured over its first steps." + alone
    )
