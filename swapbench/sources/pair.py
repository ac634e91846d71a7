"""What every source yields: labelled premise-hypothesis pairs that remember where they were read."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from .declaration import Source

Row = TypeVar("Row")


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
    # The labels each annotator gave, where the release keeps them (SNLI's and MultiNLI's annotator_labels); the
    # role quartets read the source pair's agreement from them.
    annotator_labels: tuple[str, ...] | None = None


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
    # The labelled pairs of the split these data say they are (a release file named for it, the declared Hub
    # copy), as its source declares them; None for data that claim no declared split.
    declared_pairs: int | None = None

    @property
    def has_premise_parses(self) -> bool:
        return bool(self.pairs) and all(p.premise_parse for p in self.pairs)

    def shortfall(self) -> str | None:
        """Why these data are not the whole split they say they are, when they were read to their end and hold
        fewer pairs than their source declares (a cut copy such as SNLI's train_first1024); None otherwise."""
        if self.declared_pairs is None or self.limited or len(self.pairs) >= self.declared_pairs:
            return None
        release = (self.declaration.release or self.declaration.short_name) if self.declaration else "its source"
        return (
            f"{self.source} holds {len(self.pairs):,} labelled pairs, but {release}'s {self.split} split has "
            f"{self.declared_pairs:,}: it is a cut copy of that split"
        )


@dataclass
class Taken:
    pairs: list[Pair]
    read: int  # rows read, those without gold label included
    dropped: int  # rows without gold label
    limited: bool  # rows were left unread because `limit` pairs were taken


def take_labelled(rows: Iterable[Row], to_pair: Callable[[Row], Pair | None], limit: int | None) -> Taken:
    """Pairs made from `rows` in order, up to `limit`; a row that `to_pair` makes no pair of (no gold label) is
    counted as dropped."""
    taken = Taken([], 0, 0, False)
    for row in rows:
        taken.read += 1
        pair = to_pair(row)
        if pair is None:
            taken.dropped += 1
            continue
        if limit is not None and len(taken.pairs) >= limit:
            taken.limited = True
            break
        taken.pairs.append(pair)
    return taken
