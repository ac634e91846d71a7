"""What every source yields: labelled premise-hypothesis pairs that remember where they were read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .declaration import Source


@dataclass(frozen=True, slots=True)
class Pair:
    pair_id: str
    premise: str
    hypothesis: str
    label: str
    premise_parse: str | None  # PTB bracketed tree, when the source has one
    hypothesis_parse: str | None
    path: str  # where the pair was read, for error messages
    line: int


@dataclass
class SourceSplit:
    pairs: list[Pair]
    split: str  # the split's canonical (Hub) name: train, validation, test, validation_matched, ...
    source: str  # file path or Hub id
    fingerprint: str  # sha256 of the source file's uncompressed bytes, or the Hub fingerprint
    rows_read: int
    dropped_no_gold: int
    limited: bool = False
    declaration: Source | None = None  # the source read: name, citation, licence, Hub id (for the card)

    @property
    def has_premise_parses(self) -> bool:
        return bool(self.pairs) and all(p.premise_parse for p in self.pairs)
