"""Frames on which two labelers agree: the first labeler's frames that the second finds too.

Two labelers that read different parses (spaCy's dependency parse, the source's PTB trees) rarely make the same
mistake, so a frame both find is seldom wrong. Frames are compared by character offsets in the sentence (spaces
left out), so the two may tokenize differently. They agree on a frame when they find the same verb and, for each
role, arguments with the same head word (heads.py) that overlap: "the doctor near the lawyer saw the judge by the
car" gets the same frame whether the parser attached "by the car" to the judge or to the verb. The agreed
argument is then
- before the verb, the union of the two readings: a phrase between an agent's head and its verb can only belong
  to the agent ("a cook in an apron holds a cup");
- after the verb, their intersection: the words both put inside the patient, a phrase that one reading attaches
  to the verb staying in place.
The tokens and tags are the first labeler's; the second's tags ride along where it tokenized alike.
"""

from __future__ import annotations

from ..core.registry import LABELERS
from ..core.text import squash
from .base import Frame, RoleLabeler, RoleParse, Sentence, Span
from .heads import head


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
            results.append(agreed(a, b, self.name))
        return results


@LABELERS.register(
    "agree",
    help="the frames spacy and tree both find: the same verb, and arguments with the same "
    "heads (prepositional phrases may attach differently); needs trees",
)
def agree_labeler(spec: str = "agree", spacy_model: str | None = None) -> AgreedRoles:
    from .spacy_roles import SpacyRoles
    from .tree_roles import TreeRoles

    return AgreedRoles(SpacyRoles(spacy_model), TreeRoles(), alone_when_missing=spec == "auto")


LABELERS.add("auto", agree_labeler, help="agree where a sentence has a tree, spacy where it has none (default)")


def agreed(a: RoleParse, b: RoleParse, name: str = "agree") -> RoleParse:
    """`a`'s frames that `b` finds too, their arguments settled as the module says."""
    offsets_a, offsets_b = _offsets(a), _offsets(b)
    by_verb: dict[tuple[int, int], list[Frame]] = {}
    for frame in b.frames:
        by_verb.setdefault(offsets_b[frame.verb], []).append(frame)
    frames = []
    for frame in a.frames:
        for other in by_verb.get(offsets_a[frame.verb], []):
            merged = _merge(a, offsets_a, frame, b, offsets_b, other)
            if merged is not None:
                frames.append(merged)
                break
    other_tags = b.tags if b.tokens == a.tokens else None
    return RoleParse(a.tokens, a.tags, tuple(frames), name, other_tags)


def _merge(a: RoleParse, offsets_a, frame: Frame, b: RoleParse, offsets_b, other: Frame) -> Frame | None:
    spans = []
    for role in ("agent", "patient"):
        span_a, span_b = getattr(frame, role), getattr(other, role)
        if span_a is None or span_b is None:
            if span_a is not span_b:
                return None
            spans.append(None)
            continue
        chars_a, chars_b = _chars(offsets_a, span_a), _chars(offsets_b, span_b)
        if chars_a == chars_b:
            spans.append(span_a)
            continue
        overlapping = chars_a[0] < chars_b[1] and chars_b[0] < chars_a[1]
        if not overlapping or offsets_a[head(a, span_a)] != offsets_b[head(b, span_b)]:
            return None
        before_verb = span_a.end <= frame.verb
        if before_verb:
            want = (min(chars_a[0], chars_b[0]), max(chars_a[1], chars_b[1]))
        else:
            want = (max(chars_a[0], chars_b[0]), min(chars_a[1], chars_b[1]))
        spans.append(_tokens_of(offsets_a, want) or span_a)
    agent, patient = spans
    if agent is not None and patient is not None and agent.start < patient.end and patient.start < agent.end:
        return None
    return Frame(frame.verb, agent, patient)


def _chars(offsets: list[tuple[int, int]], span: Span) -> tuple[int, int]:
    return offsets[span.start][0], offsets[span.end - 1][1]


def _tokens_of(offsets: list[tuple[int, int]], chars: tuple[int, int]) -> Span | None:
    """The token span covering exactly these characters, or None where a token boundary is not there."""
    starts = [i for i, (s, _) in enumerate(offsets) if s == chars[0]]
    ends = [i for i, (_, e) in enumerate(offsets) if e == chars[1]]
    if not starts or not ends or ends[0] < starts[0]:
        return None
    return Span(starts[0], ends[0] + 1)


def _offsets(parse: RoleParse) -> list[tuple[int, int]]:
    """Each token's character range in the sentence with spaces (and quote styles) left out."""
    offsets, at = [], 0
    for token in parse.tokens:
        length = len(squash(token))
        offsets.append((at, at + length))
        at += length
    return offsets
