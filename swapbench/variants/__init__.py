"""Perturbations, one configuration each. `make_variant("shuffle-3")` builds one from its name."""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import SwapbenchError
from ..registry import VARIANTS
from . import role_validated  # noqa: F401  (registers shuffle-sr-validated)
from .base import Variant
from .role_shuffle import RoleShuffle
from .shuffle import ConstituencyShuffle, RandomShuffle, SCOPES

DEFAULT_VARIANTS = ("shuffle-3", "shuffle-4", "shuffle-5", "shuffle-random", "shuffle-sr")
# A bound on N that refuses absurd values: SNLI's test premises have at most 54 words.
MIN_WORDS, MAX_WORDS = 2, 64
EXPECTED = f"expected shuffle-N ({MIN_WORDS} <= N <= {MAX_WORDS}), shuffle-random or shuffle-sr"


def make_variant(name: str, scope: str = "all", srl: str = "auto", sr_selection: Path | None = None,
                 spacy_model: str | None = None, sr_order: str = "hypothesis-first") -> Variant:
    """`scope` is for constituency shuffles; `srl` (role labeler), `sr_selection` and `spacy_model` for shuffle-sr."""
    if name == RandomShuffle.name:
        return RandomShuffle()
    if name == RoleShuffle.name:
        return RoleShuffle(srl=srl, selection=sr_selection, spacy_model=spacy_model, order=sr_order)
    if name in VARIANTS:
        return VARIANTS.get(name)(srl=srl, spacy_model=spacy_model, sr_order=sr_order)
    match = re.fullmatch(r"shuffle-(0|[1-9][0-9]*)", name)
    if match:
        size = int(match.group(1))
        if not MIN_WORDS <= size <= MAX_WORDS:
            raise SwapbenchError(f"--variants: {name!r} asks for constituents of {size} words; a constituency "
                                 f"shuffle takes constituents of at least {MIN_WORDS} words and at most {MAX_WORDS}")
        return ConstituencyShuffle(size, scope=scope)
    raise SwapbenchError(f"--variants: unknown variant {name!r}: {EXPECTED}")


__all__ = ["DEFAULT_VARIANTS", "EXPECTED", "SCOPES", "Variant", "make_variant"]
