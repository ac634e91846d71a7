"""What a benchmark scores, as the results file records it (`dataset_info`) and as the overlap checks read it
(`scored_pairs`): every pair and premise of every configuration, none of which may be trained or selected on.

The pipeline records these and the scorers check their training and few-shot data against them; both import them
from here, so that a scorer (one of the package's or a plug-in) imports no part of the pipeline that calls it. It
imports no torch: the zoo and the suite read a benchmark's fingerprint before any model is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..results.schema import BuildRecord, ConfigurationData, DatasetInfo, dataset_fingerprint
from .data import Benchmark


@dataclass(frozen=True)
class ScoredPairs:
    """The pairs a benchmark scores, every row of every configuration (before --limit): none may be trained or
    selected on."""

    dataset: str  # its dataset fingerprint
    path: str
    pair_ids: frozenset[str]
    premises: frozenset[str]  # premise_key of SNLI's premise text


def premise_key(text: str) -> str:
    return " ".join(text.split())


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
