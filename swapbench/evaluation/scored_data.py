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
    premises: frozenset[str]  # overlap_key of SNLI's premise text

    @property
    def images(self) -> frozenset[str]:
        """The Flickr images of the scored pairs (the part of an SNLI pairID before '#')."""
        return frozenset(filter(None, map(image_id, self.pair_ids)))

    def holds_premise(self, text: str) -> bool:
        """Whether `text` is a scored premise, up to case and white space."""
        return overlap_key(text) in self.premises


def premise_key(text: str) -> str:
    """SNLI's text with its runs of white space made one space: as a prompt shows it."""
    return " ".join(text.split())


def overlap_key(text: str) -> str:
    """The text two sentences are compared by for overlap: case folded, runs of white space made one space, so that
    a premise that equals a scored one up to case ("A dog runs." and "a dog runs.") is caught."""
    return premise_key(text.casefold())


def image_id(pair_id: str) -> str | None:
    """The Flickr image an SNLI pair was written about: its pairID ("example-photo.jpg#4r1n") or captionID
    ("example-photo.jpg#4") before '#'; None for an id without one (the Hub copy's snli-<split>-<row>). Pairs of
    one image are written about captions of one photograph: not the same pairs, but near ones, so they are
    counted and reported, not refused."""
    image, hash_mark, _ = pair_id.partition("#")
    return image if hash_mark and image else None


def dataset_info(benchmark: Benchmark) -> DatasetInfo:
    build = benchmark.build_info
    configurations = [
        ConfigurationData(name=c.name, rows=c.rows, fingerprint=c.fingerprint, verified=c.verified)
        for c in benchmark.configurations
    ]
    return DatasetInfo(
        path=benchmark.path,
        revision=benchmark.revision,
        split=benchmark.split,
        fingerprint=dataset_fingerprint({c.name: c.fingerprint for c in configurations}),
        configurations=configurations,
        limit=benchmark.limit,
        source=build.source if build else None,
        source_fingerprint=build.source_fingerprint if build else None,
        build_seed=build.seed if build else None,
        build_version=build.swapbench_version if build else None,
        build=BuildRecord.model_validate(build.model_dump(include=set(BuildRecord.model_fields))) if build else None,
    )


def scored_pairs(benchmark: Benchmark) -> ScoredPairs:
    configs = benchmark.configurations
    return ScoredPairs(
        dataset=dataset_info(benchmark).fingerprint,
        path=benchmark.path,
        pair_ids=frozenset().union(*(c.all_pair_ids for c in configs)),
        premises=frozenset(overlap_key(p) for c in configs for p in c.all_source_premises),
    )
