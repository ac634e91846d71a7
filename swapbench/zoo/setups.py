"""A set-up of `zoo run`, as `--setups` names it: the initial token embeddings ("random", "minilm",
"minilm-frozen"), each optionally followed by "+role-swaps".

Read here, free of torch and of the run, so that the options check a set-up with the parser the run uses and the
run imports its options, not the other way round.
"""

from __future__ import annotations

from ..core.errors import SwapbenchError
from .embeddings import CHOICES

PLAIN = "random"
ROLE_SWAPS = "role-swaps"


def parse_setup(text: str) -> tuple[str, bool]:
    """ "minilm+role-swaps" -> ("minilm", True); the token embeddings come first, role swaps after a "+"."""
    embeddings, _, rest = text.strip().partition("+")
    if embeddings == ROLE_SWAPS and not rest:
        embeddings, rest = PLAIN, ROLE_SWAPS
    if embeddings not in CHOICES or rest not in ("", ROLE_SWAPS):
        raise SwapbenchError(
            f"--setups: {text!r} is not a set-up: expected one of {', '.join(CHOICES)}, each "
            f"optionally followed by +{ROLE_SWAPS}"
        )
    return embeddings, bool(rest)
