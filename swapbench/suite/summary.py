"""The suite's summary: one row per run (model, mode, seed, what became of it) with its headline per
configuration (Δ accuracy, in points; role sensitivity on a role configuration), as Markdown and CSV, and the
failures with their reasons. Model names and error messages are data: escaped as Markdown cells and as CSV cells
(core/display.py), as the board escapes them."""

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


def rows(outcomes: list[Outcome]) -> tuple[list[str], list[list[str]]]:
    """The table's header and rows."""
    configurations = list(dict.fromkeys(name for o in outcomes if o.results for name in o.results.results))
    header = ["model", "mode", "seed", "status", *configurations, "results"]
    table = []
    for outcome in outcomes:
        options, results = outcome.run.options, outcome.results
        figures = [headline(results.results[name]) if results and name in results.results else ""
                   for name in configurations]
        mode = "prompt" if options.mode == "prompt" else "fine-tune" if options.finetune else "classifier"
        table.append([options.model, mode, str(options.seed), outcome.status, *figures,
                      outcome.path.name if outcome.path else ""])
    return header, table


def render(outcomes: list[Outcome]) -> tuple[str, str]:
    """(summary.md, summary.csv)."""
    header, table = rows(outcomes)
    lines = ["# Suite summary", "",
             "Each configuration's headline, in points: Δ accuracy (perturbed - original), or role sensitivity on a "
             "role configuration. The figures, intervals and tests are in each results file (results/).", "",
             "| " + " | ".join(markdown_cell(name) for name in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(markdown_cell(value) for value in row) + " |" for row in table]
    failed = [o for o in outcomes if o.status == "failed"]
    if failed:
        lines += ["", "## Failures", ""] + [f"- {markdown_cell(o.run.label)}: {markdown_cell(o.error)}"
                                            for o in failed]
    stream = io.StringIO()
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerows([csv_cell(value) for value in line] for line in [header, *table])
    return "\n".join(lines) + "\n", stream.getvalue()


def write_summary(outcomes: list[Outcome], out: Path) -> Path:
    """Write summary.md and summary.csv to `out`, together; the Markdown file's path."""
    markdown, table = render(outcomes)
    replace_files({out / SUMMARY: markdown, out / TABLE: table})
    return out / SUMMARY
