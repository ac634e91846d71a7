"""Filters that drop role swaps which are not meaningful sentences, each with its reason.

The reference paper selected 300 of its 1329 candidates by hand. These filters aim to make that selection
unnecessary: each names one way a swap goes wrong, and the dataset card counts the swaps each one dropped.
They read only tokens and Penn Treebank tags, so they apply the same way to every labeler.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..roles.base import RELATIVE_PRONOUNS, Frame, RoleParse, Span
from .role_swap import Swap, exchange

NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "PRP", "CD"})
# A verb in these forms inside a noun phrase belongs to a relative clause ("a man who sits") or to a misparse
# ("a group of men walk in formation", "pink pulls weeds").
CLAUSE_VERB_TAGS = frozenset({"VB", "VBZ", "VBP", "VBD", "MD"})
# A noun phrase does not start with these: prepositions, "to", wh-adverbs, verbs, conjunctions, particles.
NOT_PHRASE_START = frozenset({"IN", "TO", "WDT", "WRB", "WP$", "MD", "VB", "VBD", "VBP", "VBZ", "CC", "RP", "POS",
                              "EX", "UH", "RB", "RBR", "RBS"})
# ... nor end with a word that needs something after it.
NOT_PHRASE_END = frozenset({"DT", "IN", "TO", "CC", "PRP$", "WDT", "WP$", "POS", "JJ", "JJR", "JJS", "VBG"})
LIST_CONJUNCTIONS = frozenset({"and", "or"})
REFLEXIVE_OR_RECIPROCAL = frozenset({"myself", "yourself", "himself", "herself", "itself", "ourselves",
                                     "yourselves", "themselves", "oneself", "each other", "one another"})
# "Anything holds a woman" is not English; "nobody"/"nothing" turn the sentence into a negation.
POLARITY_PRONOUNS = frozenset({"anything", "anyone", "anybody", "nothing", "nobody", "no one", "none"})
PAIRED_MARKS = (("(", ")"), ("[", "]"), ("{", "}"))


@dataclass(frozen=True, slots=True)
class Filter:
    name: str
    description: str
    rejects: Callable[[Swap], bool]


def is_noun_phrase(words: list[str], tags: list[str]) -> bool:
    """Whether a span reads as a noun phrase, from its words and tags alone."""
    if not any(t in NOUN_TAGS for t in tags):
        return False
    first = tags[0]
    if first in ("VBG", "VBN"):  # "smiling men" is a noun phrase, "playing the guitar" is not
        return len(tags) > 1 and tags[1] in NOUN_TAGS
    if first in NOT_PHRASE_START or (first == "WP" and words[0].lower() not in ("who", "whom")):
        return False
    if tags[-1] in NOT_PHRASE_END:
        return False
    for i, tag in enumerate(tags):
        if tag in CLAUSE_VERB_TAGS and not any(t in ("WDT", "WP") or w.lower() == "that"
                                           for w, t in zip(words[:i], tags[:i])):
            return False
    return True


def _words(swap: Swap, span: Span) -> list[str]:
    return list(swap.parse.tokens[span.start:span.end])


def _tags(swap: Swap, span: Span) -> list[str]:
    return list(swap.parse.tags[span.start:span.end])


def _arguments(swap: Swap) -> list[Span]:
    return [swap.frame.agent, swap.frame.patient]


def overlaps(frame: Frame) -> bool:
    a, p, verb = frame.agent, frame.patient, frame.verb
    return (a.start < p.end and p.start < a.end) or any(s.start <= verb < s.end for s in (a, p))


def _not_noun_phrase(swap: Swap) -> bool:
    return not all(is_noun_phrase(_words(swap, s), _tags(swap, s)) for s in _arguments(swap))


def _pronoun_in(swap: Swap, words: frozenset[str]) -> bool:
    return any(" ".join(_words(swap, s)).lower() in words for s in _arguments(swap))


def _unbalanced(swap: Swap) -> bool:
    for span in _arguments(swap):
        text = _words(swap, span)
        if text.count('"') % 2 or any(text.count(a) != text.count(b) for a, b in PAIRED_MARKS):
            return True
    return False


def _comma_inside(swap: Swap) -> bool:
    """A comma inside an argument, other than in a list closed by and/or ("shorts , shirts and hats")."""
    for span in _arguments(swap):
        words = [w.lower() for w in _words(swap, span)]
        if "," in words and not LIST_CONJUNCTIONS & set(words[words.index(","):]):
            return True
    return False


def _distant_agent(swap: Swap) -> bool:
    """An agent before its verb with a noun between them: the agent is shared with another clause."""
    agent, verb = swap.frame.agent, swap.frame.verb
    return agent.end <= verb and any(t in NOUN_TAGS for t in swap.parse.tags[agent.end:verb])


def _unchanged(swap: Swap) -> bool:
    return [w.lower() for w in swap.tokens] == [w.lower() for w in swap.parse.tokens]


OVERLAP = ("overlap", "the agent and the patient overlap, or one holds the verb: they cannot change places")
# Checked on the swapped sentence, in this order; the first that rejects names the reason.
FILTERS: tuple[Filter, ...] = (
    Filter("relative_pronoun", "an argument is a bare relative pronoun ('who', 'that'): moving it breaks the "
           "relative clause", lambda s: _pronoun_in(s, RELATIVE_PRONOUNS)),
    Filter("reflexive_or_reciprocal", "an argument is a reflexive or reciprocal pronoun ('himself', "
           "'each other'), which cannot be a subject: 'himself shaves a man'",
           lambda s: _pronoun_in(s, REFLEXIVE_OR_RECIPROCAL)),
    Filter("polarity_pronoun", "an argument is a negative or negative-polarity pronoun ('nobody', 'anything'): "
           "'anything holds a woman' is not English", lambda s: _pronoun_in(s, POLARITY_PRONOUNS)),
    Filter("not_noun_phrase", "the agent or the patient is not a noun phrase (a clause, a prepositional phrase, "
           "an adjective such as 'wearing pink', or a parse that runs into another verb: 'pink pulls weeds')",
           _not_noun_phrase),
    Filter("unbalanced_punctuation", "an argument cuts through a pair of quotes or brackets", _unbalanced),
    Filter("comma_in_argument", "an argument holds a comma outside a list closed by 'and'/'or': appositives "
           "and comma-spliced phrases, where parses most often go wrong and swaps leave stray commas",
           _comma_inside),
    Filter("distant_agent", "the agent stands before the verb with another noun between them ('a woman sits on "
           "a bench while wearing a hat'): the agent is shared with another clause, which the swap would rewrite "
           "too", _distant_agent),
    Filter("unchanged", "agent and patient read the same: the swap changes nothing", _unchanged),
)
FILTER_DESCRIPTIONS = dict([OVERLAP, *((f.name, f.description) for f in FILTERS)])


def review(parse: RoleParse, frame: Frame) -> tuple[Swap | None, str | None]:
    """The swap of `frame` and the name of the first filter that drops it (None if it is kept)."""
    if overlaps(frame):
        return None, OVERLAP[0]
    swap = exchange(parse, frame)
    for f in FILTERS:
        if f.rejects(swap):
            return swap, f.name
    return swap, None
