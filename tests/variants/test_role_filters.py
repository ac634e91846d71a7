"""Each filter of shuffle-sr on a hand-tagged sentence: the reason it gives, and a near miss it keeps."""

from __future__ import annotations

import pytest

from swapbench.roles.base import Frame, RoleParse, Span
from swapbench.variants.role_filters import FILTER_DESCRIPTIONS, review


def parse(tagged: str, verb: int, agent: tuple[int, int], patient: tuple[int, int]) -> tuple[RoleParse, Frame]:
    """`tagged` is "word/TAG word/TAG ..."; spans are token ranges."""
    words, tags = zip(*(item.rsplit("/", 1) for item in tagged.split()))
    frame = Frame(verb, Span(*agent), Span(*patient))
    return RoleParse(tuple(words), tuple(tags), (frame,), "hand"), frame


CASES = [
    ("overlap", "A/DT man/NN holds/VBZ a/DT dog/NN ./.", 2, (0, 3), (3, 5)),
    ("not_noun_phrase", "A/DT girl/NN wearing/VBG pink/JJ pulls/VBZ weeds/NNS ./.", 2, (0, 2), (3, 6)),
    ("not_noun_phrase", "A/DT man/NN tries/VBZ to/TO climb/VB ./.", 2, (0, 2), (3, 5)),
    ("relative_pronoun", "The/DT boy/NN who/WP kicked/VBD the/DT ball/NN ./.", 3, (2, 3), (4, 6)),
    ("reflexive_or_reciprocal", "Two/CD men/NNS hug/VBP each/DT other/JJ ./.", 2, (0, 2), (3, 5)),
    ("polarity_pronoun", "A/DT man/NN holds/VBZ nothing/NN ./.", 2, (0, 2), (3, 4)),
    ("unbalanced_punctuation", "A/DT man/NN holds/VBZ a/DT \"/`` sign/NN ./. \"/''", 2, (0, 2), (3, 6)),
    ("comma_in_argument", "A/DT man/NN ,/, a/DT tall/JJ one/NN ,/, holds/VBZ a/DT sign/NN ./.", 7, (0, 6), (8, 10)),
    (
        "distant_agent",
        "A/DT woman/NN sits/VBZ on/IN a/DT bench/NN and/CC holds/VBZ a/DT cup/NN ./.",
        7,
        (0, 2),
        (8, 10),
    ),
    ("unchanged", "A/DT dog/NN chases/VBZ a/DT dog/NN ./.", 2, (0, 2), (3, 5)),
    ("unchanged", "He/PRP pushes/VBZ him/PRP ./.", 1, (0, 1), (2, 3)),
    # the swaps that read wrong and the filters added for them (tests/test_role_grounding.py has their near misses)
    ("agent_after_verb", "Down/RB the/DT hill/NN runs/VBZ a/DT dog/NN ./.", 3, (4, 6), (1, 3)),
    ("adverbial_argument", "The/DT women/NNS were/VBD walking/VBG downtown/NN ./.", 3, (0, 2), (4, 5)),
    ("pronoun_in_modifier", "A/DT man/NN with/IN fans/NNS watching/VBG him/PRP ./.", 4, (3, 4), (5, 6)),
    ("premodifier_compound", "Three/CD hood/NN wearing/VBG people/NNS stand/VBP ./.", 2, (0, 2), (3, 4)),
    ("bare_participial_agent", "Woman/NN carrying/VBG a/DT child/NN ./.", 1, (0, 1), (2, 4)),
    ("mutual_perception", "The/DT crowd/NN sees/VBZ a/DT woman/NN ./.", 2, (0, 2), (3, 5)),
    ("negated_predicate", "Women/NNS do/VBP n't/RB wear/VB much/JJ clothing/NN ./.", 3, (0, 1), (4, 6)),
    ("symmetric_predicate", "A/DT man/NN meets/VBZ a/DT woman/NN ./.", 2, (0, 2), (3, 5)),
    ("path_argument", "A/DT woman/NN walking/VBG down/RP a/DT sidewalk/NN ./.", 2, (0, 2), (4, 6)),
    ("indistinct_arguments", "A/DT man/NN kicks/VBZ another/DT man/NN ./.", 2, (0, 2), (3, 5)),
]
KEPT = [
    (
        "a list closed by 'and' may hold commas",
        "A/DT man/NN wearing/VBG shorts/NNS ,/, shirts/NNS and/CC hats/NNS sings/VBZ ./.",
        2,
        (0, 2),
        (3, 8),
        "Shorts , shirts and hats wearing a man sings .",
    ),
    (
        "a relative clause may hold a verb",
        "A/DT man/NN who/WP sits/VBZ holds/VBZ a/DT cup/NN ./.",
        4,
        (0, 4),
        (5, 7),
        "A cup holds a man who sits .",
    ),
    (
        "an auxiliary between agent and verb is no noun",
        "A/DT man/NN is/VBZ holding/VBG a/DT cup/NN ./.",
        3,
        (0, 2),
        (4, 6),
        "A cup is holding a man .",
    ),
    (
        "'smiling men' is a noun phrase",
        "Smiling/VBG men/NNS carry/VBP a/DT box/NN ./.",
        2,
        (0, 2),
        (3, 5),
        "A box carry smiling men .",
    ),
]


@pytest.mark.parametrize("reason, tagged, verb, agent, patient", CASES)
def test_filter_drops(reason, tagged, verb, agent, patient):
    assert reason in FILTER_DESCRIPTIONS
    assert review(*parse(tagged, verb, agent, patient))[1] == reason


@pytest.mark.parametrize("case, tagged, verb, agent, patient, expected", KEPT)
def test_filter_keeps(case, tagged, verb, agent, patient, expected):
    swap, reason = review(*parse(tagged, verb, agent, patient))
    assert reason is None and " ".join(swap.tokens) == expected


def test_every_filter_has_a_case():
    assert {c[0] for c in CASES} == set(FILTER_DESCRIPTIONS)
