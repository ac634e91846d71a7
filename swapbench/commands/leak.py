"""`swapbench leak RESULTS`: from a hypothesis-only eval, how well the hypotheses alone tell each role configuration's
swaps from their originals (evaluation/leak.py), printed and written where the dataset card reads it."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from ..core.command_options import add_arguments, from_arguments
from ..core.errors import SwapbenchError
from ..core.files import replace_files
from ..core.text import percent, points, public_command
from ..evaluation.leak_options import LeakOptions
from ..results.leak_verdict import LEAKS, MARGIN
from .listing import COMMANDS

logger = logging.getLogger(__name__)


def add_leak(subparsers) -> None:
    p = subparsers.add_parser(
        "leak",
        help=COMMANDS["leak"].help,
        description="Read the results of `swapbench eval MODEL --hypothesis-only` and measure, for every role "
        "configuration it scored, the share of swapped pairs it predicts non-entailment minus the share "
        "of originals (0: the hypotheses alone do not give the swap away), with a clustered interval "
        f"and test; a configuration whose interval lies beyond ±{100 * MARGIN:.0f} points leaks. With "
        "--plausibility, beside it (or alone, without RESULTS), a language model's plausibility "
        "baseline: it predicts entailment for the more probable of each row's two hypotheses. Writes "
        "the file the dataset card reads.",
    )
    add_arguments(p, LeakOptions)
    p.set_defaults(run=run_leak)


def default_output() -> Path:  # (LeakOptions asks for --output where RESULTS is left out)
    """The committed record the dataset card reads, when swapbench runs from a checkout (an installed package has
    no data/annotations/ to write into)."""
    if not LEAKS.parent.is_dir():
        raise SwapbenchError(
            f"--output: no default here ({LEAKS.parent} is not a folder of a swapbench checkout): "
            "say where to write the record"
        )
    return LEAKS


def run_leak(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..evaluation.leak import measure
    from ..results.hypothesis_only import PlausibilityBaseline
    from .evaluate import silence_library_bars

    options = from_arguments(LeakOptions, args)
    silence_library_bars(downloads=getattr(options, "progress", True))
    output = options.output or default_output()
    record = measure(options, public_command(list(sys.argv)))
    replace_files({output: record.model_dump_json(indent=1) + "\n"})
    console = Console()
    leaks = None if isinstance(record, PlausibilityBaseline) else record
    if leaks is not None:
        console.print(classifier_table(leaks))
    baseline = record if leaks is None else leaks.plausibility
    if baseline is not None:
        console.print(plausibility_table(baseline, leaks))
    logger.info(f"Wrote {output}")
    return 0


def classifier_table(leaks):
    """The hypothesis-only classifier's figures per role configuration."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(
        title=escape(f"{leaks.model}, hypotheses alone (validation accuracy {leaks.validation_accuracy:.1%})"),
        caption="orig NE, swap NE: pairs predicted non-entailment (%); leak = swap NE - orig NE, in "
        "points, its 95% interval and p-value clustered by premise",
        box=None,
        padding=(0, 1),
        collapse_padding=True,
    )
    for header in ("config", "n", "orig NE", "swap NE", "leak pp", "95% CI", "p", "verdict"):
        table.add_column(
            header,
            justify="left" if header in ("config", "verdict") else "right",
            no_wrap=header not in ("95% CI", "verdict"),
        )
    for name, leak in leaks.configurations.items():
        table.add_row(
            name,
            str(leak.n),
            percent(leak.original_non_entailment),
            percent(leak.swapped_non_entailment),
            points(leak.leak),
            f"[{points(leak.leak_ci.low)}, {points(leak.leak_ci.high)}]",
            f"{leak.p_value:.2g}",
            leak.verdict,
        )
    return table


def plausibility_table(baseline, leaks=None):
    """The plausibility baseline's figures per role configuration, the classifier's leak beside them."""
    from rich.markup import escape
    from rich.table import Table

    other = "mean" if baseline.score == "sum" else "sum"
    table = Table(
        title=escape(f"{baseline.model}, plausibility of the hypotheses alone ({baseline.score} of log-probabilities)"),
        caption=f"compared: rows whose two hypotheses differ (the others are at chance by construction); "
        f"prefers orig: share of them whose original is the more probable, its 95% interval "
        f"clustered by premise, p against 0.5 (clustered; binomial); {other}: the share under "
        f"the other score; leak over all rows, in points",
        box=None,
        padding=(0, 1),
        collapse_padding=True,
    )
    headers = ["config", "n", "compared", "prefers orig", "95% CI", "p", "binom p", other, "leak pp", "verdict"]
    if leaks is not None:
        headers.append("classifier")
    for header in headers:
        table.add_column(
            header,
            justify="left" if header in ("config", "verdict", "classifier") else "right",
            no_wrap=header not in ("95% CI", "verdict", "classifier"),
        )
    for name, figure in baseline.configurations.items():
        if figure.share is None:
            shares = ["n/a", "", "", "", "n/a"]
        else:
            shares = [
                f"{figure.prefers_original} ({percent(figure.share)}%)",
                f"[{percent(figure.share_ci.low)}, {percent(figure.share_ci.high)}]",
                f"{figure.p_value:.2g}",
                f"{figure.binomial_p_value:.2g}",
                f"{percent(figure.prefers_original_other / figure.compared)}%",
            ]
        row = [name, str(figure.n), str(figure.compared), *shares, points(figure.leak), figure.verdict]
        if leaks is not None:
            leak = leaks.configurations.get(name)
            row.append("not scored" if leak is None else f"{points(leak.leak)} pp, {leak.verdict}")
        table.add_row(*row)
    return table
