"""JSON-lines files (predictions, selections, frames, SNLI) read and written through the `jsonlines` package,
every bad line reported by file and line; and whole JSON files (build_info.json) read with the same care.

Deeply nested JSON (`[` a hundred thousand times) makes Python's json module raise RecursionError, which is no
ValueError: every reader here turns it into an InputError naming the file (and line)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TypeVar

import jsonlines
from pydantic import BaseModel, ValidationError

from .errors import InputError, excerpt

Model = TypeVar("Model", bound=BaseModel)
NESTED = "nested too deeply"


def split_lines(text: str) -> list[str]:
    """The lines of a JSON-lines or TSV file, each without its line feed (and carriage return).

    Only a line feed ends a line: str.splitlines also splits at U+2028, U+0085 and other characters that a JSON
    string may hold unescaped, as curate writes them.
    """
    return [line.removesuffix("\r") for line in text.split("\n")]


class _Numbered:
    """The lines, keeping the number of the last one handed out: jsonlines reads one line per value and gives
    the number only with its errors."""

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.number = 0

    def __iter__(self) -> Iterator[str]:
        # deliberate: each line's number is stored on self as it is handed out (read_values reads it); self.lines
        # was read once, by enumerate, so assigning self.number overrides nothing the loop iterates
        for self.number, line in enumerate(self.lines, start=1):  # noqa: B020
            yield line


def read_values(
    text: str, path: str | Path, loads: Callable[[str], object] = json.loads, type: type | None = dict
) -> Iterator[tuple[int, object]]:
    """(line number, value) for each non-blank line of `text`, read from `path`, each line decoded by `loads`
    (which raises ValueError on a bad line) and, unless `type` is None, of that type; anything else is an
    InputError naming the file and line."""
    lines = _Numbered(split_lines(text))
    try:
        for value in jsonlines.Reader(lines, loads=_bounded(loads)).iter(type=type, skip_empty=True):
            yield lines.number, value
    except jsonlines.InvalidLineError as err:
        raise _line_error(err, path) from err


def _bounded(loads: Callable[[str], object]) -> Callable[[str], object]:
    """`loads` raising ValueError, which jsonlines reports with the line, where it would raise RecursionError."""

    def bounded(line: str) -> object:
        try:
            return loads(line)
        except RecursionError:
            raise ValueError(NESTED) from None

    return bounded


def _line_error(err: jsonlines.InvalidLineError, path: str | Path) -> InputError:
    cause = err.__cause__
    if isinstance(cause, json.JSONDecodeError):
        message = f"broken JSON: {cause.msg} (column {cause.colno})"
    elif isinstance(cause, ValidationError):  # a pydantic model's model_validate_json
        message = _invalid(cause)
    elif isinstance(cause, ValueError):  # another loads of the caller's
        message = excerpt(cause, 500)
    else:  # a value of another type, or null
        message = "expected a JSON object"
    return InputError(message, path=str(path), line=err.lineno)


def read_objects(text: str, path: str | Path) -> Iterator[tuple[int, dict]]:
    """(line number, object) for each non-blank line of `text`, read from `path`; anything else is an InputError."""
    return read_values(text, path)  # type: ignore[return-value]


def read_text(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read: {err}", path=str(path)) from err


def read_file_objects(path: str | Path) -> Iterator[tuple[int, dict]]:
    return read_objects(read_text(path), path)


def read_json(
    path: str | Path, model: type[Model] | None = None, *, where: str | None = None, what: str | None = None
) -> Model | object:
    """The JSON file at `path` as `model` (or as plain JSON values without one); InputError naming the file
    (`where`, when the path itself is not what the user knows, such as a Hub cache's) and what is wrong: not
    UTF-8, broken or too deeply nested JSON, or not `what` (default: the model's name) with its first problems."""
    where = where or str(path)
    text = read_text(path)
    try:
        if model is not None:
            return model.model_validate_json(text)  # pydantic's own parser bounds the nesting
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"broken JSON: {err.msg} (column {err.colno})", path=where, line=err.lineno) from None
    except RecursionError:
        raise InputError(f"JSON {NESTED}", path=where) from None
    except ValidationError as err:
        raise InputError(_invalid(err, what, "the file"), path=where) from None


def _invalid(err: ValidationError, what: str | None = None, whole: str = "the line", listed: int = 5) -> str:
    """A pydantic refusal in one line: "not a BuildInfo: configs: Field required; ..." (the first `listed`)."""
    errors = err.errors(include_url=False)
    problems = "; ".join(
        f"{excerpt('.'.join(map(str, e['loc'])) or whole)}: {excerpt(e['msg'])}" for e in errors[:listed]
    )
    more = f"; and {len(errors) - listed:,} more" if len(errors) > listed else ""
    return f"not {what or 'a ' + err.title}: {problems}{more}"


def dumps_lines(values: Iterable, compact: bool = False) -> str:
    """The JSON-lines text of `values`, one line each ending in a line feed, non-ASCII characters as they are;
    `compact` leaves out the spaces after , and :."""
    buffer = io.StringIO()
    writer = jsonlines.Writer(buffer, compact=compact)
    writer.write_all(values)
    writer.close()
    return buffer.getvalue()
