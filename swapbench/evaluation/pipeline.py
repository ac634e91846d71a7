"""`swapbench eval` end to end: data -> model (fine-tuned first if it is a base model) -> probe -> scores ->
figures -> results file, predictions file and table."""

from __future__ import annotations

import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

import torch
from rich.console import Console
from rich.markup import escape

from ..core.errors import SwapbenchError
from ..core.files import check_writable
from ..core.hub_access import check_model, hub_commit
from ..core.labels import LABEL_NAMES
from ..results.build_record import BUILD_INFO
from ..core.paths import default_cache_dir
from ..core.progress import progress_bar
from ..core.version import __version__
from .data import Benchmark, open_benchmark
from .finetune import INFO_FILE, DataChoice, ScoredPairs, finetune, premise_key, reference_recipe
from .health import model_health
from .options import DEFAULT_MAX_LENGTH, EvalOptions
from ..models.label_map import LabelMap
from ..models.loading import (LoadedModel, choose_device, choose_dtype, is_classifier, load_causal_lm, load_classifier,
                     load_config, map_labels, model_revision)
from ..models.positional import architecture_kind, read_positional_encoding
from .provenance import device_name, git_state, package_versions, platform_string
from .report import default_output, predictions_path, print_table, render_predictions, write_results
from .results import configuration_result, distinct_pairs, prediction_rows, score_benchmark
from ..results.schema import (BuildRecord, ConfigurationData, DatasetInfo, EvalResults, FineTuningInfo, ModelInfo, ProbeInfo, ProbeLayer,
                     ProbeSettings, PromptInfo, Provenance, ScoringInfo, Seeds, Timings, dataset_fingerprint)


class Evaluation(NamedTuple):
    results: EvalResults
    path: Path  # the results file; its predictions file lies beside it (report.predictions_path)


class HelperProcess(Exception):
    """This process helped a distributed fine-tuning and stops there: only the main process scores and writes."""


def evaluate(options: EvalOptions, console: Console | None = None) -> Evaluation:
    """Run the evaluation and write its results; HelperProcess on the non-main processes of a distributed
    fine-tuning once their part is done."""
    console = console or Console(stderr=True)
    started_at, began = datetime.now(timezone.utc), time.perf_counter()
    check_model(options.model, options.revision)
    path = options.output or default_output(options.model, options.data, started_at,
                                            hub_commit(options.model, options.revision) or options.revision)
    check_writable(path, "--output")
    benchmark = open_benchmark(options.data, configs=options.configs, split=options.split,
                               revision=options.data_revision, limit=options.limit)
    for name in benchmark.empty:
        console.print(f"Skipping {name}: it has no rows.")
    warn_unverified(benchmark, console)
    device = choose_device(options.device)
    dtype = choose_dtype(device, options.dtype)
    prepared = prepare_model(options, benchmark, device, dtype, console)
    if prepared is None:
        raise HelperProcess
    loaded, revision, fine_tuning, tune_seconds = prepared

    probe, probe_seconds = run_probe(loaded, probe_settings(options), options.probe_batch_size, options.progress,
                                     console) if options.probe else (None, 0.0)

    pairs = distinct_pairs(benchmark)
    prompt_info = None
    with progress_bar(enabled=options.progress, console=console) as progress:
        task = progress.add_task("scoring", total=len(pairs))
        advance = lambda n: progress.advance(task, n)  # noqa: E731
        if options.mode == "prompt":
            predictions, scored, prompt_info, max_tokens = score_prompted(loaded, revision, options, benchmark, pairs,
                                                                         dtype, advance, console)
            rows = prediction_rows(benchmark, pairs, predictions, loaded.labels)
        else:
            max_tokens = options.max_length or DEFAULT_MAX_LENGTH
            rows, scored = score_benchmark(
                loaded.model, loaded.tokenizer, benchmark, pairs, loaded.labels, max_length=max_tokens,
                batch_size=options.eval_batch_size, progress=advance)
    if scored.truncated:
        limit, cut = f"--max-length {max_tokens}", "truncated"
        if options.mode == "prompt":
            limit, cut = ((limit, "cut from the left") if max_tokens == options.max_length else
                          (f"the model's {max_tokens}", "cut from the left to fit the model"))
        console.print(f"[yellow]Warning:[/] {scored.truncated} of {len(pairs)} distinct pairs are longer than "
                      f"{limit} tokens and were {cut}")
    results = {config.name: configuration_result(rows[config.name], label_view=loaded.labels.view,
                                                 non_entailment_view=config.non_entailment_view,
                                                 seed=options.seed, resamples=options.bootstrap)
               for config in benchmark.configurations}

    predictions_text, predictions = render_predictions([row for config_rows in rows.values() for row in config_rows],
                                                       path)
    commit, dirty = git_state()
    eval_results = EvalResults(
        model=model_info(options.model, revision, loaded, fine_tuning, probe, prompt_info),
        dataset=dataset_info(benchmark),
        results=results,
        health=model_health((row for config_rows in rows.values() for row in config_rows), fine_tuning,
                            len(loaded.labels.names)),
        predictions=predictions,
        provenance=Provenance(
            swapbench_version=__version__, git_commit=commit, git_dirty=dirty, packages=package_versions(),
            platform=platform_string(), device=str(device), device_name=device_name(device),
            dtype=str(dtype).removeprefix("torch."), torch_threads=torch.get_num_threads(),
            seeds=Seeds(bootstrap=options.seed, fine_tuning=fine_tuning.recipe.seed if fine_tuning else None,
                        probe=options.seed if probe else None),
            scoring=ScoringInfo(unique_pairs=len(pairs), pairs=2 * sum(len(r) for r in rows.values()),
                                max_length=max_tokens, truncated=scored.truncated,
                                batch_size=scored.batch_size, batch_size_requested=options.eval_batch_size,
                                forward_passes=getattr(scored, "forwards", None)),
            timings=Timings(fine_tuning=tune_seconds, probe=probe_seconds, scoring=scored.seconds,
                            total=time.perf_counter() - began),
            command=options.command, started_at=started_at))
    print_table(eval_results, slices=options.slices)
    save(eval_results, predictions_text, path)
    console.print(f"Wrote {path} and {predictions_path(path).name}")
    return Evaluation(eval_results, path)


def warn_unverified(benchmark: Benchmark, console: Console) -> None:
    """Say so when configurations cannot be checked against the build's record; the results record it too."""
    unverified = [c.name for c in benchmark.configurations if not c.verified]
    if not unverified:
        return
    build = (f"{benchmark.path}/{BUILD_INFO}" if benchmark.revision is None
             else f"{BUILD_INFO} in the Hub dataset {benchmark.path} at commit {benchmark.revision}")
    why = f"there is no {build}" if benchmark.build_info is None else f"{build} does not list them"
    console.print(f"[bold yellow]warning:[/] the data of {', '.join(unverified)} are unverified: {escape(why)}, so "
                  "their fingerprints cannot be checked against the build. The results file records them as "
                  "unverified (dataset.configurations[].verified), and the leaderboard refuses them")


def save(results: EvalResults, predictions: str, path: Path) -> None:
    """Write the results and predictions files at `path`; when that fails, in a new temporary folder, which the
    error names, so that computed scores are not lost."""
    try:
        write_results(results, predictions, path)
        return
    except OSError as err:
        error = err
    try:
        fallback = Path(tempfile.mkdtemp(prefix="swapbench-eval-")) / path.name
        write_results(results, predictions, fallback)
    except OSError as again:
        raise SwapbenchError(f"cannot write {path} ({error.strerror}), nor a copy in {tempfile.gettempdir()} "
                             f"({again.strerror}); the table above is all that is left") from again
    raise SwapbenchError(f"cannot write {path} ({error.strerror}); the results were saved to {fallback} instead, "
                         f"with {predictions_path(fallback).name} beside it") from error


def prepare_model(options: EvalOptions, benchmark: Benchmark, device: torch.device, dtype: torch.dtype,
                  console: Console) -> tuple[LoadedModel, str | None, FineTuningInfo | None, float] | None:
    """The model to score, its revision, its fine-tuning (if done here) and the seconds spent training in this
    run; None on the non-main processes of a distributed fine-tuning."""
    config = load_config(options.model, options.revision, options.trust_remote_code)
    if options.mode == "prompt":
        if options.finetune or options.label_map:
            raise SwapbenchError("--mode prompt scores the language model itself: --finetune and --label-map do not "
                                 "apply")
        if architecture_kind(config) != "decoder":
            raise SwapbenchError(f"--mode prompt needs a decoder-only language model; {options.model} is an "
                                 f"{architecture_kind(config)} ({config.model_type})")
        loaded = load_causal_lm(options.model, config, revision=options.revision, device=device, dtype=dtype,
                                trust_remote_code=options.trust_remote_code)
        return loaded, model_revision(options.model, config), None, 0.0
    if options.template or options.verbalizers or options.shots:
        raise SwapbenchError("--template, --verbalizers and --shots are for --mode prompt")
    if not options.finetune and is_classifier(config):
        labels = map_labels(config, options.label_map, options.force)  # refuses before the weights are loaded
        loaded = load_classifier(options.model, config, labels, revision=options.revision, device=device, dtype=dtype,
                                 trust_remote_code=options.trust_remote_code, allow_missing=options.allow_missing)
        return (loaded, model_revision(options.model, config, options.revision), recorded_training(options.model),
                0.0)
    if options.label_map:
        raise SwapbenchError("--label-map is for a classifier used as is; a model fine-tuned here gets SNLI's labels")
    recipe = reference_recipe(epochs=options.epochs, learning_rate=options.learning_rate,
                              batch_size=options.train_batch_size, max_length=options.train_max_length,
                              seed=options.seed)
    console.print(announce_fine_tuning(options.model, options.training, recipe, is_classifier(config), device))
    tuned = finetune(options.model, revision=options.revision, recipe=recipe, data=options.training,
                     scored=scored_pairs(benchmark),
                     cache_dir=options.cache_dir or default_cache_dir(), device=device, dtype=dtype,
                     progress=options.progress, console=console)
    if not tuned.main_process:
        return None
    loaded = load_classifier(str(tuned.path), load_config(str(tuned.path)), LabelMap(LABEL_NAMES, source="fine-tuned"),
                             device=device, dtype=dtype)
    return loaded, tuned.info.base_revision, tuned.info, 0.0 if tuned.info.reused else tuned.info.train_seconds


# SNLI 1.0's training split: its labelled pairs, for the estimate given before they are read.
SNLI_TRAIN_PAIRS = 549_367


def announce_fine_tuning(model: str, data: DataChoice, recipe, classifier: bool, device: torch.device) -> str:
    """What is about to happen, said before the training data are read: a base model is fine-tuned first."""
    from .finetune import describe_device
    from .trainer import optimisation_steps

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


def score_prompted(loaded: LoadedModel, revision: str | None, options: EvalOptions, benchmark: Benchmark,
                   pairs: list[tuple[str, str]], dtype: torch.dtype, progress, console: Console):
    """Predicted label index of each pair by its verbalizers' log-likelihood, the scorer's report, the prompt's
    record and the prompt length limit; the scores come from the cache when this prompt scored these pairs."""
    from ..sources import load_split
    from .finetune import describe
    from .prompting import (DEFAULT_TEMPLATE, SCORE_METHOD, SHOT_SEPARATOR, PromptScores, PromptSpec, cache_key,
                            cache_path, draw_shots, encode_prompts, model_max_tokens, pairs_fingerprint,
                            parse_verbalizers, read_cached, read_template, render, score_prompts, shots_text,
                            write_cached)

    template = read_template(options.template) if options.template else DEFAULT_TEMPLATE
    spec = PromptSpec(template=template, verbalizers=parse_verbalizers(options.verbalizers), shots=options.shots,
                      seed=options.seed, template_source=str(options.template) if options.template else
                      PromptSpec.__dataclass_fields__["template_source"].default)
    examples, source = [], None
    if spec.shots:
        choice = options.training
        pool = load_split(choice.train_source, choice.train_split, choice.train_limit, option="--train-source",
                          columns=choice.columns)
        where = f"{pool.source}, {pool.split}"
        scored = scored_pairs(benchmark)
        examples, set_apart = draw_shots(pool.pairs, spec.shots, spec.seed, scored.pair_ids, scored.premises,
                                         premise_key, where)
        if set_apart:
            console.print(f"Set apart {set_apart} few-shot candidates whose premise is also a scored premise")
        source = describe(pool.pairs, pool.source, pool.split, choice.train_limit, held_out=False)
    shots = shots_text(spec, examples)
    max_tokens = model_max_tokens(loaded.model) or 4096
    if options.max_length:  # --max-length cuts prompts (from the left) as the model's own length does
        max_tokens = min(max_tokens, options.max_length)
    key = cache_key({"model": options.model, "revision": revision, "dtype": str(dtype), "template": spec.template,
                     "verbalizers": spec.verbalizers, "shots": spec.shots, "seed": spec.seed,
                     "examples": [p.pair_id for p in examples], "separator": SHOT_SEPARATOR,
                     "max_tokens": max_tokens, "pairs": pairs_fingerprint(pairs)})
    path = cache_path(options.cache_dir or default_cache_dir(), options.model, key)
    encoded = encode_prompts(loaded.tokenizer, [shots + render(spec, p, h) for p, h in pairs], spec, max_tokens)
    cached = read_cached(path, len(pairs))
    if cached is not None:
        console.print(f"Reusing the prompted scores {path}")
        progress(len(pairs))
        result = PromptScores(loglik=cached, batch_size=0, truncated=encoded.truncated, seconds=0.0, forwards=0)
    else:
        result = score_prompts(loaded.model, loaded.tokenizer, encoded, batch_size=options.eval_batch_size,
                               progress=progress)
        write_cached(path, result.loglik)
    info = PromptInfo(template=spec.template, template_source=spec.template_source, verbalizers=spec.verbalizers,
                      score=SCORE_METHOD, shots=spec.shots, seed=spec.seed, separator=SHOT_SEPARATOR,
                      examples=[p.pair_id for p in examples], example_source=source, cache_key=key,
                      reused=cached is not None)
    return result.predictions, result, info, max_tokens


def recorded_training(model: str) -> FineTuningInfo | None:
    """How swapbench trained a checkpoint scored as it is (swapbench_finetune.json, which a cached fine-tuning and
    a zoo encoder both carry); None for any other model."""
    folder = Path(model)
    if (folder / INFO_FILE).is_file():
        info = FineTuningInfo.model_validate_json((folder / INFO_FILE).read_text(encoding="utf-8"))
        return info.model_copy(update={"checkpoint": str(folder), "reused": True})
    return None


def probe_settings(options: EvalOptions) -> ProbeSettings:
    from ..probing.run import ADD_SPECIAL_TOKENS

    return ProbeSettings(n_words=options.probe_words, length=options.probe_length, seed=options.seed,
                         add_special_tokens=ADD_SPECIAL_TOKENS)


def run_probe(loaded: LoadedModel, settings: ProbeSettings, batch_size: int, progress: bool,
              console: Console) -> tuple[ProbeInfo, float]:
    from ..probing import ProbeError, probe_model
    from ..probing.run import flat_warning

    began = time.perf_counter()
    try:
        result = probe_model(loaded.model, loaded.tokenizer, progress=progress, batch_size=batch_size,
                             **settings.model_dump())
    except ProbeError as err:
        raise SwapbenchError(f"the probe cannot run on this model: {err} (--no-probe skips it)") from err
    symmetry_text = f"{result.symmetry:.1%}" if result.symmetry is not None else "null (causal mask)"
    console.print(f"Probe: locality {result.locality:.1%}, symmetry {symmetry_text}, "
                  f"spread {result.spread:.3f} of the uniform weight")
    if result.flat:
        console.print(f"[yellow]Warning:[/] {flat_warning(result.spread)}")
    layers = [ProbeLayer(layer=m.layer, locality=m.locality, symmetry=m.symmetry) for m in result.per_layer]
    info = ProbeInfo(locality=result.locality, symmetry=result.symmetry, per_layer=layers, settings=settings,
                     spread=result.spread, flat=result.flat, causal=result.causal,
                     symmetry_note=result.symmetry_note, left_decay=result.left_decay)
    return info, time.perf_counter() - began


def model_info(name: str, revision: str | None, loaded: LoadedModel, fine_tuning: FineTuningInfo | None,
               probe: ProbeInfo | None, prompt: PromptInfo | None = None) -> ModelInfo:
    return ModelInfo(
        name_or_path=name, revision=revision, model_type=loaded.config.model_type,
        architecture=type(loaded.model).__name__,
        num_parameters=sum(p.numel() for p in loaded.model.parameters()),
        label_names=list(loaded.labels.names), label_view=loaded.labels.view,
        label_map_source=loaded.labels.source, positional_encoding=read_positional_encoding(loaded.config),
        architecture_kind=architecture_kind(loaded.config), mode="prompted" if prompt else "fine-tuned",
        prompt=prompt, fine_tuned=fine_tuning is not None and not fine_tuning.from_scratch, fine_tuning=fine_tuning,
        probe=probe, weights=loaded.weights)


def dataset_info(benchmark: Benchmark) -> DatasetInfo:
    build = benchmark.build_info
    configurations = [ConfigurationData(name=c.name, rows=c.rows, fingerprint=c.fingerprint, verified=c.verified)
                      for c in benchmark.configurations]
    return DatasetInfo(
        path=benchmark.path, revision=benchmark.revision, split=benchmark.split,
        fingerprint=dataset_fingerprint({c.name: c.fingerprint for c in configurations}),
        configurations=configurations, limit=benchmark.limit,
        source=build.source if build else None, source_fingerprint=build.source_fingerprint if build else None,
        build_seed=build.seed if build else None, build_version=build.swapbench_version if build else None,
        build=BuildRecord.model_validate(build.model_dump(include=set(BuildRecord.model_fields))) if build else None)


def scored_pairs(benchmark: Benchmark) -> ScoredPairs:
    configs = benchmark.configurations
    return ScoredPairs(dataset=dataset_info(benchmark).fingerprint, path=benchmark.path,
                       pair_ids=frozenset().union(*(c.all_pair_ids for c in configs)),
                       premises=frozenset(premise_key(p) for c in configs for p in c.all_source_premises))
