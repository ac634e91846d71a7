"""What a semantic-role labeler produces: a sentence's tokens, their tags, and one frame per verb.

Only the two roles the role swap needs are kept: the agent (PropBank ARG0) and the patient (ARG1). An argument is
a token span; for a passive, the agent is the noun phrase inside the by-phrase, without "by", so that swapping
the two spans keeps the "by" in place.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

from ..core.registry import LABELERS

# Relative pronouns: a clause they open is a relative clause, not a main one. "whose" is possessive: the noun
# phrase it modifies fills no role of the clause's verb (tree_roles.py reads it so), yet a bare "whose" moved
# by a swap breaks the clause all the same (role_filters.py).
RELATIVE_PRONOUNS = frozenset({"who", "whom", "which", "that", "whose"})
POSSESSIVE_RELATIVE = "whose"
AUXILIARY_VERBS = frozenset(
    {
        "be",
        "is",
        "am",
        "are",
        "was",
        "were",
        "been",
        "being",
        "'s",
        "'re",
        "'m",
        "s",
        "re",
        "m",
        "have",
        "has",
        "had",
        "having",
        "'ve",
        "'d",
        "ve",
        "d",
        "do",
        "does",
        "did",
        "doing",
        "done",
        "can",
        "could",
        "may",
        "might",
        "must",
        "shall",
        "should",
        "will",
        "would",
        "'ll",
        "ll",
        "ca",
        "wo",
        "ought",
    }
)


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
    # Another reading's tags of the same tokens (agree: the tree's, beside spaCy's), so that a filter reading
    # tags can ask both; None where there is no other reading or it tokenized otherwise.
    other_tags: tuple[str, ...] | None = None

    def text(self, span: Span) -> str:
        return " ".join(self.tokens[span.start : span.end])


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


LABELERS.accepts(RoleLabeler, "class or factory")  # what its entries must be: core/registry.py checks each


def is_auxiliary(word: str) -> bool:
    return word.lower() in AUXILIARY_VERBS


def swappable_frames(parse: RoleParse) -> list[Frame]:
    """The frames Algorithm 1 may swap, in verb order: a non-auxiliary verb with both an agent and a patient."""
    return [
        f
        for f in parse.frames
        if f.agent is not None and f.patient is not None and not is_auxiliary(parse.tokens[f.verb])
    ]


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
