"""Perturbations, one configuration each, found by name in `swapbench.core.registry.VARIANTS`.

A variant registers itself in its own module; importing this package registers the built-in ones.
`make_variant("shuffle-3")` builds one from its name.
"""

from __future__ import annotations

from ..core.errors import SwapbenchError
from ..core.registry import VARIANTS
# Importing a module registers its variants, in this order: shuffle-N, shuffle-random, shuffle-sr, then
# shuffle-sr-validated.
from . import shuffle  # noqa: F401, I001
from . import role_shuffle  # noqa: F401
from . import role_validated  # noqa: F401
from .base import Variant
from .shuffle import SCOPES

DEFAULT_VARIANTS = ("shuffle-3", "shuffle-4", "shuffle-5", "shuffle-random", "shuffle-sr", "shuffle-sr-validated")


def expected() -> str:
    """The variants there are, as an error message lists them: "expected shuffle-N (2 <= N <= 64), ... or ..."."""
    names = [getattr(entry.value, "usage", entry.name) for entry in VARIANTS]
    return "expected " + (", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names))


def make_variant(name: str, **options) -> Variant:
    """The variant `name`, made by its registered factory as `factory(name, **options)`. Options a build passes:
    `scope` (constituency shuffles), `srl`, `sr_selection` and `spacy_model` (shuffle-sr); a factory takes what it
    needs and ignores the rest."""
    if name not in VARIANTS:
        raise SwapbenchError(f"--variants: unknown variant {name!r}: {expected()}")
    return VARIANTS.get(name)(name, **options)


__all__ = ["DEFAULT_VARIANTS", "SCOPES", "Variant", "expected", "make_variant"]
