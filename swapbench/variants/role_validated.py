"""shuffle-sr-validated: the shuffle-sr swaps that a person judged valid, beside the automatic configuration.

Built as shuffle-sr is, keeping only the swaps accepted in the committed hand decisions
(data/annotations/shuffle-sr-selection.jsonl: pair id, swapped side, accept or reject; no SNLI text). A swap is
kept only if it was accepted and is still on the side that was judged; the card counts the rejected, undecided
and stale ones.
"""

from __future__ import annotations

from pathlib import Path

from ..core.registry import VARIANTS
from .role_shuffle import ORDERS, RoleShuffle

DECISIONS = Path(__file__).resolve().parents[2] / "data" / "annotations" / "shuffle-sr-selection.jsonl"


class ValidatedRoleShuffle(RoleShuffle):
    name = "shuffle-sr-validated"
    description = "the shuffle-sr swaps judged valid by hand (data/annotations/shuffle-sr-selection.jsonl)"

    def statistics(self) -> dict:
        stats = super().statistics()
        if self.selection_path == DECISIONS:  # the card names the committed file, not this checkout's path
            stats["selection"]["file"] = str(DECISIONS.relative_to(DECISIONS.parents[2]))
        return stats


@VARIANTS.register("shuffle-sr-validated", help="the shuffle-sr swaps accepted by hand in data/annotations/")
def make_validated(name: str, srl: str = "auto", spacy_model: str | None = None, sr_order: str = ORDERS[0],
                   selection: Path = DECISIONS, **_) -> ValidatedRoleShuffle:
    return ValidatedRoleShuffle(srl=srl, selection=selection, spacy_model=spacy_model, order=sr_order)
