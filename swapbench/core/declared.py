"""A YAML declaration read into a pydantic model, refused with the file and line of what is wrong.

PyYAML composes the text into nodes that know their lines; each pydantic error's location (models, 0, options)
is followed down those nodes to the line of the value at fault (of its mapping, for a key that is missing).

Anchors and aliases are refused before anything is built: a few hundred bytes of nested aliases ("billion
laughs") expand to billions of values once validated or quoted in an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from .errors import InputError, excerpt

Model = TypeVar("Model", bound=BaseModel)


def read_declaration(path: Path, model: type[Model]) -> tuple[Model, yaml.Node]:
    """`model` validated from the YAML file at `path`, and the file's nodes (for line_of); InputError naming the
    file and line of the first problem, the others listed after it (refusal)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read: {err}", path=str(path)) from err
    try:
        refuse_aliases(text, path)
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise InputError(
            f"not YAML: {excerpt(getattr(err, 'problem', None) or err)}",
            path=str(path),
            line=mark.line + 1 if mark else None,
        ) from err
    if root is None:
        raise InputError("empty file", path=str(path), line=1)
    try:
        return model.model_validate(data), root
    except ValidationError as err:
        raise refusal(
            [(line_of(root, error["loc"]), located(error)) for error in err.errors(include_url=False)], path
        ) from None


LISTED = 10  # problems a refusal lists; the count of the others follows


def refusal(problems: list[tuple[int, str]], path: Path) -> InputError:
    """One InputError for every (line, problem) of a declaration: at the first problem's line, the others listed
    after it (LISTED at most, then their count)."""
    first_line, first = problems[0]
    others = "".join(f"; line {line}: {problem}" for line, problem in problems[1:LISTED])
    more = f"; and {len(problems) - LISTED:,} more" if len(problems) > LISTED else ""
    return InputError(first + others + more, path=str(path), line=first_line)


def refuse_aliases(text: str, path: Path) -> None:
    """InputError at the first anchor (&name) or alias (*name) of the YAML `text`, read event by event so that
    nothing is expanded: a declaration writes each value out. A YAMLError of a malformed text passes through."""
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise InputError(
                "YAML anchors and aliases (&name, *name) are not accepted in a declaration: write each value out",
                path=str(path),
                line=event.start_mark.line + 1,
            )


def located(error: dict) -> str:
    """One pydantic error as "models.0.mode: Input should be ..."."""
    where = excerpt(".".join(str(part) for part in error["loc"]))
    message = excerpt(error["msg"].removeprefix("Value error, "), 500)
    return f"{where}: {message}" if where else message


def line_of(root: yaml.Node, location: tuple) -> int:
    """The 1-based line of the node at `location` (mapping keys and sequence indices), or of the deepest node on
    the way that exists."""
    node = root
    for part in location:
        if isinstance(node, yaml.MappingNode):
            found = next((value for key, value in node.value if key.value == str(part)), None)
            if found is None:
                break
            node = found
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            break
    return node.start_mark.line + 1
