"""The shuffle variants on hand-made parses: every invariant, determinism, and 'does not apply'."""

import random

import pytest

from swapbench.errors import SwapbenchError
from swapbench.parsing.base import Parse
from swapbench.parsing.ptb import PTBParser
from swapbench.sources import Pair
from swapbench.variants import make_variant
from swapbench.variants.base import example_rng, shuffled
from swapbench.variants.shuffle import ConstituencyShuffle

TREE = ("(ROOT (S (NP (NP (CD Two) (JJ young) (NNS children)) (PP (IN in) (NP (JJ blue) (NNS jerseys)))) "
        "(VP (VBP are) (VP (VBG running) (ADVP (RB very) (RB quickly)) (PP (IN through) (NP (DT a) (JJ big) "
        "(NN field))))) (. .)))")
PARSE = PTBParser().parse_many([TREE])[0]
PAIR = Pair("p1", "Two young children in blue jerseys are running very quickly through a big field.",
            "Kids run.", "entailment", TREE, None, "fixture", 1)
# Drawn with seed 0 for pair "p1" by the per-example random.Random generators.
PINNED_SHUFFLE_3 = "children Two young in jerseys blue are running very quickly through a field big ."
PINNED_RANDOM = "young very in quickly through big a children Two blue running field are jerseys ."


def check_shuffle(parse, result):
    """The invariants every premise shuffle keeps."""
    perm = result.permutation
    assert sorted(perm) == list(range(len(parse.tokens)))
    assert result.premise == " ".join(parse.tokens[k] for k in perm)
    assert all(perm[i] == i for i, p in enumerate(parse.punct) if p)  # punctuation stays in place
    assert [w.casefold() for w in result.premise.split()] != [w.casefold() for w in parse.tokens]
    assert (result.hypothesis, result.label) == (PAIR.hypothesis, PAIR.label)


@pytest.mark.parametrize("size, expected", [
    (2, {("ADVP", "very quickly"), ("NP", "blue jerseys")}),
    (3, {("NP", "Two young children"), ("PP", "in blue jerseys"), ("NP", "a big field")}),
    (4, {("PP", "through a big field")}),
])
def test_constituents_of_exactly_n_words_are_shuffled_inside_themselves(size, expected):
    variant = make_variant(f"shuffle-{size}")
    result = variant.apply(PAIR, PARSE, example_rng(0, PAIR.pair_id, variant.name))
    check_shuffle(PARSE, result)
    moved = {(m["label"], m["text"]) for m in result.extra["moved_spans"]}
    assert moved <= expected
    # Every moved word stays inside its constituent; words outside moved constituents stay put.
    inside = set()
    for m in result.extra["moved_spans"]:
        span = range(m["start"], m["end"])
        inside.update(span)
        assert all(result.permutation[i] in span for i in span)
    assert all(result.permutation[i] == i for i in range(len(PARSE.tokens)) if i not in inside)


def test_scope_all_moves_every_target_and_scope_one_exactly_one():
    every = ConstituencyShuffle(3, scope="all")
    targets = {(c.label, c.start, c.end) for c in every.targets(PARSE)}
    assert {(c.label, " ".join(PARSE.tokens[c.start:c.end])) for c in every.targets(PARSE)} == {
        ("NP", "Two young children"), ("PP", "in blue jerseys"), ("NP", "a big field")}
    result = every.apply(PAIR, PARSE, example_rng(0, "p1", "shuffle-3"))
    assert {(m["label"], m["start"], m["end"]) for m in result.extra["moved_spans"]} == targets
    assert result.tags == ["label:NP", "label:PP", "moved:3"]
    one = ConstituencyShuffle(3, scope="one")
    for seed in range(5):
        assert len(one.apply(PAIR, PARSE, example_rng(seed, "p1", "shuffle-3")).extra["moved_spans"]) == 1


def test_nested_constituents_with_the_same_words_count_once():
    parse = PTBParser().parse_many(["(ROOT (NP (NP (NP (DT a) (JJ red) (NN car))) (. .)))"])[0]
    assert len(ConstituencyShuffle(3).targets(parse)) == 1


def test_not_applicable_returns_none():
    no_target = PTBParser().parse_many(["(ROOT (S (NP (NNS Dogs)) (VP (VBP run)) (. .)))"])[0]
    assert make_variant("shuffle-3").apply(PAIR, no_target, random.Random(0)) is None
    # "The the the" can only change case, which an uncased model would not see.
    same_words = PTBParser().parse_many(["(ROOT (NP (NP (DT The) (DT the) (DT the)) (NP (DT a) (NN dog))))"])[0]
    assert make_variant("shuffle-3").apply(PAIR, same_words, random.Random(0)) is None
    one_word = Parse(("Hello", "."), ("UH", "."), (False, True), ())
    assert make_variant("shuffle-random").apply(PAIR, one_word, random.Random(0)) is None


def test_random_shuffle_moves_all_words_and_keeps_punctuation():
    result = make_variant("shuffle-random").apply(PAIR, PARSE, example_rng(0, "p1", "shuffle-random"))
    check_shuffle(PARSE, result)
    assert sorted(result.premise.split()) == sorted(PARSE.tokens)
    assert result.tags == ["words:14"]


def test_generators_depend_only_on_seed_pair_and_variant():
    draw = lambda *key: example_rng(*key).sample(range(20), 20)  # noqa: E731
    assert draw(0, "p1", "shuffle-3") == draw(0, "p1", "shuffle-3")
    assert draw(0, "p1", "shuffle-3") != draw(1, "p1", "shuffle-3")
    assert draw(0, "p1", "shuffle-3") != draw(0, "p2", "shuffle-3")
    assert draw(0, "p1", "shuffle-3") != draw(0, "p1", "shuffle-4")


def test_shuffled_draws_the_order_random_shuffle_would():
    # The first draw that changes the words is random.Random.shuffle's: every built dataset depends on it.
    words = [f"w{i}" for i in range(6)]
    for seed in range(50):
        order = list(range(6))
        random.Random(seed).shuffle(order)
        expected = order if order != list(range(6)) else None
        if expected:
            assert shuffled(words, random.Random(seed)) == expected


def test_shuffles_are_pinned():
    # The leaderboard's reference fingerprints hold only while the same seed draws the same shuffle.
    shuffle_3 = make_variant("shuffle-3").apply(PAIR, PARSE, example_rng(0, "p1", "shuffle-3"))
    random = make_variant("shuffle-random").apply(PAIR, PARSE, example_rng(0, "p1", "shuffle-random"))
    assert shuffle_3.premise == PINNED_SHUFFLE_3
    assert random.premise == PINNED_RANDOM


def test_shuffle_phrases_are_found_once_per_parse():
    phrases = PARSE.shuffle_phrases(4)
    assert PARSE.shuffle_phrases(4) is phrases  # the pairs sharing a premise share the work
    assert [(p.span.label, p.words) for p in phrases] == [("PP", (10, 11, 12, 13))]
    # The memo is not part of the value: a parse that has used it equals and hashes like a fresh one.
    fresh = PTBParser().parse_many([TREE])[0]
    assert fresh == PARSE and hash(fresh) == hash(PARSE)


def test_variant_names_are_validated():
    assert make_variant("shuffle-7").size == 7
    with pytest.raises(SwapbenchError, match="at least 2 words"):
        make_variant("shuffle-1")
    with pytest.raises(SwapbenchError, match="unknown variant 'shuffle-x'"):
        make_variant("shuffle-x")
    with pytest.raises(ValueError, match="scope"):
        ConstituencyShuffle(3, scope="some")
