"""degree_symmetry and relative_locality on constructed matrices, and the sweep where the paper's symmetry is a
switch and degree_symmetry a measure."""

from __future__ import annotations

import numpy as np
import pytest

from swapbench.probing import MatrixError, attenuated_matrix, degree_symmetry, locality, relative_locality, symmetry
from swapbench.probing.metrics import (
    CAUSAL_NOTE,
    FLAT_NOTE,
    FLAT_SPREAD,
    degree_symmetry_note,
    spread,
    uniform_locality,
)
from swapbench.probing.sweep import SWEEP_S, largest_gap, symmetry_sweep


def causal_uniform(n: int) -> np.ndarray:
    m = np.tril(np.ones((n, n)))
    return m / m.sum(axis=1, keepdims=True)


# --- degree_symmetry -----------------------------------------------------------------------------------------


def test_the_sweep_of_s_is_strictly_monotone_where_the_papers_symmetry_jumps():
    rows = symmetry_sweep()
    assert [row.s for row in rows] == list(SWEEP_S) == [1, 1.0001, 1.01, 1.1, 2, 10, 100]
    degrees = [row.degree_symmetry for row in rows]
    assert degrees[0] == 1.0
    assert all(a > b for a, b in zip(degrees, degrees[1:])), degrees
    assert 0 < degrees[-1] < 0.3
    # The paper's symmetry: 1 when exact, then about 0.43 whatever the size of the gap.
    papers = [row.paper_symmetry for row in rows]
    assert papers[0] == 1.0 and all(0.42 < p < 0.45 for p in papers[1:]), papers
    gaps = [row.largest_gap for row in rows]
    assert gaps[0] == 0 and gaps[1] == pytest.approx(2e-5, rel=0.05) and gaps[-1] == pytest.approx(0.36, abs=0.01)


def test_degree_symmetry_by_hand():
    # Row 2 of 5 pairs offsets 1 and 2: left (0.2, 0.1), right (0.3, 0.1). Rows 1 and 3 pair offset 1 only, where
    # the identity has 0 on both sides. Gap 0.1 over a pooled weight of 0.7.
    m = np.eye(5)
    m[2] = [0.1, 0.2, 0.3, 0.3, 0.1]
    assert degree_symmetry(m) == pytest.approx(1 - 0.1 / 0.7)


def test_degree_symmetry_of_one_sided_attention_is_0():
    # Every position attends to its right neighbour (the last to itself): all paired weight on one side.
    m = np.eye(6, k=1)
    m[5, 5] = 1
    assert degree_symmetry(m) == 0.0


def test_degree_symmetry_of_mirror_symmetric_attention_is_1():
    n = 9
    offsets = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :])
    m = np.exp(-offsets / 2.0)
    m /= m.sum(axis=1, keepdims=True)
    assert degree_symmetry(m) == pytest.approx(1.0)


def test_flat_attention_has_no_degree_symmetry():
    uniform = np.full((64, 64), 1 / 64)
    noisy = uniform * (1 + 1e-6 * np.random.default_rng(0).standard_normal((64, 64)))
    noisy /= noisy.sum(axis=1, keepdims=True)
    assert spread(noisy) < FLAT_SPREAD
    assert symmetry(noisy) < 0.7  # the paper's figure scores the noise
    for flat in (uniform, noisy):
        assert degree_symmetry(flat) is None and degree_symmetry_note(flat) == FLAT_NOTE


def test_degree_symmetry_is_undefined_under_a_causal_mask():
    m = attenuated_matrix(16, locality=0.1, symmetry=1.0)
    m = np.tril(m)
    m /= m.sum(axis=1, keepdims=True)
    assert degree_symmetry(m) is None and degree_symmetry_note(m) == CAUSAL_NOTE


def test_degree_symmetry_needs_three_positions():
    with pytest.raises(MatrixError, match="at least 3 positions"):
        degree_symmetry(np.array([[0.9, 0.1], [0.3, 0.7]]))


# --- relative_locality ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [4, 33, 128])
def test_uniform_attention_scores_0_under_either_mask(n):
    full = np.full((n, n), 1 / n)
    assert relative_locality(full) == pytest.approx(0, abs=1e-12)
    assert relative_locality(causal_uniform(n)) == pytest.approx(0, abs=1e-12)
    # The paper's locality of the same attention differs with the mask; that is what the baseline removes.
    assert locality(causal_uniform(n)) > locality(full)


def test_the_baselines_of_the_issue():
    assert uniform_locality(128, causal=True) == pytest.approx(0.074, abs=5e-4)
    assert uniform_locality(128, causal=False) == pytest.approx(0.023, abs=5e-4)


@pytest.mark.parametrize("causal", [None, True, False])
def test_attention_on_the_diagonal_alone_scores_1(causal):
    assert relative_locality(np.eye(10), causal=causal) == pytest.approx(1.0)


def test_relative_locality_by_hand():
    # 4 x 4 uniform has the paper's locality 0.515625; all on the first position (1 + 1/2 + 1/4 + 1/8) / 4.
    m = np.zeros((4, 4))
    m[:, 0] = 1
    baseline = (2 * 0.46875 + 2 * 0.5625) / 4
    assert uniform_locality(4, causal=False) == pytest.approx(baseline)
    expected = ((1 + 0.5 + 0.25 + 0.125) / 4 - baseline) / (1 - baseline)
    assert relative_locality(m, causal=False) == pytest.approx(expected)
    # Nothing right of the diagonal: read as a causal mask unless told, and measured against its own baseline.
    causal = uniform_locality(4, causal=True)
    assert causal == pytest.approx((1 + 0.75 + 7 / 12 + 15 / 32) / 4)
    assert relative_locality(m) == pytest.approx(((1 + 0.5 + 0.25 + 0.125) / 4 - causal) / (1 - causal))


def test_attention_that_avoids_its_neighbours_scores_below_0():
    assert relative_locality(np.eye(8)[::-1]) < 0


def test_relative_locality_grows_with_w_and_a_decoder_without_preference_is_not_more_local():
    values = [relative_locality(attenuated_matrix(32, locality=w, symmetry=1.0)) for w in (0.001, 0.01, 0.1, 1)]
    assert all(a < b for a, b in zip(values, values[1:])), values
    # The paper's locality ranks uniform causal attention above an encoder with a mild preference for its
    # neighbours; relative to their masks' baselines, the order is the right one.
    encoder = attenuated_matrix(128, locality=0.001, symmetry=1.0)
    assert locality(causal_uniform(128)) > locality(encoder)
    assert relative_locality(causal_uniform(128)) < relative_locality(encoder)


def test_largest_gap_is_a_share_of_the_top_weight():
    m = np.eye(5)
    m[2] = [0.1, 0.2, 0.3, 0.3, 0.1]
    assert largest_gap(m) == pytest.approx(0.1 / 1.0)
