"""A symmetry figure that locality does not move (issue 44, item 5): on the attenuated sweep across w, the paper's
symmetry and degree_symmetry of one s move with w, while decay_ratio, the fitted s, stays at s."""

from __future__ import annotations

import numpy as np
import pytest

from swapbench.probing.attenuated import attenuated_matrix
from swapbench.probing.metrics import decay_ratio, degree_symmetry, left_decay, right_decay
from swapbench.probing.sweep import SWEEP_LOCALITY_S, SWEEP_LOCALITY_W, locality_sweep


def test_across_w_the_symmetries_move_and_the_decay_ratio_stays_at_s():
    rows = locality_sweep()
    assert [row.w for row in rows] == list(SWEEP_LOCALITY_W)
    degree = [row.degree_symmetry for row in rows]
    assert degree[0] == pytest.approx(0.707, abs=5e-4) and degree[-1] == pytest.approx(0.034, abs=5e-4)  # the issue's
    assert max(row.paper_symmetry for row in rows) - min(row.paper_symmetry for row in rows) > 0.5
    assert [row.decay_ratio for row in rows] == pytest.approx([SWEEP_LOCALITY_S] * len(rows), rel=1e-4)


@pytest.mark.parametrize("s", [0.25, 1.0, 2.0, 10.0])
def test_the_decay_ratio_is_the_attenuated_s_whatever_w_and_length(s):
    for n in (12, 40):
        for w in (0.002, 0.05, 0.5, 2.0):
            m = attenuated_matrix(n, locality=w, symmetry=s)
            assert decay_ratio(m) == pytest.approx(s, rel=1e-3), (n, w)
            assert left_decay(m) == pytest.approx(w, rel=1e-3) and right_decay(m) == pytest.approx(s * w, rel=1e-3)


def test_mirror_images_have_reciprocal_ratios():
    m = attenuated_matrix(30, locality=0.05, symmetry=4.0)
    assert decay_ratio(m[::-1, ::-1]) == pytest.approx(1 / decay_ratio(m), rel=1e-6)


def test_no_ratio_under_a_causal_mask_or_for_flat_attention():
    n = 16
    causal = np.tril(np.ones((n, n)))
    assert decay_ratio(causal / causal.sum(axis=1, keepdims=True)) is None
    assert decay_ratio(np.full((n, n), 1 / n)) is None
    assert degree_symmetry(np.full((n, n), 1 / n)) is None
