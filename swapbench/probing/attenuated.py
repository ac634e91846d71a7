"""The paper's attenuated encoding: reference attention matrices of known locality and symmetry."""

from __future__ import annotations

import numpy as np


def attenuated_matrix(n: int, locality: float, symmetry: float) -> np.ndarray:
    """The n x n row-wise softmax of alpha, with alpha_ij = -s*w*l^2 for i <= j and -w*l^2 for i > j, l = |i - j|.

    `locality` is w > 0: the larger, the more each row concentrates on its diagonal. `symmetry` is s: the
    right-hand side (j > i) decays s times as fast as the left, so s = 1 gives a matrix whose rows are
    symmetric about the diagonal.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if not (np.isfinite(locality) and locality > 0):
        raise ValueError(f"locality w must be a positive number, got {locality}")
    if not np.isfinite(symmetry):
        raise ValueError(f"symmetry s must be a finite number, got {symmetry}")
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    squared = (i - j).astype(np.float64) ** 2
    alpha = np.where(i <= j, -symmetry * locality * squared, -locality * squared)
    alpha -= alpha.max(axis=1, keepdims=True)  # stable softmax
    weights = np.exp(alpha)
    return weights / weights.sum(axis=1, keepdims=True)
