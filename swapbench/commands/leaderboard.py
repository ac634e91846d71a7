"""`swapbench submit RESULTS.json` and `swapbench leaderboard`."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.command_options import add_arguments, from_arguments
from ..leaderboard.options import LeaderboardOptions, SubmitOptions
from .listing import COMMANDS

if TYPE_CHECKING:  # rich is imported where something is printed: --help needs none of it
    from rich.console import Console

logger = logging.getLogger(__name__)


def add_submit(subparsers) -> None:
    p = subparsers.add_parser(
        "submit",
        help=COMMANDS["submit"].help,
        description="Validate RESULTS (the schema, its version, ranges, deltas, the reference dataset, "
        "duplicates) and its predictions (their sha256 and rows; every figure recomputed from them), "
        "store both under BOARD/ with a normalized name and rebuild the board. A refused file is "
        "reported with every problem and changes nothing.",
    )
    add_arguments(p, SubmitOptions)
    p.set_defaults(run=run_submit)


def add_leaderboard(subparsers) -> None:
    p = subparsers.add_parser(
        "leaderboard",
        help=COMMANDS["leaderboard"].help,
        description="Rebuild BOARD/README.md, BOARD/leaderboard.csv and BOARD/index.html from BOARD/results/.",
    )
    add_arguments(p, LeaderboardOptions)
    p.set_defaults(run=run_leaderboard)


def _report(console: Console, title: str, problems) -> None:
    from rich.markup import escape

    console.print(f"[bold red]{escape(title)}[/]", highlight=False)
    for problem in problems:
        console.print(f"  - {escape(str(problem))}", highlight=False)


def run_submit(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.markup import escape

    from ..core.errors import SwapbenchError
    from ..leaderboard.board import catch_up, check, submit

    options = from_arguments(SubmitOptions, args)
    _check_board_found(options.board)
    if options.predictions and len(options.results) > 1:
        raise SwapbenchError(
            f"--predictions {options.predictions} names the predictions of one results file; "
            f"{len(options.results)} were given: submit them one at a time"
        )
    console = Console(soft_wrap=True)  # long hashes stay on one line
    if not options.check:
        try:
            stale = catch_up(options.board)
        except SwapbenchError as err:  # the catch-up rebuild is all or nothing, and comes before any submission
            if "nothing was submitted" in str(err):
                raise
            raise SwapbenchError(f"{err}; nothing was submitted, the board is as it was") from err
        _say_caught_up(stale)
    refused = 0
    for path in options.results:
        verdict, stored = (
            (check(path, options.board, replace=options.replace, predictions=options.predictions), path)
            if options.check
            else submit(path, options.board, replace=options.replace, predictions=options.predictions)
        )
        if not verdict.accepted:
            refused += 1
            _report(console, f"{path}: refused, {len(verdict.problems)} problem(s):", verdict.problems)
            continue
        migrated = f" (migrated {', '.join(verdict.migrated)})" if verdict.migrated else ""
        if options.check:
            console.print(f"{escape(str(path))}: valid{migrated}", highlight=False)
        else:
            replaced = f", replacing {', '.join(p.name for p in verdict.replaces)}" if verdict.replaces else ""
            console.print(
                f"{escape(str(path))}: accepted{migrated} as {escape(str(stored))}{replaced}; board rebuilt",
                highlight=False,
            )
    return 1 if refused else 0


def _say_caught_up(stale: list[str]) -> None:
    if stale:
        logger.warning(
            f"the board was out of date with results/ ({', '.join(stale)}; a submission interrupted?): rebuilt it"
        )


def _check_board_found(board: Path) -> None:
    """Refuse a --board that holds no leaderboard (`swapbench submit` run outside the repository, say)."""
    from ..core.errors import SwapbenchError
    from ..leaderboard.reference import REFERENCE_FILE

    if not (board / REFERENCE_FILE).is_file():
        where = f"{board.absolute()} does not exist" if not board.exists() else f"{board} has no {REFERENCE_FILE}"
        raise SwapbenchError(
            f"no leaderboard found at {board} ({where}): run `swapbench submit` in the swapbench "
            "repository, whose leaderboard/ folder is the board, or give the board's folder with "
            "--board FOLDER"
        )


def run_leaderboard(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..leaderboard.board import OUT_OF_DATE, check_board, out_of_date, rebuild
    from ..leaderboard.reference import reference_from_build, write_reference

    options = from_arguments(LeaderboardOptions, args)
    console = Console(soft_wrap=True)  # long hashes stay on one line
    if options.set_reference:
        path = write_reference(options.board, reference_from_build(options.set_reference))
        logger.info(f"Wrote {path}")
    if options.check:
        problems = check_board(options.board)
        for name, found in problems.items():
            if found:
                _report(console, f"{name}: {len(found)} problem(s):", found)
        bad = sum(bool(found) for found in problems.values())
        console.print(f"{len(problems) - bad} of {len(problems)} results files valid", highlight=False)
        stale = [] if bad else out_of_date(options.board)  # a board holding an invalid file cannot be rebuilt
        if stale:
            _report(console, f"{OUT_OF_DATE}; these differ from a rebuild:", stale)
        return 1 if bad or stale else 0
    for path in rebuild(options.board):
        logger.info(f"Wrote {path}")
    return 0
