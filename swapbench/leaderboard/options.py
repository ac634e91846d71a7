"""The options of `swapbench submit` and `swapbench leaderboard`, each defined once."""

from __future__ import annotations

from pathlib import Path

from ..core.command_options import CommandOptions, option
from . import DEFAULT_BOARD


class SubmitOptions(CommandOptions):
    results: list[Path] = option(positional=True, metavar="RESULTS", help="results file(s) of `swapbench eval`")
    board: Path = option(DEFAULT_BOARD, help="leaderboard folder")
    replace: bool = option(False, help="replace the board's file for the same model and revision")
    check: bool = option(False, help="only validate; store nothing")
    predictions: Path | None = option(
        None,
        metavar="PATH",
        help="the predictions file of RESULTS (one RESULTS "
        "only), when it is not where RESULTS' "
        "predictions.path names it, beside RESULTS",
    )


class LeaderboardOptions(CommandOptions):
    board: Path = option(DEFAULT_BOARD, help="leaderboard folder")
    check: bool = option(
        False,
        help="validate every stored results file and its predictions, and that the "
        "outputs are what results/ gives; rebuild nothing",
    )
    set_reference: Path | None = option(
        None, metavar="DATA", help="first write BOARD/reference.json from this `swapbench build` output folder"
    )
