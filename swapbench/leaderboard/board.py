"""Submitting to the board and rebuilding it: README.md, leaderboard.csv and index.html from results/."""

from __future__ import annotations

from pathlib import Path

from ..errors import SwapbenchError
from . import RESULTS_DIR
from .html import render_html
from .markdown import render_csv, render_readme
from .reference import load_reference
from .store import board_identities, load_board, normalized_name, results_files
from .table import board_rows
from .validate import Problem, Verdict, validate

OUTPUTS = ("README.md", "leaderboard.csv", "index.html")


def rebuild(board: Path) -> list[Path]:
    """Write the three outputs from the stored results; the same files always give the same bytes."""
    reference = load_reference(board)
    rows = board_rows(load_board(board))
    texts = {"README.md": render_readme(rows, reference), "leaderboard.csv": render_csv(rows),
             "index.html": render_html(rows, reference)}
    paths = []
    for name in OUTPUTS:
        path = board / name
        path.write_text(texts[name], encoding="utf-8")
        paths.append(path)
    return paths


def check(path: Path, board: Path, *, replace: bool = False) -> Verdict:
    """Validate a results file for the board without storing it."""
    return _check(path, _read(path), board, load_reference(board), board_identities(board), replace)


def submit(path: Path, board: Path, *, replace: bool = False) -> tuple[Verdict, Path]:
    """Validate, store under results/<normalized name> and rebuild. A refused file changes nothing."""
    text = _read(path)
    verdict = _check(path, text, board, load_reference(board), board_identities(board), replace)
    if not verdict.accepted:
        return verdict, path
    target = board / RESULTS_DIR / normalized_name(verdict.results)
    if target.exists() and target not in verdict.replaces:
        raise SwapbenchError(f"{target} exists and holds another model: rename clash, please report it")
    target.parent.mkdir(parents=True, exist_ok=True)
    for old in verdict.replaces:
        old.unlink()
    target.write_text(text, encoding="utf-8")
    rebuild(board)
    return verdict, target


def check_board(board: Path) -> dict[str, list[Problem]]:
    """Each stored file's problems (empty when it is valid): the submit validation, and its normalized name."""
    problems = {}
    reference, identities = load_reference(board), board_identities(board)
    for path in results_files(board):
        verdict = _check(path, _read(path), board, reference, identities, replace=False)
        found = list(verdict.problems)
        if verdict.results is not None and path.name != normalized_name(verdict.results):
            found.append(Problem("", f"stored as {path.name}, not under its normalized name "
                                     f"{normalized_name(verdict.results)}"))
        problems[path.name] = found
    return problems


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise SwapbenchError(f"cannot read {path}: {err}") from err


def _check(path: Path, text: str, board: Path, reference, identities, replace: bool) -> Verdict:
    itself = path if path.resolve().parent == (board / RESULTS_DIR).resolve() else None
    return validate(text, reference, identities, replace=replace, itself=itself)
