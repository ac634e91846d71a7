"""roles/morphology.py: the word forms a role exchange changes, on phrases written for these tests."""

from __future__ import annotations

import pytest

from swapbench.roles.base import RoleParse, Span
from swapbench.roles.morphology import (
    agree,
    agrees_in_number,
    be,
    capitalised,
    case_for_slot,
    has_cased_pronoun,
    keeps_capital,
    plural,
    uncapitalised,
)


def tagged(text: str) -> RoleParse:
    """`text` is "word/TAG word/TAG ..."."""
    words, tags = zip(*(item.rsplit("/", 1) for item in text.split()))
    return RoleParse(tuple(words), tuple(tags), (), "hand")


@pytest.mark.parametrize(
    "verb, tag, many, expected",
    [
        # a third-person singular before a plural subject loses its ending
        ("pushes", "VBZ", True, "push"),
        ("carries", "VBZ", True, "carry"),
        ("watches", "VBZ", True, "watch"),
        ("kisses", "VBZ", True, "kiss"),
        ("fixes", "VBZ", True, "fix"),
        ("hugs", "VBZ", True, "hug"),
        ("goes", "VBZ", True, "go"),
        ("echoes", "VBZ", True, "echo"),
        ("has", "VBZ", True, "have"),
        ("does", "VBZ", True, "do"),
        # a plural present before a singular subject takes one
        ("push", "VBP", False, "pushes"),
        ("carry", "VBP", False, "carries"),
        ("obey", "VBP", False, "obeys"),
        ("kiss", "VBP", False, "kisses"),
        ("go", "VBP", False, "goes"),
        ("echo", "VBP", False, "echoes"),
        ("have", "VBP", False, "has"),
        ("feed", "VBP", False, "feeds"),
        # the same number, or a form that does not agree, stays
        ("pushes", "VBZ", False, "pushes"),
        ("push", "VBP", True, "push"),
        ("pushed", "VBD", True, "pushed"),
        ("pushing", "VBG", False, "pushing"),
    ],
)
def test_a_present_verb_agrees_with_the_number_of_its_new_subject(verb, tag, many, expected):
    assert agree(verb, tag, many) == expected


@pytest.mark.parametrize(
    "text, nominative, expected",
    [
        ("he/PRP", False, ["him"]),
        ("them/PRP", True, ["they"]),
        ("me/PRP", True, ["I"]),
        ("him/PRP and/CC me/PRP", True, ["he", "and", "I"]),
        ("she/PRP ,/, you/PRP", False, ["her", ",", "you"]),
        # a possessive, and a relative pronoun inside its clause, are no conjuncts of their own
        ("her/PRP$ kitten/NN", True, ["her", "kitten"]),
        ("a/DT clown/NN who/WP juggles/VBZ", False, ["a", "clown", "who", "juggles"]),
    ],
)
def test_a_whole_conjunct_pronoun_takes_the_case_of_its_slot(text, nominative, expected):
    parse = tagged(text)
    moved = case_for_slot(parse, Span(0, len(parse.tokens)), nominative)
    assert [word for word, _ in moved] == expected
    assert [i for _, i in moved] == list(range(len(parse.tokens)))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("him/PRP", True),
        ("the/DT clown/NN and/CC she/PRP", True),
        ("it/PRP", False),
        ("you/PRP", False),
        ("her/PRP$ kitten/NN", False),
        ("a/DT clown/NN", False),
    ],
)
def test_which_arguments_hold_a_pronoun_whose_case_shows(text, expected):
    parse = tagged(text)
    assert has_cased_pronoun(parse, Span(0, len(parse.tokens))) is expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("a/DT juggler/NN", False),
        ("two/CD jugglers/NNS", True),
        ("one/CD juggler/NN", False),
        ("the/DT clowns/NNS", True),
        ("a/DT clown/NN and/CC a/DT juggler/NN", True),
        ("a/DT clown/NN in/IN boots/NNS", False),
        ("they/PRP", True),
        ("she/PRP", False),
        ("the/DT Smiths/NNPS", True),
    ],
)
def test_the_number_of_a_noun_phrase(text, expected):
    parse = tagged(text)
    assert plural(parse, Span(0, len(parse.tokens))) is expected


@pytest.mark.parametrize(
    "text, past, expected",
    [
        ("I/PRP", False, "am"),
        ("me/PRP", True, "was"),
        ("a/DT clown/NN", False, "is"),
        ("a/DT clown/NN", True, "was"),
        ("two/CD clowns/NNS", False, "are"),
        ("two/CD clowns/NNS", True, "were"),
    ],
)
def test_be_agrees_with_its_subject_and_tense(text, past, expected):
    parse = tagged(text)
    assert be(parse, Span(0, len(parse.tokens)), past) == expected


@pytest.mark.parametrize(
    "word, tag, expected",
    [
        ("is", "VBZ", True),
        ("were", "VBD", True),
        ("'re", "VBP", True),
        ("juggle", "VBP", True),
        ("juggled", "VBD", False),
    ],
)
def test_which_verbs_agree_in_number(word, tag, expected):
    assert agrees_in_number(word, tag) is expected


@pytest.mark.parametrize(
    "word, tag, expected",
    [("Oslo", "NNP", True), ("I", "PRP", True), ("UNICEF", "NN", True), ("The", "DT", False), ("A", "DT", False)],
)
def test_which_words_keep_their_capital_inside_a_sentence(word, tag, expected):
    assert keeps_capital(word, tag) is expected


def test_a_first_letter_changes_case_and_nothing_else():
    assert capitalised("clown") == "Clown"
    assert uncapitalised("The") == "the"
    assert uncapitalised("UNICEF") == "uNICEF"  # keeps_capital decides whether to lower it at all
    assert capitalised("") == uncapitalised("") == ""
