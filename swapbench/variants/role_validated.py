"""shuffle-sr-validated: the shuffle-sr swaps that a person judged valid, beside the automatic configuration.

Built as shuffle-sr is, keeping only the swaps accepted in the committed hand decisions
(data/annotations/shuffle-sr-selection.jsonl: pair id, swapped side, accept or reject; no SNLI text). A swap is
kept only if it was accepted and is still on the side that was judged; the card counts the rejected, undecided
and stale ones.
"""

from __future__ import annotations

from ..core.paths import ANNOTATIONS
from ..core.registry import VARIANTS
from .role_shuffle import RoleOptions, RoleShuffle

DECISIONS = ANNOTATIONS / "shuffle-sr-selection.jsonl"


@VARIANTS.register("shuffle-sr-validated", help="the shuffle-sr swaps accepted by hand in data/annotations/")
class ValidatedRoleShuffle(RoleShuffle):
    name = "shuffle-sr-validated"
    description = "the shuffle-sr swaps judged valid by hand (data/annotations/shuffle-sr-selection.jsonl)"
    Options = RoleOptions  # shuffle-sr's, less --sr-selection: its selection is the committed decisions
    refused_without = ()
    validity_file = None  # every row was accepted by hand

    @classmethod
    def create(cls, name: str, options: RoleOptions) -> ValidatedRoleShuffle:
        return cls(srl=options.srl, selection=DECISIONS, spacy_model=options.spacy_model)

    @classmethod
    def record(cls, options: RoleOptions, built: bool) -> dict:
        return {}  # shuffle-sr records the labeler; this variant's options are in the record's variant_options

    @classmethod
    def card_notes(cls, info) -> list[str]:
        return []

    def statistics(self) -> dict:
        stats = super().statistics()
        if self.selection_path == DECISIONS:  # the card names the committed file, not this checkout's path
            stats["selection"]["file"] = str(DECISIONS.relative_to(DECISIONS.parents[2]))
        return stats
