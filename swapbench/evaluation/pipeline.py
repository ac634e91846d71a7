"""`swapbench eval` end to end: data -> the model, as its scorer prepares it (fine-tuned first if it is a base
model, ...) -> probe -> scores -> figures -> results file, predictions file and table. The scorer is the one
registered for --mode (swapbench.evaluation.scorers); nothing here depends on which it is."""

from __future__ import annotations

import dataclasses
import logging
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

import torch
from rich.console import Console

from ..core.errors import SwapbenchError
from ..core.files import check_writable
from ..core.hub_access import check_model, hub_commit
from ..core.logs import errors_only
from ..core.progress import progress_bar
from ..core.version import __version__
from ..models.gguf import check_gguf, checkpoint_path
from ..models.label_map import LabelMap
from ..models.loading import LoadedModel, choose_device, choose_dtype, load_config
from ..models.positional import architecture_kind, read_positional_encoding
from ..models.threads import cpu_threads
from ..results.build_record import BUILD_INFO
from ..results.files import default_output, predictions_path, public_results, render_predictions, write_results
from ..results.schema import (
    DtypeAgreement,
    EvalResults,
    FineTuningInfo,
    Mode,
    ModelHealth,
    ModelInfo,
    ProbeInfo,
    ProbeLayer,
    ProbeSettings,
    PromptInfo,
    Provenance,
    ScoringInfo,
    Seeds,
    Timings,
)
from .agreement import THRESHOLD, dtype_agreement, falls_short
from .data import Benchmark, open_benchmark
from .figures import configuration_result, role_free_controls
from .health import model_health
from .options import EvalOptions
from .provenance import device_name, git_state, package_versions, platform_string
from .report import print_table
from .results import distinct_pairs, pairs_per_configuration, prediction_rows
from .scored_data import dataset_info
from .scorers import Prepared, Run, Scorer, Scores, scorer_for
from .seeds import SeedScores, combined_health, pooled, seed_variance, with_seed
from .sharding import is_main, world_size

logger = logging.getLogger(__name__)


class Evaluation(NamedTuple):
    results: EvalResults
    path: Path  # the results file; its predictions file lies beside it (results.files.predictions_path)


class HelperProcess(Exception):
    """This process helped a distributed run (the fine-tuning, a shard of the scoring) and stops there: only the
    main process computes the figures and writes."""


def evaluate(options: EvalOptions, console: Console | None = None, scorer: Scorer | None = None) -> Evaluation:
    """Run the evaluation and write its results; HelperProcess on the non-main processes of a distributed run
    (`torchrun`, `accelerate launch`) once their shard of the pairs is scored. The pairs are scored by the scorer
    registered for options.mode, or by `scorer`, given by a caller that scores and records its own way (the zoo).
    torch runs on options.threads CPU threads, else on the cores free when it starts (models/threads.py). What it
    does is logged (swapbench.evaluation); `console` draws the progress bars (stderr by default)."""
    with cpu_threads(options.threads), errors_only(not is_main()):  # the main process reports for all
        return _evaluate(options, console, scorer)


def _evaluate(options: EvalOptions, console: Console | None, scorer: Scorer | None) -> Evaluation:
    main = is_main()
    # The other processes say nothing: the main process reports for all of them.
    console = console or Console(stderr=True, soft_wrap=True, quiet=not main)
    if not main:
        options = options.model_copy(update={"progress": False})
    started_at, began = datetime.now(timezone.utc), time.perf_counter()
    own_scorer, scorer = scorer, scorer_for(options, scorer)
    path = checked_output(options, started_at, own_scorer is not None)
    benchmark = open_benchmark(
        options.data, configs=options.configs, split=options.split, revision=options.data_revision, limit=options.limit
    )
    for name in benchmark.empty:
        logger.info(f"Skipping {name}: it has no rows.")
    warn_unverified(benchmark)
    device = choose_device(options.device)
    dtype = choose_dtype(device, options.dtype)
    pairs = distinct_pairs(benchmark)
    seeds = options.fine_tuning_seeds
    logger.info(scoring_cost(benchmark, len(seeds), len(pairs)))
    runs: list[SeedScores] = []
    first: FirstSeed | None = None  # what the results say of the model, from the first seed (on the main process)
    train_seconds = scoring_seconds = 0.0
    for index, seed in enumerate(seeds):
        if len(seeds) > 1:
            logger.info(f"Seed {seed}: fine-tuning {index + 1} of {len(seeds)}")
        # a later seed is scored in the dtype the first one's labels come from
        run = Run(options, benchmark, device, first.dtype if first else dtype, console, seed)
        prepared = scorer.prepare(run)
        probed = probe_or_reuse(run, prepared) if options.probe and main and first is None else (None, 0.0)
        scores = score_all(scorer, run, prepared, pairs, "scoring" if len(seeds) == 1 else f"scoring (seed {seed})")
        train_seconds, scoring_seconds = train_seconds + prepared.train_seconds, scoring_seconds + scores.seconds
        if main and first is None:
            prepared, scores, first = first_seed(scorer, run, prepared, pairs, scores, *probed)
            scoring_seconds += first.rescoring_seconds
        if main:
            rows = prediction_rows(benchmark, pairs, scores.predictions, first.labels, prepared.loaded.tokenizer)
            runs.append(
                SeedScores(
                    seed,
                    prepared.fine_tuning,
                    rows if len(seeds) == 1 else with_seed(rows, seed),
                    benchmark_health(benchmark, rows, prepared.fine_tuning, first.labels),
                )
            )
        prepared = scores = None  # this fine-tuning's model is let go before the next is loaded
    if not main:
        raise HelperProcess
    eval_results, predictions_text = results_of(
        options, benchmark, pairs, runs, first, path, started_at, began, train_seconds, scoring_seconds
    )
    print_table(eval_results, slices=options.slices)
    save(eval_results, predictions_text, path, exclusive=options.output is None)
    logger.info(f"Wrote {path} and {predictions_path(path).name}")
    if eval_results.model.hypothesis_only:
        logger.info(
            "This model saw the hypotheses alone: its figures say what the hypotheses give away, not how "
            f"it reads pairs. `swapbench leak {path}` measures, per role configuration, how "
            "well it tells swapped from original hypotheses; `swapbench submit` refuses the file."
        )
    return Evaluation(eval_results, path)


def checked_output(options: EvalOptions, started_at: datetime, own_scorer: bool) -> Path:
    """The results file's path, writable; before it, what would fail later refused before anything is read or
    loaded (the lengths are the caller's to check where it brings its own scorer, `own_scorer`)."""
    if options.device_map and world_size() > 1:
        raise SwapbenchError(
            f"--device-map {options.device_map} spreads one model over every device of this "
            f"machine, and each of the {world_size()} processes of this launch would claim them "
            "all: run it in one process, without torchrun or accelerate launch"
        )
    model_file = options.gguf_file or "config.json"
    check_model(options.model, options.revision, model_file)
    check_gguf(options.model, options.gguf_file)
    if not own_scorer:  # (a caller's scorer brings a model of its own making, checked by its maker)
        check_lengths(options)
    path = options.output or default_output(
        checkpoint_path(options.model, options.gguf_file),
        options.data,
        started_at,
        hub_commit(options.model, options.revision, model_file) or options.revision,
    )
    check_writable(path, "--output")
    return path


def results_of(
    options: EvalOptions,
    benchmark: Benchmark,
    pairs: list[tuple[str, str]],
    runs: list[SeedScores],
    first: FirstSeed,
    path: Path,
    started_at: datetime,
    began: float,
    train_seconds: float,
    scoring_seconds: float,
) -> tuple[EvalResults, str]:
    """The results as the file records them (no path of this machine) and the predictions file's text: every
    figure from the seeds' rows, the model and its scoring as the first seed's record says."""
    model, labels, dtype, probe, agreement = first.model, first.labels, first.dtype, first.probe, first.agreement
    if len(runs) == 1:
        rows, health, variance = runs[0].rows, runs[0].health, None
    else:
        roles = {config.name for config in benchmark.configurations if config.non_entailment_view}
        rows, health = pooled(runs), combined_health(runs)
        variance = seed_variance(runs, roles, seed=options.seed, resamples=options.bootstrap)
    results = {
        config.name: configuration_result(
            rows[config.name],
            label_view=labels.view,
            non_entailment_view=config.non_entailment_view,
            seed=options.seed,
            resamples=options.bootstrap,
            k_curve=options.k_curve,
        )
        for config in benchmark.configurations
    }
    controls = role_free_controls(
        rows,
        {config.name for config in benchmark.configurations if config.non_entailment_view},
        seed=options.seed,
        resamples=options.bootstrap,
    )

    predictions_text, predictions = render_predictions(
        [row for config_rows in rows.values() for row in config_rows], path
    )
    commit, dirty = git_state()
    fine_tuning = runs[0].fine_tuning
    eval_results = EvalResults(
        model=model,
        dataset=dataset_info(benchmark),
        results=results,
        health=health,
        predictions=predictions,
        provenance=Provenance(
            swapbench_version=__version__,
            git_commit=commit,
            git_dirty=dirty,
            packages=package_versions(),
            platform=platform_string(),
            device=str(first.ran_on),
            device_name=device_name(first.ran_on),
            dtype=str(dtype).removeprefix("torch."),
            torch_threads=torch.get_num_threads(),
            seeds=Seeds(
                bootstrap=options.seed,
                fine_tuning=fine_tuning.recipe.seed if fine_tuning else None,
                probe=options.seed if probe else None,
            ),
            scoring=ScoringInfo(
                unique_pairs=len(pairs),
                pairs=2 * sum(len(r) for r in rows.values()),
                max_length=first.scores.max_tokens,
                truncated=first.scores.truncated,
                batch_size=first.scores.batch_size,
                batch_size_requested=options.eval_batch_size,
                forward_passes=first.scores.forwards,
                processes=world_size(),
                dtype_agreement=agreement,
            ),
            timings=Timings(
                fine_tuning=train_seconds,
                probe=first.probe_seconds,
                scoring=scoring_seconds,
                total=time.perf_counter() - began + first.earlier_seconds,
            ),
            command=options.command,
            started_at=started_at,
        ),
        seed_variance=variance,
        role_free_controls=controls,
    )
    return public_results(eval_results), predictions_text


class FirstSeed(NamedTuple):
    """What the results say of the model and its scoring: the first seed's, as first_seed() made it."""

    model: ModelInfo
    labels: LabelMap  # the model's outputs as NLI labels (each seed's model reads them alike)
    dtype: torch.dtype  # the dtype its labels come from, and every later seed's
    scores: Scores  # its scoring: provenance.scoring
    agreement: DtypeAgreement | None
    probe: ProbeInfo | None
    probe_seconds: float
    rescoring_seconds: float  # spent scoring it again in float32, when its dtype changed too many labels
    ran_on: torch.device
    earlier_seconds: float


def first_seed(
    scorer: Scorer,
    run: Run,
    prepared: Prepared,
    pairs: list[tuple[str, str]],
    scores: Scores,
    probe: ProbeInfo | None,
    probe_seconds: float,
) -> tuple[Prepared, Scores, FirstSeed]:
    """The first seed's record, on the main process: the agreement of its labels with float32's and, where --dtype
    auto lost too many of them, the model scored again in float32 (this seed and the next ones); the model and
    scores kept from here on, with the record."""
    options, seconds = run.options, 0.0
    agreement = dtype_agreement(scorer, run, prepared, pairs, scores.predictions)
    if options.dtype == "auto" and falls_short(agreement) and world_size() == 1:
        logger.warning(
            f"{agreement.dtype} changes more labels than --dtype auto allows "
            f"(it keeps {agreement.dtype} from {THRESHOLD:.0%} agreement): scoring in float32"
        )
        # this seed and the next ones; the model is the one just trained (its checkpoint comes back from
        # the cache), so the results keep the first preparation's record of its training
        trained = prepared
        run = dataclasses.replace(run, dtype=torch.float32)
        prepared = dataclasses.replace(
            scorer.prepare(run), fine_tuning=trained.fine_tuning, earlier_seconds=trained.earlier_seconds
        )
        scores = score_all(scorer, run, prepared, pairs, "scoring in float32")
        seconds = scores.seconds
    loaded = prepared.loaded
    model = model_info(
        prepared.name or options.model,
        prepared.revision,
        loaded,
        prepared.fine_tuning,
        probe,
        scores.prompt,
        scorer.mode,
        hypothesis_only=options.hypothesis_only,
        pair_template=scores.pair_template,
    )
    if scores.truncated:
        logger.warning(f"{scores.truncated} of {len(pairs)} distinct pairs are {scores.truncation}")
    return (
        prepared,
        scores,
        FirstSeed(
            model,
            loaded.labels,
            run.dtype,
            scores,
            agreement,
            probe,
            probe_seconds,
            seconds,
            loaded.device,
            prepared.earlier_seconds,
        ),
    )


def score_all(scorer: Scorer, run: Run, prepared, pairs: list[tuple[str, str]], what: str):
    """scorer.score over every distinct pair, under a progress bar named `what` (plain lines in a log file), which
    says how long it takes from its pace over the first batches."""
    with progress_bar(enabled=run.options.progress, console=run.console, lines=True) as progress:
        task = progress.add_task(what, total=len(pairs), unit="pairs", estimate=True)
        return scorer.score(run, prepared, pairs, lambda n: progress.advance(task, n))


def scoring_cost(benchmark: Benchmark, seeds: int, pairs: int) -> str:
    """What the scoring will score, said before anything is loaded: the distinct pairs, the originals and what each
    configuration adds (a configuration of many rows per pair, such as unlu's permutations, costs the most), and
    how to score fewer. Its time is said once the first batches are timed (score_all)."""
    originals, added = pairs_per_configuration(benchmark)
    per = ", ".join(f"{name} {count:,}" for name, count in added.items())
    times = f", once for each of the {seeds} fine-tunings" if seeds > 1 else ""
    limit = f" (--limit {benchmark.limit:,})" if benchmark.limit else ""
    return (
        f"Scoring {pairs:,} distinct pairs{limit}{times}: {originals:,} originals and the perturbed pairs each "
        f"configuration adds ({per}); --configs scores fewer configurations, --limit N the first N rows of each. "
        "How long it takes is said once the first batches are timed"
    )


def benchmark_health(benchmark: Benchmark, rows, fine_tuning: FineTuningInfo | None, labels) -> ModelHealth:
    """model_health against the whole split's originals, in the model's label view."""
    split_gold = {pair_id: labels.to_view(label) for pair_id, label in benchmark.split_labels.items()}
    split_from = (
        f"the {len(split_gold):,} distinct original pairs of {', '.join(benchmark.split_labels_from)} "
        "(every row, scored or not)"
    )
    return model_health(
        (row for config_rows in rows.values() for row in config_rows),
        fine_tuning,
        len(labels.names),
        split_gold=split_gold,
        split_from=split_from,
        label_keeping=[c.name for c in benchmark.configurations if not c.non_entailment_view],
    )


def warn_unverified(benchmark: Benchmark) -> None:
    """Say so when configurations cannot be checked against the build's record; the results record it too."""
    unverified = [c.name for c in benchmark.configurations if not c.verified]
    if not unverified:
        return
    build = (
        f"{benchmark.path}/{BUILD_INFO}"
        if benchmark.revision is None
        else f"{BUILD_INFO} in the Hub dataset {benchmark.path} at commit {benchmark.revision}"
    )
    why = f"there is no {build}" if benchmark.build_info is None else f"{build} does not list them"
    logger.warning(
        f"the data of {', '.join(unverified)} are unverified: {why}, so "
        "their fingerprints cannot be checked against the build. The results file records them as "
        "unverified (dataset.configurations[].verified), and the leaderboard refuses them"
    )


def save(results: EvalResults, predictions: str, path: Path, exclusive: bool = False) -> None:
    """Write the results and predictions files at `path` (results.files.write_results; `exclusive`: never over a
    pair that is there, for a name eval chose itself); when that fails, in a new temporary folder, which the error
    names, so that computed scores are not lost."""
    try:
        write_results(results, predictions, path, exclusive=exclusive)
        return
    except OSError as err:
        error = err
    why = (
        "another run wrote a file of that name meanwhile, which eval does not replace unless --output names it"
        if isinstance(error, FileExistsError)
        else error.strerror
    )
    try:
        fallback = Path(tempfile.mkdtemp(prefix="swapbench-eval-")) / path.name
        write_results(results, predictions, fallback)
    except OSError as again:
        raise SwapbenchError(
            f"cannot write {path} ({why}), nor a copy in {tempfile.gettempdir()} "
            f"({again.strerror}); the table above is all that is left"
        ) from again
    raise SwapbenchError(
        f"cannot write {path} ({why}); the results were saved to {fallback} instead, "
        f"with {predictions_path(fallback).name} beside it"
    ) from error


# Model types whose learned positions start after the padding index (RoBERTa's embeddings): of the
# max_position_embeddings positions in their table, pad_token_id + 1 are never a token's.
PADDING_OFFSET = {
    "roberta",
    "xlm-roberta",
    "xlm-roberta-xl",
    "camembert",
    "longformer",
    "data2vec-text",
    "roberta-prelayernorm",
    "ibert",
    "luke",
    "xmod",
    "mpnet",
}


def position_limit(config) -> int | None:
    """The most tokens `config`'s model reads: the size of its table of positions (learned or sinusoidal
    absolute ones, RoFormer's and MPNet's) less what RoBERTa-style embeddings leave unused; None where positions
    are not a table (relative, rotary without one), so that no length runs past it."""
    info = read_positional_encoding(config)
    limit = getattr(config, "max_position_embeddings", None)
    if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
        return None
    if info.family != "absolute" and "max_position_embeddings" not in info.evidence:
        return None
    if getattr(config, "model_type", None) in PADDING_OFFSET:
        limit -= (getattr(config, "pad_token_id", None) or 0) + 1
    return limit


def check_lengths(options: EvalOptions) -> None:
    """Refuse, before any work, a --max-length (or --train-max-length) beyond the model's positions: the model
    would fail on the first pair that long, after the fine-tuning or part of the scoring."""
    given = {
        flag: value
        for flag, value in (("--max-length", options.max_length), ("--train-max-length", options.train_max_length))
        if value
    }
    if not given:
        return
    limit = position_limit(load_config(options.model, options.revision, options.trust_remote_code, options.gguf_file))
    for flag, value in given.items():
        if limit is not None and value > limit:
            raise SwapbenchError(
                f"{flag} {value} is beyond the {limit} positions of {options.model}: give "
                f"{flag} {limit} or less. Nothing was done"
            )


def probe_settings(options: EvalOptions) -> ProbeSettings:
    from ..probing.run import ADD_SPECIAL_TOKENS

    return ProbeSettings(
        n_words=options.probe_words,
        length=options.probe_length,
        seed=options.seed,
        add_special_tokens=ADD_SPECIAL_TOKENS,
    )


def probe_or_reuse(run: Run, prepared) -> tuple[ProbeInfo, float]:
    """The probe of the model `prepared` loaded: read back from the probe cache when this model was probed so
    before (evaluation/probe_cache.py), else run and kept there. A model the scores cache cannot key (no identity)
    and --no-cache are probed every time."""
    from ..core.paths import default_cache_dir
    from ..probing.figures import probe_figures
    from .probe_cache import probe_entry, read_probe, write_probe

    options, settings = run.options, probe_settings(run.options)
    entry = None
    if options.use_cache and prepared.identity is not None:
        weights = next(prepared.loaded.model.parameters())
        entry = probe_entry(
            options.cache_dir or default_cache_dir(),
            prepared.name or options.model,
            prepared.identity,
            settings,
            str(weights.dtype),
            weights.device.type,
        )
    cached = read_probe(entry, logger.warning) if entry else None
    if cached is not None:
        logger.info(
            f"Probe: {probe_figures(cached)}, spread {cached.spread:.3f} of the uniform weight (read "
            f"back from {entry.path}: the same model and probe settings, not probed again)"
        )
        if cached.flat:
            from ..probing.run import flat_warning

            logger.warning(flat_warning(cached.spread))
        return cached, 0.0
    probe, seconds = run_probe(prepared.loaded, settings, options.probe_batch_size, options.progress)
    if entry:
        write_probe(entry, probe, logger.warning)
    return probe, seconds


def run_probe(loaded: LoadedModel, settings: ProbeSettings, batch_size: int, progress: bool) -> tuple[ProbeInfo, float]:
    from ..probing import ProbeError, probe_model
    from ..probing.figures import probe_figures
    from ..probing.run import flat_warning

    began = time.perf_counter()
    try:
        result = probe_model(
            loaded.model, loaded.tokenizer, progress=progress, batch_size=batch_size, **settings.model_dump()
        )
    except ProbeError as err:
        raise SwapbenchError(f"the probe cannot run on this model: {err} (--no-probe skips it)") from err
    logger.info(f"Probe: {probe_figures(result)}, spread {result.spread:.3f} of the uniform weight")
    if result.flat:
        logger.warning(flat_warning(result.spread))
    layers = [
        ProbeLayer(
            layer=m.layer,
            locality=m.locality,
            symmetry=m.symmetry,
            relative_locality=m.relative_locality,
            degree_symmetry=m.degree_symmetry,
            decay_ratio=m.decay_ratio,
        )
        for m in result.per_layer
    ]
    info = ProbeInfo(
        locality=result.locality,
        symmetry=result.symmetry,
        per_layer=layers,
        settings=settings,
        spread=result.spread,
        flat=result.flat,
        causal=result.causal,
        symmetry_note=result.symmetry_note,
        left_decay=result.left_decay,
        relative_locality=result.relative_locality,
        degree_symmetry=result.degree_symmetry,
        degree_symmetry_note=result.degree_symmetry_note,
        decay_ratio=result.decay_ratio,
    )
    return info, time.perf_counter() - began


def model_info(
    name: str,
    revision: str | None,
    loaded: LoadedModel,
    fine_tuning: FineTuningInfo | None,
    probe: ProbeInfo | None,
    prompt: PromptInfo | None,
    mode: Mode,
    hypothesis_only: bool = False,
    pair_template: str | None = None,
) -> ModelInfo:
    return ModelInfo(
        name_or_path=name,
        revision=revision,
        model_type=loaded.config.model_type,
        architecture=type(loaded.model).__name__,
        num_parameters=sum(p.numel() for p in loaded.model.parameters()),
        label_names=list(loaded.labels.names),
        label_view=loaded.labels.view,
        label_map_source=loaded.labels.source,
        positional_encoding=read_positional_encoding(loaded.config),
        architecture_kind=architecture_kind(loaded.config),
        mode=mode,
        prompt=prompt,
        fine_tuned=fine_tuning is not None and not fine_tuning.from_scratch,
        fine_tuning=fine_tuning,
        probe=probe,
        weights=loaded.weights,
        hypothesis_only=hypothesis_only,
        pair_template=pair_template,
        device_map=loaded.device_map,
        gguf=loaded.gguf,
    )
