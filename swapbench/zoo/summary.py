"""The summary of a zoo run (zoo.json): Δ and discordant pairs per encoding and configuration over the seeds,
computed from the per-seed results files alone, so that `swapbench zoo report` can recompute it."""

from __future__ import annotations

import statistics
from datetime import datetime
from pathlib import Path

from pydantic import Field

from ..errors import SwapbenchError
from ..evaluate.schema import EvalResults
from ..leaderboard.store import read_results
from ..strict import Strict
from .names import BY_NAME
from .train import ZooRecipe

SUMMARY_FILE = "zoo.json"


class Spread(Strict):
    mean: float
    sd: float | None = Field(description="sample standard deviation over seeds; null for one seed")
    values: list[float] = Field(description="one value per seed, in the order of `seeds`")


class SeedRun(Strict):
    seed: int
    results: str = Field(description="the results file, relative to the summary")
    best_validation_accuracy: float
    train_seconds: float = Field(description="training wall time (0 when the checkpoint was reused)")
    eval_seconds: float = Field(description="swapbench eval wall time: probe and scoring")
    locality: float | None
    symmetry: float | None


class EncodingSummary(Strict):
    encoding: str
    paper: str
    family: str
    kind: str
    parameters: dict[str, int] = Field(description="total, positional (the encoding's own), non_embedding")
    runs: list[SeedRun]
    accuracy: Spread = Field(description="accuracy on the original pairs of the largest configuration")
    delta: dict[str, Spread] = Field(description="Δ accuracy (perturbed - original, a fraction) per configuration")
    discordant: dict[str, Spread] = Field(
        default_factory=dict, description="fraction of pairs right on one side and wrong on the other (McNemar's "
                                          "discordant pairs), per configuration: flips either way cancel in Δ, "
                                          "not here")


class ZooSummary(Strict):
    kind: str = Field("swapbench-zoo", description="marks a zoo run")
    recipe: ZooRecipe = Field(description="the recipe shared by every encoding (its training seed is replaced "
                                          "by each of `seeds`)")
    seeds: list[int]
    data: str = Field(description="the benchmark scored (a `swapbench build` folder or Hub id)")
    split: str
    dataset_fingerprint: str
    configurations: list[str]
    accuracy_configuration: str = Field(description="the configuration whose original pairs give `accuracy`")
    relabelled: list[str] = Field(default_factory=list,
                                  description="configurations whose perturbation changes the gold label "
                                              "(shuffle-sr), plotted apart")
    encodings: list[EncodingSummary]
    wall_seconds: float = Field(description="the whole run, training and scoring")
    device: str
    device_name: str
    torch_threads: int
    swapbench_version: str
    git_commit: str | None
    started_at: datetime
    command: list[str]


def spread(values: list[float]) -> Spread:
    return Spread(mean=statistics.fmean(values), sd=statistics.stdev(values) if len(values) > 1 else None,
                  values=values)


def largest_configuration(results: EvalResults) -> str:
    """The configuration with the most rows: its original pairs give an encoding's accuracy."""
    return max(results.dataset.configurations, key=lambda c: c.rows).name


def summarize_encoding(encoding: str, parameters: dict[str, int], runs: list[tuple[SeedRun, EvalResults]]
                       ) -> EncodingSummary:
    first = runs[0][1]
    configurations = list(first.results)
    largest = largest_configuration(first)
    name = BY_NAME[encoding]
    return EncodingSummary(
        encoding=encoding, paper=name.paper, family=name.family, kind=name.kind, parameters=parameters,
        runs=[run for run, _ in runs],
        accuracy=spread([r.results[largest].accuracy_original for _, r in runs]),
        delta={c: spread([r.results[c].delta for _, r in runs]) for c in configurations},
        discordant={c: spread([discordant_fraction(r, c) for _, r in runs]) for c in configurations})


def relabelled(results: EvalResults) -> list[str]:
    """The configurations whose perturbation changes the gold label (shuffle-sr): they report a non-entailment
    rate, and their Δ measures that change more than word order."""
    return [name for name, figures in results.results.items() if figures.non_entailment_rate is not None]


def discordant_fraction(results: EvalResults, configuration: str) -> float:
    figures = results.results[configuration]
    return (figures.mcnemar.original_only + figures.mcnemar.perturbed_only) / figures.n


def refresh_summary(summary: ZooSummary, folder: Path) -> ZooSummary:
    """The summary recomputed from the results files it lists (in `folder`), e.g. after this module learnt a
    new figure."""
    encodings = []
    for encoding in summary.encodings:
        runs = [(run, read_results(Path(folder) / run.results).results) for run in encoding.runs]
        encodings.append(summarize_encoding(encoding.encoding, encoding.parameters, runs))
    return summary.model_copy(update={"encodings": encodings, "relabelled": relabelled(runs[-1][1])})


def read_summary(folder: Path) -> ZooSummary:
    path = Path(folder) / SUMMARY_FILE
    if not path.is_file():
        raise SwapbenchError(f"{folder} has no {SUMMARY_FILE}: is it the --out folder of `swapbench zoo run`?")
    return ZooSummary.model_validate_json(path.read_text(encoding="utf-8"))
