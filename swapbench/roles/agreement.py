"""Frames on which two labelers agree: the first labeler's frames that the second finds too.

Two labelers that read different parses (spaCy's dependency parse, the source's PTB trees) rarely make the same
mistake, so a frame both find, with the same verb, agent and patient, is seldom wrong. Frames are compared by
character offsets in the sentence (spaces left out), so the two may tokenize differently. The tokens and tags
are the first labeler's.
"""

from __future__ import annotations

from ..text import squash
from .base import Frame, RoleLabeler, RoleParse, Sentence, Span


class AgreedRoles(RoleLabeler):
    name = "agree"

    def __init__(self, first: RoleLabeler, second: RoleLabeler, alone_when_missing: bool = False):
        """`alone_when_missing`: where the second has nothing (no tree), keep the first's frames as they are."""
        self.first = first
        self.second = second
        self.alone_when_missing = alone_when_missing

    @property
    def spacy_pipeline(self) -> str | None:
        return self.first.spacy_pipeline or self.second.spacy_pipeline

    def label_many(self, sentences: list[Sentence]) -> list[RoleParse | None]:
        results = []
        for a, b in zip(self.first.label_many(sentences), self.second.label_many(sentences)):
            if a is None or b is None:
                results.append(a if self.alone_when_missing else None)
                continue
            offsets_a, offsets_b = _offsets(a), _offsets(b)
            found = {_key(offsets_b, f) for f in b.frames}
            agreed = tuple(f for f in a.frames if _key(offsets_a, f) in found)
            results.append(RoleParse(a.tokens, a.tags, agreed, self.name))
        return results


def _offsets(parse: RoleParse) -> list[tuple[int, int]]:
    """Each token's character range in the sentence with spaces (and quote styles) left out."""
    offsets, at = [], 0
    for token in parse.tokens:
        length = len(squash(token))
        offsets.append((at, at + length))
        at += length
    return offsets


def _key(offsets: list[tuple[int, int]], frame: Frame) -> tuple:
    def chars(span: Span | None):
        return None if span is None else (offsets[span.start][0], offsets[span.end - 1][1])

    return offsets[frame.verb], chars(frame.agent), chars(frame.patient)
