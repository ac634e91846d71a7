"""The grounded quartets' own filters (variants/quartet_filters.py), on hand-tagged sentences of ours: each drops
the exchange that leaves part of the relation behind, and lets the plain one through."""

from __future__ import annotations

import pytest

from swapbench.roles.base import Frame, RoleParse, Span
from swapbench.variants.quartet_filters import QUARTET_FILTERS, quartet_reason
from swapbench.variants.role_quartets import REASONS, exchanged, is_permutation
from swapbench.variants.role_swap import exchange


def swap_of(tagged: str, verb: int, agent: tuple[int, int], patient: tuple[int, int]):
    tokens, tags = zip(*(item.rsplit("/", 1) for item in tagged.split()))
    frame = Frame(verb, Span(*agent), Span(*patient))
    return exchange(RoleParse(tokens, tags, (frame,), "hand"), frame)


@pytest.mark.parametrize(
    ("tagged", "verb", "agent", "patient", "reason"),
    [
        # "her hands" stays while the holder changes: H' would give the kettle a woman's hands
        (
            "A/DT woman/NN holds/VBZ a/DT kettle/NN in/IN her/PRP$ hands/NNS ./.",
            2,
            (0, 2),
            (3, 5),
            "pronoun_left_behind",
        ),
        (
            "A/DT goat/NN pulls/VBZ a/DT cart/NN with/IN a/DT farmer/NN behind/IN it/PRP ./.",
            2,
            (0, 2),
            (3, 5),
            "pronoun_left_behind",
        ),
        # the owner left behind: "a man 's kite chases a puppy"
        ("A/DT man/NN 's/POS puppy/NN chases/VBZ a/DT kite/NN ./.", 4, (3, 4), (5, 7), "possessive_split"),
        # the lawn is where the dog runs, not what carries the kite
        (
            "A/DT dog/NN runs/VBZ along/IN the/DT lawn/NN carrying/VBG a/DT kite/NN ./.",
            6,
            (4, 6),
            (7, 9),
            "prepositional_argument",
        ),
        # only tried: the hypothesis "a boy kicks a melon" does not follow
        ("A/DT boy/NN tries/VBZ to/TO kick/VB a/DT melon/NN ./.", 4, (0, 2), (5, 7), "not_asserted"),
        # the girl's riding stays as it was when the man's is exchanged
        (
            "A/DT man/NN rides/VBZ a/DT mule/NN near/IN a/DT girl/NN riding/VBG a/DT camel/NN ./.",
            2,
            (0, 2),
            (3, 5),
            "repeated_event",
        ),
    ],
)
def test_an_exchange_that_leaves_part_of_the_relation_behind_is_dropped(tagged, verb, agent, patient, reason):
    assert quartet_reason(swap_of(tagged, verb, agent, patient)) == reason
    assert reason in REASONS  # counted in the card with its description


@pytest.mark.parametrize(
    ("tagged", "verb", "agent", "patient"),
    [
        ("A/DT woman/NN holds/VBZ a/DT kettle/NN in/IN the/DT kitchen/NN ./.", 2, (0, 2), (3, 5)),
        # a pronoun inside an argument moves with it: "his puppy walks a man"
        ("A/DT man/NN walks/VBZ his/PRP$ puppy/NN ./.", 2, (0, 2), (3, 5)),
        ("A/DT man/NN 's/POS puppy/NN chases/VBZ a/DT kite/NN ./.", 4, (0, 4), (5, 7)),
        # a passive's "by" is no preposition of place
        ("A/DT kite/NN is/VBZ carried/VBN by/IN a/DT dog/NN ./.", 3, (5, 7), (0, 2)),
        ("A/DT man/NN rides/VBZ a/DT mule/NN near/IN a/DT girl/NN holding/VBG a/DT camel/NN ./.", 2, (0, 2), (3, 5)),
    ],
)
def test_a_plain_exchange_passes(tagged, verb, agent, patient):
    swap = swap_of(tagged, verb, agent, patient)
    assert quartet_reason(swap) is None
    assert is_permutation(swap.parse.tokens, swap.tokens)


def test_the_quartet_filters_do_not_touch_shuffle_srs():
    # exchanged() (shared with the written quartets) and shuffle-sr's filters still let it through: the quartet
    # filters apply to grounded quartets only, in role_quartets._grounded_quartet
    tokens = "A woman holds a kettle in her hands .".split()
    tags = ("DT", "NN", "VBZ", "DT", "NN", "IN", "PRP$", "NNS", ".")
    frame = Frame(2, Span(0, 2), Span(3, 5))
    swap, reason = exchanged(RoleParse(tuple(tokens), tags, (frame,), "hand"), frame)
    assert reason is None and " ".join(swap.tokens) == "A kettle holds a woman in her hands ."
    assert {f.name for f in QUARTET_FILTERS} <= set(REASONS)
