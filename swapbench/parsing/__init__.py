"""Constituency backends, found by name in `swapbench.core.registry.PARSERS`: `ptb` (parses supplied with the data),
`benepar` and `spacy`, each registered in its own module; `auto` picks one."""

from __future__ import annotations

from ..core.errors import SwapbenchError
from ..core.registry import PARSERS
from . import benepar_parser, ptb, spacy_parser  # noqa: F401  (they register their backends)
from .base import SHUFFLE_LABELS, ConstituencyParser, Constituent, Parse, ParseFailure
from .cache import ParseCache, parse_with_cache
from .ptb import PTBParser

AUTO = "auto"
AUTO_HELP = "the source's parses when every pair has one, then benepar, then spacy"


def parser_choices() -> list[str]:
    """What --parser accepts: auto and every registered backend."""
    return [AUTO, *PARSERS.names()]


def parser_help() -> str:
    return f"{AUTO}: {AUTO_HELP}; {PARSERS.help_text()}"


def make_parser(
    name: str, has_parses: bool, spacy_model: str | None = None, benepar_model: str | None = None
) -> ConstituencyParser:
    """Build a backend by its registered factory, `factory(has_parses=..., spacy_model=..., benepar_model=...)`;
    `auto` takes the supplied trees when every pair has one, then benepar, then spaCy."""
    options = dict(has_parses=has_parses, spacy_model=spacy_model, benepar_model=benepar_model)
    if name != AUTO:
        if name not in PARSERS:
            raise SwapbenchError(f"unknown parser {name!r}: expected one of {', '.join(parser_choices())}")
        return PARSERS.make(name, **options)
    if has_parses:
        return PARSERS.make("ptb", **options)
    try:
        return PARSERS.make("benepar", **options)
    except SwapbenchError:
        return PARSERS.make("spacy", **options)


__all__ = [
    "AUTO",
    "SHUFFLE_LABELS",
    "Constituent",
    "ConstituencyParser",
    "Parse",
    "ParseCache",
    "ParseFailure",
    "PTBParser",
    "make_parser",
    "parser_choices",
    "parser_help",
    "parse_with_cache",
]
