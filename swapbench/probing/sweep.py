"""The symmetry sweep: the attenuated matrix over a range of s, where the paper's symmetry and degree_symmetry part.

The paper's symmetry min-max scales each row's gaps, so the faintest asymmetry already scores about 0.43 and the
largest hardly less; degree_symmetry falls with the size of the gap. scripts/symmetry_sweep.py prints the table.
Across w at one s (locality_sweep) both symmetries move with locality, and decay_ratio, the fitted s, does not.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attenuated import attenuated_matrix
from .metrics import as_attention_matrix, decay_ratio, degree_symmetry, symmetry

SWEEP_S = (1.0, 1.0001, 1.01, 1.1, 2.0, 10.0, 100.0)
SWEEP_LENGTH = 128
SWEEP_W = 0.001


def largest_gap(matrix) -> float:
    """The largest |M[i][i-d] - M[i][i+d]| over rows i and offsets d, as a share of the matrix's largest weight."""
    m = as_attention_matrix(matrix)
    n = m.shape[0]
    gaps = [
        np.abs(m[i, i - width : i][::-1] - m[i, i + 1 : i + 1 + width]).max()
        for i in range(1, n - 1)
        for width in [min(i, n - 1 - i)]
    ]
    return float(max(gaps, default=0.0) / m.max())


@dataclass(frozen=True)
class SweepRow:
    s: float
    largest_gap: float
    paper_symmetry: float
    degree_symmetry: float | None
    decay_ratio: float | None = None
    w: float = SWEEP_W


def symmetry_sweep(values=SWEEP_S, n: int = SWEEP_LENGTH, w: float = SWEEP_W) -> list[SweepRow]:
    """One row per s: the attenuated n x n matrix of locality w and symmetry s, and both symmetries of it."""
    rows = []
    for s in values:
        m = attenuated_matrix(n, locality=w, symmetry=s)
        rows.append(
            SweepRow(s=s, largest_gap=largest_gap(m), paper_symmetry=symmetry(m), degree_symmetry=degree_symmetry(m))
        )
    return rows


SWEEP_LOCALITY_W = (0.001, 0.01, 0.1, 1.0)
SWEEP_LOCALITY_S = 5.0


def locality_sweep(values=SWEEP_LOCALITY_W, s: float = SWEEP_LOCALITY_S, n: int = SWEEP_LENGTH) -> list[SweepRow]:
    """One row per w at a fixed s: the attenuated n x n matrix, where both symmetries move with w (locality) and
    decay_ratio stays at s."""
    return [
        SweepRow(
            s=s,
            largest_gap=largest_gap(m),
            paper_symmetry=symmetry(m),
            degree_symmetry=degree_symmetry(m),
            decay_ratio=decay_ratio(m),
            w=w,
        )
        for w in values
        for m in [attenuated_matrix(n, locality=w, symmetry=s)]
    ]
