"""The options of `swapbench suite`, defined once (see core.command_options)."""

from __future__ import annotations

from pathlib import Path

from ..core.command_options import CommandOptions, option


class SuiteOptions(CommandOptions):
    """`swapbench suite SUITE.yaml [--out DIR]`."""

    suite: Path = option(
        positional=True,
        metavar="SUITE.yaml",
        help="the suite file: the models, each with its revision, mode, options and seeds (docs/commands/suite.md)",
    )
    out: Path = option(
        Path("suite"),
        help="folder of the results files (results/) and the summary (summary.md, "
        "summary.csv); a run whose results are there already is not scored again",
    )
    progress: bool = option(
        True,
        negative="--no-progress",
        help="no progress bars (the suite's and each model's); messages still go to stderr",
    )
