"""From predictions to figures: score every distinct pair once, lay the predictions out per configuration (the
rows of the predictions file), and compute each configuration's figures from those rows alone, so that anyone
holding the predictions file recomputes the same numbers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import numpy as np

from .data import Benchmark
from .labels import LabelMap
from .schema import ConfidenceInterval, ConfigurationResult, McNemar, PredictionRow
from .scoring import Scored, predict
from .stats import bootstrap_delta_ci, mcnemar_exact, paired_figures

CI_METHOD = "percentile bootstrap over examples, paired (original and perturbed pair resampled together)"


def distinct_pairs(benchmark: Benchmark) -> list[tuple[str, str]]:
    """Every (premise, hypothesis) the benchmark needs, each once: the originals recur across configurations."""
    pairs: dict[tuple[str, str], None] = {}
    for config in benchmark.configurations:
        pairs.update(dict.fromkeys(config.originals))
        pairs.update(dict.fromkeys(config.perturbed))
    return list(pairs)


def score_benchmark(model, tokenizer, benchmark: Benchmark, pairs: list[tuple[str, str]], labels: LabelMap, *,
                    max_length: int, batch_size: int | None, progress: Callable[[int], None] | None = None,
                    ) -> tuple[dict[str, list[PredictionRow]], Scored]:
    """Predictions per configuration, and the scorer's report; `pairs` is distinct_pairs(benchmark)."""
    scored = predict(model, tokenizer, pairs, max_length=max_length, batch_size=batch_size, progress=progress)
    predicted = {pair: labels.names[i] for pair, i in zip(pairs, scored.predictions)}
    rows = {}
    for config in benchmark.configurations:
        rows[config.name] = [
            PredictionRow(pair_id=pair_id, configuration=config.name, gold=labels.to_view(gold),
                          gold_original=labels.to_view(gold_original), prediction_original=predicted[original],
                          prediction_perturbed=predicted[perturbed])
            for pair_id, original, perturbed, gold, gold_original in zip(
                config.pair_ids, config.originals, config.perturbed, config.gold, config.gold_original)]
    return rows, scored


def bootstrap_rng(seed: int, configuration: str) -> np.random.Generator:
    """A generator per configuration, so that each interval depends on neither the order nor the other
    configurations scored."""
    word = int.from_bytes(hashlib.sha256(configuration.encode()).digest()[:8], "little")
    return np.random.default_rng([seed, word])


def configuration_result(rows: list[PredictionRow], *, label_view: str, non_entailment_view: bool,
                         seed: int, resamples: int, level: float = 0.95) -> ConfigurationResult:
    """The figures of one configuration from its prediction rows; the bootstrap draws from bootstrap_rng."""
    correct_original = np.array([r.prediction_original == r.gold_original for r in rows])
    correct_perturbed = np.array([r.prediction_perturbed == r.gold for r in rows])
    figures = paired_figures(correct_original, correct_perturbed)
    low, high = bootstrap_delta_ci(figures, bootstrap_rng(seed, rows[0].configuration), resamples, level)
    non_entailment = None
    if non_entailment_view:
        non_entailment = sum(r.prediction_perturbed != "entailment" for r in rows) / len(rows)
    return ConfigurationResult(
        n=figures.n, label_view=label_view, accuracy_original=figures.accuracy_original,
        accuracy_perturbed=figures.accuracy_perturbed, delta=figures.delta,
        delta_ci=ConfidenceInterval(low=low, high=high, level=level, method=CI_METHOD, resamples=resamples),
        mcnemar=McNemar(original_only=figures.original_only, perturbed_only=figures.perturbed_only,
                        p_value=mcnemar_exact(figures.original_only, figures.perturbed_only)),
        non_entailment_rate=non_entailment)
