"""Filters of grounded role quartets: exchanges that leave part of the relation behind, so that P' no longer entails
H' (or P never entailed H).

A grounded quartet exchanges agent and patient in place, in P and in H. shuffle-sr's filters (role_filters.py)
judge whether each exchanged sentence is a meaningful one; a quartet needs more: what H says about the two
arguments must still follow from P' once both are exchanged. Judged on SNLI dev (seed 46,
data/annotations/role-quartets-validity.json), the grounded quartets that failed did so because something that
describes one argument stayed in place while the argument moved:

- a pronoun outside the two arguments ("a woman holds a camera in her hands" -> "a camera holds a woman in her
  hands": the hands are now the camera's holder's, whom P' no longer makes a woman; "with people behind him");
- a possessive cut by an argument's edge ("a man 's dog" with "dog" alone exchanged);
- an argument that is the object of a preposition, a place or a path rather than a participant ("runs along the
  grass carrying a toy" -> "runs along a toy carrying the grass");
- a verb that P only attempts or intends ("tries to hit the balls", "looking to spike the ball"): H's assertion of
  the relation does not follow from P;
- a second event of the same verb in the sentence, which the exchange leaves as it was ("a man rides a horse next
  to a boy [who] rides a pony" -> P' still has the boy riding the pony).

Each is counted as a drop reason of its own (role_quartets.REASONS). They read only tokens, tags and the frame,
like shuffle-sr's, and apply to grounded quartets only: written ones (role_reversible.py) write H from the frame
alone, so nothing of P's is left behind in H, and none of those judged failed.
"""

from __future__ import annotations

from ..roles.base import Frame
from ..roles.heads import key
from .role_filters import Filter
from .role_swap import Swap

# Third-person pronouns, which may refer to the agent or the patient: outside both arguments, an exchange changes
# what they refer to. First and second person ("I", "you") refer to no caption's participant.
REFERRING_PRONOUNS = frozenset(
    {
        "he",
        "him",
        "his",
        "she",
        "her",
        "hers",
        "it",
        "its",
        "they",
        "them",
        "their",
        "theirs",
        "himself",
        "herself",
        "itself",
        "themselves",
    }
)
POSSESSIVE_TAG = "POS"
PREPOSITION_TAGS = frozenset({"IN", "TO"})
PASSIVE_BY = "by"
# Verbs after which a "to"-infinitive is only tried, wanted or about to happen.
NOT_ASSERTED = frozenset({"to"})
VERB_TAGS = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})


def _outside(frame: Frame, i: int) -> bool:
    return not any(s.start <= i < s.end for s in (frame.agent, frame.patient))


def _pronoun_left_behind(swap: Swap) -> bool:
    """A third-person pronoun outside both arguments: it keeps its place while its antecedent may move."""
    p, f = swap.parse, swap.frame
    return any(w.lower() in REFERRING_PRONOUNS and _outside(f, i) for i, w in enumerate(p.tokens))


def _possessive_split(swap: Swap) -> bool:
    """A possessive "'s" just before or just after an argument: owner and owned are cut apart."""
    p = swap.parse
    for span in (swap.frame.agent, swap.frame.patient):
        if span.start > 0 and p.tags[span.start - 1] == POSSESSIVE_TAG:
            return True
        if span.end < len(p.tokens) and p.tags[span.end] == POSSESSIVE_TAG:
            return True
    return False


def _prepositional_argument(swap: Swap) -> bool:
    """An argument right after a preposition (a passive's "by" aside): a place, a path or an instrument, not the
    verb's agent or patient."""
    p = swap.parse
    for span in (swap.frame.agent, swap.frame.patient):
        before = span.start - 1
        if before >= 0 and p.tags[before] in PREPOSITION_TAGS and p.tokens[before].lower() != PASSIVE_BY:
            return True
    return False


def _not_asserted(swap: Swap) -> bool:
    """The verb is a "to"-infinitive ("tries to hit", "looking to spike"): the relation is not asserted."""
    p, verb = swap.parse, swap.frame.verb
    return verb > 0 and p.tokens[verb - 1].lower() in NOT_ASSERTED


def _repeated_event(swap: Swap) -> bool:
    """Another verb of the same lemma in the sentence: a second event of the relation, left unexchanged."""
    p, verb = swap.parse, swap.frame.verb
    lemma = key(p.tokens[verb])
    return any(i != verb and t in VERB_TAGS and key(w) == lemma for i, (w, t) in enumerate(zip(p.tokens, p.tags)))


# Checked on P and on H, in this order; the first that rejects names the reason.
QUARTET_FILTERS: tuple[Filter, ...] = (
    Filter(
        "pronoun_left_behind",
        "grounded: a third-person pronoun outside the exchanged arguments ('holds a "
        "camera in her hands', 'with people behind him'): it stays while its antecedent moves, so H' says of "
        "one argument what P' says of the other",
        _pronoun_left_behind,
    ),
    Filter(
        "possessive_split",
        "grounded: an argument begins or ends at a possessive ('a man 's dog'): owner and owned are exchanged apart",
        _possessive_split,
    ),
    Filter(
        "prepositional_argument",
        "grounded: an argument is the object of a preposition ('runs along the "
        "grass carrying a toy'): a place, path or instrument, not the verb's participant",
        _prepositional_argument,
    ),
    Filter(
        "not_asserted",
        "grounded: the verb is a 'to'-infinitive ('tries to hit the balls'): the relation is "
        "tried or intended, not stated",
        _not_asserted,
    ),
    Filter(
        "repeated_event",
        "grounded: the verb occurs twice ('rides a horse next to a boy [who] rides a pony'): "
        "the second event is left unexchanged and may contradict the exchanged one",
        _repeated_event,
    ),
)
QUARTET_FILTER_DESCRIPTIONS = {f.name: f.description for f in QUARTET_FILTERS}


def quartet_reason(swap: Swap) -> str | None:
    """The first quartet filter that drops the exchange in one sentence of a grounded quartet, or None."""
    return next((f.name for f in QUARTET_FILTERS if f.rejects(swap)), None)
