"""Exchanging a verb's agent and patient inside one sentence (the reference paper's Algorithm 1).

Verbs are taken in order; auxiliaries and copulas (be, have, do, modals) are skipped. A verb with both an agent
and a patient yields a swap: the two spans change places, pronouns take the case of the slot they land in
("as he pokes a donut" -> "as a donut pokes him"), and the sentence-initial capital follows the sentence start
(both decided by roles/morphology.py).
A passive's agent is the noun phrase inside its by-phrase, so "by" stays ("a car is being driven by two men" ->
"two men is being driven by a car"). Verb agreement is not repaired, as in the reference.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..roles.base import RELATIVE_PRONOUNS, Frame, RoleParse, is_auxiliary, swappable_frames
from ..roles.morphology import capitalised, case_for_slot, keeps_capital, uncapitalised

__all__ = ["Swap", "exchange", "construction", "is_auxiliary", "swappable_frames"]


@dataclass(frozen=True, slots=True)
class Swap:
    parse: RoleParse  # the sentence before the swap
    frame: Frame  # the verb whose agent and patient changed places
    tokens: tuple[str, ...]  # the sentence after the swap
    pronoun_case: bool  # whether a pronoun changed case
    construction: str  # active, passive, participial or relative


def exchange(parse: RoleParse, frame: Frame) -> Swap:
    """Swap the agent and patient of `frame`; the spans must not overlap."""
    first, second = sorted((frame.agent, frame.patient), key=lambda s: s.start)
    tokens = parse.tokens
    # (token, original index) so that the capital fix knows where the first word went
    moved_second = case_for_slot(parse, second, nominative=first.end <= frame.verb)
    moved_first = case_for_slot(parse, first, nominative=second.end <= frame.verb)
    pieces = (
        [(tokens[i], i) for i in range(first.start)]
        + moved_second
        + [(tokens[i], i) for i in range(first.end, second.start)]
        + moved_first
        + [(tokens[i], i) for i in range(second.end, len(tokens))]
    )
    changed_case = any(word != tokens[i] for word, i in moved_first + moved_second)
    words = _fix_capital(parse, pieces)
    return Swap(parse, frame, tuple(words), changed_case, construction(parse, frame))


def construction(parse: RoleParse, frame: Frame) -> str:
    """A slice label for the frame's construction, read off the token order (so any labeler gets one)."""
    agent, patient, verb = frame.agent, frame.patient, frame.verb
    if patient.end <= verb < agent.start and agent.start > 0 and parse.tokens[agent.start - 1].lower() == "by":
        return "passive"
    if patient.end <= verb and parse.tags[verb] == "VBN":
        return "passive"
    between = [w.lower() for w in parse.tokens[agent.end : verb]]
    if agent.end <= verb and any(w in RELATIVE_PRONOUNS for w in between):
        return "relative"
    if agent.end == verb and parse.tags[verb] in ("VBG", "VBN"):
        return "participial"
    return "active"


def _fix_capital(parse: RoleParse, pieces: list[tuple[str, int]]) -> list[str]:
    """Capitalize the new first word and lower the old one, if the sentence started with a capital."""
    words = [w for w, _ in pieces]
    original_first = parse.tokens[0] if parse.tokens else ""
    if not original_first[:1].isupper() or pieces[0][1] == 0:
        return words
    for k, (word, source) in enumerate(pieces):
        if source == 0 and not keeps_capital(word, parse.tags[0]):
            words[k] = uncapitalised(word)
    words[0] = capitalised(words[0])
    return words
