"""`--mode classifier` (also `finetune`, its first name): a classification head scores each pair. A sequence
classifier with NLI labels is scored as it is; a base model (or any model, with --finetune) is fine-tuned on SNLI
first with the reference recipe, and the checkpoint cached. A decoder-only model gets its head on its last
non-pad token."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from ...core.errors import SwapbenchError
from ...core.registry import SCORERS
from .base import Prepared, Run, Scorer, Scores

# SNLI 1.0's training split: its labelled pairs, for the estimate given before they are read.
SNLI_TRAIN_PAIRS = 549_367


@SCORERS.register("classifier", pattern="classifier|finetune",
                  help="score with a classification head, fine-tuning a base model first, a decoder-only model's "
                       "on its last non-pad token (also named finetune)")
class ClassifierScorer(Scorer):
    mode = "fine-tuned"
    owns: ClassVar[dict[str, str]] = {"finetune": "--finetune", "label_map": "--label-map"}

    def prepare(self, run: Run) -> Prepared | None:
        from ...core.labels import LABEL_NAMES
        from ...core.paths import default_cache_dir
        from ...models.label_map import LabelMap
        from ...models.loading import is_classifier, load_classifier, load_config, map_labels, model_revision
        from ..finetune import finetune, reference_recipe
        from ..pipeline import scored_pairs

        options, device, dtype = run.options, run.device, run.dtype
        config = load_config(options.model, options.revision, options.trust_remote_code)
        if not options.finetune and is_classifier(config):
            labels = map_labels(config, options.label_map, options.force)  # refuses before the weights are loaded
            loaded = load_classifier(options.model, config, labels, revision=options.revision, device=device,
                                     dtype=dtype, trust_remote_code=options.trust_remote_code,
                                     allow_missing=options.allow_missing)
            return Prepared(loaded, model_revision(options.model, config, options.revision),
                            fine_tuning=recorded_training(options.model, run.benchmark))
        if options.label_map:
            raise SwapbenchError("--label-map is for a classifier used as is; a model fine-tuned here gets SNLI's "
                                 "labels")
        recipe = reference_recipe(epochs=options.epochs, learning_rate=options.learning_rate,
                                  batch_size=options.train_batch_size, max_length=options.train_max_length,
                                  seed=options.seed)
        run.console.print(announce_fine_tuning(options.model, options.training, recipe, is_classifier(config),
                                                device))
        tuned = finetune(options.model, revision=options.revision, recipe=recipe, data=options.training,
                         scored=scored_pairs(run.benchmark), cache_dir=options.cache_dir or default_cache_dir(),
                         device=device, dtype=dtype, progress=options.progress, console=run.console)
        if not tuned.main_process:
            return None
        loaded = load_classifier(str(tuned.path), load_config(str(tuned.path)),
                                 LabelMap(LABEL_NAMES, source="fine-tuned"), device=device, dtype=dtype)
        return Prepared(loaded, tuned.info.base_revision, fine_tuning=tuned.info,
                        train_seconds=0.0 if tuned.info.reused else tuned.info.train_seconds)

    def score(self, run: Run, prepared: Prepared, pairs: list[tuple[str, str]], progress) -> Scores:
        from ..options import DEFAULT_MAX_LENGTH
        from ..scoring import predict

        loaded, max_length = prepared.loaded, run.options.max_length or DEFAULT_MAX_LENGTH
        scored = predict(loaded.model, loaded.tokenizer, pairs, max_length=max_length,
                         batch_size=run.options.eval_batch_size, progress=progress)
        return Scores(predictions=scored.predictions, truncated=scored.truncated, batch_size=scored.batch_size,
                      seconds=scored.seconds, max_tokens=max_length,
                      truncation=f"longer than --max-length {max_length} tokens and were truncated")


def recorded_training(model: str, benchmark):
    """How swapbench trained a checkpoint scored as it is (swapbench_finetune.json, which a cached fine-tuning and
    a zoo encoder both carry), as a FineTuningInfo; None for any other model. Its check of the training data
    against scored data is kept when those were the data of `benchmark`, and dropped otherwise: it says nothing
    of other data, and the board refuses the file (leaderboard/validate.py)."""
    from ...results.schema import FineTuningInfo
    from ..finetune import INFO_FILE
    from ..pipeline import dataset_info

    folder = Path(model)
    if (folder / INFO_FILE).is_file():
        info = FineTuningInfo.model_validate_json((folder / INFO_FILE).read_text(encoding="utf-8"))
        scored = dataset_info(benchmark).fingerprint
        check = info.data_overlap if info.data_overlap and info.data_overlap.scored_dataset == scored else None
        return info.model_copy(update={"checkpoint": str(folder), "reused": True, "data_overlap": check})
    return None


def announce_fine_tuning(model: str, data, recipe, classifier: bool, device) -> str:
    """What is about to happen, said before the training data are read: a base model is fine-tuned first."""
    from rich.markup import escape

    from ..finetune import describe_device
    from ..trainer import optimisation_steps

    why = "--finetune was given" if classifier else "it is a base model, not a sequence classifier"
    if data.train_limit:
        pairs, size = data.train_limit, f"the first {data.train_limit} pairs of"
    elif data.train_source is None and data.train_split == "train":
        pairs, size = SNLI_TRAIN_PAIRS, f"the whole training split (SNLI: {SNLI_TRAIN_PAIRS:,} pairs) of"
    else:
        pairs, size = None, f"the {data.train_split} split of"
    source = data.train_source or "$SWAPBENCH_SNLI_DIR or the Hub"
    estimate = (f"about {optimisation_steps(pairs, recipe.batch_size, recipe.epochs):,} optimiser steps"
                if pairs else "the steps are counted once the data are read")
    hint = "" if data.train_limit else " (--train-limit N trains on fewer pairs)"
    return (f"{escape(model)} is fine-tuned before it is scored ({why}): {recipe.epochs} "
            f"epoch{'s' * (recipe.epochs != 1)} on {size} {escape(str(source))}{hint}, in batches of "
            f"{recipe.batch_size} on {describe_device(device)}: {estimate}. The checkpoint is cached and reused.")
