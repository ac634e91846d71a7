"""The suite's summary carries each run's health verdict and its --limit (issue 45, item 6): an at-chance model's
"+20.0" is not shown as a finding, and a run that scored a sample says so."""

from __future__ import annotations

import csv
from pathlib import Path

from board_helpers import healthy, make_results

from swapbench.evaluation.options import eval_options_model
from swapbench.results.schema import EvalResults
from swapbench.suite.declaration import Run
from swapbench.suite.run import Outcome
from swapbench.suite.summary import write_summary

REASON = "original accuracy 33.0% on 300 pairs is not above chance"


def outcome(model: str, *, at_chance: bool = False, limit: int | None = None) -> Outcome:
    results = EvalResults.model_validate(make_results(model, drops={"shuffle-3": 9}))
    results = results.model_copy(
        update={
            "health": healthy([REASON] if at_chance else []),
            "dataset": results.dataset.model_copy(update={"limit": limit}),
        }
    )
    options = eval_options_model()(model=model, data="data/snli-test", seed=0)
    return Outcome(Run(f"{model} (classifier, seed 0)", options), "scored", Path(f"results/{model}.json"), results)


def test_the_summary_says_which_run_is_at_chance_and_which_scored_a_sample(tmp_path):
    runs = [outcome("good"), outcome("chance", at_chance=True), outcome("sample", limit=300)]
    markdown = write_summary(runs, tmp_path).read_text()
    table = list(csv.DictReader((tmp_path / "summary.csv").read_text().splitlines()))
    assert [(row["model"], row["health"], row["limit"]) for row in table] == [
        ("good", "ok", ""),
        ("chance", "at chance", ""),
        ("sample", "ok", "300"),
    ]
    figure = table[0]["shuffle-3"]
    assert figure and table[1]["shuffle-3"] == figure  # the CSV keeps the number, its health column says what it is
    [chance_row] = [line for line in markdown.splitlines() if line.startswith("| chance |")]
    assert "| at chance |" in chance_row and f"({figure})" in chance_row
    [good_row] = [line for line in markdown.splitlines() if line.startswith("| good |")]
    assert f"| {figure} |" in good_row and "| ok |" in good_row
    assert "## At chance" in markdown and f"chance (classifier, seed 0): {REASON}" in markdown
    assert "| 300 |" in markdown and "--limit" in markdown
