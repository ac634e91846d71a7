"""Permutation acceptance (Sinha et al., "UnNatural Language Inference", ACL 2021), from prediction rows.

A configuration of K permutations per pair (unlu) gives, for each pair, the share of its permutations predicted
as the gold label: UNLU's `cor_mean`. The metrics are UNLU's, as its code computes them (facebookresearch/UNLU,
commit a6264ef):

- Omega_max: the share of pairs for which some permutation gets the gold label (codes/random_eval.py
  compute_rand_acc, lines 143-146 and 181: `exists`; codes/word_randomization.py print_stats line 466, "Max
  Accuracy");
- Omega_rand: the share of pairs for which more than a third of the permutations get it, strictly (random_eval.py
  lines 169-173: `cor_mean > 1/3`; word_randomization.py line 513, "Correct > Random Percentage");
- P_c: the mean of cor_mean over the pairs whose original the model got right and which have at least one correct
  permutation (word_randomization.py lines 477-505: `pred_mode == "orig_correct"` and `exists`; random_eval.py
  line 184 sets pred_mode from the original prediction);
- P_f: the same over the pairs whose original it got wrong ("flipped", random_eval.py line 185).

P_c and P_f are averaged over the pairs with some correct permutation only, as the code does (their denominators
are recorded): a pair none of whose permutations is correct counts in neither, and where no pair qualifies the
figure is undefined (null). The accuracy beside them is the original accuracy over the same pairs (print_stats
lines 467-471).

P_c and P_f condition on the pairs with some correct permutation, a set that grows with K, and Omega_max grows
with K: figures at different K are not comparable, and each is shown with its K and its counts. The K-curve
(`eval --k-curve`, acceptance_curve) recomputes the figures from the first K' of each pair's K permutations,
K' = 2 to K, to show how far they move with K inside one run.

Each figure gets a percentile bootstrap interval over clusters of pairs sharing a premise, as Δ's does
(stats.py): a resample draws whole clusters with replacement and recomputes the figure, ratios included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..results.schema import AcceptanceFigure, AcceptancePoint, ConfidenceInterval, PermutationAcceptance, PredictionRow

ACCEPTANCE_CI_METHOD = (
    "percentile bootstrap over clusters of pairs sharing a premise, each pair with all its "
    "permutations; ratio figures recomputed in each resample"
)
DEFINITION = (
    "UNLU (Sinha et al., ACL 2021), as facebookresearch/UNLU's codes/random_eval.py compute_rand_acc and "
    "codes/word_randomization.py print_stats compute them"
)
THIRD = 1 / 3  # Omega_rand's threshold: more than a third of the permutations correct, a better-than-chance share
CHUNK = 500  # resamples drawn at once: a chunk's draws are CHUNK x clusters integers


@dataclass(frozen=True)
class PairOutcomes:
    """Per pair: its cluster, whether its original was predicted right, and the share of its permutations that
    were (UNLU's cor_mean)."""

    clusters: np.ndarray  # int index of each pair's cluster
    original_correct: np.ndarray  # bool
    share_correct: np.ndarray  # float in [0, 1]
    permutations: int  # K, the same for every pair
    correct: np.ndarray  # bool, pairs x K: whether permutation k of the pair was predicted as the gold label


def pair_outcomes(rows: Sequence[PredictionRow]) -> PairOutcomes:
    """Group the rows of a permutation configuration by pair. Every pair must hold the same K permutations,
    numbered 0 to K - 1, with one original prediction: anything else is a broken predictions file."""
    by_pair: dict[tuple[int | None, str], list[PredictionRow]] = {}
    for row in rows:  # a multi-seed run's rows: each seed's predictions of a pair are a pair of their own
        by_pair.setdefault((row.seed, row.pair_id), []).append(row)
    counts = {len(group) for group in by_pair.values()}
    if len(counts) != 1:
        raise ValueError(
            f"{rows[0].configuration}: pairs hold different numbers of permutations "
            f"({', '.join(map(str, sorted(counts)))}); permutation acceptance needs the same K for all"
        )
    [k] = counts
    for (_, pair_id), group in by_pair.items():
        if sorted(r.permutation for r in group) != list(range(k)):
            raise ValueError(
                f"{rows[0].configuration}: pair {pair_id} does not hold permutations 0 to {k - 1} once each"
            )
        if len({r.prediction_original for r in group}) != 1:
            raise ValueError(f"{rows[0].configuration}: pair {pair_id} has more than one original prediction")
    groups = list(by_pair.values())
    _, clusters = np.unique([g[0].cluster for g in groups], return_inverse=True)
    correct = np.array(
        [[r.prediction_perturbed == r.gold for r in sorted(g, key=lambda r: r.permutation)] for g in groups], dtype=bool
    ).reshape(len(groups), k)
    return PairOutcomes(
        clusters=clusters,
        original_correct=np.array([g[0].prediction_original == g[0].gold_original for g in groups]),
        share_correct=correct.mean(axis=1),
        permutations=k,
        correct=correct,
    )


def acceptance_point(outcomes: PairOutcomes, permutations: int) -> AcceptancePoint:
    """UNLU's figures from the first `permutations` (K′) of each pair's permutations, as if K′ had been drawn:
    cor_mean is the share correct among those K′, and P^c and P^f average over the pairs with some correct one among
    them (the conditioning set UNLU's `exists` gives at K′)."""
    share = outcomes.correct[:, :permutations].mean(axis=1)
    exists = share > 0
    correct, wrong = exists & outcomes.original_correct, exists & ~outcomes.original_correct

    def mean(where: np.ndarray) -> float | None:
        return float(share[where].mean()) if where.any() else None

    return AcceptancePoint(
        permutations=permutations,
        omega_max=float(exists.mean()),
        omega_rand=float((share > THIRD).mean()),
        p_c=mean(correct),
        p_f=mean(wrong),
        p_c_pairs=int(correct.sum()),
        p_f_pairs=int(wrong.sum()),
    )


def acceptance_curve(outcomes: PairOutcomes) -> list[AcceptancePoint]:
    """The K-curve: UNLU's figures with the first K′ of each pair's K permutations, K′ = 2 to K. Figures at
    different K are not comparable (Ω_max grows with K, and P^c and P^f condition on a set that grows with it); the
    curve shows how far they move within one run's permutations."""
    return [acceptance_point(outcomes, k) for k in range(2, outcomes.permutations + 1)]


def _ratios(numerators: np.ndarray, denominators: np.ndarray) -> np.ndarray:
    """numerators / denominators, NaN where the denominator is 0 (a figure undefined in that resample)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominators > 0, numerators / np.where(denominators > 0, denominators, 1), np.nan)


def permutation_acceptance(
    rows: Sequence[PredictionRow], rng: np.random.Generator, resamples: int, level: float = 0.95, k_curve: bool = False
) -> PermutationAcceptance:
    """UNLU's metrics over the rows of a permutation configuration, each with its clustered interval; with
    `k_curve`, also their K-curve (acceptance_curve)."""
    outcomes = pair_outcomes(rows)
    exists = outcomes.share_correct > 0
    above = outcomes.share_correct > THIRD
    correct, wrong = exists & outcomes.original_correct, exists & ~outcomes.original_correct
    # Per cluster, each figure's numerator and denominator: a resample's figure is a ratio of weighted sums.
    n_clusters = int(outcomes.clusters.max()) + 1
    per_cluster = lambda values: np.bincount(outcomes.clusters, weights=values, minlength=n_clusters)  # noqa: E731
    pairs = per_cluster(np.ones(len(exists)))
    parts = {
        "accuracy": (per_cluster(outcomes.original_correct), pairs),
        "omega_max": (per_cluster(exists), pairs),
        "omega_rand": (per_cluster(above), pairs),
        "p_c": (per_cluster(np.where(correct, outcomes.share_correct, 0)), per_cluster(correct)),
        "p_f": (per_cluster(np.where(wrong, outcomes.share_correct, 0)), per_cluster(wrong)),
    }
    drawn = {name: [] for name in parts}
    for start in range(0, resamples, CHUNK):
        draws = rng.multinomial(n_clusters, np.full(n_clusters, 1 / n_clusters), size=min(CHUNK, resamples - start))
        for name, (numerator, denominator) in parts.items():
            drawn[name].append(_ratios(draws @ numerator, draws @ denominator))
    alpha = (1 - level) / 2

    def figure(name: str) -> AcceptanceFigure | None:
        numerator, denominator = parts[name]
        if denominator.sum() == 0:
            return None
        values = np.concatenate(drawn[name])
        values = values[~np.isnan(values)]  # resamples that drew no pair the figure is defined on
        low, high = np.quantile(values, [alpha, 1 - alpha])
        return AcceptanceFigure(
            value=float(numerator.sum() / denominator.sum()),
            ci=ConfidenceInterval(
                low=float(low), high=float(high), level=level, method=ACCEPTANCE_CI_METHOD, resamples=len(values)
            ),
        )

    return PermutationAcceptance(
        permutations=outcomes.permutations,
        pairs=len(exists),
        clusters=n_clusters,
        accuracy=figure("accuracy"),
        omega_max=figure("omega_max"),
        omega_rand=figure("omega_rand"),
        p_c=figure("p_c"),
        p_f=figure("p_f"),
        p_c_pairs=int(correct.sum()),
        p_f_pairs=int(wrong.sum()),
        definition=DEFINITION,
        k_curve=acceptance_curve(outcomes) if k_curve else [],
    )
