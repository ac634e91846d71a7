"""Filters that drop role swaps which are not meaningful sentences, each with its reason.

The reference paper selected 300 of its 1329 candidates by hand. These filters aim to make that selection
unnecessary: each names one way a swap goes wrong, and the dataset card counts the swaps each one dropped.
They read only tokens and Penn Treebank tags, so they apply the same way to every labeler.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..roles.base import RELATIVE_PRONOUNS, Frame, RoleParse, Span
from ..roles.heads import NOUN_TAGS, heads, is_animate, is_person, key
from ..roles.morphology import CASED_PRONOUNS
from .role_swap import Swap, exchange

# A verb in these forms inside a noun phrase belongs to a relative clause ("a man who sits") or to a misparse
# ("a group of men walk in formation", "pink pulls weeds").
CLAUSE_VERB_TAGS = frozenset({"VB", "VBZ", "VBP", "VBD", "MD"})
# A noun phrase does not start with these: prepositions, "to", wh-adverbs, verbs, conjunctions, particles.
NOT_PHRASE_START = frozenset(
    {
        "IN",
        "TO",
        "WDT",
        "WRB",
        "WP$",
        "MD",
        "VB",
        "VBD",
        "VBP",
        "VBZ",
        "CC",
        "RP",
        "POS",
        "EX",
        "UH",
        "RB",
        "RBR",
        "RBS",
    }
)
# ... nor end with a word that needs something after it.
NOT_PHRASE_END = frozenset({"DT", "IN", "TO", "CC", "PRP$", "WDT", "WP$", "POS", "JJ", "JJR", "JJS", "VBG"})
LIST_CONJUNCTIONS = frozenset({"and", "or"})
# Compared with spaces and hyphens left out, so that "eachother" and "each-other" are caught too.
REFLEXIVE_OR_RECIPROCAL = frozenset(
    {
        "myself",
        "yourself",
        "himself",
        "herself",
        "itself",
        "ourselves",
        "yourselves",
        "themselves",
        "themself",
        "oneself",
        "eachother",
        "oneanother",
    }
)
# "Anything holds a woman" is not English; "nobody"/"nothing" turn the sentence into a negation.
POLARITY_PRONOUNS = frozenset({"anything", "anyone", "anybody", "nothing", "nobody", "no one", "none"})
PAIRED_MARKS = (("(", ")"), ("[", "]"), ("{", "}"))
# Nouns that head adverbials of place, direction and time ("walking downtown", "heading their direction",
# "working all day") rather than a verb's patient; a swap moves them into the subject.
ADVERBIAL_NOUNS = frozenset(
    key(w)
    for w in (
        "downtown",
        "uptown",
        "home",
        "outside",
        "inside",
        "outdoors",
        "indoors",
        "upstairs",
        "downstairs",
        "underground",
        "overseas",
        "abroad",
        "somewhere",
        "anywhere",
        "everywhere",
        "nowhere",
        "direction",
        "directions",
        "way",
        "ways",
        "today",
        "tonight",
        "tomorrow",
        "yesterday",
        "time",
        "times",
        "day",
        "days",
        "night",
        "nights",
        "morning",
        "afternoon",
        "evening",
        "week",
        "weekend",
        "year",
        "hour",
        "minute",
        "moment",
        "while",
        "distance",
        "backwards",
        "forward",
        "upward",
        "downhill",
        "uphill",
        "offshore",
    )
)
# Verbs whose agent and patient can change places without changing the meaning ("a man meets a woman").
SYMMETRIC_VERBS = frozenset(
    key(w)
    for w in (
        "meet",
        "marry",
        "hug",
        "kiss",
        "embrace",
        "face",
        "fight",
        "wrestle",
        "battle",
        "race",
        "greet",
        "resemble",
        "cuddle",
        "date",
        "spar",
        "joust",
        "duel",
        "touch",
        "accompany",
    )
)
# Verbs of perception whose two beings, present together, usually perceive each other ("a woman amid a crowd is
# seen by the crowd": the crowd is seen by her too; "people watch ducks": the ducks may watch them).
PERCEPTION_VERBS = frozenset(
    key(w)
    for w in ("see", "watch", "look", "notice", "observe", "spot", "view", "eye", "stare", "face", "glance", "regard")
)
NEGATIONS = frozenset({"not", "n't", "never", "no"})
# Verbs of motion, and the words of a path after them: "walking down a sidewalk" has a path, not a patient.
MOTION_VERBS = frozenset(
    key(w)
    for w in (
        "walk",
        "run",
        "skate",
        "jog",
        "stroll",
        "hike",
        "ski",
        "bike",
        "cycle",
        "ride",
        "swim",
        "sail",
        "roll",
        "slide",
        "skateboard",
        "march",
        "wander",
        "race",
        "travel",
        "drive",
        "head",
        "move",
        "go",
        "come",
        "dance",
        "snowboard",
        "surf",
        "crawl",
        "sprint",
        "trek",
        "climb",
        "rollerblade",
        "fly",
        "float",
        "glide",
        "jump",
        "leap",
        "hurry",
    )
)
PATH_WORDS = frozenset(
    {
        "down",
        "up",
        "across",
        "along",
        "through",
        "past",
        "over",
        "around",
        "into",
        "onto",
        "toward",
        "towards",
        "by",
        "off",
        "out",
        "in",
        "on",
        "to",
        "from",
    }
)
# Tokens that open a noun phrase with a determiner; a phrase opening otherwise is bare ("women", "band").
DETERMINER_TAGS = frozenset({"DT", "PRP$", "CD", "PRP", "WP$", "PDT", "WDT", "EX"})
# Personal pronouns that change case with their slot ("who" is relative; "it" and "you" do not change).
PERSONAL_CASED = CASED_PRONOUNS - RELATIVE_PRONOUNS


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
        if tag in CLAUSE_VERB_TAGS and not any(
            t in ("WDT", "WP") or w.lower() == "that" for w, t in zip(words[:i], tags[:i])
        ):
            return False
    return True


def _words(swap: Swap, span: Span) -> list[str]:
    return list(swap.parse.tokens[span.start : span.end])


def _tags(swap: Swap, span: Span) -> list[str]:
    return list(swap.parse.tags[span.start : span.end])


def _arguments(swap: Swap) -> list[Span]:
    return [swap.frame.agent, swap.frame.patient]


def overlaps(frame: Frame) -> bool:
    a, p, verb = frame.agent, frame.patient, frame.verb
    return (a.start < p.end and p.start < a.end) or any(s.start <= verb < s.end for s in (a, p))


def _not_noun_phrase(swap: Swap) -> bool:
    """Asked of every tagging the parse has: agree's tokens carry spaCy's tags and the tree's, and a span one of
    them reads as a clause ("her assistant looking" with "looking" a participle) is not swapped."""
    parse = swap.parse
    taggings = [parse.tags] + ([parse.other_tags] if parse.other_tags is not None else [])
    return not all(
        is_noun_phrase(_words(swap, s), list(tags[s.start : s.end])) for tags in taggings for s in _arguments(swap)
    )


def _squashed(text: str) -> str:
    return "".join(text.split()).lower().replace("-", "")


def _pronoun_in(swap: Swap, words: frozenset[str]) -> bool:
    """Whether an argument is one of `words`, spaces and hyphens aside ("eachother", "each-other")."""
    wanted = {_squashed(w) for w in words}
    return any(_squashed("".join(_words(swap, s))) in wanted for s in _arguments(swap))


def _adverbial(swap: Swap) -> bool:
    return any(key(swap.parse.tokens[h]) in ADVERBIAL_NOUNS for s in _arguments(swap) for h in heads(swap.parse, s))


def _agent_after_verb(swap: Swap) -> bool:
    """An agent after its verb, other than a passive's by-phrase: in captions, nearly always a compound
    pre-modifier read as a clause ("three hood wearing people"), whose swap keeps the meaning."""
    return swap.frame.agent.start > swap.frame.verb and swap.construction != "passive"


def _cased_pronoun_in_modifier(swap: Swap) -> bool:
    """A personal pronoun moved in a participial or relative clause: its case follows the clause the modified
    noun phrase belongs to, not the position the swap gives it ("with he spectating spectators")."""
    return swap.construction in ("participial", "relative") and any(
        w.lower() in PERSONAL_CASED for s in _arguments(swap) for w in _words(swap, s)
    )


def _indistinct(swap: Swap) -> bool:
    """Agent and patient named by the same noun ("a man kicks another man", "some kids pass other kids"): the
    swapped sentence says the same thing."""
    parse = swap.parse
    agent = {key(parse.tokens[h]) for h in heads(parse, swap.frame.agent)}
    return any(key(parse.tokens[h]) in agent for h in heads(parse, swap.frame.patient))


def _mutual_perception(swap: Swap) -> bool:
    parse, frame = swap.parse, swap.frame
    return key(parse.tokens[frame.verb]) in PERCEPTION_VERBS and all(
        any(is_animate(parse.tokens[h]) for h in heads(parse, s)) for s in _arguments(swap)
    )


def _negated(swap: Swap) -> bool:
    """A negated verb: "clothing does n't wear two women" is vacuously true, not a contradiction."""
    verb = swap.frame.verb
    return any(w.lower() in NEGATIONS for w in swap.parse.tokens[max(0, verb - 3) : verb])


def _bare_participial_agent(swap: Swap) -> bool:
    """A participle's agent without a determiner: after the swap it follows the participle bare and reads as the
    head of a compound, which says what the original said ("woman carrying a child" -> "a child carrying woman",
    a child-carrying woman)."""
    agent = swap.frame.agent
    return swap.construction == "participial" and swap.parse.tags[agent.start] not in DETERMINER_TAGS


def _premodifier_compound(swap: Swap) -> bool:
    """A compound pre-modifier read as a participle: a bare person noun as the patient and a non-person as the
    agent ("three hood wearing people": the people wear the hoods)."""
    parse, frame = swap.parse, swap.frame
    patient = frame.patient
    if swap.construction != "participial" or parse.tags[patient.start] in DETERMINER_TAGS:
        return False
    return all(is_person(parse.tokens[h]) for h in heads(parse, patient)) and not any(
        is_person(parse.tokens[h]) for h in heads(parse, frame.agent)
    )


def _path(swap: Swap) -> bool:
    """A verb of motion whose patient follows a path word: the path's noun phrase taken as the patient."""
    parse, frame = swap.parse, swap.frame
    before = frame.patient.start - 1
    return (
        frame.verb < before
        and parse.tokens[before].lower() in PATH_WORDS
        and key(parse.tokens[frame.verb]) in MOTION_VERBS
    )


def _symmetric(swap: Swap) -> bool:
    return key(swap.parse.tokens[swap.frame.verb]) in SYMMETRIC_VERBS


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
        if "," in words and not LIST_CONJUNCTIONS & set(words[words.index(",") :]):
            return True
    return False


def _distant_agent(swap: Swap) -> bool:
    """An agent before its verb with a noun between them: the agent is shared with another clause."""
    agent, verb = swap.frame.agent, swap.frame.verb
    return agent.end <= verb and any(t in NOUN_TAGS for t in swap.parse.tags[agent.end : verb])


def _unchanged(swap: Swap) -> bool:
    return [w.lower() for w in swap.tokens] == [w.lower() for w in swap.parse.tokens]


OVERLAP = ("overlap", "the agent and the patient overlap, or one holds the verb: they cannot change places")
# Checked on the swapped sentence, in this order; the first that rejects names the reason.
FILTERS: tuple[Filter, ...] = (
    Filter(
        "agent_after_verb",
        "the agent follows its verb outside a passive: a compound pre-modifier read as a "
        "clause ('three hood wearing people' -> 'people wearing three hood'), whose swap keeps the meaning",
        _agent_after_verb,
    ),
    Filter(
        "relative_pronoun",
        "an argument is a bare relative pronoun ('who', 'that'): moving it breaks the relative clause",
        lambda s: _pronoun_in(s, RELATIVE_PRONOUNS),
    ),
    Filter(
        "reflexive_or_reciprocal",
        "an argument is a reflexive or reciprocal pronoun ('himself', "
        "'each other'), which cannot be a subject: 'himself shaves a man'",
        lambda s: _pronoun_in(s, REFLEXIVE_OR_RECIPROCAL),
    ),
    Filter(
        "polarity_pronoun",
        "an argument is a negative or negative-polarity pronoun ('nobody', 'anything'): "
        "'anything holds a woman' is not English",
        lambda s: _pronoun_in(s, POLARITY_PRONOUNS),
    ),
    Filter(
        "not_noun_phrase",
        "the agent or the patient is not a noun phrase (a clause, a prepositional phrase, "
        "an adjective such as 'wearing pink', or a parse that runs into another verb: 'pink pulls weeds')",
        _not_noun_phrase,
    ),
    Filter(
        "adverbial_argument",
        "an argument is an adverbial of place, direction or time ('walking downtown', "
        "'heading their direction'), not a participant",
        _adverbial,
    ),
    Filter(
        "path_argument",
        "a verb of motion whose patient follows a path word ('walking down a sidewalk' -> "
        "'a sidewalk walking down a woman'): the path taken as a participant",
        _path,
    ),
    Filter(
        "pronoun_in_modifier",
        "a personal pronoun would move inside a participial or relative clause, where "
        "its case depends on the clause around it ('with he spectating spectators')",
        _cased_pronoun_in_modifier,
    ),
    Filter(
        "premodifier_compound",
        "a compound pre-modifier read as a participle: a bare person noun as the "
        "patient, a non-person as the agent ('three hood wearing people' -> 'people wearing three hood')",
        _premodifier_compound,
    ),
    Filter(
        "bare_participial_agent",
        "a participle's agent has no determiner, so after the swap it reads as the "
        "head of a compound that says what the original said ('woman carrying a child' -> 'a child carrying "
        "woman')",
        _bare_participial_agent,
    ),
    Filter(
        "mutual_perception",
        "a verb of perception between two persons or animals ('the crowd sees a woman'): "
        "present together, each usually perceives the other, so the swap is no contradiction",
        _mutual_perception,
    ),
    Filter(
        "negated_predicate",
        "the verb is negated: the swap ('clothing does n't wear two women') is vacuously true, not a contradiction",
        _negated,
    ),
    Filter(
        "symmetric_predicate",
        "the verb is symmetric ('meet', 'hug', 'fight'): agent and patient change places and the meaning stays",
        _symmetric,
    ),
    Filter("unbalanced_punctuation", "an argument cuts through a pair of quotes or brackets", _unbalanced),
    Filter(
        "comma_in_argument",
        "an argument holds a comma outside a list closed by 'and'/'or': appositives "
        "and comma-spliced phrases, where parses most often go wrong and swaps leave stray commas",
        _comma_inside,
    ),
    Filter(
        "distant_agent",
        "the agent stands before the verb with another noun between them ('a woman sits on "
        "a bench while wearing a hat'): the agent is shared with another clause, which the swap would rewrite "
        "too",
        _distant_agent,
    ),
    Filter("unchanged", "agent and patient read the same: the swap changes nothing", _unchanged),
    Filter(
        "indistinct_arguments",
        "agent and patient are named by the same noun ('a man kicks another man'): the swap says the same thing",
        _indistinct,
    ),
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
