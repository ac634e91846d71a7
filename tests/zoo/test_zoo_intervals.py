"""The zoo's intervals over seeds stay inside the range of what they bound, and the figure draws the very bounds the
report prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from swapbench.zoo.report import points
from swapbench.zoo.summary import DELTA, read_summary, spread

COMMITTED_ZOO = Path(__file__).resolve().parents[2] / "leaderboard" / "zoo"


def test_a_share_near_zero_gets_an_interval_that_does_not_go_below_zero():
    # ALiBi's three seeds on shuffle-sr (5 of 788, 29 and 19 predictions changed): the plain t interval is
    # [-1.6%, 6.0%].
    s = spread([5 / 788, 29 / 788, 19 / 788])
    assert s.low == 0.0 and s.low <= s.mean <= s.high
    assert points(s) == "2.2 [0.0, 6.0]"
    near_one = spread([0.99, 0.999, 0.94])
    assert near_one.high == 1.0 and near_one.low < near_one.mean


def test_a_delta_is_bounded_by_minus_one_and_one_not_by_zero():
    s = spread([-0.02, 0.01, -0.05], DELTA)
    assert s.low < 0 < s.high
    wide = spread([-0.9, -0.2, -0.9], DELTA)
    assert wide.low == -1.0 and wide.mean < wide.high < 1.0


def test_one_seed_has_no_interval():
    assert spread([0.3]).low is None


@pytest.mark.skipif(not (COMMITTED_ZOO / "zoo.json").is_file(), reason="no committed zoo")
def test_the_committed_zoo_shares_lie_within_0_and_1_and_the_figure_draws_those_bounds():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.container import BarContainer

    from swapbench.zoo.figure import _panel

    summary = read_summary(COMMITTED_ZOO)
    for e in summary.encodings:
        for table in (e.changed, e.discordant, e.non_entailment, {"accuracy": e.accuracy}):
            for s in table.values():
                assert 0.0 <= s.low <= s.mean <= s.high <= 1.0
        for s in e.delta.values():
            assert -1.0 <= s.low <= s.mean <= s.high <= 1.0

    configuration = "shuffle-sr"
    figure, axes = plt.subplots()
    try:
        _panel(axes, summary, configuration, plt.get_cmap("tab10"))
        bars = [c for c in axes.containers if isinstance(c, BarContainer)]
        assert len(bars) == len(summary.setups)
        for setup, container in zip(summary.setups, bars):
            whiskers = container.errorbar.lines[2][0].get_segments()
            drawn = [(round(seg[0][1], 6), round(seg[1][1], 6)) for seg in whiskers]
            expected = [
                (round(100 * e.changed[configuration].low, 6), round(100 * e.changed[configuration].high, 6))
                for e in summary.of(setup)
            ]
            assert drawn == expected
            assert min(low for low, _ in drawn) >= 0.0
    finally:
        plt.close(figure)
