"""One hand-written sentence per construction, through shuffle-sr's prepare/apply, compared as exact strings.

Each runs with the spaCy labeler and with the tree reader on a hand-written PTB tree of the same sentence.
"""

from __future__ import annotations

import random

import pytest
from roles_helpers import english, pair, tree_of

from swapbench.roles.spacy_roles import SpacyRoles
from swapbench.roles.tree_roles import TreeRoles
from swapbench.variants.role_premise import PremiseRoleShuffle
from swapbench.variants.role_shuffle import RoleShuffle

LABELERS = ["spacy", "tree"]


def labeler(name: str):
    return SpacyRoles(nlp=english()) if name == "spacy" else TreeRoles()


def swap_premise(premise: str, name: str, hypothesis: str | None = None) -> str | None:
    """The premise swapped, as the paper's order does; the hypothesis, by default the premise itself, grounds it."""
    hypothesis = premise if hypothesis is None else hypothesis
    variant = PremiseRoleShuffle(srl=name, labeler=labeler(name))
    p = pair(premise, hypothesis, trees=name == "tree")
    if name == "tree":
        assert p.premise_parse, f"no hand-written tree for {premise!r}"
    variant.prepare([p])
    result = variant.apply(p, None, random.Random(0))
    return None if result is None else result.premise


SWAPS = {
    "active": ("Kids play soccer.", "Soccer play kids ."),
    "active, noun phrases keep their modifiers": (
        "A man in a grassy field throws a frisbee.",
        "A frisbee throws a man in a grassy field .",
    ),
    "passive: the noun phrases swap, 'by' stays": (
        "A car is being driven by two men.",
        "Two men is being driven by a car .",
    ),
    "passive, past tense": ("A baby was carried by her mother.", "Her mother was carried by a baby ."),
    "participial modifier: the modified noun phrase is the agent": (
        "A man recording a video.",
        "A video recording a man .",
    ),
    "participial modifier before the main verb": (
        "A woman holding an umbrella crosses the street.",
        "An umbrella holding a woman crosses the street .",
    ),
    "coordination": ("A man and a woman are eating a sandwich.", "A sandwich are eating a man and a woman ."),
    "coordination of full noun phrases": (
        "The bride and the groom cut the cake together.",
        "The cake cut the bride and the groom together .",
    ),
    "pronoun case, he -> him": ("A cop watches as he pokes a donut.", "A cop watches as a donut pokes him ."),
    "pronoun case, they -> them": (
        "They are watching a movie while eating popcorn.",
        "A movie are watching them while eating popcorn .",
    ),
}
NO_SWAP = {
    "no agent": "A ball was thrown into the lake.",
    "no patient": "A nurse is talking to a farmer.",
    "copula only": "The old man is tired.",
    "have is skipped like an auxiliary": "Two people have a conversation.",
    "intransitive": "Two dogs are running through the snow.",
    "a symmetric verb: the swap would say the same": "She hugs him in the kitchen.",
}


@pytest.mark.parametrize("name", LABELERS)
@pytest.mark.parametrize("case", list(SWAPS))
def test_swap(case, name):
    sentence, expected = SWAPS[case]
    assert swap_premise(sentence, name) == expected


@pytest.mark.parametrize("name", LABELERS)
@pytest.mark.parametrize("case", list(NO_SWAP))
def test_no_swap(case, name):
    assert swap_premise(NO_SWAP[case], name) is None


def test_a_lower_case_sentence_stays_lower_case():
    assert swap_premise("a dog chases a ball.", "spacy") == "a ball chases a dog ."


def test_spacys_misparse_is_filtered_where_the_tree_reader_gets_it_right():
    # spaCy tags "pulls" as an adjective, so its patient of "wearing" is "pink pulls weeds": not a noun phrase.
    assert swap_premise("A child wearing pink pulls weeds.", "spacy") is None
    assert tree_of("A child wearing pink pulls weeds.")
    assert swap_premise("A child wearing pink pulls weeds.", "tree") == "Pink wearing a child pulls weeds ."


def test_a_reflexive_swap_is_dropped_with_its_reason():
    variant = RoleShuffle(srl="spacy", labeler=labeler("spacy"))
    p = pair("A man shaves himself.", "A man is shaving.")
    variant.prepare([p])
    assert variant.apply(p, None, random.Random(0)) is None
    stats = variant.statistics()
    assert (stats["candidates"], stats["filtered"], stats["final"]) == (1, 1, 0)
    assert stats["drop_reasons"] == {"reflexive_or_reciprocal": 1}
