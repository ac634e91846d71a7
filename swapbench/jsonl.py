"""Reading JSON-lines files whose every bad line is reported by file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from .errors import InputError


def split_lines(text: str) -> list[str]:
    """The lines of a JSON-lines or TSV file, each without its line feed (and carriage return).

    Only a line feed ends a line: str.splitlines also splits at U+2028, U+0085 and other characters that a JSON
    string may hold unescaped, as curate writes them.
    """
    return [line.removesuffix("\r") for line in text.split("\n")]


def read_objects(text: str, path: str | Path) -> Iterator[tuple[int, dict]]:
    """(line number, object) for each non-blank line of `text`, read from `path`; anything else is an InputError."""
    for number, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise InputError(f"broken JSON: {err.msg} (column {err.colno})", path=str(path), line=number) from err
        if not isinstance(row, dict):
            raise InputError("expected a JSON object", path=str(path), line=number)
        yield number, row


def read_file_objects(path: str | Path) -> Iterator[tuple[int, dict]]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read: {err}", path=str(path)) from err
    return read_objects(text, path)
