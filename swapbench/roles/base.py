"""What a semantic-role labeler produces: a sentence's tokens, their tags, and one frame per verb.

Only the two roles the role swap needs are kept: the agent (PropBank ARG0) and the patient (ARG1). An argument is
a token span; for a passive, the agent is the noun phrase inside the by-phrase, without "by", so that swapping
the two spans keeps the "by" in place.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar


# Relative pronouns: a clause they open is a relative clause, not a main one.
RELATIVE_PRONOUNS = frozenset({"who", "whom", "which", "that"})


@dataclass(frozen=True, slots=True)
class Span:
    start: int  # first token index
    end: int  # one past the last token index

    def __len__(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Frame:
    verb: int  # token index of the predicate
    agent: Span | None  # ARG0
    patient: Span | None  # ARG1


@dataclass(frozen=True, slots=True)
class RoleParse:
    tokens: tuple[str, ...]
    tags: tuple[str, ...]  # Penn Treebank part-of-speech tags, which the filters and the capital fix read
    frames: tuple[Frame, ...]  # in the order of their verbs
    labeler: str  # the labeler that produced the frames

    def text(self, span: Span) -> str:
        return " ".join(self.tokens[span.start:span.end])


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    tree: str | None = None  # a Penn Treebank bracketed parse of `text`, when the source has one


class RoleLabeler(ABC):
    name: ClassVar[str]

    @abstractmethod
    def label_many(self, sentences: list[Sentence]) -> list[RoleParse | None]:
        """The frames of each sentence, or None where this labeler has nothing for it (no tree, no stored frames)."""

    @property
    def spacy_pipeline(self) -> str | None:
        """The spaCy pipeline it has run (pipeline_version), if any."""
        return None


def trimmed(span: Span | None, punct: list[bool] | tuple[bool, ...]) -> Span | None:
    """The span without punctuation at its edges, or None if nothing is left (or there was no span)."""
    if span is None:
        return None
    start, end = span.start, span.end
    while start < end and punct[start]:
        start += 1
    while end > start and punct[end - 1]:
        end -= 1
    return Span(start, end) if end > start else None
