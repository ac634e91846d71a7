"""Grounding: a role swap is kept only when the other sentence of the pair asserts the relation it swaps.

Swapping who does what to whom in one sentence makes the pair a contradiction only if the other sentence says
who did what to whom. "A man is renovating a garage" -> "A garage is renovating a man" against "A man is in a garage"
is at most neutral: the hypothesis asserts no renovating. So:

- a swap in the hypothesis is grounded by the pair itself: the premise entails the original hypothesis, so it
  asserts the relation that the swap reverses;
- a swap in the premise is grounded when the hypothesis has a frame (from the same role labeler) whose verb is
  the swapped verb (the same lemma) and whose agent and patient are the swapped agent and patient, matched head
  to head: the same lemma, or person nouns of which one is the other's hypernym ("man" and "person", "girl"
  and "child", "he" and "man"), or a few everyday hypernyms ("dog" and "animal").

Each way a premise swap fails is its own drop reason (GROUNDING), counted in the dataset card.
"""

from __future__ import annotations

from ..roles.base import Frame, RoleParse, Span
from ..roles.heads import heads, key, words_match

# One-line descriptions of the drop reasons, in the order the checks run; the card lists them.
GROUNDING: dict[str, str] = {
    "unlabeled_other_side": "the premise was swapped but the hypothesis got no roles from the labeler, so nothing "
    "shows that it asserts the swapped relation",
    "ungrounded_agent": "the premise was swapped but no word of the hypothesis matches the agent's head (same "
    "lemma, or a person noun and its hypernym): the hypothesis is not about the agent",
    "ungrounded_patient": "the premise was swapped but no word of the hypothesis matches the patient's head: the "
    "hypothesis is not about the patient ('a man is in a garage' for 'a man renovates a garage')",
    "ungrounded_relation": "the hypothesis names both arguments but no frame of it has the agent acting on the "
    "patient (or it names the two alike: 'kids pass other kids'), so the swap leaves the "
    "pair neutral rather than contradictory",
    "ungrounded_predicate": "a frame of the hypothesis links agent and patient, but with another verb ('a woman "
    "holds a baby' for 'a woman feeds a baby'): the swapped verb is not asserted",
}


def _head_words(parse: RoleParse, span: Span) -> list[str]:
    return [parse.tokens[i] for i in heads(parse, span)]


def _matches(words_a: list[str], words_b: list[str]) -> bool:
    return any(words_match(a, b) for a in words_a for b in words_b)


def _alike(parse: RoleParse, frame: Frame) -> bool:
    """Whether the frame's agent and patient are named by the same noun ("some kids pass other kids"): such a
    frame holds after the swap as well, so it grounds nothing."""
    agent = {key(parse.tokens[h]) for h in heads(parse, frame.agent)}
    return any(key(parse.tokens[h]) in agent for h in heads(parse, frame.patient))


def ground(parse: RoleParse, frame: Frame, side: str, other: RoleParse | None) -> str | None:
    """The reason the swap of `frame` in `parse` (on `side`) is not grounded by `other`, or None if it is."""
    if side == "hypothesis":
        return None  # the premise entails the hypothesis: it asserts the relation that the swap reverses
    if other is None:
        return "unlabeled_other_side"
    agent, patient = _head_words(parse, frame.agent), _head_words(parse, frame.patient)
    if not _matches(agent, list(other.tokens)):
        return "ungrounded_agent"
    if not _matches(patient, list(other.tokens)):
        return "ungrounded_patient"
    related = _related(parse, frame, other)
    if not related:
        return "ungrounded_relation"
    verb = key(parse.tokens[frame.verb])
    if not any(key(other.tokens[f.verb]) == verb for f in related):
        return "ungrounded_predicate"
    return None


def _related(parse: RoleParse, frame: Frame, other: RoleParse) -> list[Frame]:
    """The frames of `other` whose agent and patient match the frame's, head to head, and are not alike."""
    agent, patient = _head_words(parse, frame.agent), _head_words(parse, frame.patient)
    return [
        f
        for f in other.frames
        if f.agent is not None
        and f.patient is not None
        and _matches(agent, _head_words(other, f.agent))
        and _matches(patient, _head_words(other, f.patient))
        and not _alike(other, f)
    ]


def restating_frames(parse: RoleParse, frame: Frame, other: RoleParse) -> list[Frame]:
    """The frames of `other` that restate the relation of `frame` in `parse`: the same verb (lemma), agent and
    patient matched head to head; a premise swap is grounded (ground) exactly when there is one."""
    verb = key(parse.tokens[frame.verb])
    return [f for f in _related(parse, frame, other) if key(other.tokens[f.verb]) == verb]
