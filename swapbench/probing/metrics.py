"""Locality and symmetry of a positional attention matrix (Chen, Varoquaux, Suchanek, EMNLP Findings 2023).

`locality` and `symmetry` are the paper's, faithful to the authors' calculate.py; wherever they are shown they are
named as the paper's. `relative_locality` and `degree_symmetry` are swapbench's: the paper's symmetry min-max scales
each row's gaps, which makes it nearly an on/off switch (the attenuated matrix jumps from 1.0 to 0.43 at the
slightest asymmetry), and the paper's locality of attention with no positional preference depends on the mask
(uniform attention over 128 positions scores 0.074 under a causal mask, 0.023 without one). Both symmetries move
with locality too: the attenuated matrix of s = 5 scores a degree_symmetry of 0.707 at w = 0.001 and 0.034 at
w = 1, so neither orders models by asymmetry. `decay_ratio` does not move with it: the attenuated encoding's s,
fitted with w side by side (the right side's decay over the left's).

All take a row-stochastic n x n matrix M whose row i holds how much position i attends to each position j.
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
    """The paper's locality: mean over rows i of sum_j M[i][j] / 2^|i-j|; 1 when every position attends only to
    itself."""
    m = as_attention_matrix(matrix)
    n = m.shape[0]
    positions = np.arange(n)
    decay = 0.5 ** np.abs(positions[:, None] - positions[None, :])
    return float(np.clip((m * decay).sum(axis=1).mean(), 0.0, 1.0))


def symmetry(matrix) -> float:
    """The paper's symmetry: 1 minus the mean min-max-normalised gap between weights at equal distance left and right
    of each row's diagonal.

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
        left, right = m[i, :i], m[i, i + 1 :]
        width = min(len(left), len(right))
        if width == 0:
            continue
        gaps = np.abs(left[-width:] - right[:width][::-1])
        spread = gaps.max() - gaps.min()
        pooled.append((gaps - gaps.min()) / spread if spread > GAP_TOLERANCE else np.zeros_like(gaps))
    return float(np.clip(1.0 - np.concatenate(pooled).mean(), 0.0, 1.0))


# ---- causal attention: decoder-only models, whose attention has no right-hand side -------------------------------

CAUSAL_NOTE = (
    "undefined under a causal mask: each position attends only to itself and to its left, so there is "
    "no right-hand side to compare with"
)


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
    fit = minimize_scalar(
        lambda log_w: float(((_causal_attenuated(squared, np.exp(log_w)) - m) ** 2).sum()),
        bounds=(np.log(1e-4), np.log(100.0)),
        method="bounded",
        options={"xatol": 1e-4},
    )
    return float(np.exp(fit.x))


def right_decay(matrix) -> float:
    """left_decay of the attention on and right of the diagonal: left_decay of the matrix turned end to end
    (M'[i][j] = M[n-1-i][n-1-j]), whose left side is the original's right side."""
    return left_decay(as_attention_matrix(matrix)[::-1, ::-1])


# ---- swapbench's figures: a symmetry that measures degree, a locality comparable across masks ---------------------

FLAT_NOTE = (
    f"undefined for flat attention (spread under {FLAT_SPREAD} of the uniform weight): attention with no "
    "positional preference has no symmetry to measure"
)


def degree_symmetry_note(matrix) -> str | None:
    """Why degree_symmetry is undefined for this matrix (a causal mask, flat attention), or None where it is not."""
    m = as_attention_matrix(matrix)
    if is_causal(m):
        return CAUSAL_NOTE
    if spread(m) < FLAT_SPREAD:
        return FLAT_NOTE
    return None


def degree_symmetry(matrix) -> float | None:
    """A swapbench figure, not the paper's: 1 minus the total-variation distance between the attention beside the
    diagonal and its mirror image, so that it moves with the size of the left/right gap.

    Row i pairs offsets d = 1..m, m = min(i, n-1-i), as the paper's symmetry does: L_id = M[i][i-d] on the left,
    R_id = M[i][i+d] on the right. Pooled over the rows,

        degree_symmetry = 1 - sum_i sum_d |L_id - R_id| / sum_i sum_d (L_id + R_id)

    Within one row, sum_d |L - R| / sum_d (L + R) is the total-variation distance between the row's paired weights
    (renormalised to sum to 1) and their mirror image; pooling weights each row by the attention it puts beside its
    diagonal. It lies in [0, 1]: 1 for exactly symmetric attention (M[i][i-d] = M[i][i+d] wherever both exist),
    0 when every paired weight lies on one side only. Nothing is scaled per row, so a small gap scores near 1 and
    the figure falls continuously as the gap grows. Attention with no weight beside the diagonal scores 1.

    Its null, attention that prefers neither side, is 1: the figure measures how far from mirror-symmetric the
    attention is, not whether it favours positions at all. That is why it is None (degree_symmetry_note says why)
    for flat attention, whose spread is under FLAT_SPREAD: there is no positional preference there to be symmetric
    or not, only noise. It is None under a causal mask too, where no row has a right-hand side.
    """
    m = as_attention_matrix(matrix)
    n = m.shape[0]
    if n < 3:
        raise MatrixError(f"symmetry needs at least 3 positions (a row with neighbours on both sides), got {n}")
    if degree_symmetry_note(m) is not None:
        return None
    gap = total = 0.0
    for i in range(1, n - 1):
        width = min(i, n - 1 - i)
        left = m[i, i - width : i][::-1]  # offsets 1..width
        right = m[i, i + 1 : i + 1 + width]
        gap += float(np.abs(left - right).sum())
        total += float((left + right).sum())
    return 1.0 if total == 0 else float(np.clip(1.0 - gap / total, 0.0, 1.0))


def decay_ratio(matrix) -> float | None:
    """A swapbench figure, not the paper's: the attenuated encoding's s fitted jointly with its w, as the decay
    with distance to the right over the decay to the left, right_decay / left_decay. 1 for attention that decays
    alike on both sides, above 1 for attention that falls faster to the right, below 1 to the left.

    Unlike both symmetries it does not move with locality: on the attenuated matrix of any w it is that matrix's
    s (each side's decay is fitted in the attenuated form itself, which holds w and s * w exactly), where the
    paper's symmetry and degree_symmetry of s = 5 go from 0.44 and 0.71 at w = 0.001 to 0.97 and 0.03 at w = 1.
    It is None where degree_symmetry is (degree_symmetry_note): under a causal mask no row has a right side, and
    flat attention has no decay to compare. Each decay is fitted within left_decay's bounds, so a side whose
    weight all lies on the diagonal (w * s beyond 100) is not told apart from one a little less steep."""
    m = as_attention_matrix(matrix)
    if degree_symmetry_note(m) is not None:
        return None
    return right_decay(m) / left_decay(m)


def uniform_locality(n: int, causal: bool) -> float:
    """The paper's locality of attention spread evenly over the positions a mask allows: every position
    (bidirectional) or itself and those on its left (causal)."""
    if n < 1:
        raise MatrixError(f"expected at least 1 position, got {n}")
    allowed = np.tril(np.ones((n, n))) if causal else np.ones((n, n))
    return locality(allowed / allowed.sum(axis=1, keepdims=True))


def relative_locality(matrix, causal: bool | None = None) -> float:
    """A swapbench figure, not the paper's: the paper's locality relative to the uniform baseline of the mask in use,

        (locality - baseline) / (1 - baseline)

    where baseline is uniform_locality(n, causal): the paper's locality of attention spread evenly over the allowed
    positions. 0 for attention with no positional preference under either mask, 1 for attention on the diagonal
    alone, negative for attention that avoids its neighbours. The paper's locality of uniform attention is higher
    under a causal mask (fewer positions, all of them nearer), so only this figure compares a decoder with an
    encoder. `causal` defaults to what the matrix shows (is_causal).
    """
    m = as_attention_matrix(matrix)
    n = m.shape[0]
    if n < 2:
        raise MatrixError(f"relative locality needs at least 2 positions, got {n}")
    baseline = uniform_locality(n, is_causal(m) if causal is None else causal)
    return float(min((locality(m) - baseline) / (1.0 - baseline), 1.0))
