"""`swapbench zoo run`: train every encoding over several seeds and set-ups with one recipe, score each checkpoint
with `swapbench eval`, and write one results file per (set-up, encoding, seed), the run's summary, its table and
figure.

A set-up is the recipe with the zoo's two options chosen: the initial token embeddings (random, or MiniLM's,
trained further or frozen) and whether role swaps of the training pairs are added ("random", "minilm",
"minilm-frozen", each optionally "+role-swaps").

Each results file is an ordinary `swapbench eval` results file (swapbench.results.schema.EvalResults), marked as
a zoo run: model.name_or_path is "swapbench-zoo/<encoding>" (with "@<set-up>" for a set-up other than "random"),
model.fine_tuning carries the training recipe and data with from_scratch true (model.fine_tuned is false: nothing
was fine-tuned), and model.positional_encoding names the zoo encoding. Checkpoints and the per-pair predictions
stay in the work folder: they are derived from SNLI.
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from ..core.errors import SwapbenchError
from ..core.files import replace_files
from ..core.registry import ENCODINGS
from ..core.text import portable
from ..core.version import __version__
from ..evaluation.scorers import Prepared
from ..evaluation.scorers.classifier import ClassifierScorer
from .compare import pair_outcomes
from .options import ZooRunOptions
from .setups import PLAIN, ROLE_SWAPS, parse_setup
from .summary import (
    SUMMARY_FILE,
    SeedRun,
    ZooSummary,
    compare_encodings,
    largest_configuration,
    order_sensitivity,
    probe_figures,
    relabelled,
    run_records,
    summarize_encoding,
)
from .train import TrainingRecord, ZooRecipe, read_record, train_encoder, zoo_training

logger = logging.getLogger(__name__)

HYPOTHESIS_ONLY_SUFFIX = "-hypothesis-only"  # a premise-blind control's checkpoint and results file


def setup_name(recipe: ZooRecipe) -> str:
    return "+".join([recipe.token_embeddings] + ([ROLE_SWAPS] if recipe.role_swaps else []))


def with_seed(recipe: ZooRecipe, seed: int) -> ZooRecipe:
    return recipe.model_copy(update={"training": recipe.training.model_copy(update={"seed": seed})})


def with_setup(recipe: ZooRecipe, setup: str) -> ZooRecipe:
    embeddings, swaps = parse_setup(setup)
    return recipe.model_copy(update={"token_embeddings": embeddings, "role_swaps": swaps})


def same_encoding_settings(folder: Path, encoding: str, recipe: ZooRecipe) -> bool:
    """Whether the checkpoint's config sets the encoding as this code would now (defaults included)."""
    from .config import ZooConfig, positional_encoding_fields
    from .train import zoo_config

    expected = zoo_config(
        encoding,
        recipe.architecture,
        max_length=recipe.training.max_length,
        vocab_size=1,
        options=recipe.encoding_options,
    )
    saved = ZooConfig.from_pretrained(folder)
    return positional_encoding_fields(saved) == positional_encoding_fields(expected)


def checkpoint_for(
    encoding: str, recipe: ZooRecipe, work: Path, *, scored, device: str | None, progress: bool
) -> tuple[Path, TrainingRecord, bool]:
    """The checkpoint of this encoding and recipe: reused from `work` when it was trained with exactly this
    recipe, encoding settings and scored data, else trained now. Returns (folder, record, reused)."""
    folder = (
        work
        / "checkpoints"
        / setup_name(recipe)
        / (f"{encoding}-seed{recipe.training.seed}" + (HYPOTHESIS_ONLY_SUFFIX if recipe.hypothesis_only else ""))
    )
    record = read_record(folder)
    if (
        record is not None
        and record.encoding == encoding
        and record.recipe == recipe
        and record.data_overlap is not None
        and record.data_overlap.scored_dataset == scored.dataset
        and same_encoding_settings(folder, encoding, recipe)
    ):
        logger.info(f"Reusing {folder}")
        return folder, record, True
    record = train_encoder(encoding, recipe, folder, scored=scored, device=device, progress=progress)
    if record is None:
        raise SwapbenchError(
            "`swapbench zoo run` runs in one process; train on several GPUs with `torchrun ... swapbench zoo train`"
        )
    return folder, record, False


class ZooScorer(ClassifierScorer):
    """Scores a zoo checkpoint as the classifier it is, and has evaluate() record it as the zoo's: named for its
    encoding and set-up, carrying this run's training record (trained from scratch: not fine-tuned), its seed,
    and its training time when it was trained in this run."""

    def __init__(self, record: TrainingRecord, checkpoint: Path, reused: bool):
        self.record, self.checkpoint, self.reused = record, checkpoint, reused

    def prepare(self, run) -> Prepared:
        prepared = super().prepare(run)
        setup = setup_name(self.record.recipe)
        train_seconds = 0.0 if self.reused else self.record.train_seconds
        # Its labels are those of the zoo's training, whatever names the saved config gives them.
        labels = replace(prepared.loaded.labels, source="fine-tuned")
        return replace(
            prepared,
            loaded=replace(prepared.loaded, labels=labels),
            fine_tuning=zoo_training(self.record, self.checkpoint, self.reused),
            train_seconds=train_seconds,
            earlier_seconds=train_seconds,
            name=f"swapbench-zoo/{self.record.encoding}"
            + ("" if setup == PLAIN else f"@{setup}")
            + (HYPOTHESIS_ONLY_SUFFIX if self.record.recipe.hypothesis_only else ""),
        )


def run_zoo(options: ZooRunOptions) -> ZooSummary:
    """Train and score every encoding over every set-up and seed; write the results files, zoo.json, README.md
    and the figure to options.out."""
    import torch

    from ..evaluation.data import open_benchmark
    from ..evaluation.options import eval_options_model
    from ..evaluation.pipeline import evaluate
    from ..evaluation.provenance import device_name, git_state
    from ..evaluation.scored_data import scored_pairs
    from ..results.files import predictions_path, read_predictions
    from .report import write_report

    unknown = [e for e in options.encodings if e not in ENCODINGS]
    if unknown:
        raise SwapbenchError(
            f"unknown encoding(s) {', '.join(unknown)}: expected some of {', '.join(ENCODINGS.names())}"
        )
    if not options.encodings:
        raise SwapbenchError("--encodings: no encoding given")
    if not options.seeds:
        raise SwapbenchError("--seeds: no seed given")
    setups = options.setups or [setup_name(options.recipe)]
    recipes = {setup: with_setup(options.recipe, setup) for setup in setups}
    started_at, began = datetime.now(timezone.utc), time.perf_counter()
    out = options.out
    out.mkdir(parents=True, exist_ok=True)
    max_length = options.recipe.training.max_length
    # Every row of every configuration, before --limit: no training pair may share a pairID or premise with them.
    scored = scored_pairs(open_benchmark(options.data, configs=options.configs))
    summaries, controls, every, read, read_controls = [], [], [], [], []  # every: each seed's results, in order
    clusters = None

    def scored_seed(setup: str, encoding: str, recipe: ZooRecipe) -> tuple[SeedRun, object, int]:
        """Train (or reuse) and score one encoding, set-up and seed; its results file, its outcomes kept."""
        nonlocal clusters
        checkpoint, record, reused = checkpoint_for(
            encoding, recipe, options.work, scored=scored, device=options.device, progress=options.progress
        )
        control = recipe.hypothesis_only
        where = (
            Path(setup)
            / encoding
            / (f"seed-{recipe.training.seed}" + (HYPOTHESIS_ONLY_SUFFIX if control else "") + ".json")
        )
        results, results_path = evaluate(
            eval_options_model()(
                model=str(checkpoint),
                data=options.data,
                configs=options.configs,
                limit=options.limit,
                max_length=max_length,
                device=options.device,
                seed=recipe.training.seed,
                bootstrap=options.bootstrap,
                probe=not control,
                probe_words=options.probe_words,
                probe_length=max_length,
                progress=options.progress,
                hypothesis_only=control,
                output=options.work / "results" / where,
                command=options.command,
            ),
            scorer=ZooScorer(record, checkpoint, reused),
        )
        replace_files({out / where: portable(results.model_dump_json(indent=2), keep=2) + "\n"})
        rows = read_predictions(predictions_path(results_path))
        # the predictions stay in --work; zoo.json keeps each pair's outcome for the paired comparisons
        outcomes, clusters = pair_outcomes(rows)
        timings = results.provenance.timings
        run = SeedRun(
            seed=recipe.training.seed,
            results=str(where),
            best_validation_accuracy=record.best_validation_accuracy,
            train_seconds=0.0 if reused else record.train_seconds,
            eval_seconds=timings.total - timings.fine_tuning,
            **probe_figures(results),
            changed=order_sensitivity(rows),
            outcomes=outcomes,
        )
        return run, results, record.parameters

    for setup, setup_recipe in recipes.items():
        for encoding in options.encodings:
            runs, blind = [], []
            for seed in options.seeds:
                run, results, parameters = scored_seed(setup, encoding, with_seed(setup_recipe, seed))
                runs.append((run, results))
                every.append(results)
                if options.controls:
                    control = with_seed(setup_recipe, seed).model_copy(update={"hypothesis_only": True})
                    blind.append(scored_seed(setup, encoding, control)[:2])
            summaries.append(summarize_encoding(encoding, setup, parameters, runs))
            read.append([results for _, results in runs])
            if blind:
                controls.append(summarize_encoding(encoding, setup, parameters, blind))
                read_controls.append([results for _, results in blind])
            logger.info(
                f"{setup} {encoding}: "
                + ", ".join(f"{c} changed {100 * s.mean:.1f}%" for c, s in summaries[-1].changed.items())
                + (
                    f"; accuracy {100 * summaries[-1].accuracy.mean:.1f}%, premise-blind control "
                    f"{100 * controls[-1].accuracy.mean:.1f}%"
                    if blind
                    else ""
                )
            )
    commit, _ = git_state()
    last = every[-1]
    summary = ZooSummary(
        recipe=options.recipe,
        setups=setups,
        seeds=options.seeds,
        data=options.data,
        split=last.dataset.split,
        limit=options.limit,
        dataset_fingerprint=last.dataset.fingerprint,
        configurations=list(last.results),
        accuracy_configuration=largest_configuration(last),
        relabelled=relabelled(last),
        encodings=summaries,
        wall_seconds=round(time.perf_counter() - began, 1),
        device=last.provenance.device,
        device_name=device_name(torch.device(last.provenance.device)),
        torch_threads=torch.get_num_threads(),
        swapbench_version=__version__,
        git_commit=commit,
        started_at=started_at,
        command=options.command,
        runs=run_records(every + [r for files in read_controls for r in files]),
        clusters=clusters,
        controls=controls,
        comparisons=compare_encodings(
            summaries, read, clusters, largest_configuration(last), relabelled(last), controls, read_controls
        ),
    )
    write_report(summary, out, also={out / SUMMARY_FILE: portable(summary.model_dump_json(indent=2), keep=2) + "\n"})
    logger.info(
        f"Zoo run of {len(summary.encodings)} (set-up, encoding)s x {len(summary.seeds)} seeds in "
        f"{summary.wall_seconds / 60:.1f} min; wrote {out}"
    )
    return summary


__all__ = ["ZooRunOptions", "ZooScorer", "parse_setup", "run_zoo", "same_encoding_settings"]
