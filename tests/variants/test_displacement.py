"""How far the shuffles move words: the figures of known permutations, the gradient the default scope gives on
hand-made trees, and the slice tag that compares the sizes on the same pairs."""

import pytest

from swapbench.parsing.ptb import PTBParser
from swapbench.results.displacement import distance, measured, moved, summarize
from swapbench.sources import Pair
from swapbench.variants import make_variant
from swapbench.variants.randomness import example_rng
from swapbench.variants.shuffle import DEFAULT_SCOPE, MATCHED_TAG, ConstituencyShuffle, matched

# Two NPs of 3 words, one of 4 inside a PP of 5: every size 3, 4 and 5, and more constituents of 3 words than of
# 4 or 5, as in SNLI's premises.
EVERY_SIZE = (
    "(ROOT (S (NP (DT the) (JJ old) (NN man)) (VP (VBZ gives) (NP (DT a) (JJ red) (NN ball)) "
    "(PP (TO to) (NP (DT the) (JJ small) (JJ happy) (NN boy)))) (. .)))"
)
# Constituents of 3 and 4 words, none of 5.
NO_FIVE = (
    "(ROOT (S (NP (DT a) (JJ tall) (NN woman)) (VP (VBZ reads) (NP (DT an) (JJ old) (JJ green) (NN book)) "
    "(ADVP (RB today))) (. .)))"
)
# Its only 3-word constituent repeats one word: it cannot be reordered, so the premise is not matched.
SAME_WORDS = (
    "(ROOT (S (NP (NN dog) (NN dog) (NN dog)) (VP (VBZ sees) (NP (DT the) (JJ old) (JJ brown) (NN cat)) "
    "(PP (IN in) (NP (DT the) (JJ big) (JJ green) (NN park)))) (. .)))"
)
EVERY_PARSE, NO_FIVE_PARSE, SAME_PARSE = PTBParser().parse_many([EVERY_SIZE, NO_FIVE, SAME_WORDS])


def pair(pair_id: str, tree: str) -> Pair:
    return Pair(pair_id, "a premise", "a hypothesis", "neutral", tree, None, "fixture", 1)


@pytest.mark.parametrize(
    "permutation, expected_distance, expected_moved",
    [
        ([0, 1, 2, 3], 0, 0),  # nothing moves
        ([1, 0, 2, 3], 2, 2),  # two neighbours swapped: each travels one position
        ([2, 1, 0, 3], 4, 2),  # the ends of three words swapped: the middle one stays
        ([1, 2, 0, 3], 4, 3),  # three words rotated: 1 + 1 + 2
        ([3, 2, 1, 0], 8, 4),  # four reversed: 3 + 1 + 1 + 3
        ([0, 4, 2, 3, 1, 5], 6, 2),  # two words three apart exchanged, punctuation (0, 5) in place
    ],
)
def test_a_known_permutation_moves_its_words_as_far_as_counted_by_hand(permutation, expected_distance, expected_moved):
    assert distance(permutation) == expected_distance
    assert moved(permutation) == expected_moved
    assert measured(permutation) == (expected_distance, expected_moved)


def test_a_row_without_a_permutation_is_not_measured_and_the_summary_leaves_it_out():
    assert measured([]) is None
    assert summarize([None, None]) is None
    summary = summarize([(2, 2), None, (4, 2), (4, 3), (8, 4), (6, 2)])
    assert summary.rows == 5
    assert summary.distance.mean == pytest.approx(4.8) and summary.distance.median == 4
    assert (summary.distance.min, summary.distance.max) == (2, 8)
    assert summary.distance.p25 == 4 and summary.distance.p75 == 6  # numpy's linear quantiles of 2 4 4 6 8
    assert summary.moved.mean == pytest.approx(2.6) and summary.moved.max == 4


def mean_distance(variant, parse, tree, pairs: int = 400) -> float:
    rows = [variant.apply(pair(f"p{i}", tree), parse, example_rng(0, f"p{i}", variant.name)) for i in range(pairs)]
    return summarize(measured(row.permutation) for row in rows).distance.mean


def test_the_default_scope_makes_a_gradient_of_distance_where_every_constituent_does_not():
    assert DEFAULT_SCOPE == "one"
    sizes = [make_variant(f"shuffle-{n}") for n in (3, 4, 5)] + [make_variant("shuffle-random")]
    one = [mean_distance(v, EVERY_PARSE, EVERY_SIZE) for v in sizes]
    assert one[0] < one[1] < one[2] < one[3]
    # One constituent of n words drawn uniformly among the orders that change it moves them (n² - 1) / 3 n! /
    # (n! - 1) positions on average: 3.2, 5.22, 8.07.
    assert one[:3] == pytest.approx([3.2, 5.22, 8.07], abs=0.4)
    # Shuffling every constituent, shuffle-3 moves both NPs of 3 words, farther in all than shuffle-4's one NP.
    every = [mean_distance(ConstituencyShuffle(n, scope="all"), EVERY_PARSE, EVERY_SIZE) for n in (3, 4)]
    assert every[0] > every[1]


def test_the_scope_one_draws_only_among_constituents_that_can_change():
    # SAME_WORDS has two 4-word NPs and no 3-word one that can change: shuffle-3 never applies, whatever the draw
    shuffle_3, shuffle_4 = make_variant("shuffle-3"), make_variant("shuffle-4")
    assert all(
        shuffle_3.apply(pair(f"p{i}", SAME_WORDS), SAME_PARSE, example_rng(0, f"p{i}", "shuffle-3")) is None
        for i in range(50)
    )
    assert all(
        shuffle_4.apply(pair(f"p{i}", SAME_WORDS), SAME_PARSE, example_rng(0, f"p{i}", "shuffle-4")) is not None
        for i in range(50)
    )


def test_the_matched_tag_marks_the_pairs_every_size_and_shuffle_random_have():
    assert matched(EVERY_PARSE) and not matched(NO_FIVE_PARSE) and not matched(SAME_PARSE)
    names = ["shuffle-3", "shuffle-4", "shuffle-5", "shuffle-random"]
    trees = {"every": (EVERY_SIZE, EVERY_PARSE), "no-five": (NO_FIVE, NO_FIVE_PARSE), "same": (SAME_WORDS, SAME_PARSE)}
    tagged = {}
    for name in names:
        for scope in ("one", "all"):
            variant = make_variant(name, shuffle_scope=scope) if name != "shuffle-random" else make_variant(name)
            rows = {
                key: variant.apply(pair(key, tree), parse, example_rng(0, key, name))
                for key, (tree, parse) in trees.items()
            }
            tagged[name, scope] = {key for key, row in rows.items() if row is not None and MATCHED_TAG in row.tags}
    assert all(found == {"every"} for found in tagged.values())
    # shuffle-4 has rows outside the tag: its slice under the tag is the pairs shuffle-5 has too
    assert (
        make_variant("shuffle-4").apply(pair("no-five", NO_FIVE), NO_FIVE_PARSE, example_rng(0, "no-five", "shuffle-4"))
        is not None
    )


def test_rows_measured_together_are_each_row_measured_by_the_definition():
    """measure_rows reads all rows in one numpy pass; rows without a permutation (anywhere: first, between, last,
    all of them) stay None, and every other row is sum |k - p[k]| and the count of p[k] != k."""
    import random

    from swapbench.results.displacement import measure_rows

    generator = random.Random(0)
    rows = [[], [0], [1, 0], [], []]
    for _ in range(500):
        row = list(range(generator.randint(0, 9)))
        generator.shuffle(row)
        rows.append(row)
    rows.append([])
    expected = [
        (sum(abs(k - p) for k, p in enumerate(row)), sum(k != p for k, p in enumerate(row))) if row else None
        for row in rows
    ]
    assert measure_rows(rows) == expected
    assert measure_rows([[], []]) == [None, None] and measure_rows([]) == []
