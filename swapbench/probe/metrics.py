"""Locality and symmetry of a positional attention matrix (Chen, Varoquaux, Suchanek, EMNLP Findings 2023).

Both take a row-stochastic n x n matrix M whose row i holds how much position i attends to each position j.
"""

from __future__ import annotations

import numpy as np

from .errors import MatrixError

# Rows of averaged float32 attention sum to 1 only up to rounding.
ROW_SUM_TOLERANCE = 1e-3
# Gaps that differ by less than this are equal up to float64 rounding: 0.2 - 0.1 and 0.3 - 0.2 differ by
# 3e-17, which min-max normalisation would otherwise blow up into 0 and 1.
GAP_TOLERANCE = 1e-12


def as_attention_matrix(matrix) -> np.ndarray:
    """`matrix` as a float64 array, checked to be square, finite, non-negative and row-stochastic."""
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] == 0:
        raise MatrixError(f"expected a non-empty square matrix, got shape {m.shape}")
    if not np.all(np.isfinite(m)):
        raise MatrixError("the matrix holds NaN or infinite values")
    if np.any(m < 0):
        raise MatrixError("the matrix holds negative values; attention weights are non-negative")
    sums = m.sum(axis=1)
    worst = int(np.argmax(np.abs(sums - 1.0)))
    if abs(sums[worst] - 1.0) > ROW_SUM_TOLERANCE:
        raise MatrixError(f"row {worst} sums to {sums[worst]:.6g}, not 1: the matrix is not row-stochastic")
    return m


# Below this spread, attention is nearly uniform: symmetry min-max normalises each row's gaps, so on such a matrix
# it scores noise (a uniform 64 x 64 matrix gives 1.0, the same with 1e-6 relative noise 0.644).
FLAT_SPREAD = 0.1


def spread(matrix) -> float:
    """(max - min) of the weights in units of the uniform weight 1/n: 0 for uniform attention, n for one-hot."""
    m = as_attention_matrix(matrix)
    return float((m.max() - m.min()) * m.shape[0])


def locality(matrix) -> float:
    """Mean over rows i of sum_j M[i][j] / 2^|i-j|: 1 when every position attends only to itself."""
    m = as_attention_matrix(matrix)
    n = m.shape[0]
    positions = np.arange(n)
    decay = 0.5 ** np.abs(positions[:, None] - positions[None, :])
    return float(np.clip((m * decay).sum(axis=1).mean(), 0.0, 1.0))


def symmetry(matrix) -> float:
    """1 minus the mean min-max-normalised gap between weights at equal distance left and right of each row's diagonal.

    Row i pairs its m = min(i, n-1-i) entries nearest the diagonal on each side by distance, as the authors'
    code does: left[-m:] in order against right[:m] reversed (both then run from distance m down to 1).
    The absolute gaps are min-max normalised within the row (all zeros when they are all equal, up to
    GAP_TOLERANCE), pooled
    over the rows, and averaged. Rows with nothing on one side (the first and the last) are skipped.
    """
    m = as_attention_matrix(matrix)
    n = m.shape[0]
    if n < 3:
        raise MatrixError(f"symmetry needs at least 3 positions (a row with neighbours on both sides), got {n}")
    pooled = []
    for i in range(n):
        left, right = m[i, :i], m[i, i + 1:]
        width = min(len(left), len(right))
        if width == 0:
            continue
        gaps = np.abs(left[-width:] - right[:width][::-1])
        spread = gaps.max() - gaps.min()
        pooled.append((gaps - gaps.min()) / spread if spread > GAP_TOLERANCE else np.zeros_like(gaps))
    return float(np.clip(1.0 - np.concatenate(pooled).mean(), 0.0, 1.0))
