"""`swapbench zoo run`: train every encoding over several seeds with one recipe, score each checkpoint with
`swapbench eval`, and write one results file per (encoding, seed), the run's summary, its table and figure.

Each results file is an ordinary `swapbench eval` results file (swapbench.evaluate.schema.EvalResults), marked as
a zoo run: model.name_or_path is "swapbench-zoo/<encoding>", model.fine_tuning carries the training recipe and
data (trained from scratch, not fine-tuned from a base model), and model.positional_encoding names the zoo
encoding. Checkpoints and the per-pair predictions stay in the work folder: they are derived from SNLI.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ..errors import SwapbenchError
from ..evaluate.health import with_training
from ..evaluate.schema import EvalResults, FineTuningInfo, PositionalEncodingInfo
from ..version import __version__
from .names import BY_NAME, ENCODINGS
from .summary import SUMMARY_FILE, SeedRun, ZooSummary, largest_configuration, relabelled, summarize_encoding
from .train import TrainingRecord, ZooRecipe, read_record, train_encoder

@dataclass
class ZooRunOptions:
    recipe: ZooRecipe
    data: str
    out: Path  # results files, zoo.json, README.md table and PNG figure
    work: Path  # checkpoints and predictions
    encodings: list[str] = field(default_factory=lambda: list(ENCODINGS))
    seeds: list[int] = field(default_factory=lambda: [0, 1])
    configs: list[str] | None = None
    limit: int | None = None
    bootstrap: int = 10_000
    probe_words: int = 100
    device: str | None = None
    progress: bool = True
    command: list[str] = field(default_factory=lambda: list(sys.argv))


def with_seed(recipe: ZooRecipe, seed: int) -> ZooRecipe:
    return recipe.model_copy(update={"training": recipe.training.model_copy(update={"seed": seed})})


def same_encoding_settings(folder: Path, encoding: str, recipe: ZooRecipe) -> bool:
    """Whether the checkpoint's config sets the encoding as this code would now (defaults included)."""
    from .config import ZooConfig, positional_encoding_fields
    from .train import zoo_config

    expected = zoo_config(encoding, recipe.architecture, max_length=recipe.training.max_length, vocab_size=1,
                          options=recipe.encoding_options)
    saved = ZooConfig.from_pretrained(folder)
    return positional_encoding_fields(saved) == positional_encoding_fields(expected)


def checkpoint_for(encoding: str, recipe: ZooRecipe, work: Path, *, device: str | None, progress: bool,
                   log) -> tuple[Path, TrainingRecord, bool]:
    """The checkpoint of this encoding and recipe: reused from `work` when it was trained with exactly this
    recipe and encoding settings, else trained now. Returns (folder, record, reused)."""
    folder = work / "checkpoints" / f"{encoding}-seed{recipe.training.seed}"
    record = read_record(folder)
    if (record is not None and record.encoding == encoding and record.recipe == recipe
            and same_encoding_settings(folder, encoding, recipe)):
        log(f"Reusing {folder}")
        return folder, record, True
    record = train_encoder(encoding, recipe, folder, device=device, progress=progress, log=log)
    if record is None:
        raise SwapbenchError("`swapbench zoo run` runs in one process; train on several GPUs with "
                             "`torchrun ... swapbench zoo train`")
    return folder, record, False


def mark_zoo_run(results: EvalResults, record: TrainingRecord, checkpoint: Path, reused: bool) -> EvalResults:
    """The eval results of a zoo checkpoint, marked as such and carrying the training recipe (validated again)."""
    from .config import positional_encoding_fields
    from .modeling import ZooConfig

    config = ZooConfig.from_pretrained(checkpoint)
    name = BY_NAME[record.encoding]
    training = zoo_training(record, checkpoint, reused)
    positional = PositionalEncodingInfo(family=name.family, kind=name.kind, evidence=positional_encoding_fields(config),
                                        note=f"swapbench zoo encoder: {name.paper}")
    model = results.model.model_copy(update={
        "name_or_path": f"swapbench-zoo/{record.encoding}", "fine_tuned": True, "fine_tuning": training,
        "label_map_source": "fine-tuned", "positional_encoding": positional})
    provenance = results.provenance
    train_seconds = 0.0 if reused else record.train_seconds
    provenance = provenance.model_copy(update={
        "seeds": provenance.seeds.model_copy(update={"fine_tuning": record.recipe.training.seed}),
        "timings": provenance.timings.model_copy(update={"fine_tuning": train_seconds,
                                                         "total": provenance.timings.total + train_seconds})})
    health = with_training(results.health, training, len(model.label_names))
    marked = results.model_copy(update={"model": model, "provenance": provenance, "health": health})
    return EvalResults.model_validate(marked.model_dump())


def zoo_training(record: TrainingRecord, checkpoint: Path, reused: bool) -> FineTuningInfo:
    """A zoo checkpoint's training record, in the results' terms."""
    arch = record.recipe.architecture
    identity = json.dumps({"encoding": record.encoding, "recipe": record.recipe.model_dump(mode="json"),
                           "train": record.train.fingerprint, "validation": record.validation.fingerprint},
                          sort_keys=True)
    return FineTuningInfo(
        base_model=(f"swapbench-zoo/{record.encoding}: trained from scratch by `swapbench zoo` ({arch.layers} layers, "
                    f"hidden {arch.hidden}, {arch.heads} heads, feed-forward {arch.intermediate}, "
                    f"dropout {arch.dropout}; tokenizer {record.recipe.tokenizer})"),
        base_revision=None, recipe=record.recipe.training, train=record.train, validation=record.validation,
        best_epoch=record.best_epoch, best_validation_accuracy=record.best_validation_accuracy,
        history=record.history, cache_key=hashlib.sha256(identity.encode()).hexdigest(),
        checkpoint=str(checkpoint), reused=reused, train_seconds=record.train_seconds, devices=record.devices)


def run_zoo(options: ZooRunOptions, log=print) -> ZooSummary:
    """Train and score every encoding over every seed; write the results files, zoo.json, README.md and the
    figure to options.out."""
    import torch

    from ..evaluate.pipeline import EvalOptions, evaluate
    from ..evaluate.provenance import device_name, git_state
    from .report import write_report

    unknown = [e for e in options.encodings if e not in BY_NAME]
    if unknown:
        raise SwapbenchError(f"unknown encoding(s) {', '.join(unknown)}: expected some of {', '.join(ENCODINGS)}")
    if not options.seeds:
        raise SwapbenchError("no seeds")
    started_at, began = datetime.now(timezone.utc), time.perf_counter()
    out = options.out
    out.mkdir(parents=True, exist_ok=True)
    max_length = options.recipe.training.max_length
    summaries, last = [], None
    for encoding in options.encodings:
        runs = []
        for seed in options.seeds:
            recipe = with_seed(options.recipe, seed)
            checkpoint, record, reused = checkpoint_for(encoding, recipe, options.work, device=options.device,
                                                        progress=options.progress, log=log)
            scored = evaluate(EvalOptions(
                model=str(checkpoint), data=options.data, configs=options.configs, limit=options.limit,
                max_length=max_length, device=options.device, seed=seed, bootstrap=options.bootstrap,
                probe_words=options.probe_words, probe_length=max_length, progress=options.progress,
                output=options.work / "results" / encoding / f"seed-{seed}.json", command=options.command))
            results = mark_zoo_run(scored[0], record, checkpoint, reused)
            relative = Path(encoding) / f"seed-{seed}.json"
            (out / relative).parent.mkdir(parents=True, exist_ok=True)
            (out / relative).write_text(results.model_dump_json(indent=2) + "\n", encoding="utf-8")
            probe = results.model.probe
            runs.append((SeedRun(seed=seed, results=str(relative),
                                 best_validation_accuracy=record.best_validation_accuracy,
                                 train_seconds=0.0 if reused else record.train_seconds,
                                 eval_seconds=scored[0].provenance.timings.total,
                                 locality=probe.locality if probe else None,
                                 symmetry=probe.symmetry if probe else None), results))
            last = results
        summaries.append(summarize_encoding(encoding, record.parameters, runs))
        log(f"{encoding}: " + ", ".join(f"{c} Δ {100 * s.mean:+.1f}" for c, s in summaries[-1].delta.items()))
    commit, _ = git_state()
    summary = ZooSummary(
        recipe=options.recipe, seeds=options.seeds, data=options.data, split=last.dataset.split,
        dataset_fingerprint=last.dataset.fingerprint, configurations=list(last.results),
        accuracy_configuration=largest_configuration(last),
        relabelled=relabelled(last), encodings=summaries,
        wall_seconds=round(time.perf_counter() - began, 1), device=last.provenance.device,
        device_name=device_name(torch.device(last.provenance.device)), torch_threads=torch.get_num_threads(),
        swapbench_version=__version__, git_commit=commit, started_at=started_at, command=options.command)
    (out / SUMMARY_FILE).write_text(summary.model_dump_json(indent=2) + "\n", encoding="utf-8")
    write_report(summary, out)
    return summary


__all__ = ["ZooRunOptions", "mark_zoo_run", "run_zoo", "same_encoding_settings"]
