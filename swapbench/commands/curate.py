"""`swapbench curate DATASET --selection FILE`: judge shuffle-sr's swaps one at a time (dataset/curate.py)."""

from __future__ import annotations

import argparse

from ..core.command_options import add_arguments, from_arguments
from ..dataset.curate import CurateOptions, curate, read_rows
from .listing import COMMANDS


def add_curate(subparsers) -> None:
    p = subparsers.add_parser(
        "curate",
        help=COMMANDS["curate"].help,
        description="Show each shuffle-sr swap beside its original and record accept/reject "
        "decisions in a JSON-lines file; rerun to resume where you stopped.",
    )
    add_arguments(p, CurateOptions)
    p.set_defaults(run=run_curate)


def run_curate(args: argparse.Namespace) -> int:
    from rich.console import Console

    options = from_arguments(CurateOptions, args)
    curate(read_rows(options.dataset), options.selection, Console(), with_text=options.with_text)
    return 0
