"""The English word forms that change when a verb's arguments change places, decided in one place.

Exchanging an agent and a patient (variants/role_swap.py) or writing a clause from them (role_reversible.py)
moves noun phrases into slots that ask for other forms: a pronoun takes the case of its slot ("he" as an object is
"him"), a present-tense verb agrees with the number of its new subject ("two men push" -> "a boy pushes"), "be"
follows person, number and tense, and the sentence's capital follows its first word. role_quartets.py asks the same
questions to drop what would need a repair. Each answer is read off tokens and Penn tags alone, so every role
labeler gets them alike.

These are the project's own rules, not an inflection library's (lemminflect, pyinflect): the rows that the role
configurations write are fingerprinted in the board's reference build, and a library's forms would have to agree
with these on every one of them. The rules cover what captions hold (third-person present and progressive clauses
about people and animals); tests/roles/test_morphology.py holds them to words of its own.
"""

from __future__ import annotations

from .animacy import ANIMATE, animacy, core
from .base import RoleParse, Span
from .heads import CONJUNCTIONS, NOUN_TAGS, conjuncts, head

# A pronoun's case: nominative as a subject, accusative as an object.
TO_ACCUSATIVE = {"i": "me", "he": "him", "she": "her", "we": "us", "they": "them", "who": "whom"}
TO_NOMINATIVE = {accusative: nominative for nominative, accusative in TO_ACCUSATIVE.items()}
CASED_PRONOUNS = frozenset(TO_ACCUSATIVE) | frozenset(TO_NOMINATIVE)  # the pronouns whose case shows
PLURAL_PRONOUNS = frozenset({"they", "them", "we", "us", "you"})
# Tokens that can stand next to a pronoun that is a whole conjunct: "he and his dog", "you, me".
CONJUNCT_EDGES = CONJUNCTIONS | {","}

# Verbs whose third person singular is not the base form with -s or -es.
THIRD_PERSON = {"have": "has", "do": "does", "go": "goes"}
NON_THIRD = {third: base for base, third in THIRD_PERSON.items()}
PAST_BE = frozenset({"was", "were"})
# Verb forms and auxiliaries that agree in number with their subject.
AGREEING_TAGS = frozenset({"VBZ", "VBP"})
AGREEING_WORDS = frozenset({"is", "are", "am", "was", "were", "has", "have", "does", "do", "'s", "'re", "'m"})

PROPER_TAGS = frozenset({"NNP", "NNPS"})


def case_for_slot(parse: RoleParse, span: Span, nominative: bool) -> list[tuple[str, int]]:
    """The span's tokens with their indices, its whole-conjunct pronouns put in the case of the slot they move to.

    Only a pronoun that is a conjunct on its own changes: "her" in "her dog" is a possessive and stays,
    and "who" in "a man who sits" belongs to the relative clause.
    """
    table = TO_NOMINATIVE if nominative else TO_ACCUSATIVE
    out = []
    for i in range(span.start, span.end):
        word = parse.tokens[i]
        before = parse.tokens[i - 1].lower() if i > span.start else None
        after = parse.tokens[i + 1].lower() if i + 1 < span.end else None
        alone = (before is None or before in CONJUNCT_EDGES) and (after is None or after in CONJUNCT_EDGES)
        if alone and word.lower() in table:
            word = table[word.lower()]
            word = "I" if word == "i" else word
        out.append((word, i))
    return out


def has_cased_pronoun(parse: RoleParse, span: Span) -> bool:
    """Whether the span holds a personal pronoun whose case shows ("he", "them"), which may change as it moves."""
    return any(
        parse.tags[i] == "PRP" and parse.tokens[i].lower() in CASED_PRONOUNS for i in range(span.start, span.end)
    )


def plural(parse: RoleParse, span: Span) -> bool:
    """Whether the span takes a plural verb: a coordination, a plural pronoun, a number, or a plural first noun."""
    beings = [c for c in conjuncts(parse, span) if animacy(parse, c) == ANIMATE]
    span = core(parse, span)
    nouns = [c for c in conjuncts(parse, span) if parse.tags[head(parse, c)] in NOUN_TAGS]
    if len(beings) > 1 or len(nouns) > 1:  # "a woman in jeans and a woman in shorts"; "a man and a boy"
        return True
    first = parse.tokens[span.start].lower()
    if parse.tags[span.start] == "CD" and first not in ("one", "1"):
        return True
    for i in range(span.start, span.end):
        if parse.tags[i] == "PRP":
            return parse.tokens[i].lower() in PLURAL_PRONOUNS
        if parse.tags[i] in ("NN", "NNS", "NNP", "NNPS"):
            return parse.tags[i] in ("NNS", "NNPS")
    return False


def agree(verb: str, tag: str, plural: bool) -> str:
    """A present-tense verb (Penn tag VBZ or VBP) in the number of its new subject ("pushes" after "two men":
    "push"); any other verb as it is."""
    if tag == "VBZ" and plural:
        if verb in NON_THIRD:
            return NON_THIRD[verb]
        if verb.endswith("ies") and len(verb) > 4:
            return verb[:-3] + "y"
        if verb.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
            return verb[:-2]
        return verb[:-1] if verb.endswith("s") else verb
    if tag == "VBP" and not plural:
        if verb in THIRD_PERSON:
            return THIRD_PERSON[verb]
        if verb.endswith("y") and len(verb) > 1 and verb[-2] not in "aeiou":
            return verb[:-1] + "ies"
        if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
            return verb + "es"
        return verb + "s"
    return verb


def be(parse: RoleParse, subject: Span, past: bool) -> str:
    """The form of "be" that agrees with `subject`: "am"/"was" after "I", else by its number and the tense."""
    if [w.lower() for w in parse.tokens[subject.start : subject.end]] in (["i"], ["me"]):
        return "was" if past else "am"
    many = plural(parse, subject)
    return ("were" if many else "was") if past else ("are" if many else "is")


def agrees_in_number(word: str, tag: str) -> bool:
    """Whether a verb or auxiliary agrees with its subject's number (a present tense, "is", "was", "has")."""
    return tag in AGREEING_TAGS or word.lower() in AGREEING_WORDS


def keeps_capital(word: str, tag: str) -> bool:
    """Whether a word keeps its capital away from the sentence's start: a name, "I", an acronym."""
    return tag in PROPER_TAGS or word == "I" or (len(word) > 1 and word.isupper())


def capitalised(word: str) -> str:
    """The word with its first letter upper case, as a sentence's first word."""
    return word[:1].upper() + word[1:]


def uncapitalised(word: str) -> str:
    """The word with its first letter lower case, as a sentence's first word moved inside it."""
    return word[:1].lower() + word[1:]
