"""What every constituency backend produces: tokens with punctuation marks, and labelled token spans."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from itertools import accumulate
from typing import ClassVar, NamedTuple

from ..core.registry import PARSERS
from ..core.text import squash

# The phrase labels whose constituents the shuffles move words inside.
SHUFFLE_LABELS: frozenset[str] = frozenset({"NP", "VP", "PP", "ADVP", "ADJP"})


class Constituent(NamedTuple):  # a named tuple: parses hold tens of thousands, and tuples are cheap to make
    label: str
    start: int  # first token index
    end: int  # one past the last token index


class Phrase(NamedTuple):
    """A constituent the shuffles may move words inside, with the positions of its words (punctuation left out)."""

    span: Constituent
    words: tuple[int, ...]
    folded: tuple[str, ...]  # those words casefolded: a shuffle must change how they read, case aside
    text: str  # the constituent's tokens joined by single spaces


def can_reorder(folded: tuple[str, ...]) -> bool:
    """Whether some order of the words `folded` (casefolded) reads differently: two of them differ."""
    return len(set(folded)) >= 2


@dataclass(frozen=True, slots=True)
class Parse:
    tokens: tuple[str, ...]
    tags: tuple[str, ...]  # part-of-speech tags (PTB tag set for ptb/benepar, spaCy tags for spacy)
    punct: tuple[bool, ...]  # True where the token is punctuation; punctuation never counts as a word
    constituents: tuple[Constituent, ...]  # phrase-level constituents, outermost first
    # Derived, not compared. Words before each token position (punctuation excluded): words_in() is then O(1).
    _words_before: tuple[int, ...] = field(init=False, repr=False, compare=False)
    # shuffle_phrases() by word count, filled on first use: SNLI pairs about three to a premise, and every pair
    # of a premise, in every shuffle variant, shares one Parse.
    _phrases: dict[int, tuple[Phrase, ...]] = field(init=False, repr=False, compare=False)
    _reorderable: dict[int, tuple[Phrase, ...]] = field(init=False, repr=False, compare=False)  # the same, filtered
    _word_positions: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _folded_words: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_words_before", (0, *accumulate(not p for p in self.punct)))
        object.__setattr__(self, "_phrases", {})
        object.__setattr__(self, "_reorderable", {})
        object.__setattr__(self, "_word_positions", tuple(i for i, p in enumerate(self.punct) if not p))
        object.__setattr__(self, "_folded_words", tuple(self.tokens[i].casefold() for i in self._word_positions))

    def words_in(self, span: Constituent) -> int:
        return self._words_before[span.end] - self._words_before[span.start]

    @property
    def word_positions(self) -> tuple[int, ...]:
        """The positions of the tokens that are words, not punctuation."""
        return self._word_positions

    @property
    def folded_words(self) -> tuple[str, ...]:
        """The words at word_positions, casefolded."""
        return self._folded_words

    def shuffle_phrases(self, size: int) -> tuple[Phrase, ...]:
        """The NP/VP/PP/ADVP/ADJP constituents of exactly `size` words, one per distinct set of words (a unary
        chain such as NP -> VP over the same words gives its outermost label), outermost first, in sentence order.
        """
        found = self._phrases.get(size)
        if found is None:
            seen: dict[tuple[int, ...], Phrase] = {}
            for span in self.constituents:
                if span.label in SHUFFLE_LABELS and self.words_in(span) == size:
                    words = tuple(i for i in range(span.start, span.end) if not self.punct[i])
                    if words not in seen:
                        seen[words] = Phrase(
                            span,
                            words,
                            tuple(self.tokens[i].casefold() for i in words),
                            " ".join(self.tokens[span.start : span.end]),
                        )
            found = self._phrases[size] = tuple(seen.values())
        return found

    def reorderable_phrases(self, size: int) -> tuple[Phrase, ...]:
        """The shuffle_phrases of `size` words whose order can change, case aside (can_reorder)."""
        found = self._reorderable.get(size)
        if found is None:
            found = self._reorderable[size] = tuple(p for p in self.shuffle_phrases(size) if can_reorder(p.folded))
        return found

    def to_json(self) -> dict:
        return {
            "tokens": list(self.tokens),
            "tags": list(self.tags),
            "punct": list(self.punct),
            "constituents": [[c.label, c.start, c.end] for c in self.constituents],
        }

    @classmethod
    def from_json(cls, data: dict) -> Parse:
        """The parse to_json wrote; ValueError when its parts do not line up (a damaged copy)."""
        parse = cls(
            tuple(data["tokens"]),
            tuple(data["tags"]),
            tuple(data["punct"]),
            tuple(Constituent(label, start, end) for label, start, end in data["constituents"]),
        )
        n = len(parse.tokens)
        if (len(parse.tags), len(parse.punct)) != (n, n) or not all(
            0 <= c.start < c.end <= n for c in parse.constituents
        ):
            raise ValueError("tokens, tags, punctuation and constituents do not line up")
        return parse


class MalformedInput(ValueError):
    """A backend could not parse input number `index` of a batch."""

    def __init__(self, index: int, message: str):
        self.index = index
        super().__init__(message)


class ParseFailure(ValueError):
    """A backend could not parse `text`; the build turns this into an error naming file and line."""

    def __init__(self, text: str, message: str):
        self.text = text
        super().__init__(message)


class ConstituencyParser(ABC):
    """A backend. It reads a pair's text, or with `reads_text` off the parse the data supply; equal inputs are
    parsed once."""

    name: ClassVar[str]
    reads_text: ClassVar[bool] = True  # False when the backend reads the parse supplied with the data

    @property
    @abstractmethod
    def version(self) -> str:
        """Identifies the model and the rules, so cached parses are never reused across versions."""

    @property
    def spacy_pipeline(self) -> str | None:
        """The spaCy pipeline it runs (pipeline_version), if any."""
        return None

    @abstractmethod
    def parse_many(self, inputs: list[str]) -> list[Parse]:
        """Parse each input; raise MalformedInput naming the index of a bad one."""

    def is_parse_of(self, parse: Parse, source: str) -> bool:
        """Whether `parse` can be this backend's parse of `source`, which the cache checks of every parse it
        reads back: a parse of a text spells the text, whitespace aside."""
        return squash("".join(parse.tokens)) == squash(source)


PARSERS.accepts(ConstituencyParser, "class or factory")  # what its entries must be: core/registry.py checks each
