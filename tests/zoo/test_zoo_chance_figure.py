"""The zoo figure and report when models are at chance (issue 45, item 6): every model at chance is said in place
of the panels' empty bars, and in the report above the tables; some at chance are hatched and counted. Encodings
not shown to read the premise (issue 44) are drawn hollow and counted. The committed zoo's summary is the fixture,
its verdicts changed."""

from __future__ import annotations

from pathlib import Path

import pytest
from matplotlib.figure import Figure

from swapbench.zoo import encodings  # noqa: F401  (registers the encodings the summary names)
from swapbench.zoo.figure import plot_sensitivity
from swapbench.zoo.report import render_markdown
from swapbench.zoo.summary import read_summary

COMMITTED_ZOO = Path(__file__).resolve().parents[2] / "leaderboard" / "zoo"
pytestmark = pytest.mark.skipif(not (COMMITTED_ZOO / "zoo.json").is_file(), reason="no committed zoo")


def judged(chance) -> object:
    """The committed summary with `chance(encoding)` giving each encoding's seeds at chance."""
    summary = read_summary(COMMITTED_ZOO)
    return summary.model_copy(
        update={"encodings": [e.model_copy(update={"at_chance": chance(e)}) for e in summary.encodings]}
    )


def drawn(summary, tmp_path, monkeypatch) -> Figure:
    figures = []
    monkeypatch.setattr(Figure, "savefig", lambda figure, *a, **k: figures.append(figure))
    plot_sensitivity(summary, tmp_path / "zoo.png")
    [figure] = figures
    return figure


def hatched(figure: Figure) -> int:
    return sum(1 for axes in figure.axes for patch in axes.patches if patch.get_hatch() == "//")


def test_every_model_at_chance_is_said_instead_of_empty_bars(tmp_path, monkeypatch):
    summary = judged(lambda e: [run.seed for run in e.runs])
    degenerate, models = summary.at_chance()
    assert degenerate == models > 0
    figure = drawn(summary, tmp_path, monkeypatch)
    assert figure.axes == []  # no panel, no bar
    text = " ".join(t.get_text() for t in figure.texts) + figure.get_suptitle()
    assert f"Every model of this zoo run is at chance ({models} of {models}" in text
    assert f"**Every model of this run is at chance** ({models} of {models}" in render_markdown(summary)


def test_a_model_at_chance_among_others_is_hatched_and_counted(tmp_path, monkeypatch):
    one = (read_summary(COMMITTED_ZOO).setups[0], "rope")
    summary = judged(lambda e: [e.runs[0].seed] if (e.setup, e.encoding) == one else [])
    figure = drawn(summary, tmp_path, monkeypatch)
    panels = [axes for axes in figure.axes if axes.patches]
    assert panels and hatched(figure) == sum(1 for axes in panels if any(p.get_height() for p in axes.patches))
    legend = " ".join(t.get_text() for legend in figure.legends for t in legend.get_texts())
    assert f"hatched: a seed at chance (1 of {summary.at_chance()[1]} models)" in legend
    assert f"1 of {summary.at_chance()[1]} models are at chance" in render_markdown(summary)

    healthy = judged(lambda e: [])
    assert hatched(drawn(healthy, tmp_path, monkeypatch)) == 0
    assert "at chance (hatched" not in render_markdown(healthy)


def hollow(figure: Figure) -> int:
    """Bars drawn without a fill (a bar of height 0 is a bar all the same)."""
    return sum(1 for axes in figure.axes for patch in axes.patches if patch.get_facecolor()[3] == 0)


@pytest.mark.parametrize("readers", [set(), {"none", "rope"}, "all"])
def test_encodings_not_shown_to_read_the_premise_are_drawn_hollow_and_counted(readers, tmp_path, monkeypatch):
    summary = judged(lambda e: [])
    readers = {e.encoding for e in summary.encodings} if readers == "all" else readers
    monkeypatch.setattr(type(summary), "reads_premise", lambda self, setup, encoding: encoding in readers)
    figure = drawn(summary, tmp_path, monkeypatch)
    panels = [axes for axes in figure.axes if axes.patches]
    unread = [e for e in summary.encodings if e.encoding not in readers]
    assert hollow(figure) == len(unread) * len(panels)
    legend = " ".join(t.get_text() for legend in figure.legends for t in legend.get_texts())
    said = f"hollow: not shown to read the premise ({len(unread)} of {len(summary.encodings)})"
    assert (said in legend) == bool(unread)
    assert ("no encoding shown to read the premise" in figure.get_suptitle()) == (not readers)
