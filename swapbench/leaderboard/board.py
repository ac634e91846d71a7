"""Submitting to the board and rebuilding it: README.md, leaderboard.csv and index.html from results/.

What the board holds is results/ (and, beside each results file that came with them, its predictions under
predictions/); the three outputs are made from it, and the same files always give the same bytes. So a submission
needs no journal to survive a `kill -9` at any step: it writes the predictions, then the results file (the step that
puts the row on the board), then takes away what it replaces, then the outputs. Killed before the results file is
in place, it left at most predictions that no results file names, which the next rebuild removes; killed after,
the row is on the board and only the outputs are behind. Every command that reads the board compares the outputs
with what results/ gives: `swapbench submit` rebuilds a board that is out of date before anything else (and says
so), and `swapbench leaderboard --check` names it as a problem. (A --replace under a new file name killed between
its two steps leaves both files, which --check reports as one model twice; submitting again with --replace ends it.)

A submission comes with its predictions: their sha256 and rows are checked against the results file's
`predictions` entry, every figure is recomputed from them (recompute.py), a compressed copy is stored, and
predictions already on the board under another model are refused (a relabelled copy).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..core.errors import SwapbenchError
from ..core.text import portable
from . import RESULTS_DIR
from .html import render_html
from .markdown import render_csv, render_readme
from .recompute import recompute_problems
from .reference import load_reference
from .reported import load_reported
from .store import (
    PREDICTIONS_DIR,
    Identity,
    all_or_nothing,
    board_identities,
    compress,
    inside,
    load_board,
    name_problems,
    normalized_name,
    read_predictions_bytes,
    results_files,
    stored_predictions,
    write_atomically,
)
from .table import make_board
from .validate import Problem, Verdict, validate

OUTPUTS = ("README.md", "leaderboard.csv", "index.html")
# A results file of `swapbench eval` on the SNLI test build is about 100 kB (95 kB on the committed board, most of it
# per-slice figures); at ten times that, a file is refused without being read.
MAX_BYTES = 1_000_000
OUT_OF_DATE = "the board is out of date with results/ (a submission interrupted?): run `swapbench leaderboard`"


def rendered(board: Path) -> dict[str, bytes]:
    """The three outputs that the stored results give, by file name."""
    reference = load_reference(board)
    table = make_board(load_board(board), reference, load_reported(board))
    texts = {
        "README.md": render_readme(table, reference),
        "leaderboard.csv": render_csv(table),
        "index.html": render_html(table, reference),
    }
    return {name: texts[name].encode("utf-8") for name in OUTPUTS}


def orphans(board: Path) -> list[Path]:
    """Stored predictions that no results file names: left by a submission killed before its results file."""
    named = {path.stem for path in results_files(board)}
    return [
        path
        for path in sorted((board / PREDICTIONS_DIR).glob("*.predictions.jsonl.gz"))
        if path.name.removesuffix(".predictions.jsonl.gz") not in named
    ]


def rebuild(board: Path) -> list[Path]:
    """Write the three outputs from the stored results, all or none, and remove predictions no file names."""
    texts = rendered(board)
    paths = [board / name for name in OUTPUTS]
    with all_or_nothing(paths):
        for path in paths:
            write_atomically(path, texts[path.name])
    for path in orphans(board):
        path.unlink()
    return paths


def out_of_date(board: Path) -> list[str]:
    """What differs from a rebuild of results/: each output not what it gives, each predictions file nothing names."""
    texts = rendered(board)
    stale = [name for name in OUTPUTS if not (board / name).is_file() or (board / name).read_bytes() != texts[name]]
    return stale + [f"{PREDICTIONS_DIR}/{path.name}" for path in orphans(board)]


def catch_up(board: Path) -> list[str]:
    """Rebuild a board whose outputs are behind results/ (a submission killed before its rebuild); what was
    behind, or [] when nothing was. A board holding a damaged file is refused first, naming it."""
    _check_readable(board)
    stale = out_of_date(board)
    if stale:
        rebuild(board)
    return stale


def check(path: Path, board: Path, *, replace: bool = False, predictions: Path | None = None) -> Verdict:
    """Validate a results file and its predictions for the board without storing anything."""
    itself = path if path.resolve().parent == (board / RESULTS_DIR).resolve() else None
    if itself and predictions is None:  # a stored file: its predictions are the board's, when it has them
        copy = board / PREDICTIONS_DIR / f"{path.stem}.predictions.jsonl.gz"
        predictions = copy if copy.is_file() else None
    return _examine(path, board, board_identities(board), replace, itself, predictions, required=not itself)[0]


def submit(path: Path, board: Path, *, replace: bool = False, predictions: Path | None = None) -> tuple[Verdict, Path]:
    """Validate the board, then the file and its predictions; then store both and rebuild, all or nothing: a
    refused file, a board holding a damaged file, or a rebuild that fails leave every file of the board as it
    was; a kill at any step leaves a board that the next command brings up to date (the module says how)."""
    _check_readable(board)
    identities = board_identities(board)
    verdict, data, rows = _examine(path, board, identities, replace, itself=None, predictions=predictions)
    if not verdict.accepted:
        return verdict, path
    target = inside(board / RESULTS_DIR, normalized_name(verdict.results))
    copy = stored_predictions(board, target.name)
    if target.exists() and target not in verdict.replaces:
        raise SwapbenchError(
            f"{target} holds {dict(identities)[target].describe()}, another model whose file "
            "name is the same; nothing was stored: please report this name clash"
        )
    replaced = [old for old in verdict.replaces if old != target]
    old_copies = [stored_predictions(board, old.name) for old in replaced]
    try:
        with all_or_nothing([copy, target, *replaced, *old_copies, *(board / name for name in OUTPUTS)]):
            write_atomically(copy, compress(rows))  # first: a results file on the board has its predictions
            # The board is published: the stored copy names no path of the submitter's machine.
            write_atomically(target, portable(data.decode("utf-8"), keep=2).encode("utf-8"))
            for old in [*replaced, *old_copies]:
                old.unlink(missing_ok=True)
            rebuild(board)
    except SwapbenchError as err:
        raise SwapbenchError(f"{err}; nothing was submitted, the board is as it was") from err
    return verdict, target


def check_board(board: Path) -> dict[str, list[Problem]]:
    """Each stored file's problems (empty when it is valid): the submit validation, its predictions on the board
    when it has them, and its normalized name. Whether the outputs are up to date is `out_of_date`'s."""
    problems = {}
    identities = board_identities(board)
    for path in results_files(board):
        copy = board / PREDICTIONS_DIR / f"{path.stem}.predictions.jsonl.gz"
        verdict = _examine(
            path,
            board,
            identities,
            replace=False,
            itself=path,
            predictions=copy if copy.is_file() else None,
            required=False,
        )[0]
        found = list(verdict.problems)
        if verdict.results is not None and path.name != normalized_name(verdict.results):
            found.append(
                Problem("", f"stored as {path.name}, not under its normalized name {normalized_name(verdict.results)}")
            )
        problems[path.name] = found
    return problems


def _check_readable(board: Path) -> None:
    """Every stored file must read before anything is written: the rebuild after storing reads them all."""
    try:
        load_board(board)
    except SwapbenchError as err:
        raise SwapbenchError(
            f"the board holds a damaged file, so nothing was submitted: {err}. Fix or remove it, then submit again"
        ) from err


def _examine(
    path: Path,
    board: Path,
    identities: list[tuple[Path, Identity]],
    replace: bool,
    itself: Path | None,
    predictions: Path | None,
    required: bool = True,
) -> tuple[Verdict, bytes, bytes]:
    """The verdict on a results file, its bytes and its predictions' bytes (uncompressed). `itself` is the file's
    place on the board when a stored file is re-checked, so that it is not its own duplicate. An oversized file
    is refused unread. Its predictions are `predictions`, else the file its `predictions.path` names beside it;
    `required` is false for a file already on the board, whose predictions the board may not have."""
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            return (
                Verdict(
                    [
                        Problem(
                            "",
                            f"{size / 1e6:.1f} MB: the board takes results files of at most "
                            f"{MAX_BYTES / 1e6:g} MB (those of `swapbench eval` are about 100 kB), so "
                            "it was not read",
                        )
                    ]
                ),
                b"",
                b"",
            )
        data = path.read_bytes()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise SwapbenchError(f"cannot read {path}: {err}") from err
    verdict = validate(text, load_reference(board), identities, replace=replace, itself=itself)
    if verdict.results is None:
        return verdict, data, b""
    verdict.problems += [Problem(where, message) for where, message in name_problems(verdict.results.model_dump())]
    if predictions is None and required:
        predictions = path.parent / verdict.results.predictions.path
    rows = b""
    if predictions is not None:
        found, rows = _predictions_problems(verdict, predictions, board, identities, itself)
        verdict.problems += found
    return verdict, data, rows


def _predictions_problems(
    verdict: Verdict, path: Path, board: Path, identities: list[tuple[Path, Identity]], itself: Path | None
) -> tuple[list[Problem], bytes]:
    """The predictions at `path` against the results file's entry for them: present, the same sha256 and rows,
    not on the board under another model, and every figure recomputed from them."""
    entry = verdict.results.predictions
    if not path.is_file():
        return [
            Problem(
                "predictions.path",
                f"{path} not found: the board stores a results file's predictions with "
                "it, so that anyone can recompute its figures. Give the predictions "
                "file `swapbench eval` wrote beside it, or --predictions PATH",
            )
        ], b""
    try:
        rows = read_predictions_bytes(path)
    except (OSError, EOFError, ValueError) as err:  # gzip.BadGzipFile is an OSError
        return [Problem("predictions.path", f"cannot read {path}: {err}")], b""
    digest = hashlib.sha256(rows).hexdigest()
    if digest != entry.sha256:
        return [
            Problem(
                "predictions.sha256",
                f"{path} has sha256 {digest}, the results file says {entry.sha256}: "
                "these are not the predictions its figures were made from",
            )
        ], rows
    identity = Identity.of(verdict.results.model_dump())
    itself = itself.resolve() if itself else None
    for stored, other in identities:
        if other != identity and stored.resolve() != itself and _recorded_sha256(stored) == digest:
            return [
                Problem(
                    "predictions.sha256",
                    f"these predictions are on the board already as {stored}, for "
                    f"{other.describe()}: a results file relabelled as another model "
                    "is refused",
                )
            ], rows
    try:
        parsed = _parse(rows, path)
    except SwapbenchError as err:  # a line that is not a predictions row, named by file and line
        return [Problem("predictions.path", str(err))], rows
    if len(parsed) != entry.rows:
        return [Problem("predictions.rows", f"{path} has {len(parsed)} rows, the results file says {entry.rows}")], rows
    found = recompute_problems(verdict.results, parsed)
    if found and verdict.migrated:  # migrated figures were made by an older method than recompute's
        found.insert(
            0,
            Problem(
                "schema_version",
                f"written as schema {verdict.migrated[0].split()[0]}, whose "
                "figures were computed by older methods than today's: score the "
                "model again with this swapbench to submit it",
            ),
        )
    return found, rows


def _parse(rows: bytes, path: Path) -> list:
    """The predictions rows, from bytes (they may have been gzipped), parsed as eval's reader parses them."""
    from ..results.files import parse_predictions

    try:
        text = rows.decode("utf-8")
    except UnicodeDecodeError as err:
        raise SwapbenchError(f"{path}: not UTF-8 text ({err})") from err
    return parse_predictions(text, path)


def _recorded_sha256(path: Path) -> str | None:
    """The predictions' sha256 that a stored results file records, read leniently."""
    import json

    try:
        entry = json.loads(path.read_text(encoding="utf-8")).get("predictions")
        return entry.get("sha256") if isinstance(entry, dict) else None
    except (OSError, ValueError, AttributeError):
        return None
