"""Render the performance table (docs/performance.md) from the JSON files the benchmark scripts write (`--json PATH` of
scripts/bench_startup.py, bench_eval.py, bench_finetune.py, bench_decoder.py, gpu_check.sh's), and put it between
the marker comments `<!-- perf-table:start -->` and `<!-- perf-table:end -->` of a Markdown file (docs/performance.md by
default); nothing outside the markers changes, and a file without them is refused.

Each JSON file is a dict: figure name -> {"ratio" or "value", "low", "high", "command", "load", "machine"}, with
optional "unit" (printed after the numbers: "s", "x"), "goal" and "note"; other keys are ignored. The table keeps
its columns (figure, goal, measured, command); below it, each machine and load the figures were measured
on. Rendered with jinja2 in the board's Markdown environment (swapbench/leaderboard/templating.py), in which every
value is a literal table cell; the figure names are the benchmark scripts' own Markdown (code spans).

    python scripts/perf_table.py startup.json scoring.json finetune.json [--file docs/performance.md]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree without installing

from markupsafe import Markup  # noqa: E402

from swapbench.core.errors import SwapbenchError  # noqa: E402
from swapbench.core.files import replace_files  # noqa: E402
from swapbench.leaderboard.templating import markdown_environment  # noqa: E402

START, END = "<!-- perf-table:start -->", "<!-- perf-table:end -->"

TEMPLATE = """\
| figure | goal | measured | command |
|---|---|---|---|
{% for row in rows %}
| {{ row.figure }} | {{ row.goal }} | {{ row.measured }} | {{ row.command }} |
{% endfor %}

{% for where in measured_on %}
{{ where.figures }}: {{ where.machine }}{% if where.load %}, {{ where.load }}{% endif %}.
{% endfor %}
"""


def number(value: float) -> str:
    """Three significant figures, as the scripts print them: 0.412, 1.65, 113."""
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def measured(figure: dict, source: str) -> str:
    """`value unit (low-high unit)`: the median and the range of the rounds."""
    key = "ratio" if "ratio" in figure else "value" if "value" in figure else None
    if key is None:
        raise SwapbenchError(f'{source}: a figure has neither "ratio" nor "value": {sorted(figure)}')
    unit = f" {figure['unit']}" if figure.get("unit") not in (None, "", "x") else figure.get("unit") or ""
    text = f"{number(figure[key])}{unit}"
    if figure.get("low") is not None and figure.get("high") is not None:
        text += f" ({number(figure['low'])}-{number(figure['high'])})"
    if figure.get("note"):
        text += f"; {figure['note']}"
    return text


def table_cell_markdown(text: str) -> Markup:
    """A benchmark script's own Markdown (a figure's name, with its code spans), kept in its table cell."""
    return Markup(" ".join(str(text).split()).replace("|", "\\|"))


def command_cell(text: str) -> Markup:
    """A command as a code span that stays in its table cell (GitHub reads `\\|` inside one as a '|')."""
    text = " ".join(str(text).split())
    fence = "``" if "`" in text else "`"
    return Markup(f"{fence}{text.replace('|', chr(92) + '|')}{fence}") if text else Markup("")


def read_figures(paths: list[Path]) -> list[tuple[str, str, dict]]:
    """(source file, figure name, figure) of every figure, in the files' order and each file's own."""
    figures = []
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise SwapbenchError(f"{path}: no such file (the --json output of a benchmark script)") from None
        except json.JSONDecodeError as err:
            raise SwapbenchError(f"{path}: not JSON ({err})") from None
        if not isinstance(data, dict) or not all(isinstance(f, dict) for f in data.values()):
            raise SwapbenchError(f'{path}: expected a dict of figure name -> {{"ratio" or "value", ...}}')
        figures.extend((path.name, name, figure) for name, figure in data.items())
    return figures


def render(paths: list[Path]) -> str:
    """The table, and the machines and loads it was measured on, as Markdown."""
    rows, places = [], {}
    for source, name, figure in read_figures(paths):
        rows.append(
            {
                "figure": table_cell_markdown(name),
                "goal": figure.get("goal"),
                "measured": measured(figure, f"{source}: {name}"),
                "command": command_cell(figure.get("command", "")),
            }
        )
        machine = str(figure.get("machine") or "machine not recorded")
        load = str(figure.get("load") or "")
        loads = places.setdefault((source, machine), [])
        if load and load not in machine and load not in loads:
            loads.append(load if load.startswith("load") else f"load {load}")
    measured_on = [
        {"figures": source, "machine": machine, "load": "; ".join(loads)} for (source, machine), loads in places.items()
    ]
    return markdown_environment().from_string(TEMPLATE).render(rows=rows, measured_on=measured_on)


def replace_table(text: str, table: str, name: str = "the file") -> str:
    """`text` with what lies between the markers replaced by `table`; refused unless each marker is there once,
    the start before the end."""
    starts, ends = text.count(START), text.count(END)
    if starts == 0 and ends == 0:
        raise SwapbenchError(
            f"{name} has no performance-table markers: put a line `{START}` and a line `{END}` "
            "where the table goes (what lies between them is replaced)"
        )
    if starts != 1 or ends != 1 or text.index(START) > text.index(END):
        raise SwapbenchError(f"{name} must have `{START}` once, then `{END}` once (found {starts} and {ends})")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{table.rstrip()}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("json", type=Path, nargs="+", help="figures files written by the benchmark scripts' --json")
    parser.add_argument(
        "--file",
        type=Path,
        default=Path("docs/performance.md"),
        help="the Markdown file whose table to replace (default: docs/performance.md)",
    )
    parser.add_argument("--print", action="store_true", help="print the table instead of writing --file")
    args = parser.parse_args(argv)
    try:
        table = render(args.json)
        if args.print:
            print(table, end="")
            return 0
        try:
            text = args.file.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise SwapbenchError(f"{args.file}: no such file") from None
        replace_files({args.file: replace_table(text, table, str(args.file))})
    except SwapbenchError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"wrote the performance table of {args.file} from {len(args.json)} file(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
