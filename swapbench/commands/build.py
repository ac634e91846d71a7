"""`swapbench build`: its options and what it prints. The work is in dataset/pipeline.py.

The options come from one model (dataset/options.py), made when the command line is: --parser and --variants list
what the registries hold then, and each registered variant's own options are listed under a group named for it,
so a backend or a variant registered by any imported module appears here with no edit.
"""

from __future__ import annotations

import argparse

from .listing import COMMANDS


def add_build(subparsers) -> None:
    from ..core.command_options import add_arguments
    from ..dataset.options import build_options_model
    from ..sources.options import ColumnOptions

    p = subparsers.add_parser(
        "build",
        help=COMMANDS["build"].help,
        description="Read an NLI source (SNLI by default), parse premises and write one dataset "
        "configuration per variant.",
    )
    model = build_options_model()
    p.set_defaults(run=run_build, options_model=model)
    add_arguments(p, model)
    add_arguments(p, ColumnOptions)


def run_build(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..core.command_options import from_arguments
    from ..dataset.pipeline import build
    from ..sources.options import columns_from

    options = from_arguments(args.options_model, args, columns=columns_from(args))
    out, info = build(options)
    console = Console()
    width = max((len(config.name) for config in info.configs), default=0)
    for config in info.configs:
        console.print(f"  {config.name:{width}} {config.rows:6d} rows  ({config.not_applicable} pairs not applicable)")
    return 0
