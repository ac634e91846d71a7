"""The command-line options that choose a source, shared by `swapbench build` and `swapbench eval`; their choices
and help come from `registry.SOURCES`."""

from __future__ import annotations

import argparse

from pydantic import ValidationError

from ..core.errors import SwapbenchError
from ..core.labels import LABEL_NAMES
from ..core.options import comma_separated
from ..core.registry import SOURCES
from .declaration import Columns

COLUMN_FIELDS = (("premise", "premise"), ("hypothesis", "hypothesis"), ("label", "label"),
                 ("label_names", "label-names"), ("pair_id", "pair-id"))


def split_names() -> list[str]:
    """Every split name a registered source declares, aliases included, for --split's choices."""
    names: dict[str, None] = {}
    for entry in SOURCES:
        names.update(dict.fromkeys(entry.value.split_names()))
    return list(names)


def canonical_split(name: str) -> str:
    """A split as the registered sources name it in a build: SNLI's dev is its validation split."""
    for entry in SOURCES:
        if name in entry.value.split_names():
            return entry.value.split(name)
    return name


def split_help(default: str) -> str:
    """Each registered source's split names, for --split's help."""
    def names(source) -> str:
        aliases = [a for a in source.aliases if a not in source.splits]
        return ", ".join([*source.splits, *(f"{a} (= {source.aliases[a]})" for a in aliases)])

    listed = "; ".join(f"{e.value.short_name}: {names(e.value)}" for e in SOURCES if not e.value.open_splits)
    return f"the source's split ({listed}) (default: {default})"


def source_help(default: str = "") -> str:
    return (f"a source: {SOURCES.help_text()}; or a release file or folder, or a Hub id"
            + (f" (default: {default})" if default else ""))


def add_column_arguments(group) -> None:
    """--premise, --hypothesis, --label, --label-names, --pair-id: the columns of a hub:ORG/NAME source."""
    group.add_argument("--premise", metavar="COLUMN", help="premise column of a hub:ORG/NAME source (default: premise)")
    group.add_argument("--hypothesis", metavar="COLUMN",
                       help="hypothesis column of a hub:ORG/NAME source (default: hypothesis)")
    group.add_argument("--label", metavar="COLUMN", help="label column of a hub:ORG/NAME source (default: label)")
    group.add_argument("--label-names", metavar="NAMES", type=comma_separated(str),
                       help="the label column's classes in index order, each one of "
                            f"{', '.join(LABEL_NAMES)} or '-' (no gold label) (default: its ClassLabel names)")
    group.add_argument("--pair-id", metavar="COLUMN",
                       help="pair-ID column of a hub:ORG/NAME source (default: ids <NAME>-<split>-<row index>)")


def columns_from(args: argparse.Namespace) -> Columns | None:
    """The column mapping the options give; None when none of them was given."""
    given = {field: getattr(args, field) for field, _ in COLUMN_FIELDS if getattr(args, field, None) is not None}
    if not given:
        return None
    try:
        return Columns(**given)
    except ValidationError as err:
        problem = err.errors()[0]
        raise SwapbenchError(f"--label-names: {problem['msg'].removeprefix('Value error, ')}") from err
