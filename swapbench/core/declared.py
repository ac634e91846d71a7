"""A YAML declaration read into a pydantic model, refused with the file and line of what is wrong.

PyYAML composes the text into nodes that know their lines; each pydantic error's location (models, 0, options)
is followed down those nodes to the line of the value at fault (of its mapping, for a key that is missing).
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from .errors import InputError

Model = TypeVar("Model", bound=BaseModel)


def read_declaration(path: Path, model: type[Model]) -> tuple[Model, yaml.Node]:
    """`model` validated from the YAML file at `path`, and the file's nodes (for line_of); InputError naming the
    file and line of the first problem, the others listed after it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read: {err}", path=str(path)) from err
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise InputError(f"not YAML: {getattr(err, 'problem', None) or err}", path=str(path),
                         line=mark.line + 1 if mark else None) from err
    if root is None:
        raise InputError("empty file", path=str(path), line=1)
    try:
        return model.model_validate(data), root
    except ValidationError as err:
        problems = [(line_of(root, error["loc"]), located(error)) for error in err.errors(include_url=False)]
        first_line, first = problems[0]
        others = "".join(f"; line {line}: {problem}" for line, problem in problems[1:])
        raise InputError(first + others, path=str(path), line=first_line) from None


def located(error: dict) -> str:
    """One pydantic error as "models.0.mode: Input should be ..."."""
    where = ".".join(str(part) for part in error["loc"])
    message = error["msg"].removeprefix("Value error, ")
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
