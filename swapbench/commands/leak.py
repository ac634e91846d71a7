"""`swapbench leak RESULTS`: from a hypothesis-only eval, how well the hypotheses alone tell each role configuration's
swaps from their originals (evaluation/leak.py), printed and written where the dataset card reads it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.command_options import add_arguments, from_arguments
from ..core.errors import SwapbenchError
from ..core.files import replace_files
from ..core.text import percent, points, public_command
from ..evaluation.leak_options import LeakOptions
from ..results.leak_verdict import LEAKS, MARGIN
from .listing import COMMANDS


def add_leak(subparsers) -> None:
    p = subparsers.add_parser(
        "leak", help=COMMANDS["leak"].help,
        description="Read the results of `swapbench eval MODEL --hypothesis-only` and measure, for every role "
                    "configuration it scored, the share of swapped pairs it predicts non-entailment minus the share "
                    "of originals (0: the hypotheses alone do not give the swap away), with a clustered interval "
                    f"and test; a configuration whose interval lies beyond ±{100 * MARGIN:.0f} points leaks. Writes "
                    "the file the dataset card reads.")
    add_arguments(p, LeakOptions)
    p.set_defaults(run=run_leak)


def default_output() -> Path:
    """The committed record the dataset card reads, when swapbench runs from a checkout (an installed package has
    no data/annotations/ to write into)."""
    if not LEAKS.parent.is_dir():
        raise SwapbenchError(f"--output: no default here ({LEAKS.parent} is not a folder of a swapbench checkout): "
                             "say where to write the record")
    return LEAKS


def run_leak(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from ..evaluation.leak import measure_leaks

    options = from_arguments(LeakOptions, args)
    output = options.output or default_output()
    leaks = measure_leaks(options.results, public_command(list(sys.argv)))
    replace_files({output: leaks.model_dump_json(indent=1) + "\n"})
    table = Table(title=escape(f"{leaks.model}, hypotheses alone (validation accuracy "
                               f"{leaks.validation_accuracy:.1%})"),
                  caption="orig NE, swap NE: pairs predicted non-entailment (%); leak = swap NE - orig NE, in "
                          "points, its 95% interval and p-value clustered by premise", box=None, padding=(0, 1),
                  collapse_padding=True)
    for header in ("config", "n", "orig NE", "swap NE", "leak pp", "95% CI", "p", "verdict"):
        table.add_column(header, justify="left" if header in ("config", "verdict") else "right",
                         no_wrap=header not in ("95% CI", "verdict"))
    for name, leak in leaks.configurations.items():
        table.add_row(name, str(leak.n), percent(leak.original_non_entailment),
                      percent(leak.swapped_non_entailment), points(leak.leak),
                      f"[{points(leak.leak_ci.low)}, {points(leak.leak_ci.high)}]", f"{leak.p_value:.2g}",
                      leak.verdict)
    console = Console()
    console.print(table)
    console.print(f"Wrote {escape(str(output))}", soft_wrap=True)
    return 0
