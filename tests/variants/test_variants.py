"""The shuffle variants on hand-made parses: every invariant, determinism, and 'does not apply'."""

import pytest

from swapbench.core.errors import SwapbenchError
from swapbench.parsing.base import Parse
from swapbench.parsing.ptb import PTBParser
from swapbench.sources import Pair
from swapbench.variants import make_variant
from swapbench.variants.randomness import changed_order, example_rng
from swapbench.variants.shuffle import ConstituencyShuffle

TREE = (
    "(ROOT (S (NP (NP (CD Two) (JJ young) (NNS children)) (PP (IN in) (NP (JJ blue) (NNS jerseys)))) "
    "(VP (VBP are) (VP (VBG running) (ADVP (RB very) (RB quickly)) (PP (IN through) (NP (DT a) (JJ big) "
    "(NN field))))) (. .)))"
)
PARSE = PTBParser().parse_many([TREE])[0]
PAIR = Pair(
    "p1",
    "Two young children in blue jerseys are running very quickly through a big field.",
    "Kids run.",
    "entailment",
    TREE,
    None,
    "fixture",
    1,
)
# Drawn with seed 0 for pair "p1" by the per-example generators (ExampleRandom).
PINNED_SHUFFLE_3 = "Two children young in blue jerseys are running very quickly through a big field ."  # scope one
PINNED_SHUFFLE_3_ALL = "young children Two in jerseys blue are running very quickly through field a big ."
PINNED_RANDOM = "through very jerseys a Two field children young blue quickly are big in running ."


def check_shuffle(parse, result):
    """The invariants every premise shuffle keeps."""
    perm = result.permutation
    assert sorted(perm) == list(range(len(parse.tokens)))
    assert result.premise == " ".join(parse.tokens[k] for k in perm)
    assert all(perm[i] == i for i, p in enumerate(parse.punct) if p)  # punctuation stays in place
    assert [w.casefold() for w in result.premise.split()] != [w.casefold() for w in parse.tokens]
    assert (result.hypothesis, result.label) == (PAIR.hypothesis, PAIR.label)


@pytest.mark.parametrize(
    "size, expected",
    [
        (2, {("ADVP", "very quickly"), ("NP", "blue jerseys")}),
        (3, {("NP", "Two young children"), ("PP", "in blue jerseys"), ("NP", "a big field")}),
        (4, {("PP", "through a big field")}),
    ],
)
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
    assert {(c.label, " ".join(PARSE.tokens[c.start : c.end])) for c in every.targets(PARSE)} == {
        ("NP", "Two young children"),
        ("PP", "in blue jerseys"),
        ("NP", "a big field"),
    }
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
    assert make_variant("shuffle-3").apply(PAIR, no_target, example_rng(0, "p1", "v")) is None
    # "The the the" can only change case, which an uncased model would not see.
    same_words = PTBParser().parse_many(["(ROOT (NP (NP (DT The) (DT the) (DT the)) (NP (DT a) (NN dog))))"])[0]
    assert make_variant("shuffle-3").apply(PAIR, same_words, example_rng(0, "p1", "v")) is None
    one_word = Parse(("Hello", "."), ("UH", "."), (False, True), ())
    assert make_variant("shuffle-random").apply(PAIR, one_word, example_rng(0, "p1", "v")) is None


def test_random_shuffle_moves_all_words_and_keeps_punctuation():
    result = make_variant("shuffle-random").apply(PAIR, PARSE, example_rng(0, "p1", "shuffle-random"))
    check_shuffle(PARSE, result)
    assert sorted(result.premise.split()) == sorted(PARSE.tokens)
    assert result.tags == ["words:14"]


def test_generators_depend_only_on_seed_pair_and_variant():
    draw = lambda *key: example_rng(*key).permutation(20)  # noqa: E731
    assert draw(0, "p1", "shuffle-3") == draw(0, "p1", "shuffle-3")
    assert draw(0, "p1", "shuffle-3") != draw(1, "p1", "shuffle-3")
    assert draw(0, "p1", "shuffle-3") != draw(0, "p2", "shuffle-3")
    assert draw(0, "p1", "shuffle-3") != draw(0, "p1", "shuffle-4")
    # Successive draws of one generator are fresh, whatever their sizes.
    rng = example_rng(0, "p1", "shuffle-3")
    assert len({tuple(rng.permutation(6)) for _ in range(30)}) > 20
    assert sorted(rng.permutation(200)) == list(range(200))  # more than one hash holds


@pytest.mark.parametrize("n", [2, 3, 4, 7])  # 7: decoded, not looked up
def test_orders_are_uniform(n):
    """Every order of n words equally likely, over examples (chi-square at the 0.1% level)."""
    import math

    from scipy.stats import chisquare

    draws = 600 * math.factorial(n) if n < 7 else 100_000
    counts = {}
    for i in range(draws):
        order = tuple(example_rng(0, f"p{i}", "shuffle-x").permutation(n))
        counts[order] = counts.get(order, 0) + 1
    if n < 7:
        assert len(counts) == math.factorial(n)
        assert chisquare(list(counts.values())).pvalue > 0.001
    else:  # too many orders to see each often: the position of each word is uniform instead
        first = [0] * n
        for order, count in counts.items():
            first[order[0]] += count
        assert chisquare(first).pvalue > 0.001


def test_draws_below_m_are_uniform_and_bounded():
    from scipy.stats import chisquare

    rng = example_rng(3, "p1", "shuffle-3")
    values = [rng.below(7) for _ in range(70_000)]
    assert set(values) == set(range(7))
    assert chisquare([values.count(v) for v in range(7)]).pvalue > 0.001
    assert {rng.below(1) for _ in range(10)} == {0}
    with pytest.raises(ValueError, match="at least 1"):
        rng.below(0)


def test_changed_order_changes_the_words_and_draws_uniformly_among_the_orders_that_do():
    words = ["a", "b", "A"]  # "A" and "a" read the same, case aside: 2 of the 6 orders change nothing
    seen = {}
    for i in range(3000):
        order = changed_order(tuple(w.casefold() for w in words), example_rng(0, f"p{i}", "v"))
        assert [words[k].casefold() for k in order] != ["a", "b", "a"]
        key = tuple(words[k].casefold() for k in order)
        seen[key] = seen.get(key, 0) + 1
    assert set(seen) == {("b", "a", "a"), ("a", "a", "b")}
    assert abs(seen[("b", "a", "a")] / 3000 - 0.5) < 0.05


def test_shuffles_are_pinned():
    # The leaderboard's reference fingerprints hold only while the same seed draws the same shuffle.
    shuffle_3 = make_variant("shuffle-3").apply(PAIR, PARSE, example_rng(0, "p1", "shuffle-3"))
    every = ConstituencyShuffle(3, scope="all").apply(PAIR, PARSE, example_rng(0, "p1", "shuffle-3"))
    random = make_variant("shuffle-random").apply(PAIR, PARSE, example_rng(0, "p1", "shuffle-random"))
    assert shuffle_3.premise == PINNED_SHUFFLE_3
    assert every.premise == PINNED_SHUFFLE_3_ALL
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
