"""Paired statistics of original-vs-perturbed correctness that respect how the data were made.

Pairs that share a premise are not independent: each is shuffled with its own seed, but they share the premise's
text and parse, and whatever the model makes of them, so their outcomes are correlated. Both the interval and the
test therefore work on clusters (pairs sharing an original premise), not pairs:

- the interval of Δ accuracy is a percentile bootstrap that resamples whole clusters;
- the p-value is a clustered exact McNemar test: under the null hypothesis that original and perturbed are
  exchangeable within each cluster, each cluster's sum of (correct_perturbed - correct_original) is as likely
  to have either sign, independently of the others; the p-value is the exact probability, over those sign
  flips, of a total at least as far from 0 as the observed one. When every cluster holds one pair it is the
  exact McNemar test (a binomial test of the discordant pairs against 1/2), and the interval the paired
  bootstrap over pairs.

The same machinery gives the role sensitivity of a role configuration, whose originals are all entailment and
whose swaps are all non-entailment. There Δ accuracy mixes the model's label prior in: the gold label changes with
the swap, so a model that answers alike before and after it scores a large Δ, and the McNemar null (original and
perturbed correctness exchangeable) means nothing when the gold labels differ. Role sensitivity compares the
model's answers with themselves instead: a = [the original predicted non-entailment], b = [the swap predicted
non-entailment] (non-entailment: any label but entailment, so that the 3-way and binary views agree), d = b - a,
and role sensitivity is the mean of d. Its interval is the same clustered bootstrap, and its test the same
clustered sign-flip test on these indicators, whose null is that the model is role-blind: its predictions on a
pair and on its swap are exchangeable, whatever its prior. A role-blind model has d = 0 everywhere, so role
sensitivity 0 and p-value 1.

Several fine-tunings of one model (`eval --seeds`) score the same pairs, and their figures are means over the seeds.
Their interval resamples the seeds and the clusters together (seed_bootstrap_ci): the seeds vary more than the
pairs do. Their test is the same sign-flip test with a premise's pairs under every seed as one cluster, since the
seeds' outcomes on one premise are correlated too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

TEST_METHOD = (
    "clustered exact McNemar: exact sign-flip test of the per-cluster sums of correct_perturbed - "
    "correct_original (the exact McNemar test when every cluster holds one pair)"
)
CI_METHOD = "percentile bootstrap over clusters of pairs sharing a premise (original and perturbed kept paired)"
SEEDS_POOLED = (
    "; over several fine-tuning seeds, their counts summed and a premise's pairs under every seed one cluster"
)
SEED_CI_METHOD = (
    "two-level percentile bootstrap over fine-tuning seeds and clusters of pairs sharing a premise: "
    "each resample draws the seeds with replacement and the clusters with replacement, and takes the "
    "mean over the drawn seeds of the figure on the drawn clusters (original and perturbed kept paired)"
)
ROLE_TEST_METHOD = (
    "clustered exact sign-flip test of the per-cluster sums of d = [swap predicted non-entailment] - "
    "[original predicted non-entailment]; null: the model is role-blind (its predictions on a pair "
    "and on its swap are exchangeable)"
)


@dataclass(frozen=True)
class ClusterTypes:
    """The clusters summarised by kind: a cluster is (pairs in it, sum of d over them), d = correct_perturbed -
    correct_original in {-1, 0, 1}. Resampling clusters only needs how many of each kind there are."""

    sizes: np.ndarray  # pairs in a cluster of this kind
    sums: np.ndarray  # sum of d over such a cluster
    counts: np.ndarray  # clusters of this kind


@dataclass(frozen=True)
class PairedFigures:
    n: int
    clusters: int
    accuracy_original: float
    accuracy_perturbed: float
    delta: float
    original_only: int  # right on the original, wrong on the perturbed pair
    perturbed_only: int  # wrong on the original, right on the perturbed pair
    types: ClusterTypes = field(repr=False, compare=False)


def paired_figures(
    correct_original: np.ndarray, correct_perturbed: np.ndarray, clusters: Sequence | None = None
) -> PairedFigures:
    """Figures of n pairs; `clusters` gives each pair's cluster key (None: every pair is its own cluster)."""
    a = np.asarray(correct_original, dtype=bool)
    b = np.asarray(correct_perturbed, dtype=bool)
    n = len(a)
    original_only = int(np.sum(a & ~b))
    perturbed_only = int(np.sum(~a & b))
    acc_o, acc_p = int(a.sum()) / n, int(b.sum()) / n
    types = cluster_types(b.astype(np.int64) - a, np.arange(n) if clusters is None else clusters)
    # delta from the discordant counts, so that it equals acc_p - acc_o to the last bit the schema checks
    return PairedFigures(
        n=n,
        clusters=int(types.counts.sum()),
        accuracy_original=acc_o,
        accuracy_perturbed=acc_p,
        delta=(perturbed_only - original_only) / n,
        original_only=original_only,
        perturbed_only=perturbed_only,
        types=types,
    )


def role_figures(
    original_non_entailment: np.ndarray, perturbed_non_entailment: np.ndarray, clusters: Sequence | None = None
) -> PairedFigures:
    """The paired figures of role sensitivity: its indicators are non-entailment answers, not correct ones, so
    `accuracy_original` and `accuracy_perturbed` read as the shares predicted non-entailment before and after the
    swap, `delta` is role sensitivity (the mean of d, module docstring), `original_only` counts the pairs that
    turned to entailment and `perturbed_only` those that turned to non-entailment. bootstrap_delta_ci and
    clustered_mcnemar then give its interval and its test of role blindness."""
    return paired_figures(original_non_entailment, perturbed_non_entailment, clusters)


def cluster_types(d: np.ndarray, clusters: Sequence) -> ClusterTypes:
    _, index = np.unique(np.asarray(clusters), return_inverse=True)
    sizes = np.bincount(index)
    sums = np.bincount(index, weights=d).astype(np.int64)
    width = 2 * int(sizes.max()) + 1  # a cluster's sum lies in [-size, size]: one integer per (size, sum)
    kinds, counts = np.unique(sizes * width + sums + width // 2, return_counts=True)
    return ClusterTypes(sizes=kinds // width, sums=kinds % width - width // 2, counts=counts)


def bootstrap_delta_ci(
    figures: PairedFigures, rng: np.random.Generator, resamples: int = 10_000, level: float = 0.95
) -> tuple[float, float]:
    """Percentile bootstrap interval of Δ accuracy, resampling clusters with replacement.

    A resample draws as many clusters as there are, and its Δ is the sum of d over the drawn clusters divided by
    the pairs they hold. Drawing K clusters with replacement amounts to drawing how many of each kind
    (ClusterTypes) from a multinomial with the observed proportions: the same distribution as resampling
    indices, in O(resamples x kinds), a few dozen kinds on SNLI.
    """
    t = figures.types
    k = int(t.counts.sum())
    draws = rng.multinomial(k, t.counts / k, size=resamples)
    deltas = (draws @ t.sums) / (draws @ t.sizes)
    alpha = (1 - level) / 2
    low, high = np.quantile(deltas, [alpha, 1 - alpha])
    return float(low), float(high)


def seed_bootstrap_ci(
    d: np.ndarray,
    clusters: Sequence,
    rng: np.random.Generator,
    resamples: int = 10_000,
    level: float = 0.95,
    chunk: int = 1000,
) -> tuple[float, float]:
    """Two-level percentile bootstrap interval of the mean over fine-tuning seeds of a paired figure.

    `d` holds one row per seed and one column per pair, d = b - a as in paired_figures (every seed scored the same
    pairs, in the same order), and `clusters` each pair's cluster. One fine-tuning says little of the next (McCoy
    et al. 2020), so an interval over pairs alone is too narrow for a model: a resample draws S seeds with
    replacement and the clusters with replacement, and its value is the mean over the drawn seeds of the figure on
    the drawn clusters. Every seed scored the same pairs, so that is the sum of d over the drawn seeds and clusters
    divided by S times the pairs in the drawn clusters. As in bootstrap_delta_ci the clusters are drawn by kind,
    a kind here being a cluster's size and its sums under every seed, in chunks of `chunk` resamples.
    """
    d = np.asarray(d, dtype=np.int64)
    seeds = d.shape[0]
    _, index = np.unique(np.asarray(clusters), return_inverse=True)
    sizes = np.bincount(index)
    sums = np.stack([np.bincount(index, weights=row, minlength=len(sizes)) for row in d], axis=1)
    kinds, counts = np.unique(np.column_stack([sizes, sums]).astype(np.int64), axis=0, return_counts=True)
    k = int(counts.sum())
    values = np.empty(resamples)
    for start in range(0, resamples, chunk):
        m = min(chunk, resamples - start)
        drawn = rng.multinomial(k, counts / k, size=m)  # clusters of each kind
        times = rng.multinomial(seeds, np.full(seeds, 1 / seeds), size=m)  # draws of each seed
        values[start : start + m] = ((drawn @ kinds[:, 1:]) * times).sum(axis=1) / (seeds * (drawn @ kinds[:, 0]))
    alpha = (1 - level) / 2
    low, high = np.quantile(values, [alpha, 1 - alpha])
    return float(low), float(high)


def clustered_mcnemar(figures: PairedFigures) -> float:
    """Two-sided exact p-value of the sign-flip test of the per-cluster sums (module docstring)."""
    t = figures.types
    observed = abs(int(t.sums @ t.counts))
    if observed == 0:
        return 1.0
    values, probabilities = _sign_flip_distribution(t)
    return min(1.0, float(probabilities[np.abs(values) >= observed].sum()))


def _sign_flip_distribution(t: ClusterTypes) -> tuple[np.ndarray, np.ndarray]:
    """Values of sum_c e_c s_c over independent fair signs e_c, and their probabilities."""
    offset, pmf = 0, np.ones(1)  # pmf[i] is the probability of the value i + offset
    for magnitude in np.unique(np.abs(t.sums[t.sums != 0])):
        magnitude, m = int(magnitude), int(t.counts[np.abs(t.sums) == magnitude].sum())
        spread = np.zeros(2 * magnitude * m + 1)
        spread[:: 2 * magnitude] = _half_binomial(m)  # values magnitude * (2 i - m), i = 0..m
        pmf = np.convolve(pmf, spread)
        offset -= magnitude * m
    return np.arange(len(pmf)) + offset, pmf


def _half_binomial(m: int) -> np.ndarray:
    """P(B = i) for B ~ Binomial(m, 1/2), i = 0..m, each correctly rounded from exact integers (no underflow
    until the value itself is below the smallest float)."""
    total, comb, out = 2**m, 1, np.empty(m + 1)
    for i in range(m + 1):
        out[i] = comb / total
        comb = comb * (m - i) // (i + 1)
    return out


# Holm rather than Benjamini-Hochberg: a row counts under each of its tags, so a configuration's slices overlap and
# their tests are dependent in no direction one can promise; Holm bounds the family-wise error under any
# dependence, while BH's bound on the false discovery rate needs independence or positive dependence.
ADJUSTMENT_METHOD = (
    "Holm's step-down adjustment within each metric's family of the configuration's slice tests: "
    "its slices' Δ tests, and on a role configuration, apart from them, its slices' role "
    "sensitivity tests"
)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the order given: the i-th smallest of m is multiplied by m - i + 1 (i from 1),
    made non-decreasing in that order and cut at 1. Ties get the same value whatever their order."""
    p = np.asarray(p_values, dtype=float)
    m = len(p)
    if m == 0:
        return []
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    adjusted = np.empty(m)
    adjusted[order] = stepped
    return [float(value) for value in adjusted]
