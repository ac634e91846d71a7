"""Errors that reach the user: each names what was wrong and where."""

from __future__ import annotations


class SwapbenchError(Exception):
    """Base class of the errors the CLI reports without a traceback."""


class InputError(SwapbenchError):
    """Bad input data, located by file and line (1-based) when known."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        self.path = path
        self.line = line
        where = f"{path}:{line}: " if path and line else (f"{path}: " if path else "")
        super().__init__(f"{where}{message}")


EXCERPT = 200  # characters of a user's input that an error message quotes at most


def excerpt(text: object, limit: int = EXCERPT) -> str:
    """`text` (or its str) cut to `limit` characters with an ellipsis and the length it had: an error quotes what
    it refuses, and a hostile input (a megabyte name, an expanded YAML alias) must not become a megabyte message."""
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"
