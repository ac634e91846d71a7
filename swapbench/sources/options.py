"""The options that choose a source and read its columns, shared by `swapbench build` and `swapbench eval`; their
choices and help come from `registry.SOURCES`."""

from __future__ import annotations

import argparse

from pydantic import ValidationError, field_validator

from ..core.command_options import CommandOptions, from_arguments, option
from ..core.labels import LABEL_NAMES
from ..core.registry import SOURCES
from .declaration import Columns

COLUMN_FIELDS = ("premise", "hypothesis", "label", "label_names", "pair_id")
COLUMNS_GROUP = "columns of a hub:ORG/NAME source"


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
    return f"a source: {SOURCES.help_text()}; or a release file or folder, or a Hub id" + (
        f" (default: {default})" if default else ""
    )


class ColumnOptions(CommandOptions):
    """--premise, --hypothesis, --label, --label-names, --pair-id: the columns of a hub:ORG/NAME source, which
    `swapbench build` reads and `swapbench eval` trains on (the zoo reads SNLI's layout only)."""

    premise: str | None = option(
        None, group=COLUMNS_GROUP, metavar="COLUMN", help="premise column of a hub:ORG/NAME source (default: premise)"
    )
    hypothesis: str | None = option(
        None,
        group=COLUMNS_GROUP,
        metavar="COLUMN",
        help="hypothesis column of a hub:ORG/NAME source (default: hypothesis)",
    )
    label: str | None = option(
        None, group=COLUMNS_GROUP, metavar="COLUMN", help="label column of a hub:ORG/NAME source (default: label)"
    )
    label_names: list[str] | None = option(
        None,
        group=COLUMNS_GROUP,
        metavar="NAMES",
        help=f"the label column's classes in index order, each one of {', '.join(LABEL_NAMES)} or '-' (no gold "
        "label) (default: its ClassLabel names)",
    )
    pair_id: str | None = option(
        None,
        group=COLUMNS_GROUP,
        metavar="COLUMN",
        help="pair-ID column of a hub:ORG/NAME source (default: ids <NAME>-<split>-<row index>)",
    )

    @field_validator("label_names", mode="after")
    @classmethod
    def _known_label_names(cls, value):
        if value is None:
            return value
        try:
            Columns(label_names=tuple(value))  # its own check: each name an NLI label or '-'
        except ValidationError as err:
            raise ValueError(err.errors()[0]["msg"].removeprefix("Value error, ")) from None
        return value

    @property
    def columns(self) -> Columns | None:
        """The columns of a hub:ORG/NAME source the options give; None when none was given."""
        given = {name: getattr(self, name) for name in COLUMN_FIELDS if getattr(self, name) is not None}
        if "label_names" in given:
            given["label_names"] = tuple(given["label_names"])
        return Columns(**given) if given else None


def columns_from(args: argparse.Namespace) -> Columns | None:
    """The column mapping the parsed options give; None when none of them was given."""
    return from_arguments(ColumnOptions, args).columns
