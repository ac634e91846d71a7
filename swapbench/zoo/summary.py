"""The summary of a zoo run (zoo.json): per set-up, encoding and configuration, over the seeds, the zoo's primary
metric, order sensitivity, and Δ accuracy.

Order sensitivity is read from the per-pair predictions: the share of pairs whose predicted label changes when the
pair is perturbed (`changed`: exactly 0 for an encoder without positions on a word-order shuffle, whatever its
accuracy), and the share whose correctness flips (`discordant`, McNemar's discordant pairs: right on one side,
wrong on the other). Flips either way cancel in Δ, not here, which is why these say more than Δ when accuracy is
low. Δ and the discordant share are recomputed from the results files by `swapbench zoo report`; `changed` needs
the predictions, so it is kept per seed in zoo.json.
"""

from __future__ import annotations

import math
import statistics
from datetime import datetime
from pathlib import Path

from pydantic import Field

from ..core.errors import SwapbenchError
from ..core.registry import ENCODINGS
from ..core.strict import Strict
from ..leaderboard.store import read_results
from ..results.schema import EvalResults
from .compare import METHOD, Comparison, comparisons, outcomes_of, premise_test, reads_premise
from .train import ZooRecipe

SUMMARY_FILE = "zoo.json"
LEVEL = 0.95


class Spread(Strict):
    mean: float
    sd: float | None = Field(description="sample standard deviation over seeds; null for one seed")
    low: float | None = Field(
        None,
        description="95% interval of the mean over seeds (Student's t, cut to the "
        "figure's range: [0, 1] for a share, [-1, 1] for a Δ); null for one "
        "seed",
    )
    high: float | None = None
    values: list[float] = Field(description="one value per seed, in the order of `seeds`")


class SeedRun(Strict):
    seed: int
    results: str = Field(description="the results file, relative to the summary")
    best_validation_accuracy: float
    train_seconds: float = Field(description="training wall time (0 when the checkpoint was reused)")
    eval_seconds: float = Field(description="swapbench eval wall time: probe and scoring")
    locality: float | None = Field(description="the paper's locality of the probe")
    symmetry: float | None = Field(
        description="the paper's symmetry of the probe (min-max scaled rows: nearly on or "
        "off, so it cannot order encodings)"
    )
    degree_symmetry: float | None = Field(  # a figure of the probe added later: null in runs made before it
        default=None,
        description="the probe's symmetry that measures degree (model.probe.degree_symmetry); null "
        "when the results file predates it",
    )
    relative_locality: float | None = Field(  # added with degree_symmetry
        default=None,
        description="the probe's locality relative to the uniform baseline of its mask "
        "(model.probe.relative_locality); null when the results file predates it",
    )
    changed: dict[str, float] = Field(
        default_factory=dict, description="share of pairs whose prediction changes, per configuration"
    )
    outcomes: dict[str, str] | None = Field(
        default=None,
        description="each pair's outcome per configuration, in pair_id order, one hexadecimal digit a "
        "pair (swapbench.zoo.compare.pair_outcomes), which the paired comparisons draw "
        "from; null in runs summarised before it was kept",
    )


class ZooRunRecord(Strict):
    """One `swapbench zoo run` (one command line) whose results files the summary holds, as their provenance
    records it."""

    command: list[str]
    git_commits: list[str | None] = Field(
        description="the commits its results files were made at, in order: more "
        "than one when the checkout moved while it ran"
    )
    started_at: datetime = Field(description="when its first results file was started")
    results: int = Field(description="results files (encoding, set-up and seed) it made")


class EncodingSummary(Strict):
    encoding: str
    setup: str = Field("random", description="token embeddings, and +role-swaps when role swaps were added")
    paper: str
    family: str
    kind: str
    parameters: dict[str, int] = Field(description="total, positional (the encoding's own), non_embedding")
    runs: list[SeedRun]
    accuracy: Spread = Field(description="accuracy on the original pairs of the largest configuration")
    changed: dict[str, Spread] = Field(
        default_factory=dict,
        description="the primary metric: share of pairs whose predicted label "
        "changes under the perturbation, per configuration",
    )
    discordant: dict[str, Spread] = Field(
        default_factory=dict,
        description="share of pairs whose correctness flips (right on one side, wrong on the "
        "other: McNemar's discordant pairs), per configuration",
    )
    delta: dict[str, Spread] = Field(description="Δ accuracy (perturbed - original, a fraction) per configuration")
    non_entailment: dict[str, Spread] = Field(
        default_factory=dict,
        description="share of perturbed pairs predicted not-entailment, for the configurations "
        "that report it (shuffle-sr)",
    )
    at_chance: list[int] = Field(
        default_factory=list,
        description="the seeds whose model `swapbench eval` found at chance (its results' "
        "health, judged against the majority class of the whole split's originals, "
        "whatever --limit scored)",
    )


class ZooSummary(Strict):
    kind: str = Field("swapbench-zoo", description="marks a zoo run")
    recipe: ZooRecipe = Field(
        description="the recipe shared by every encoding (its training seed is replaced "
        "by each of `seeds`, its options by each of `setups`)"
    )
    setups: list[str] = Field(default_factory=lambda: ["random"], description="the set-ups run")
    seeds: list[int]
    data: str = Field(description="the benchmark scored (a `swapbench build` folder or Hub id)")
    split: str
    limit: int | None = Field(None, description="rows scored per configuration (--limit); null: all")
    dataset_fingerprint: str
    configurations: list[str]
    accuracy_configuration: str = Field(description="the configuration whose original pairs give `accuracy`")
    relabelled: list[str] = Field(
        default_factory=list,
        description="configurations whose perturbation changes the gold label (shuffle-sr), plotted apart",
    )
    encodings: list[EncodingSummary]
    wall_seconds: float = Field(description="the whole run, training and scoring; after a merge, the longest run")
    device: str
    device_name: str
    torch_threads: int
    swapbench_version: str
    git_commit: str | None
    started_at: datetime
    command: list[str]
    runs: list[ZooRunRecord] = Field(
        default_factory=list,
        description="every zoo run whose results files are here, oldest first: one, or "
        "several joined by `swapbench zoo report --merge`",
    )
    clusters: dict[str, list[int]] | None = Field(
        default=None,
        description="the premise cluster of each pair, per configuration, in the order of the runs' "
        "outcomes (every run scored the same rows); null when the runs keep no outcomes",
    )
    controls: list[EncodingSummary] = Field(
        default_factory=list,
        description="the premise-blind controls: each encoding of each set-up trained and "
        "scored on the hypotheses alone, same recipe and seeds; empty in runs "
        "made without them (or before them)",
    )
    comparisons: list[Comparison] = Field(
        default_factory=list,
        description="paired comparisons of encodings, of set-ups with and without role "
        "swaps, and of each encoding with its premise-blind control, resampling "
        "test pairs (by premise, once for both sides) and seeds together, "
        "Holm-adjusted within each family (swapbench.zoo.compare)",
    )
    comparisons_method: str = Field(default=METHOD, description="how the comparisons were made")

    def of(self, setup: str) -> list[EncodingSummary]:
        return [e for e in self.encodings if e.setup == setup]

    def premise_test(self, setup: str, encoding: str) -> Comparison | None:
        """The encoding's test against its premise-blind control, if one was made."""
        return premise_test(self.comparisons, setup, encoding)

    def reads_premise(self, setup: str, encoding: str) -> bool:
        """Whether the encoding beats its premise-blind control (compare.reads_premise)."""
        return reads_premise(self.comparisons, setup, encoding)

    def at_chance(self) -> tuple[int, int]:
        """(models `swapbench eval` found at chance, models): over every set-up, encoding and seed."""
        return sum(len(e.at_chance) for e in self.encodings), sum(len(e.runs) for e in self.encodings)

    def not_reading(self) -> tuple[int, int]:
        """(encodings not shown to read the premise, encodings): over every set-up."""
        verdicts = [self.reads_premise(e.setup, e.encoding) for e in self.encodings]
        return verdicts.count(False), len(verdicts)


SHARE = (0.0, 1.0)
DELTA = (-1.0, 1.0)


def spread(values: list[float], bounds: tuple[float, float] = SHARE) -> Spread:
    """Mean and 95% interval over seeds. With three seeds the t interval of a share near 0 reaches below it (2.2%
    [-1.6, 6.0]); the interval is cut to the figure's range, which costs no coverage, since the true value lies
    inside that range, and the report and figure both read these bounds."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return Spread(mean=mean, sd=None, values=values)
    from scipy.stats import t

    sd = statistics.stdev(values)
    half = t.ppf(0.5 + LEVEL / 2, len(values) - 1) * sd / math.sqrt(len(values))
    low, high = bounds
    return Spread(mean=mean, sd=sd, low=max(low, mean - half), high=min(high, mean + half), values=values)


def largest_configuration(results: EvalResults) -> str:
    """The configuration with the most rows: its original pairs give an encoding's accuracy."""
    return max(results.dataset.configurations, key=lambda c: c.rows).name


def order_sensitivity(rows) -> dict[str, float]:
    """Share of pairs whose predicted label changes, per configuration, from the predictions file's rows."""
    totals, changed = {}, {}
    for row in rows:
        totals[row.configuration] = totals.get(row.configuration, 0) + 1
        changed[row.configuration] = changed.get(row.configuration, 0) + (
            row.prediction_original != row.prediction_perturbed
        )
    return {name: changed[name] / totals[name] for name in totals}


def summarize_encoding(
    encoding: str, setup: str, parameters: dict[str, int], runs: list[tuple[SeedRun, EvalResults]]
) -> EncodingSummary:
    runs = [(run.model_copy(update=probe_figures(r)), r) for run, r in runs]
    first = runs[0][1]
    configurations = list(first.results)
    largest = largest_configuration(first)
    declared = ENCODINGS.get(encoding)
    return EncodingSummary(
        encoding=encoding,
        setup=setup,
        paper=declared.paper,
        family=declared.family,
        kind=declared.kind,
        parameters=parameters,
        runs=[run for run, _ in runs],
        accuracy=spread([r.results[largest].accuracy_original for _, r in runs]),
        changed={
            c: spread([run.changed[c] for run, _ in runs])
            for c in configurations
            if all(c in run.changed for run, _ in runs)
        },
        discordant={c: spread([discordant_fraction(r, c) for _, r in runs]) for c in configurations},
        delta={c: spread([r.results[c].delta for _, r in runs], DELTA) for c in configurations},
        non_entailment={
            c: spread([r.results[c].non_entailment_rate for _, r in runs])
            for c in configurations
            if all(r.results[c].non_entailment_rate is not None for _, r in runs)
        },
        at_chance=[run.seed for run, r in runs if r.health.at_chance],
    )


PROBE_FIGURES = ("locality", "symmetry", "degree_symmetry", "relative_locality")


def probe_figures(results: EvalResults) -> dict[str, float | None]:
    """The probe's figures a seed's run shows; a figure the results file's probe lacks (written before it was
    recorded) is null."""
    probe = results.model.probe
    return {name: getattr(probe, name, None) for name in PROBE_FIGURES}


def relabelled(results: EvalResults) -> list[str]:
    """The configurations whose perturbation changes the gold label (shuffle-sr): they report a non-entailment
    rate, and their Δ measures that change more than word order."""
    return [name for name, figures in results.results.items() if figures.non_entailment_rate is not None]


def discordant_fraction(results: EvalResults, configuration: str) -> float:
    figures = results.results[configuration]
    return (figures.mcnemar.original_only + figures.mcnemar.perturbed_only) / figures.n


def refresh_summary(summary: ZooSummary, folder: Path) -> ZooSummary:
    """The summary recomputed from the results files it lists (in `folder`) and the per-seed figures it keeps,
    e.g. after this module learnt a new figure."""

    def summarized(listed: list[EncodingSummary]) -> tuple[list[EncodingSummary], list, list[list[EvalResults]]]:
        encodings, every, read = [], [], []
        for encoding in listed:
            runs = [(run, read_results(Path(folder) / run.results).results) for run in encoding.runs]
            encodings.append(summarize_encoding(encoding.encoding, encoding.setup, encoding.parameters, runs))
            every += [results for _, results in runs]
            read.append([results for _, results in runs])
        return encodings, every, read

    encodings, every, read = summarized(summary.encodings)
    if not every:
        raise SwapbenchError(f"{folder / SUMMARY_FILE} lists no run")
    controls, every_control, read_controls = summarized(summary.controls)
    return summary.model_copy(
        update={
            "encodings": encodings,
            "controls": controls,
            "relabelled": relabelled(every[-1]),
            "runs": run_records(every + every_control),
            "comparisons": compare_encodings(
                encodings,
                read,
                summary.clusters,
                summary.accuracy_configuration,
                relabelled(every[-1]),
                controls,
                read_controls,
            ),
            "comparisons_method": METHOD,
        }
    )


def compare_encodings(
    encodings: list[EncodingSummary],
    results: list[list[EvalResults]],
    clusters: dict[str, list[int]] | None,
    shuffle: str,
    relabelled_names: list[str],
    controls: list[EncodingSummary] = (),
    control_results: list[list[EvalResults]] = (),
) -> list[Comparison]:
    """The paired comparisons (swapbench.zoo.compare) of these encodings, whose seeds' results files are
    `results`, in the order of their runs, and of each with its premise-blind control among `controls` (results
    `control_results`). `shuffle`: the configuration of accuracy and of the shuffle columns; `relabelled_names`:
    the role configurations, the first of which the tables show."""

    def outcomes(listed, files_of):
        return {
            (e.setup, e.encoding): [outcomes_of(r, run, clusters) for run, r in zip(e.runs, files)]
            for e, files in zip(listed, files_of)
        }

    return comparisons(
        outcomes(encodings, results), shuffle, (relabelled_names or [None])[0], outcomes(controls, control_results)
    )


def run_records(results) -> list[ZooRunRecord]:
    """The zoo runs that made these results files, told apart by their command line, oldest first."""
    found: dict[tuple[str, ...], ZooRunRecord] = {}
    for r in sorted(results, key=lambda r: r.provenance.started_at):
        command = tuple(r.provenance.command)
        record = found.get(command)
        if record is None:
            found[command] = ZooRunRecord(
                command=list(command),
                git_commits=[r.provenance.git_commit],
                started_at=r.provenance.started_at,
                results=1,
            )
        else:
            record.results += 1
            if r.provenance.git_commit not in record.git_commits:
                record.git_commits.append(r.provenance.git_commit)
    return list(found.values())


def merge_summaries(summary: ZooSummary, folder: Path, others: list[Path]) -> ZooSummary:
    """`summary` (of `folder`) with the runs of other --out folders added: their results files are copied into
    `folder`. They must share the recipe (but for their set-ups), seeds and dataset."""
    import shutil

    encodings, setups, controls = list(summary.encodings), list(summary.setups), list(summary.controls)
    wall, clusters = summary.wall_seconds, summary.clusters
    for other_folder in others:
        other = read_summary(other_folder)
        same = (
            other.seeds == summary.seeds
            and other.dataset_fingerprint == summary.dataset_fingerprint
            and other.limit == summary.limit
            and other.recipe == summary.recipe
        )
        if not same:
            raise SwapbenchError(f"{other_folder}: another recipe, seeds or dataset than {folder}; not merged")
        if clusters and other.clusters and clusters != other.clusters:
            raise SwapbenchError(f"{other_folder}: its runs scored other pairs than {folder}'s; not merged")
        clusters = clusters or other.clusters
        for encoding in other.encodings:
            if any((e.setup, e.encoding) == (encoding.setup, encoding.encoding) for e in encodings):
                raise SwapbenchError(f"{other_folder}: {encoding.setup} {encoding.encoding} is in both runs")
            for run in encoding.runs:
                target = Path(folder) / run.results
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(other_folder) / run.results, target)
            encodings.append(encoding)
        for control in other.controls:
            for run in control.runs:
                target = Path(folder) / run.results
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(other_folder) / run.results, target)
            controls.append(control)
        setups += [s for s in other.setups if s not in setups]
        wall = max(wall, other.wall_seconds)  # run side by side
    order = {name: i for i, name in enumerate(ENCODINGS.names())}
    encodings.sort(key=lambda e: (setups.index(e.setup), order.get(e.encoding, len(order))))
    controls.sort(key=lambda e: (setups.index(e.setup), order.get(e.encoding, len(order))))
    return summary.model_copy(
        update={
            "encodings": encodings,
            "controls": controls,
            "setups": setups,
            "wall_seconds": wall,
            "clusters": clusters,
        }
    )


def read_summary(folder: Path) -> ZooSummary:
    path = Path(folder) / SUMMARY_FILE
    if not path.is_file():
        raise SwapbenchError(f"{folder} has no {SUMMARY_FILE}: is it the --out folder of `swapbench zoo run`?")
    return ZooSummary.model_validate_json(path.read_text(encoding="utf-8"))
