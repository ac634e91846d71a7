"""Locality and symmetry on hand-computed matrices, and the attenuated encoding's properties."""

from __future__ import annotations

import math

import numpy as np
import pytest

from swapbench.core.errors import SwapbenchError
from swapbench.probing import MatrixError, attenuated_matrix, locality, symmetry


def with_row(n: int, i: int, row) -> np.ndarray:
    """The n x n identity with row i replaced."""
    m = np.eye(n)
    m[i] = row
    return m


# --- locality ---------------------------------------------------------------------------------------------


def test_locality_examples_from_the_issue():
    # Row 0 = [1,0,0,0,0] has locality 1; the other rows are the identity's, locality 1 each.
    assert locality(with_row(5, 0, [1, 0, 0, 0, 0])) == pytest.approx(1.0)
    # Row 0 = [0,0,0,0,1] has locality 1/16: the mean is (1/16 + 4) / 5.
    assert locality(with_row(5, 0, [0, 0, 0, 0, 1])) == pytest.approx((1 / 16 + 4) / 5)


def test_locality_3x3_by_hand():
    m = [[0.5, 0.25, 0.25], [0.2, 0.6, 0.2], [0.1, 0.3, 0.6]]
    # rows: 0.5 + 0.25/2 + 0.25/4 = 0.6875; 0.2/2 + 0.6 + 0.2/2 = 0.8; 0.1/4 + 0.3/2 + 0.6 = 0.775
    assert locality(m) == pytest.approx((0.6875 + 0.8 + 0.775) / 3)


def test_locality_4x4_uniform_by_hand():
    # edge rows: (1 + 1/2 + 1/4 + 1/8) / 4 = 0.46875; inner rows: (1/2 + 1 + 1/2 + 1/4) / 4 = 0.5625
    assert locality(np.full((4, 4), 0.25)) == pytest.approx((2 * 0.46875 + 2 * 0.5625) / 4)


def test_locality_5x5_all_on_the_first_position():
    m = np.zeros((5, 5))
    m[:, 0] = 1
    assert locality(m) == pytest.approx((1 + 1 / 2 + 1 / 4 + 1 / 8 + 1 / 16) / 5)


def test_locality_6x6_identity_and_reversal():
    assert locality(np.eye(6)) == pytest.approx(1.0)
    # Row i attends only to 5 - i: distances 5, 3, 1, 1, 3, 5.
    assert locality(np.eye(6)[::-1]) == pytest.approx(2 * (1 / 32 + 1 / 8 + 1 / 2) / 6)


# --- symmetry ---------------------------------------------------------------------------------------------


def test_symmetry_example_from_the_issue():
    m = np.tile([0.1, 0.2, 0.4, 0.2, 0.1], (5, 1))
    assert symmetry(m) == pytest.approx(1.0)


def test_symmetry_pairs_entries_by_distance():
    # Row 2: left = [0.1, 0.2], right = [0.3, 0.2]. By distance (the authors' left[-m:] against right[:m]
    # reversed): |0.1 - 0.2| = |0.2 - 0.3| = 0.1, equal gaps (up to float rounding), normalised to zeros:
    # symmetric. Pairing
    # without the reversal would give gaps 0.2 and 0, normalised to 1 and 0, and symmetry 0.75.
    assert symmetry(with_row(5, 2, [0.1, 0.2, 0.2, 0.3, 0.2])) == pytest.approx(1.0)


def test_symmetry_5x5_by_hand():
    # Row 2 gaps: |0.05 - 0.15| = 0.1 (distance 2), |0.2 - 0.2| = 0 (distance 1) -> normalised [1, 0].
    # Rows 1 and 3 have one pair each, which min-max normalisation always maps to 0. Pooled: [0, 1, 0, 0].
    assert symmetry(with_row(5, 2, [0.05, 0.2, 0.4, 0.2, 0.15])) == pytest.approx(0.75)


def test_symmetry_of_3x3_and_4x4_is_always_1():
    # Every row has at most one pair, and a single gap normalises to 0: the authors' metric cannot see
    # asymmetry below 5 positions.
    assert symmetry([[0.5, 0.25, 0.25], [0.1, 0.6, 0.3], [0.1, 0.3, 0.6]]) == pytest.approx(1.0)
    assert symmetry(np.tile([0.7, 0.1, 0.1, 0.1], (4, 1))) == pytest.approx(1.0)


def test_symmetry_6x6_by_hand():
    m = np.eye(6)
    m[2] = [0.05, 0.15, 0.4, 0.25, 0.1, 0.05]  # pairs (0.05, 0.1), (0.15, 0.25): gaps 0.05, 0.1 -> [0, 1]
    m[3] = [0.1, 0.1, 0.2, 0.4, 0.1, 0.1]  # pairs (0.1, 0.1), (0.2, 0.1): gaps 0, 0.1 -> [0, 1]
    # Rows 1 and 4 add a 0 each: pooled [0, 0, 1, 0, 1, 0].
    assert symmetry(m) == pytest.approx(1 - 2 / 6)


def test_symmetry_7x7_normalises_within_each_row():
    m = np.full((7, 7), 1 / 7)
    m[3] = [0.0, 0.1, 0.2, 0.3, 0.1, 0.1, 0.2]  # gaps 0.2, 0, 0.1 -> [1, 0, 0.5]
    # Uniform rows give all-zero gaps. Pooled: 1 + 2 + 3 + 2 + 1 = 9 values summing to 1.5.
    assert symmetry(m) == pytest.approx(1 - 1.5 / 9)


def test_symmetry_of_a_one_sided_matrix_is_below_1():
    # Each row attends to itself and its left neighbour only.
    m = 0.5 * (np.eye(8) + np.eye(8, k=-1))
    m[0, 0] = 1
    assert symmetry(m) < 0.9


# --- input checks -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        np.ones((2, 3)) / 3,  # not square
        np.ones(4) / 4,  # not 2-D
        np.full((3, 3), 0.5),  # rows sum to 1.5
        [[1.5, -0.5, 0], [0, 1, 0], [0, 0, 1]],  # negative weight
        [[np.nan, 1, 0], [0, 1, 0], [0, 0, 1]],
    ],
)
def test_metrics_reject_what_is_not_a_row_stochastic_matrix(bad):
    with pytest.raises(MatrixError):
        locality(bad)
    with pytest.raises(SwapbenchError):
        symmetry(bad)


def test_symmetry_needs_three_positions():
    with pytest.raises(MatrixError, match="at least 3"):
        symmetry(np.eye(2))


# --- attenuated encoding ----------------------------------------------------------------------------------


def test_attenuated_matrix_by_hand():
    # n = 3, w = 1, s = 0.5. Row 0: alpha = [0, -0.5, -2]; row 2: alpha = [-4, -1, 0].
    m = attenuated_matrix(3, locality=1.0, symmetry=0.5)
    row0 = np.exp([0, -0.5, -2])
    row2 = np.exp([-4, -1, 0])
    np.testing.assert_allclose(m[0], row0 / row0.sum())
    np.testing.assert_allclose(m[2], row2 / row2.sum())
    assert m[1, 0] == pytest.approx(math.exp(-1) / (math.exp(-1) + 1 + math.exp(-0.5)))


@pytest.mark.parametrize("s", [0.0, 0.5, 1.0, 2.0])
def test_attenuated_matrix_is_row_stochastic(s):
    m = attenuated_matrix(40, locality=0.3, symmetry=s)
    assert m.shape == (40, 40)
    assert np.all(m >= 0)
    np.testing.assert_allclose(m.sum(axis=1), 1.0)


@pytest.mark.parametrize("s", [0.5, 1.0, 2.0])
def test_locality_grows_with_w(s):
    values = [locality(attenuated_matrix(32, locality=w, symmetry=s)) for w in (0.01, 0.05, 0.2, 0.5, 1, 3, 10)]
    assert all(a < b for a, b in zip(values, values[1:])), values
    assert values[-1] > 0.9


@pytest.mark.parametrize("w", [0.01, 0.1, 1.0, 5.0])
def test_s_equal_1_is_perfectly_symmetric(w):
    assert symmetry(attenuated_matrix(33, locality=w, symmetry=1.0)) == 1.0


@pytest.mark.parametrize("s", [0.0, 0.3, 3.0])
def test_s_other_than_1_is_asymmetric(s):
    m = attenuated_matrix(32, locality=0.05, symmetry=s)
    assert symmetry(m) < 0.99
    # With s < 1 the right side (j > i) decays more slowly, so it holds more weight at equal distance.
    if s < 1:
        assert m[10, 12] > m[10, 8]


@pytest.mark.parametrize("w", [0.0, -1.0, float("nan")])
def test_attenuated_matrix_needs_a_positive_w(w):
    with pytest.raises(ValueError):
        attenuated_matrix(5, locality=w, symmetry=1.0)


def test_the_offset_profile_without_position_0_loses_the_sink_at_the_largest_offsets():
    from swapbench.probing.metrics import offset_profile
    from swapbench.probing.plots import SINK_FACTOR, even_share, sink_share

    # Every row gives half its weight to position 0 and spreads the rest over its neighbours within 2.
    n = 12
    m = np.zeros((n, n))
    for i in range(n):
        near = [j for j in range(max(0, i - 2), min(n, i + 3))]
        m[i, near] += 0.5 / len(near)
        m[i, 0] += 0.5
    offsets, means = offset_profile(m)
    assert offsets[-1] == n - 1 and means[-1] == pytest.approx(0.5)  # the sink, read as long-range attention
    offsets, means = offset_profile(m, first=1)
    assert list(offsets) == list(range(-(n - 2), n - 1))
    assert means[offsets > 2].max() == 0 and means[offsets == 0][0] > 0.08  # only the neighbours are left
    # rows 1 and 2 also reach position 0 as a neighbour: 0.5/4 and 0.5/5 more
    assert sink_share(m) == pytest.approx(0.5 + (0.125 + 0.1) / (n - 1))
    # an even spread gives position 0 a share of 1/n, or under a causal mask 1/(i + 1) in row i
    assert even_share(n, causal=False) == pytest.approx(1 / n)
    assert even_share(3, causal=True) == pytest.approx((1 / 2 + 1 / 3) / 2)
    assert sink_share(m) > SINK_FACTOR * even_share(n, causal=False)  # a sink
    assert sink_share(np.full((n, n), 1 / n)) <= SINK_FACTOR * even_share(n, causal=False)  # none
