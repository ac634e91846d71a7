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


# ---- causal attention: decoder-only models, whose attention has no right-hand side -------------------------------

CAUSAL_NOTE = ("undefined under a causal mask: each position attends only to itself and to its left, so there is "
               "no right-hand side to compare with")


def is_causal(matrix) -> bool:
    """Whether no position attends to any position on its right: what a decoder's causal mask gives (exact zeros)."""
    m = as_attention_matrix(matrix)
    return bool(np.all(np.triu(m, k=1) == 0.0))


def offset_profile(matrix, first: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(offsets d = i - j, mean of M[i][j] over the rows that have a position at that offset), d from -(n-1) to
    n-1: positive offsets lie to the left of the attending position. The 1-D view of locality and symmetry.
    With `first`, the positions before it are left out as queries and keys (an attention sink at 0, say)."""
    m = as_attention_matrix(matrix)[first:, first:]
    n = m.shape[0]
    offsets = np.arange(-(n - 1), n)
    means = np.array([np.diagonal(m, offset=-d).mean() for d in offsets])
    return offsets, means


def _left_rows(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The attention on and left of the diagonal, each row renormalised; and the squared offsets."""
    n = m.shape[0]
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    lower = np.where(j <= i, m, 0.0)
    sums = lower.sum(axis=1, keepdims=True)
    return lower / np.where(sums > 0, sums, 1.0), ((i - j) ** 2).astype(np.float64)


def _causal_attenuated(squared: np.ndarray, w: float) -> np.ndarray:
    below = np.tril(np.ones_like(squared, dtype=bool))
    alpha = np.where(below, -w * squared, -np.inf)
    weights = np.exp(alpha - alpha.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)


def left_decay(matrix) -> float:
    """A swapbench extension, not the paper's metric: how fast attention decays with distance to the left.

    The attenuated encoding's w (swapbench.probing.attenuated_matrix) whose causal form, row i the softmax of
    -w (i - j)^2 over j <= i, best fits (least squares) the matrix's weights on and left of the diagonal with each
    row renormalised over them. It makes sense for causal and bidirectional attention alike: 0 for attention
    spread evenly over the left, large for attention on the diagonal alone (fitted within [1e-4, 100]).
    """
    from scipy.optimize import minimize_scalar

    m, squared = _left_rows(as_attention_matrix(matrix))
    fit = minimize_scalar(lambda log_w: float(((_causal_attenuated(squared, np.exp(log_w)) - m) ** 2).sum()),
                          bounds=(np.log(1e-4), np.log(100.0)), method="bounded", options={"xatol": 1e-4})
    return float(np.exp(fit.x))
