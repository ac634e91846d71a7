"""The `swapbench suite` subcommand: every model of a suite file scored by `swapbench eval`, resumably, then the
summary (swapbench.suite)."""

from __future__ import annotations

import argparse
import logging
import sys

from ..core.command_options import add_arguments, from_arguments
from ..suite.options import SuiteOptions
from .listing import COMMANDS

logger = logging.getLogger(__name__)


def add_suite(subparsers) -> None:
    p = subparsers.add_parser(
        "suite",
        help=COMMANDS["suite"].help,
        description="Score every model of SUITE.yaml (each with its revision, mode, options and seeds) as "
        "`swapbench eval` would, each run into its own results file under OUT/results/, and write "
        "OUT/summary.md and OUT/summary.csv. A run whose results are there already, for the same model "
        "revision, data and options, is not scored again; a failed run is reported and the suite goes "
        "on (exit code 1). Under torchrun or accelerate launch every run's pairs are sharded over the "
        "processes.",
    )
    add_arguments(p, SuiteOptions)
    p.set_defaults(run=run_suite_command)


def run_suite_command(args: argparse.Namespace) -> int:
    options = from_arguments(SuiteOptions, args)
    from rich.console import Console

    from ..core.logs import errors_only
    from ..evaluation.sharding import is_main
    from ..suite.declaration import read_suite
    from ..suite.run import run_suite
    from ..suite.summary import write_summary
    from .evaluate import silence_library_bars
    from .main import load_model_types

    load_model_types()
    main = is_main()
    console = Console(stderr=True, soft_wrap=True, quiet=not main)  # the progress bars'
    runs = read_suite(options.suite, progress=options.progress and main, command=list(sys.argv))
    silence_library_bars(downloads=options.progress)
    with errors_only(not main):  # the main process reports for all
        outcomes = run_suite(runs, options.out, console, progress=options.progress and main)
    if not main:
        return 0
    summary = write_summary(outcomes, options.out)
    # the summary table is the command's output, on stdout as eval's results table is
    Console(soft_wrap=True).print(summary.read_text(encoding="utf-8"), markup=False, highlight=False)
    failed = [o for o in outcomes if o.status == "failed"]
    scored = sum(o.status == "scored" for o in outcomes)
    logger.info(
        f"{len(outcomes)} runs: {scored} scored, "
        f"{len(outcomes) - scored - len(failed)} done before, {len(failed)} failed. "
        f"Wrote {summary}"
    )
    return 1 if failed else 0
