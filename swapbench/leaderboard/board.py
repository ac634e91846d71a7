"""Submitting to the board and rebuilding it: README.md, leaderboard.csv and index.html from results/."""

from __future__ import annotations

from pathlib import Path

from ..core.errors import SwapbenchError
from ..core.text import portable
from . import RESULTS_DIR
from .html import render_html
from .markdown import render_csv, render_readme
from .reference import Reference, load_reference
from .reported import load_reported
from .store import (Identity, all_or_nothing, board_identities, load_board, normalized_name, results_files,
                    write_atomically)
from .table import make_board
from .validate import Problem, Verdict, validate

OUTPUTS = ("README.md", "leaderboard.csv", "index.html")
# A results file of `swapbench eval` on the SNLI test build is about 100 kB (95 kB on the committed board, most of it
# per-slice figures); at ten times that, a file is refused without being read.
MAX_BYTES = 1_000_000


def rebuild(board: Path) -> list[Path]:
    """Write the three outputs from the stored results, all or none; the same files always give the same bytes."""
    reference = load_reference(board)
    table = make_board(load_board(board), reference, load_reported(board))
    texts = {"README.md": render_readme(table, reference), "leaderboard.csv": render_csv(table),
             "index.html": render_html(table, reference)}
    paths = [board / name for name in OUTPUTS]
    with all_or_nothing(paths):
        for path in paths:
            write_atomically(path, texts[path.name].encode("utf-8"))
    return paths


def check(path: Path, board: Path, *, replace: bool = False) -> Verdict:
    """Validate a results file for the board without storing it."""
    itself = path if path.resolve().parent == (board / RESULTS_DIR).resolve() else None
    return _examine(path, load_reference(board), board_identities(board), replace, itself)[0]


def submit(path: Path, board: Path, *, replace: bool = False) -> tuple[Verdict, Path]:
    """Validate the board, then the file; then store it and rebuild, all or nothing: a refused file, a board
    holding a damaged file, or a rebuild that fails leave every file of the board as it was."""
    _check_readable(board)
    identities = board_identities(board)
    verdict, data = _examine(path, load_reference(board), identities, replace, itself=None)
    if not verdict.accepted:
        return verdict, path
    target = board / RESULTS_DIR / normalized_name(verdict.results)
    if target.exists() and target not in verdict.replaces:
        raise SwapbenchError(f"{target} holds {dict(identities)[target].describe()}, another model whose file "
                             "name is the same; nothing was stored: please report this name clash")
    try:
        with all_or_nothing([target, *verdict.replaces, *(board / name for name in OUTPUTS)]):
            for old in verdict.replaces:
                old.unlink()
            # The board is published: the stored copy names no path of the submitter's machine.
            write_atomically(target, portable(data.decode("utf-8"), keep=2).encode("utf-8"))
            rebuild(board)
    except SwapbenchError as err:
        raise SwapbenchError(f"{err}; nothing was submitted, the board is as it was") from err
    return verdict, target


def check_board(board: Path) -> dict[str, list[Problem]]:
    """Each stored file's problems (empty when it is valid): the submit validation, and its normalized name."""
    problems = {}
    reference, identities = load_reference(board), board_identities(board)
    for path in results_files(board):
        verdict = _examine(path, reference, identities, replace=False, itself=path)[0]
        found = list(verdict.problems)
        if verdict.results is not None and path.name != normalized_name(verdict.results):
            found.append(Problem("", f"stored as {path.name}, not under its normalized name "
                                     f"{normalized_name(verdict.results)}"))
        problems[path.name] = found
    return problems


def _check_readable(board: Path) -> None:
    """Every stored file must read before anything is written: the rebuild after storing reads them all."""
    try:
        load_board(board)
    except SwapbenchError as err:
        raise SwapbenchError(f"the board holds a damaged file, so nothing was submitted: {err}. Fix or remove it, "
                             "then submit again") from err


def _examine(path: Path, reference: Reference, identities: list[tuple[Path, Identity]], replace: bool,
             itself: Path | None) -> tuple[Verdict, bytes]:
    """The verdict on a results file, and its bytes. `itself` is the file's place on the board when a stored file
    is re-checked, so that it is not its own duplicate. An oversized file is refused unread."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            return Verdict([Problem("", f"{size / 1e6:.1f} MB: the board takes results files of at most "
                                        f"{MAX_BYTES / 1e6:g} MB (those of `swapbench eval` are about 100 kB), so "
                                        "it was not read")]), b""
        data = path.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise SwapbenchError(f"cannot read {path}: {err}") from err
    return validate(text, reference, identities, replace=replace, itself=itself), data

