"""Perturbations, one configuration each, found by name in `swapbench.core.registry.VARIANTS`.

A variant registers itself in its own module; importing this package registers the built-in ones.
`make_variant("shuffle-3")` builds one from its name. An entry is a Variant class, which declares its options,
columns, tags and card sections (base.py), or a plain factory `factory(name)` of a variant that takes no option.
"""

from __future__ import annotations

from ..core.command_options import CommandOptions
from ..core.errors import SwapbenchError
from ..core.registry import VARIANTS

# Importing a module registers its variants, in this order: shuffle-N, shuffle-random, shuffle-sr,
# shuffle-sr-premise, shuffle-sr-validated, shuffle-sr-reversible, role-quartets, then unlu (the board's columns
# follow it): the import sorter leaves these lines alone.
# isort: off
from . import shuffle  # noqa: F401
from . import role_shuffle  # noqa: F401
from . import role_premise  # noqa: F401
from . import role_validated  # noqa: F401
from . import role_reversible  # noqa: F401
from . import role_quartets  # noqa: F401
from . import permutations  # noqa: F401

# isort: on
from .base import Variant
from .shuffle import SCOPES

DEFAULT_VARIANTS = (
    "shuffle-3",
    "shuffle-4",
    "shuffle-5",
    "shuffle-random",
    "shuffle-sr",
    "shuffle-sr-premise",
    "shuffle-sr-validated",
    "shuffle-sr-reversible",
    "role-quartets",
    "unlu",
)


def variant_type(value) -> type[Variant]:
    """The class that declares a registered variant: the entry itself, or Variant's defaults for a factory."""
    return value if isinstance(value, type) and issubclass(value, Variant) else Variant


def declared(name: str) -> type[Variant]:
    """The class that declares the variant `name` (Variant's defaults for one registered as a plain factory, or
    one no longer registered)."""
    return variant_type(VARIANTS.get(name)) if name in VARIANTS else Variant


def expected() -> str:
    """The variants there are, as an error message lists them: "expected shuffle-N (2 <= N <= 64), ... or ..."."""
    names = [getattr(entry.value, "usage", None) or entry.name for entry in VARIANTS]
    return "expected " + (", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names))


def own_options(name: str, values: CommandOptions | dict) -> CommandOptions:
    """The options of the variant `name` among `values` (a build's options, or keywords): those its Options
    model declares, validated by it."""
    model = declared(name).options_model()
    given = (
        values
        if isinstance(values, dict)
        else {k: getattr(values, k) for k in model.model_fields if hasattr(values, k)}
    )
    return model.from_keywords(**given)


def make_variant(name: str, **options) -> Variant:
    """The variant `name`, made from its own options (keywords: the fields of its Options model; a keyword it
    does not declare is refused)."""
    if name not in VARIANTS:
        raise SwapbenchError(f"--variants: unknown variant {name!r}: {expected()}")
    own = own_options(name, options)
    declared(name).check(own)
    return create_variant(name, own)


def create_variant(name: str, own: CommandOptions) -> Variant:
    """The variant `name` from its own options, already validated and checked."""
    value = VARIANTS.get(name)
    variant = VARIANTS.made(name, value.create(name, own) if variant_type(value) is value else value(name))
    variant.options = own
    return variant


__all__ = [
    "DEFAULT_VARIANTS",
    "SCOPES",
    "Variant",
    "create_variant",
    "declared",
    "expected",
    "make_variant",
    "own_options",
    "variant_type",
]
