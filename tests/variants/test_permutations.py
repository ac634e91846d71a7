"""unlu: K distinct permutations of every pair, every word moved, punctuation in place (UNLU's), by the pair's own
generator; and the build's rows, K per pair, keyed by permutation_index."""

import itertools

import datasets
import pytest
from roles_helpers import FIXTURES

from swapbench.commands.main import main
from swapbench.parsing.ptb import PTBParser
from swapbench.sources import Pair
from swapbench.variants import make_variant
from swapbench.variants.permutations import derangement_count, distinct_derangements, independent_derangements
from swapbench.variants.randomness import ExampleRandom, example_rng

TREE = "(ROOT (S (NP (DT A) (JJ tall) (NN man)) (, ,) (VP (VBZ holds) (NP (DT a) (JJ red) (NN kite))) (. .)))"
PARSE = PTBParser().parse_many([TREE])[0]
PAIR = Pair("p1", "A tall man, holds a red kite.", "A man holds a kite .", "entailment", TREE, None, "fixture", 1)
HYPOTHESIS_TOKENS = ["A", "man", "holds", "a", "kite", "."]


def test_derangements_are_counted_and_drawn_distinct_and_moving_every_item():
    assert [derangement_count(n) for n in range(8)] == [1, 0, 1, 2, 9, 44, 265, 1854]
    for n, k in ((4, 9), (5, 10), (7, 50), (9, 20)):
        drawn = distinct_derangements(n, k, ExampleRandom(b"key"))
        assert len(drawn) == k and len(set(drawn)) == k
        assert all(sorted(d) == list(range(n)) and all(i != p for i, p in enumerate(d)) for d in drawn)
    assert distinct_derangements(4, 10, ExampleRandom(b"key")) is None  # 9 derangements of 4 words
    assert distinct_derangements(1, 1, ExampleRandom(b"key")) is None
    # The same key draws the same permutations; another key others.
    assert distinct_derangements(6, 5, ExampleRandom(b"a")) == distinct_derangements(6, 5, ExampleRandom(b"a"))
    assert distinct_derangements(6, 5, ExampleRandom(b"a")) != distinct_derangements(6, 5, ExampleRandom(b"b"))


def test_all_nine_derangements_of_four_words_are_drawn_when_nine_are_asked_for():
    assert sorted(distinct_derangements(4, 9, ExampleRandom(b"x"))) == sorted(
        p for p in itertools.permutations(range(4)) if all(i != k for i, k in enumerate(p))
    )


def apply(k: int, sides: str = "both"):
    variant = make_variant("unlu", unlu_permutations=k, unlu_sides=sides)
    variant.prepare([PAIR], {PAIR.pair_id: (" ".join(PARSE.tokens), " ".join(HYPOTHESIS_TOKENS))})
    return variant.apply(PAIR, PARSE, example_rng(0, PAIR.pair_id, variant.name))


def test_each_row_permutes_every_word_of_both_sentences_and_keeps_punctuation_in_place():
    rows = apply(8)
    assert [r.extra["permutation_index"] for r in rows] == list(range(8))
    assert len({tuple(r.permutation) for r in rows}) == 8
    assert len({tuple(r.extra["hypothesis_permutation"]) for r in rows}) == 8
    words = [i for i, p in enumerate(PARSE.punct) if not p]
    for row in rows:
        perm = row.permutation
        assert row.premise == " ".join(PARSE.tokens[k] for k in perm)
        assert all(perm[i] == i for i, p in enumerate(PARSE.punct) if p)
        assert all(perm[i] != i for i in words)  # no word stays in its place
        h = row.extra["hypothesis_permutation"]
        assert row.hypothesis == " ".join(HYPOTHESIS_TOKENS[k] for k in h)
        assert h[-1] == 5 and all(h[i] != i for i in range(5))
        assert row.label == PAIR.label and row.tags == ["words:7"]


def test_the_premise_alone_is_permuted_on_request_and_a_pair_without_k_orders_is_left_out():
    rows = apply(20, sides="premise")
    assert len(rows) == 20
    assert all(r.hypothesis == PAIR.hypothesis and r.extra["hypothesis_permutation"] == [] for r in rows)
    # The hypothesis's 5 words have 44 derangements: 45 permutations of both sides cannot be distinct.
    assert apply(45) is None
    assert len(apply(44)) == 44


def test_the_build_writes_k_rows_per_pair_keyed_by_permutation_index(tmp_path):
    out = tmp_path / "data"
    assert (
        main(
            [
                "build",
                "--source",
                str(FIXTURES),
                "--out",
                str(out),
                "--no-cache",
                "--variants",
                "unlu",
                "--unlu-permutations",
                "3",
            ]
        )
        == 0
    )
    table = datasets.load_dataset(str(out), "unlu", split="test")
    by_pair: dict[str, list[int]] = {}
    for row in table:
        by_pair.setdefault(row["pair_id"], []).append(row["permutation_index"])
        assert row["premise"] != row["original_premise"] and row["hypothesis"] != row["original_hypothesis"]
    assert by_pair and all(indices == [0, 1, 2] for indices in by_pair.values())


def test_unlu_options_are_refused_without_unlu(tmp_path, capsys):
    assert (
        main(
            [
                "build",
                "--source",
                str(FIXTURES),
                "--out",
                str(tmp_path / "d"),
                "--variants",
                "shuffle-3",
                "--unlu-permutations",
                "5",
            ]
        )
        != 0
    )
    assert "--unlu-permutations applies to unlu" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["1", "1001"])
def test_k_out_of_range_is_refused(value, tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(
            [
                "build",
                "--source",
                str(FIXTURES),
                "--out",
                str(tmp_path / "d"),
                "--variants",
                "unlu",
                "--unlu-permutations",
                value,
            ]
        )
    assert "--unlu-permutations" in capsys.readouterr().err


def test_the_draws_unlu_made_and_the_one_that_keeps_short_sentences(tmp_path):
    """The hypothesis's 5 words have 44 derangements. Drawn distinct (the default), 44 permutations are all of them
    and 45 cannot be; drawn independently as UNLU drew them, 44 draws repeat (the pair is dropped, as UNLU's filter
    dropped it) and a few do not; kept with repeats, any K is met."""

    def draws(k: int, how: str):
        variant = make_variant("unlu", unlu_permutations=k, unlu_draws=how)
        variant.prepare([PAIR], {PAIR.pair_id: (" ".join(PARSE.tokens), " ".join(HYPOTHESIS_TOKENS))})
        return variant.apply(PAIR, PARSE, example_rng(0, PAIR.pair_id, variant.name))

    assert len(draws(44, "distinct")) == 44 and draws(45, "distinct") is None
    assert draws(44, "unlu") is None  # 44 independent draws among 44 orders repeat
    kept = draws(3, "unlu")
    assert len({tuple(r.extra["hypothesis_permutation"]) for r in kept}) == 3
    repeated = draws(60, "repeated")
    hypotheses = [tuple(r.extra["hypothesis_permutation"]) for r in repeated]
    assert len(repeated) == 60 and len(set(hypotheses)) < 60
    words = [i for i, p in enumerate(PARSE.punct) if not p]
    assert all(
        all(r.permutation[i] != i for i in words) and all(h[i] != i for i in range(5))
        for r, h in zip(repeated, hypotheses)
    )
    assert [r.extra["permutation_index"] for r in repeated] == list(range(60))


def test_independent_derangements_move_every_item_and_none_exist_for_one_item():
    drawn = independent_derangements(3, 20, ExampleRandom(b"k"), distinct=False)
    assert set(drawn) == {(1, 2, 0), (2, 0, 1)}  # both derangements of 3 items, repeated
    assert independent_derangements(3, 3, ExampleRandom(b"k"), distinct=True) is None
    assert independent_derangements(1, 2, ExampleRandom(b"k"), distinct=False) is None
    assert independent_derangements(0, 2, ExampleRandom(b"k"), distinct=False) is None


# The fixture's unlu rows as built before --unlu-draws existed (commit 94586f4): the default draws keep them byte for
# byte, and the build record does not name the option at its default.
DEFAULT_UNLU_FINGERPRINT = "sha256:5f3450a82f2e50747256e31a62efe1308faed6c3631664d95d3ab130ee54fe6e"


def test_the_default_build_keeps_its_unlu_rows_and_repeated_draws_keep_more_pairs(tmp_path):
    import json

    out = tmp_path / "data"
    assert main(["build", "--source", str(FIXTURES), "--out", str(out), "--no-cache", "--variants", "unlu"]) == 0
    info = json.loads((out / "build_info.json").read_text(encoding="utf-8"))
    [config] = info["configs"]
    assert config["fingerprint"] == DEFAULT_UNLU_FINGERPRINT
    assert info["variant_options"]["unlu"] == {"unlu_permutations": 10, "unlu_sides": "both"}
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "too short for K distinct derangements" in card and "--unlu-draws unlu" in card

    more = tmp_path / "repeated"
    assert (
        main(
            [
                "build",
                "--source",
                str(FIXTURES),
                "--out",
                str(more),
                "--no-cache",
                "--variants",
                "unlu",
                "--unlu-draws",
                "repeated",
            ]
        )
        == 0
    )
    again = json.loads((more / "build_info.json").read_text(encoding="utf-8"))
    assert again["variant_options"]["unlu"]["unlu_draws"] == "repeated"

    def pairs(folder):
        return set(datasets.load_dataset(str(folder), "unlu", split="test")["pair_id"])

    assert pairs(out) < pairs(more)  # the short hypotheses the default leaves out are kept
