"""The suite's summary: one row per run (model, mode, seed, what became of it, its health verdict, its --limit)
with its headline per configuration (Δ accuracy, in points; role sensitivity on a role configuration), as Markdown
and CSV, and the failures and the runs at chance with their reasons. A run at chance (the results' health block:
its model is degenerate) keeps its figures, but they are no finding: the Markdown shows them in parentheses, and
both files say "at chance" in the run's health column, so that no +20.0 of a model that answers one label reads as
a result. A --limit run scored a sample of each configuration: its limit column says how many rows. Model names and
error messages are data: escaped as Markdown cells and as CSV cells (core/display.py), as the board escapes them."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ..core.display import csv_cell, markdown_cell
from ..core.files import replace_files
from ..core.text import points
from .run import Outcome

SUMMARY = "summary.md"
TABLE = "summary.csv"


def headline(result) -> str:
    """A configuration's headline in points: role sensitivity where it has one, else Δ accuracy."""
    role = result.role_sensitivity
    return points(role.value) if role is not None else points(result.delta)


AT_CHANCE = "at chance"


def health(results) -> str:
    """The run's health verdict: "at chance" or "ok"; empty for a run with no results (failed)."""
    if results is None:
        return ""
    return AT_CHANCE if results.health.at_chance else "ok"


def rows(outcomes: list[Outcome], marked: bool = False) -> tuple[list[str], list[list[str]]]:
    """The table's header and rows; `marked`: an at-chance run's figures in parentheses (the Markdown's)."""
    configurations = list(dict.fromkeys(name for o in outcomes if o.results for name in o.results.results))
    header = ["model", "mode", "seed", "status", "health", "limit", *configurations, "results"]
    table = []
    for outcome in outcomes:
        options, results = outcome.run.options, outcome.results
        figures = [
            headline(results.results[name]) if results and name in results.results else "" for name in configurations
        ]
        if marked and results is not None and results.health.at_chance:
            figures = [f"({figure})" if figure else "" for figure in figures]
        limit = results.dataset.limit if results is not None else None
        mode = "prompt" if options.mode == "prompt" else "fine-tune" if options.finetune else "classifier"
        table.append(
            [
                options.model,
                mode,
                str(options.seed),
                outcome.status,
                health(results),
                "" if limit is None else str(limit),
                *figures,
                outcome.path.name if outcome.path else "",
            ]
        )
    return header, table


def render(outcomes: list[Outcome]) -> tuple[str, str]:
    """(summary.md, summary.csv)."""
    header, table = rows(outcomes, marked=True)
    lines = [
        "# Suite summary",
        "",
        "Each configuration's headline, in points: Δ accuracy (perturbed - original), or role sensitivity on a "
        "role configuration. The figures, intervals and tests are in each results file (results/). health: "
        f"{AT_CHANCE} where eval found the model degenerate, its figures (in parentheses) no finding (see "
        '"At chance" below), else ok; limit: the rows scored per configuration under --limit, a sample, '
        "empty when every row was scored.",
        "",
        "| " + " | ".join(markdown_cell(name) for name in header) + " |",
        "|" + "---|" * len(header),
    ]
    lines += ["| " + " | ".join(markdown_cell(value) for value in row) + " |" for row in table]
    degenerate = [o for o in outcomes if o.results is not None and o.results.health.at_chance]
    if degenerate:
        lines += ["", "## At chance", ""] + [
            f"- {markdown_cell(o.run.label)}: {markdown_cell('; '.join(o.results.health.reasons))}" for o in degenerate
        ]
    failed = [o for o in outcomes if o.status == "failed"]
    if failed:
        lines += ["", "## Failures", ""] + [f"- {markdown_cell(o.run.label)}: {markdown_cell(o.error)}" for o in failed]
    header, table = rows(outcomes)
    stream = io.StringIO()
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerows([csv_cell(value) for value in line] for line in [header, *table])
    return "\n".join(lines) + "\n", stream.getvalue()


def write_summary(outcomes: list[Outcome], out: Path) -> Path:
    """Write summary.md and summary.csv to `out`, together; the Markdown file's path."""
    markdown, table = render(outcomes)
    replace_files({out / SUMMARY: markdown, out / TABLE: table})
    return out / SUMMARY
