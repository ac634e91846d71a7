"""From predictions to prediction rows: score every distinct pair once and lay the predictions out per
configuration (the rows of the predictions file); figures.py computes each configuration's figures from those rows
alone, without torch, so that the board recomputes them.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat

from ..models.label_map import LabelMap
from ..results.schema import PredictionRow
from .data import Benchmark
from .figures import cluster_key
from .quartets import exact_null_quartets, is_quartet_tags, source_premise
from .scoring import Scored, predict


def distinct_pairs(benchmark: Benchmark) -> list[tuple[str, str]]:
    """Every (premise, hypothesis) the benchmark needs, each once: the originals recur across configurations."""
    pairs: dict[tuple[str, str], None] = {}
    for config in benchmark.configurations:
        pairs.update(dict.fromkeys(config.originals))
        pairs.update(dict.fromkeys(config.perturbed))
    return list(pairs)


def pairs_per_configuration(benchmark: Benchmark) -> tuple[int, dict[str, int]]:
    """What scoring the benchmark costs, in the distinct pairs of distinct_pairs: the originals (shared by the
    configurations), and the perturbed pairs each configuration adds beyond those counted before it. They sum to
    len(distinct_pairs(benchmark))."""
    seen = {pair for config in benchmark.configurations for pair in config.originals}
    originals, added = len(seen), {}
    for config in benchmark.configurations:
        new = set(config.perturbed) - seen
        seen |= new
        added[config.name] = len(new)
    return originals, added


def score_benchmark(
    model,
    tokenizer,
    benchmark: Benchmark,
    pairs: list[tuple[str, str]],
    labels: LabelMap,
    *,
    max_length: int,
    batch_size: int | None,
    progress: Callable[[int], None] | None = None,
) -> tuple[dict[str, list[PredictionRow]], Scored]:
    """Predictions per configuration, and the scorer's report; `pairs` is distinct_pairs(benchmark)."""
    scored = predict(model, tokenizer, pairs, max_length=max_length, batch_size=batch_size, progress=progress)
    return prediction_rows(benchmark, pairs, scored.predictions, labels, tokenizer), scored


def prediction_rows(
    benchmark: Benchmark, pairs: list[tuple[str, str]], predictions, labels: LabelMap, tokenizer=None
) -> dict[str, list[PredictionRow]]:
    """The rows of every configuration, from the output index predicted for each of `pairs`. With the model's
    `tokenizer`, a quartet configuration's rows say whether it makes their quartet's order-blind null exact."""
    predicted = {pair: labels.names[i] for pair, i in zip(pairs, predictions)}
    rows = {}
    for config in benchmark.configurations:
        exact = exact_for(config, tokenizer)
        rows[config.name] = [
            PredictionRow(
                pair_id=pair_id,
                configuration=config.name,
                gold=labels.to_view(gold),
                gold_original=labels.to_view(gold_original),
                prediction_original=predicted[original],
                prediction_perturbed=predicted[perturbed],
                cluster=cluster_key(source_premise(tags, original[0], perturbed[0])),
                tags=list(tags),
                distance=shift and shift[0],
                moved=shift and shift[1],
                permutation=permutation,
                exact_null=None if exact is None or not is_quartet_tags(tags) else pair_id in exact,
            )
            for pair_id, original, perturbed, gold, gold_original, tags, shift, permutation in zip(
                config.pair_ids,
                config.originals,
                config.perturbed,
                config.gold,
                config.gold_original,
                config.tags,
                config.displacements or repeat(None),
                config.permutation_indices or repeat(None),
            )
        ]
    return rows


def exact_for(config, tokenizer) -> set[str] | None:
    """The quartets of `config` whose null is exact under `tokenizer` (each sentence alone, without special tokens,
    as a sequence pair is encoded); None for a configuration without quartets, or without a tokenizer."""
    if tokenizer is None or not any(is_quartet_tags(tags) for tags in config.tags):
        return None

    def tokenize(text: str) -> list[int]:
        return tokenizer(text, add_special_tokens=False)["input_ids"]

    return exact_null_quartets(zip(config.pair_ids, config.originals, config.perturbed, config.tags), tokenize)
