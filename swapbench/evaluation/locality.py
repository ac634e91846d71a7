"""Locality as a curve: does a shuffle change the model's answer more often the farther it moves the premise's words?

Three configuration means (Δ shuffle-3 < Δ shuffle-4 < Δ shuffle-5) are no test of that: their mean displacement
grows by construction, and their intervals overlap. Every row of a shuffle records its own displacement (distance,
results/displacement.py), so the question is asked of the rows themselves:

- the curve: the rows binned by distance (schema.LOCALITY_BINS, fixed so that curves compare), each bin's share of
  predictions changed (the perturbed pair's prediction differs from the original pair's: what the shuffle did to
  the model, whatever the gold label) and its Δ accuracy;
- the trend test: the least-squares slope of changed (0 or 1) on distance, a linear-probability model, and its
  percentile bootstrap interval resampling premises (pairs sharing a premise are one cluster, as for Δ). The null
  is slope = 0: changes do not grow with displacement. A model whose interval covers 0 shows no gradient
  (schema.shows_gradient, the one definition).

A linear slope rather than a logistic one: it is the share changed gained per position, read without a link
function, it needs no iterative fit in each resample, and the bootstrap of a slope does not lean on its model being
right. Of a multi-seed run the rows of every seed are pooled, a premise's rows under every seed one cluster (the
interval resamples premises, not seeds).
"""

from __future__ import annotations

import numpy as np

from ..results.schema import LOCALITY_BINS, ConfidenceInterval, Locality, LocalityBin, PredictionRow, shows_gradient

LOCALITY_CI_METHOD = (
    "percentile bootstrap over clusters of rows sharing a premise of the least-squares slope of "
    "changed (0/1) on distance; null: slope = 0, changes do not grow with displacement"
)


def bin_edges() -> list[tuple[int, int | None]]:
    """(distance_min, distance_max) of every bin, the last open."""
    lows = [0, *(high + 1 for high in LOCALITY_BINS)]
    return list(zip(lows, [*LOCALITY_BINS, None]))


def locality(rows: list[PredictionRow], rng: np.random.Generator, resamples: int, level: float) -> Locality | None:
    """The locality curve and trend of a configuration's rows; None when no row records a distance."""
    measured = [r for r in rows if r.distance is not None]
    if not measured:
        return None
    x = np.array([r.distance for r in measured], dtype=float)
    changed = np.array([r.prediction_perturbed != r.prediction_original for r in measured], dtype=float)
    correct_o = np.array([r.prediction_original == r.gold_original for r in measured], dtype=float)
    correct_p = np.array([r.prediction_perturbed == r.gold for r in measured], dtype=float)
    _, cluster = np.unique([r.cluster for r in measured], return_inverse=True)
    bins = []
    for low, high in bin_edges():
        inside = (x >= low) & (x <= (np.inf if high is None else high))
        if inside.any():
            bins.append(
                LocalityBin(
                    distance_min=low,
                    distance_max=high,
                    rows=int(inside.sum()),
                    changed=float(changed[inside].mean()),
                    delta=float(correct_p[inside].mean() - correct_o[inside].mean()),
                )
            )
    slope, ci = None, None
    if len(np.unique(x)) > 1:
        # per cluster: its rows, and the sums of x, y, xy and xx, from which any resample's slope follows
        sums = np.stack(
            [np.bincount(cluster, weights=w) for w in (np.ones_like(x), x, changed, x * changed, x * x)], axis=1
        )
        slope = _slopes(sums.sum(axis=0, keepdims=True))[0]
        low, high = _bootstrap(sums, rng, resamples, level)
        ci = ConfidenceInterval(low=low, high=high, level=level, method=LOCALITY_CI_METHOD, resamples=resamples)
    return Locality(
        rows=len(measured),
        clusters=int(cluster.max()) + 1,
        bins=bins,
        slope=None if slope is None else float(slope),
        slope_ci=ci,
        gradient=shows_gradient(ci),
    )


def _slopes(totals: np.ndarray) -> np.ndarray:
    """The least-squares slope of y on x from rows of (n, Σx, Σy, Σxy, Σxx); nan where x does not vary."""
    n, sx, sy, sxy, sxx = totals.T
    spread = n * sxx - sx * sx
    with np.errstate(invalid="ignore", divide="ignore"):
        slopes = (n * sxy - sx * sy) / spread
    # a spread within rounding of 0 is no spread: x is constant in that resample
    return np.where(spread > 1e-9 * np.maximum(n * sxx, 1), slopes, np.nan)


def _bootstrap(
    sums: np.ndarray, rng: np.random.Generator, resamples: int, level: float, chunk: int = 200
) -> tuple[float, float]:
    """Percentile interval of the slope over resamples of the clusters with replacement (each resample draws as
    many clusters as there are, by index; drawing counts from a multinomial is slower by far over thousands of
    clusters). A resample whose distances do not vary has no slope and is left out."""
    k = len(sums)
    values = np.empty(resamples)
    for start in range(0, resamples, chunk):
        m = min(chunk, resamples - start)
        drawn = rng.integers(0, k, size=(m, k)) + k * np.arange(m)[:, None]  # resample i's clusters, offset by i k
        counts = np.bincount(drawn.ravel(), minlength=m * k).reshape(m, k)  # how often each cluster was drawn
        values[start : start + m] = _slopes(counts.astype(float) @ sums)
    alpha = (1 - level) / 2
    low, high = np.nanquantile(values, [alpha, 1 - alpha])
    # a slope of 0/1 outcomes on integer distances lies in [-1, 1]; clip rounding only
    return float(np.clip(low, -1, 1)), float(np.clip(high, -1, 1))
