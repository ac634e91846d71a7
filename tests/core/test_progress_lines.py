"""A long step says it is alive and how long it has left: plain lines at steady intervals where no bar is drawn (a
log file), and once, from its pace after a first batch, how long it takes in all; eval says what it will score
before it starts, and times it from its first batches."""

from __future__ import annotations

import io
import re

import pytest
from eval_models import save_classifier
from rich.console import Console

from swapbench.commands.main import main
from swapbench.core import progress as progress_module
from swapbench.core.progress import format_pace, progress_bar


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def console(terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=300), out


def run(terminal: bool, batches: list[tuple[float, int]], **settings) -> list[str]:
    """The lines said while `batches` (seconds, pairs) are scored, one advance each, 1,000 pairs in all."""
    clock, (where, out) = Clock(), console(terminal)
    with progress_bar(console=where, lines=True, get_time=clock, **settings) as bar:
        task = bar.add_task("scoring", total=1000, unit="pairs", estimate=True)
        for seconds, pairs in batches:
            clock.now += seconds
            bar.advance(task, pairs)
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())  # a terminal's bar: its escapes left out
    return [found[0] for line in plain.splitlines() if (found := re.search(r"scoring: .*", line))]


def test_a_log_gets_a_plain_line_every_30_seconds_with_the_pace_and_the_time_left():
    lines = run(False, [(1.0, 100)] + [(10.0, 50)] * 18)  # a cached first chunk, then 5 pairs a second
    steady = [line for line in lines if " in all" not in line]
    assert steady == [
        "scoring: 250 of 1,000 pairs (25%), 5 pairs a second, 31 s so far, about 2 min left",
        "scoring: 400 of 1,000 pairs (40%), 5 pairs a second, 1 min so far, about 2 min left",
        "scoring: 550 of 1,000 pairs (55%), 5 pairs a second, 2 min so far, about 2 min left",
        "scoring: 700 of 1,000 pairs (70%), 5 pairs a second, 2 min so far, about 1 min left",
        "scoring: 850 of 1,000 pairs (85%), 5 pairs a second, 3 min so far, about 30 s left",
        "scoring: 1,000 of 1,000 pairs (100%), 5 pairs a second, 3 min so far",
    ]


def test_quiet_says_no_line_and_no_estimate(monkeypatch):
    import logging

    batches = [(1.0, 100)] + [(10.0, 50)] * 18
    assert run(False, batches)
    monkeypatch.setattr(logging.getLogger("swapbench"), "level", logging.WARNING)  # what --quiet sets
    assert run(False, batches) == [] and run(True, batches) == []


def test_the_estimate_is_said_once_from_the_pace_after_the_first_batch_on_a_terminal_too():
    batches = [(0.5, 500)] + [(2.0, 10)] * 20  # 500 from a cache at once, then 5 pairs a second
    for terminal in (True, False):
        said = [line for line in run(terminal, batches) if " in all" in line]
        # measured over 10 s after the first batch (0.5 s), 450 pairs left at 5 a second: 100.5 s in all
        assert said == [("scoring: about 2 min in all, measured 5 pairs a second over 50 pairs after the first batch")]
    terminal_lines = run(True, batches)
    assert all(" in all" in line for line in terminal_lines)  # the bar says the rest


def test_a_step_over_before_it_is_measured_says_its_end_alone_and_no_lines_come_without_asking():
    ended = "scoring: 1,000 of 1,000 pairs (100%), 500 pairs a second, 2 s so far"
    assert run(False, [(1.0, 500), (1.0, 500)]) == [ended]  # the last line alone, its total in the log
    clock, (where, out) = Clock(), console(False)
    with progress_bar(console=where, get_time=clock) as bar:  # the build's bars: nothing in a log
        task = bar.add_task("parsing", total=10)
        for _ in range(10):
            clock.now += 60
            bar.advance(task)
    assert "parsing:" not in out.getvalue()
    assert [format_pace(x) for x in (5380.4, 41.23, 0.25)] == ["5,380", "41.2", "0.25"]


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", "shuffle-random"])


def test_eval_says_what_it_scores_before_it_starts_then_times_it_in_a_log(tmp_path, dataset, capfd, monkeypatch):
    monkeypatch.setattr(progress_module, "LINE_SECONDS", 0.0)
    monkeypatch.setattr(progress_module, "ESTIMATE_SECONDS", 0.0)
    model = save_classifier(tmp_path / "model", {0: "entailment", 1: "neutral", 2: "contradiction"})
    capfd.readouterr()
    assert (
        main(
            [
                "eval",
                str(model),
                "--data",
                str(dataset),
                "--output",
                str(tmp_path / "r.json"),
                "--no-probe",
                "--eval-batch-size",
                "2",
                "--dtype",
                "float32",
                "--bootstrap",
                "100",
            ]
        )
        == 0
    )
    out, err = capfd.readouterr()
    text = " ".join(err.split())
    cost = text.index(
        "Scoring 19 distinct pairs: 7 originals and the perturbed pairs each configuration adds "
        "(shuffle-3 5, shuffle-random 7); --configs scores fewer configurations, --limit N the first "
        "N rows of each"
    )
    estimate = re.search(
        r"scoring: about \d+ s in all, measured [0-9.,]+ pairs a second over \d+ pairs after the "
        r"first batch",
        text,
    )
    assert estimate and cost < estimate.start() < text.index("Wrote ")
    lines = [line for line in err.splitlines() if re.fullmatch(r"scoring: \d+ of 19 pairs \(\d+%\), .*", line)]
    assert len(lines) >= 3 and "scoring:" not in out  # a line each batch here; stdout holds the table alone
