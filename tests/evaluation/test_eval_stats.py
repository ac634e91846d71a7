"""Paired figures, the clustered exact McNemar test and the clustered bootstrap interval of Δ accuracy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from swapbench.evaluation.stats import bootstrap_delta_ci, clustered_mcnemar, holm, paired_figures


def test_paired_figures_count_the_discordant_pairs_and_the_clusters():
    original = np.array([1, 1, 1, 0, 0, 1], dtype=bool)
    perturbed = np.array([1, 0, 0, 1, 0, 1], dtype=bool)
    f = paired_figures(original, perturbed, clusters=["a", "a", "b", "b", "c", "d"])
    assert (f.n, f.clusters, f.original_only, f.perturbed_only) == (6, 4, 2, 1)
    assert f.accuracy_original == pytest.approx(4 / 6)
    assert f.accuracy_perturbed == pytest.approx(3 / 6)
    assert f.delta == pytest.approx(f.accuracy_perturbed - f.accuracy_original, abs=1e-12)
    assert paired_figures(original, perturbed).clusters == 6  # no clusters given: one pair each


def singletons(b: int, c: int):
    """b pairs right only on the original, c right only on the perturbed pair, and one right on both; each pair
    its own cluster."""
    return paired_figures(np.array([1] * b + [0] * c + [1], bool), np.array([0] * b + [1] * c + [1], bool))


@pytest.mark.parametrize(
    "b, c, expected",
    [
        (10, 2, 2 * (1 + 12 + 66) / 4096),  # 2 P(X <= 2), X ~ Bin(12, 1/2)
        (2, 10, 2 * (1 + 12 + 66) / 4096),  # two-sided: symmetric
        (0, 5, 2 / 32),
        (3, 3, 1.0),  # capped at 1
        (0, 0, 1.0),  # no discordant pairs: no evidence
    ],
)
def test_with_one_pair_per_cluster_the_test_is_the_exact_mcnemar_test(b, c, expected):
    assert clustered_mcnemar(singletons(b, c)) == pytest.approx(expected, rel=1e-12)


def test_with_one_pair_per_cluster_the_test_agrees_with_scipy_on_large_counts():
    stats = pytest.importorskip("scipy.stats")
    for b, c in [(120, 95), (400, 310), (1500, 1)]:
        assert clustered_mcnemar(singletons(b, c)) == pytest.approx(
            stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-9, abs=1e-300
        )


def brute_force_p(sums: list[int]) -> float:
    """P(|sum e_c s_c| >= |sum s_c|) over all 2^K sign vectors, enumerated."""
    observed = abs(sum(sums))
    hits = sum(
        abs(sum(e * s for e, s in zip(signs, sums))) >= observed
        for signs in itertools.product((-1, 1), repeat=len(sums))
    )
    return hits / 2 ** len(sums)


def test_the_clustered_test_against_a_hand_computed_case():
    # Cluster a: 2 pairs both lost to the shuffle (sum -2); cluster b: 1 pair lost (-1); cluster c: one kept, one
    # gained, one lost (0). Sign flips give totals ±2 ±1: |total| >= 3 in 2 of 4 equally likely cases.
    original = np.array([1, 1, 1, 1, 0, 1], bool)
    perturbed = np.array([0, 0, 0, 1, 1, 0], bool)
    figures = paired_figures(original, perturbed, clusters=["a", "a", "b", "c", "c", "c"])
    assert clustered_mcnemar(figures) == 0.5
    # The plain McNemar test on the same 5 lost and 1 gained pairs says 2 * 7/64 = 0.219: clustering costs power.
    assert clustered_mcnemar(singletons(5, 1)) == pytest.approx(14 / 64)


def test_the_clustered_test_equals_full_enumeration_on_mixed_clusters():
    rng = np.random.default_rng(4)
    for _ in range(20):
        sizes = rng.integers(1, 4, size=12)
        clusters = np.repeat(np.arange(len(sizes)), sizes)
        original = rng.random(len(clusters)) < 0.7
        perturbed = np.where(rng.random(len(clusters)) < 0.4, ~original, original)
        figures = paired_figures(original, perturbed, clusters)
        d = perturbed.astype(int) - original
        sums = [int(d[clusters == k].sum()) for k in range(len(sizes))]
        assert clustered_mcnemar(figures) == pytest.approx(brute_force_p(sums), rel=1e-12)


def clustered_null_data(rng, clusters: int, size: int = 3, noise: float = 0.0):
    """Pairs in clusters of `size` that share their fate, under the null: original and perturbed are drawn alike
    and independently, so that the perturbation changes nothing on average, while the pairs of a cluster are
    all right or all wrong together, unless `noise` redraws a pair on its own."""

    def draw():
        shared = np.repeat(rng.random(clusters) < 0.6, size)
        return np.where(rng.random(clusters * size) < noise, rng.random(clusters * size) < 0.6, shared)

    return draw(), draw(), np.repeat(np.arange(clusters), size)


SIMULATIONS = 1000


def test_under_the_null_the_p_values_are_uniform_and_false_positives_at_the_nominal_rate():
    rng = np.random.default_rng(11)
    p_clustered, p_pairs = [], []
    for _ in range(SIMULATIONS):
        original, perturbed, clusters = clustered_null_data(rng, clusters=200, noise=0.3)
        p_clustered.append(clustered_mcnemar(paired_figures(original, perturbed, clusters)))
        p_pairs.append(clustered_mcnemar(paired_figures(original, perturbed)))
    p_clustered, p_pairs = np.array(p_clustered), np.array(p_pairs)
    for level in (0.01, 0.05, 0.1, 0.25, 0.5):
        # Within 3 binomial standard errors of the nominal rate, from above and below: uniform enough.
        assert abs(np.mean(p_clustered <= level) - level) < 3 * np.sqrt(level * (1 - level) / SIMULATIONS)
    # The test that takes the pairs as independent rejects far too often: what the clustering repairs.
    assert np.mean(p_pairs <= 0.05) > 0.15


def naive_bootstrap(original, perturbed, clusters, rng, resamples):
    """The textbook cluster bootstrap: draw cluster labels with replacement, recompute Δ over their pairs."""
    labels, index = np.unique(clusters, return_inverse=True)
    size, right_o, right_p = (np.bincount(index, weights=w) for w in (None, original, perturbed))
    drawn = rng.integers(0, len(labels), size=(resamples, len(labels)))
    deltas = (right_p[drawn].sum(1) - right_o[drawn].sum(1)) / size[drawn].sum(1)
    return np.quantile(deltas, [0.025, 0.975])


def test_bootstrap_interval_matches_resampling_pairs_when_every_cluster_has_one_pair():
    data_rng = np.random.default_rng(1)
    original = data_rng.random(300) < 0.85
    perturbed = np.where(data_rng.random(300) < 0.2, ~original, original)
    figures = paired_figures(original, perturbed)
    fast = bootstrap_delta_ci(figures, np.random.default_rng(2), resamples=20_000)
    slow = naive_bootstrap(
        original.astype(float), perturbed.astype(float), np.arange(300), np.random.default_rng(3), 20_000
    )
    # Same distribution, different draws: the 2.5% and 97.5% quantiles agree to about one example in 300.
    assert fast == pytest.approx(tuple(slow), abs=1.5 / 300)
    assert fast[0] < figures.delta < fast[1]
    # Naming the clusters changes nothing when each holds one pair: the same interval, draw for draw.
    named = paired_figures(original, perturbed, clusters=[f"premise {i}" for i in range(300)])
    assert bootstrap_delta_ci(named, np.random.default_rng(2), resamples=20_000) == fast


def test_bootstrap_interval_matches_resampling_clusters_of_unequal_size():
    rng = np.random.default_rng(5)
    clusters = np.repeat(np.arange(150), rng.integers(1, 5, size=150))
    original = rng.random(len(clusters)) < 0.8
    perturbed = np.where(np.repeat(rng.random(150) < 0.25, np.bincount(clusters)), ~original, original)
    fast = bootstrap_delta_ci(paired_figures(original, perturbed, clusters), np.random.default_rng(6), 20_000)
    slow = naive_bootstrap(original.astype(float), perturbed.astype(float), clusters, np.random.default_rng(7), 5_000)
    assert fast == pytest.approx(tuple(slow), abs=2 / len(clusters))


def test_the_clustered_interval_is_wider_on_clustered_data():
    original, perturbed, clusters = clustered_null_data(np.random.default_rng(8), clusters=400)
    clustered = bootstrap_delta_ci(paired_figures(original, perturbed, clusters), np.random.default_rng(9))
    unclustered = bootstrap_delta_ci(paired_figures(original, perturbed), np.random.default_rng(9))
    width = (clustered[1] - clustered[0]) / (unclustered[1] - unclustered[0])
    assert width == pytest.approx(np.sqrt(3), rel=0.15)  # three pairs that move together count as one


def test_bootstrap_is_reproducible_from_its_generator_and_degenerate_when_nothing_flips():
    figures = paired_figures(
        np.array([1, 0, 1, 1] * 25, bool), np.array([0, 0, 1, 1] * 25, bool), clusters=np.repeat(np.arange(50), 2)
    )
    first = bootstrap_delta_ci(figures, np.random.default_rng(7))
    assert first == bootstrap_delta_ci(figures, np.random.default_rng(7))
    same = paired_figures(np.array([1, 0, 1]), np.array([1, 0, 1]))
    assert bootstrap_delta_ci(same, np.random.default_rng(0)) == (0.0, 0.0)


def test_holm_against_hand_computed_values():
    # m = 4, sorted 0.01, 0.02, 0.03, 0.5: times 4, 3, 2, 1 = 0.04, 0.06, 0.06, 0.5, already non-decreasing
    assert holm([0.03, 0.5, 0.01, 0.02]) == pytest.approx([0.06, 0.5, 0.04, 0.06])
    # m = 3, sorted 0.01, 0.04, 0.045: 0.03, 0.08, 0.045 -> the last raised to 0.08 (step-down is monotone)
    assert holm([0.045, 0.01, 0.04]) == pytest.approx([0.08, 0.03, 0.08])
    # large products are cut at 1; ties get one value whatever their order
    assert holm([0.4, 0.4, 0.9]) == pytest.approx([1.0, 1.0, 1.0])
    assert holm([0.01, 0.01, 0.2]) == pytest.approx([0.03, 0.03, 0.2])
    assert holm([0.2]) == [0.2] and holm([]) == []


def test_holm_never_lowers_a_p_value_and_keeps_the_order():
    p = np.random.default_rng(0).uniform(size=50) ** 3
    adjusted = np.array(holm(p))
    assert np.all(adjusted >= p) and np.all(adjusted <= 1)
    assert np.all(np.diff(adjusted[np.argsort(p)]) >= 0)
