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
