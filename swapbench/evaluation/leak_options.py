"""The options of `swapbench leak` (evaluation/leak.py measures), apart from what they run, so that `--help` and
argument errors import neither the results schema nor numpy."""

from __future__ import annotations

from pathlib import Path

from ..core.command_options import CommandOptions, option


class LeakOptions(CommandOptions):
    """`swapbench leak RESULTS [--output FILE]`."""

    results: Path = option(positional=True, metavar="RESULTS",
                           help="results file of `swapbench eval MODEL --hypothesis-only`; its predictions file "
                                "beside it")
    output: Path | None = option(None, help="the file written (default, in a checkout of swapbench: "
                                            "data/annotations/hypothesis-only.json, the one the dataset "
                                            "card reads)")
