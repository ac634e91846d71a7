"""The curation file of shuffle-sr: which candidate swaps a person accepted or rejected.

JSON lines, one decision each: {"pair_id": ..., "decision": "accept" | "reject", "side": "premise" | "hypothesis",
"premise": ..., "hypothesis": ...} where side is the sentence that was swapped and premise and hypothesis the
swapped pair that was judged. A later line about the same pair overrides an earlier one, so a decision is revised
by appending. `swapbench build --sr-selection FILE` keeps a swap only if it was accepted and still reads as it
did when judged. A file meant for publication may leave the text out (`swapbench curate --without-text`; SNLI's
sentences are not to be redistributed with it): the swap is then recognised by its pair and side alone.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path

from pydantic import Field

from .errors import InputError, SwapbenchError
from .fingerprint import file_sha256
from .jsonl import dumps_lines, read_file_objects
from .strict import Strict
from .text import public_path, squash

DECISIONS = ("accept", "reject")
SIDES = ("premise", "hypothesis", None)


@dataclass(frozen=True, slots=True)
class Decision:
    pair_id: str
    decision: str  # accept or reject
    premise: str | None = None  # the swapped pair as judged; None in a file without text
    hypothesis: str | None = None
    side: str | None = None  # the swapped sentence, premise or hypothesis; None in files from before it was kept

    @property
    def accepted(self) -> bool:
        return self.decision == "accept"

    def judged(self, premise: str, hypothesis: str, side: str) -> bool:
        """Whether this decision was made on this swap: the same words where it holds text, the same side. The
        words are compared without their spacing (core.text.squash): the build judges its tokens joined by spaces,
        the curator reads them written as text, and a file judged before swaps were written as text still holds."""
        if self.premise is not None and (squash(self.premise), squash(self.hypothesis or "")) != (
            squash(premise),
            squash(hypothesis),
        ):
            return False
        return self.side is None or self.side == side


class SelectionFile(Strict):
    """The curation file a build kept its swaps by, named by its content."""

    path: str = Field(description="--sr-selection, as a published file names a path (core.text.public_path)")
    sha256: str = Field(description="sha256 of the file's bytes when the build read it")

    @classmethod
    def of(cls, path: Path) -> SelectionFile:
        return cls(path=public_path(path), sha256="sha256:" + file_sha256(Path(path)))


def read_selection(path: Path) -> dict[str, Decision]:
    """Decisions by pair id (the last one for each pair); an absent file holds none."""
    path = Path(path)
    if not path.exists():
        return {}
    decisions: dict[str, Decision] = {}
    for number, row in read_file_objects(path):
        try:
            decision = Decision(
                str(row["pair_id"]), row["decision"], row.get("premise"), row.get("hypothesis"), row.get("side")
            )
        except KeyError as err:
            raise InputError(f"not a selection record ({err})", path=str(path), line=number) from err
        if decision.decision not in DECISIONS:
            raise InputError(
                f"decision must be accept or reject, not {decision.decision!r}", path=str(path), line=number
            )
        if decision.side not in SIDES:
            raise InputError(f"side must be premise or hypothesis, not {decision.side!r}", path=str(path), line=number)
        if (decision.premise is None) != (decision.hypothesis is None):
            raise InputError("a record holds both premise and hypothesis or neither", path=str(path), line=number)
        decisions[decision.pair_id] = decision
    return decisions


def append_decision(path: Path, decision: Decision) -> None:
    """Append one decision and sync it to disk at once, so that an interrupted session loses nothing."""
    fields = {name: value for name, value in asdict(decision).items() if value is not None}
    record = dumps_lines([fields]).encode("utf-8")
    try:
        _append_line(Path(path), record)
    except OSError as err:
        raise SwapbenchError(f"{path}: cannot record the decision on {decision.pair_id}: {err}") from err


def _append_line(path: Path, line: bytes) -> None:
    """Append `line` in one write, first ending a last line that lacks its newline (a file edited by hand) rather
    than running into it; a write that fails (a full disk) is taken back, leaving the file as it was."""
    with open(path, "a+b", buffering=0) as handle:
        size = handle.seek(0, os.SEEK_END)
        if size:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) != b"\n":
                line = b"\n" + line
        try:
            if handle.write(line) != len(line):
                raise OSError("short write")
            os.fsync(handle.fileno())
        except OSError:
            handle.truncate(size)
            raise
