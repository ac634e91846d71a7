"""spaCy's attribute ruler applied by table lookup gives, token for token, the ruler's own annotations."""

from __future__ import annotations

import pytest
from roles_helpers import english

from swapbench.parsing.attribute_rules import compile_rules
from swapbench.parsing.spacy_pipeline import SpacyDocs

# Written to reach the rules of en_core_web_sm: the two-token ones ("gonna", "ain't", "let's", "y'all",
# "there is"), membership ("not", "because", "that"), whitespace, hyphens, quotes and odd casing.
SENTENCES = [
    "A man is not gonna throw the ball because it ain't his.",
    "Let's go, y'all: there is a dog and there are two cats.",
    "The woman said that she would n't eat , whether or not it rains.",
    "Two  kids   play in a middle-aged man's yard while he's gotta work.",
    "C'mon, THE DOG HAS BEEN CHASED BY A CAT!",
    'Mr. Smith\'s 3 children were singing "O Canada" at 5 p.m. on Jan. 1st.',
    "I do n't know if he'd have done it; neither do they.",
    "An older woman who is wearing a hat is being helped by her son.",
]


def annotations(doc) -> list[tuple]:
    return [
        (
            t.text,
            t.pos_,
            t.tag_,
            t.dep_,
            str(t.morph),
            t.lemma_,
            t.head.i,
            t.left_edge.i,
            t.right_edge.i,
            t.is_sent_start,
        )
        for t in doc
    ]


def test_the_lookup_gives_the_rulers_annotations_token_for_token():
    nlp = english()
    rules = compile_rules(nlp)
    assert rules is not None and rules.name == "attribute_ruler"
    expected = [annotations(doc) for doc in nlp.pipe(SENTENCES)]
    with nlp.select_pipes(disable=[rules.name]):
        got = [annotations(rules(doc)) for doc in nlp.pipe(SENTENCES)]
    assert got == expected
    # The ruler did set something on every sentence: the comparison is not of empty annotations.
    assert all(any(pos for _, pos, *_ in doc) for doc in expected)
    # Its two-token rules were reached: "gon" "na" and "ai" "n't" take their rules' lemmas.
    lemmas = {text: lemma for doc in expected for text, _, _, _, _, lemma, *_ in doc}
    assert lemmas["gon"] == "go" and lemmas["ai"] == "be"


def test_spacy_docs_annotate_as_the_whole_pipeline():
    docs = SpacyDocs(nlp=english())
    assert [annotations(doc) for doc in docs.docs(SENTENCES)] == [annotations(doc) for doc in english().pipe(SENTENCES)]
    assert "attribute_ruler" not in english().disabled  # the pipeline is left as it was


def ruler_pipeline(patterns: list[dict], after: str | None = None):
    import spacy

    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("attribute_ruler")
    ruler.add_patterns(patterns)
    if after:
        nlp.add_pipe(after)
    return nlp


def test_later_rules_win_and_a_rule_annotates_the_token_its_index_names():
    patterns = [
        {"patterns": [[{"LOWER": "dog"}]], "attrs": {"POS": "NOUN", "LEMMA": "hound"}},
        {"patterns": [[{"ORTH": "Dog"}]], "attrs": {"POS": "PROPN"}},
        {"patterns": [[{"LOWER": "big"}, {"LOWER": {"REGEX": "^d.g$"}}]], "attrs": {"LEMMA": "mutt"}, "index": -1},
        {"patterns": [[{"LOWER": {"IN": ["a", "the"]}}]], "attrs": {"POS": "DET", "MORPH": "PronType=Art"}},
        {"patterns": [[{"IS_SPACE": True}]], "attrs": {"POS": "SPACE"}},
        {
            "patterns": [[{"LOWER": {"NOT_IN": ["big", "dog", "a", "the", "."]}, "IS_SPACE": False}]],
            "attrs": {"POS": "CCONJ"},
        },
    ]
    nlp = ruler_pipeline(patterns)
    rules = compile_rules(nlp)
    texts = ["A big dog and the  Dog.", "big Dog", "dog big"]
    expected = [annotations(nlp(text)) for text in texts]
    with nlp.select_pipes(disable=["attribute_ruler"]):
        got = [annotations(rules(nlp(text))) for text in texts]
    assert got == expected
    assert [(t[0], t[1], t[5]) for t in got[1]] == [("big", "", ""), ("Dog", "PROPN", "mutt")]
    assert [t[1] for t in got[0]] == ["DET", "", "NOUN", "CCONJ", "DET", "SPACE", "PROPN", ""]


@pytest.mark.parametrize(
    "patterns, after",
    [
        ([{"patterns": [[{"LOWER": "dog", "OP": "+"}]], "attrs": {"POS": "NOUN"}}], None),  # an operator
        ([{"patterns": [[{"LENGTH": 3}]], "attrs": {"POS": "NOUN"}}], None),  # an attribute it does not read
        ([{"patterns": [[{"LOWER": {"FUZZY": "dog"}}]], "attrs": {"POS": "NOUN"}}], None),  # another predicate
        ([{"patterns": [[{"LOWER": "dog"}]], "attrs": {"NORM": "hound"}}], None),  # a lexeme's attribute
        ([{"patterns": [[{"LOWER": "dog"}]], "attrs": {"POS": "NOUN"}}], "sentencizer"),  # not the last component
    ],
)
def test_a_ruler_it_cannot_reproduce_exactly_is_left_to_run(patterns, after):
    assert compile_rules(ruler_pipeline(patterns, after)) is None
