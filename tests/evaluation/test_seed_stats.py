"""The figures of a run over several fine-tuning seeds, on hand-made prediction rows: the means over the seeds, and
the two-level interval that resamples seeds and premise clusters together (stats.seed_bootstrap_ci)."""

from __future__ import annotations

import numpy as np
import pytest

from swapbench.evaluation.figures import configuration_result, seed_blocks
from swapbench.evaluation.seeds import seed_figures
from swapbench.evaluation.stats import bootstrap_delta_ci, paired_figures, seed_bootstrap_ci
from swapbench.results.schema import PredictionRow

PAIRS, CLUSTERS = 600, 200


def outcomes(rng: np.random.Generator, original: float, perturbed: float) -> tuple[np.ndarray, np.ndarray]:
    """Correctness on the original and the perturbed pairs, drawn with these accuracies."""
    return rng.random(PAIRS) < original, rng.random(PAIRS) < perturbed


def clusters() -> np.ndarray:
    return np.arange(PAIRS) % CLUSTERS  # three pairs a premise, as in SNLI


def width(interval: tuple[float, float]) -> float:
    return interval[1] - interval[0]


def test_seeds_that_agree_exactly_give_the_pair_bootstrap_s_interval():
    a, b = outcomes(np.random.default_rng(1), 0.8, 0.7)
    d = b.astype(int) - a
    pairs_only = bootstrap_delta_ci(paired_figures(a, b, clusters()), np.random.default_rng(2))
    both = seed_bootstrap_ci(np.stack([d, d, d]), clusters(), np.random.default_rng(2))
    # Drawing among identical seeds changes nothing: the same distribution, up to the resampling's noise.
    assert width(both) == pytest.approx(width(pairs_only), rel=0.08)
    assert np.mean(both) == pytest.approx(np.mean(pairs_only), abs=0.005)


def test_seeds_that_disagree_widely_widen_the_interval_beyond_any_one_seed_s():
    rng = np.random.default_rng(3)
    runs = [outcomes(rng, 0.8, 0.6), outcomes(rng, 0.8, 0.8), outcomes(rng, 0.8, 1.0)]  # Δ about -0.2, 0, +0.2
    d = np.stack([b.astype(int) - a for a, b in runs])
    alone = [bootstrap_delta_ci(paired_figures(a, b, clusters()), np.random.default_rng(4)) for a, b in runs]
    both = seed_bootstrap_ci(d, clusters(), np.random.default_rng(4))
    assert all(width(both) > 2 * width(interval) for interval in alone)
    deltas = d.mean(axis=1)
    # Three seeds drawn with replacement: all three the lowest is a resample in 27, so the interval reaches near it.
    assert both[0] < deltas.mean() - 0.1 and both[1] > deltas.mean() + 0.1
    assert both[0] < np.mean(deltas) < both[1]


def rows(
    seed: int | None, correct_original, correct_perturbed, non_entailment_view: bool = False
) -> list[PredictionRow]:
    """Prediction rows of one seed over the same PAIRS pairs; a role configuration's gold labels when asked."""
    found = []
    for i, (right_before, right_after) in enumerate(zip(correct_original, correct_perturbed)):
        gold_original, gold = ("entailment", "non-entailment") if non_entailment_view else ("neutral", "neutral")
        other = "contradiction" if not non_entailment_view else None
        before = gold_original if right_before else (other or "non-entailment")
        after = gold if right_after else (other or "entailment")
        found.append(
            PredictionRow(
                pair_id=f"p{i}",
                configuration="toy",
                gold=gold,
                gold_original=gold_original,
                prediction_original=before,
                prediction_perturbed=after,
                cluster=f"c{i % CLUSTERS}",
                tags=[f"half:{i % 2}"],
                seed=seed,
            )
        )
    return found


@pytest.mark.parametrize("role", [False, True], ids=["word order", "role swap"])
def test_the_mean_over_seeds_is_the_mean_of_each_seed_s_figures(role):
    rng = np.random.default_rng(5)
    seeds = {
        0: rows(0, *outcomes(rng, 0.8, 0.7), non_entailment_view=role),
        7: rows(7, *outcomes(rng, 0.6, 0.65), non_entailment_view=role),
    }
    pooled = [row for seed_rows in seeds.values() for row in seed_rows]
    labels = "binary" if role else "3-way"
    mean = configuration_result(pooled, label_view=labels, non_entailment_view=role, seed=0, resamples=2000)
    each = [
        configuration_result(seed_rows, label_view=labels, non_entailment_view=role, seed=0, resamples=2000)
        for seed_rows in seeds.values()
    ]
    assert (mean.n, mean.seeds, mean.clusters) == (PAIRS, 2, CLUSTERS)
    for name in ("accuracy_original", "accuracy_perturbed", "delta", "non_entailment_rate"):
        values = [getattr(one, name) for one in each]
        assert getattr(mean, name) == (None if values[0] is None else pytest.approx(np.mean(values))), name
    assert mean.mcnemar.original_only == sum(one.mcnemar.original_only for one in each)
    assert "seeds" in mean.delta_ci.method and "seeds" in mean.mcnemar.method
    assert mean.slices["half:0"].seeds == 2 and mean.slices["half:0"].n == PAIRS // 2
    if role:
        assert mean.role_sensitivity.value == pytest.approx(np.mean([one.role_sensitivity.value for one in each]))
        assert "seeds" in mean.role_sensitivity.ci.method
    # a seed's own figures are those its own run reports
    for seed_rows, one in zip(seeds.values(), each):
        figures = seed_figures(seed_rows, role=role, seed=0, resamples=2000)
        assert (figures.delta, figures.delta_ci, figures.p_value) == (one.delta, one.delta_ci, one.mcnemar.p_value)
        assert figures.role_sensitivity == (one.role_sensitivity.value if role else None)


def test_seeds_whose_rows_are_not_the_same_pairs_are_refused():
    rng = np.random.default_rng(6)
    first, second = rows(0, *outcomes(rng, 0.8, 0.7)), rows(1, *outcomes(rng, 0.8, 0.7))
    assert len(seed_blocks(first + second)) == 2 and len(seed_blocks(first)) == 1
    with pytest.raises(ValueError, match="same pairs in the same order"):
        seed_blocks(first + second[::-1])
