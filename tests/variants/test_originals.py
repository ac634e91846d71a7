"""The original pair is rendered one way in every configuration: the same text, scored once."""

from __future__ import annotations

import pyarrow.parquet as pq

from swapbench.variants.originals import tree_tokens

CONFIGS = ["shuffle-3", "shuffle-random", "shuffle-sr"]


def test_every_configuration_renders_each_original_pair_the_same_way(build_fixture_dataset):
    out = build_fixture_dataset(CONFIGS)
    originals: dict[str, set] = {}
    for config in CONFIGS:
        for row in pq.read_table(next((out / config).glob("*.parquet"))).to_pylist():
            originals.setdefault(row["pair_id"], set()).add((row["original_premise"], row["original_hypothesis"]))
            if config != "shuffle-sr":  # a premise shuffle leaves the hypothesis as the original renders it
                assert row["hypothesis"] == row["original_hypothesis"]
    assert all(len(renderings) == 1 for renderings in originals.values()), originals
    # Tokens joined by single spaces, on both sides: "outside ." and not SNLI's raw "outside."
    (_, hypothesis), = originals["fx2b#2r1e"]
    assert hypothesis == "Children are running outside ."
    # ... by spaCy's tokenizer when the hypothesis tree does not spell the sentence (a fixture's copied tree).
    (premise, hypothesis), = originals["fx1a#1r1e"]
    assert (premise, hypothesis) == ("A man plays a red guitar on the street .", "A person makes music .")


def test_tree_tokens_reads_the_leaves_with_ptb_escapes_undone():
    tree = "(ROOT (S (NP (DT A) (NN man)) (VP (VBZ sells) (NP (-LRB- -LRB-) (`` ``) (NN fruit) ('' ''))) (. .)))"
    assert tree_tokens(tree) == ["A", "man", "sells", "(", '"', "fruit", '"', "."]
