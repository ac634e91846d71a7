"""Constituency backends: `ptb` (parses supplied with the data), `benepar` and `spacy`."""

from __future__ import annotations

from ..errors import SwapbenchError
from .base import SHUFFLE_LABELS, Constituent, ConstituencyParser, Parse, ParseFailure
from .cache import ParseCache, parse_with_cache
from .ptb import PTBParser

BACKENDS = ("auto", "ptb", "benepar", "spacy")


def make_parser(name: str, has_parses: bool, spacy_model: str | None = None,
                benepar_model: str | None = None) -> ConstituencyParser:
    """Build a backend; `auto` takes the supplied trees when every pair has one, then benepar, then spaCy."""
    if name not in BACKENDS:
        raise SwapbenchError(f"unknown parser {name!r}: expected one of {', '.join(BACKENDS)}")
    if name == "ptb" or (name == "auto" and has_parses):
        if not has_parses:
            raise SwapbenchError("--parser ptb needs bracketed parses (sentence1_parse) in the source; "
                                 "the Hub copy of SNLI has none: use --parser spacy or a local SNLI 1.0 file")
        return PTBParser()
    if name in ("benepar", "auto"):
        from .benepar_parser import DEFAULT_MODEL, BeneparParser

        try:
            return BeneparParser(benepar_model or DEFAULT_MODEL, spacy_model=spacy_model)
        except SwapbenchError:
            if name == "benepar":
                raise
    from .spacy_parser import SpacyParser

    return SpacyParser(spacy_model)


__all__ = ["BACKENDS", "SHUFFLE_LABELS", "Constituent", "ConstituencyParser", "Parse", "ParseCache", "ParseFailure",
           "make_parser", "parse_with_cache"]
