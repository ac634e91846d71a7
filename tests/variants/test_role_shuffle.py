"""shuffle-sr as a configuration of `swapbench build`: columns, slice tags, card, curation file, SNLI test split."""

from __future__ import annotations

import json
import re

import pyarrow.parquet as pq
import pytest
from roles_helpers import FIXTURES

from swapbench.core.errors import SwapbenchError
from swapbench.core.selection import Decision, append_decision
from swapbench.core.text import public_path
from swapbench.dataset.pipeline import build, build_options
from swapbench.variants import DEFAULT_VARIANTS, make_variant

SOURCE = FIXTURES / "snli_roles.jsonl"
# Pronoun case is the one change a swap makes to the words themselves.
CASE = {"me": "i", "him": "he", "her": "she", "us": "we", "them": "they", "whom": "who"}


def rows_of(out, config: str = "shuffle-sr") -> dict[str, dict]:
    table = pq.read_table(next((out / config).glob("*.parquet")))
    return {row["pair_id"]: row for row in table.to_pylist()}


def words(sentence: str) -> list[str]:
    """The sentence's words and marks, casefolded, pronouns in one case, in sorted order (spacing aside)."""
    return sorted(CASE.get(w.lower(), w.lower()) for w in re.findall(r"[\w']+|[^\w\s]", sentence))


def check_invariants(rows: dict[str, dict]) -> None:
    for row in rows.values():
        assert row["label"] == 2 and row["binary_label"] == 1  # contradiction; non-entailment
        side = row["swapped_side"]
        other = "hypothesis" if side == "premise" else "premise"
        assert row[other] == row[f"original_{other}"], row["pair_id"]
        assert row[side].lower() != row[f"original_{side}"].lower(), row["pair_id"]
        assert words(row[side]) == words(row[f"original_{side}"]), row["pair_id"]


def test_shuffle_sr_is_built_by_default_and_named_like_the_others():
    assert "shuffle-sr" in DEFAULT_VARIANTS
    assert make_variant("shuffle-sr", srl="spacy").name == "shuffle-sr"


def test_the_papers_order_swaps_the_premise_first_and_falls_back_to_the_hypothesis(tmp_path):
    # shuffle-sr-premise: the premise first, where the hypothesis grounds its swap; else the hypothesis
    out, info = build(build_options(source=str(SOURCE), out=tmp_path / "out", variants=["shuffle-sr-premise"]))
    rows = rows_of(out, "shuffle-sr-premise")
    check_invariants(rows)
    assert set(rows) == {"rl1#0r1e", "rl2#0r1e", "rl6#0r1e"}  # rl3 is neutral, rl4 filtered, rl5 copula only
    # rl1's premise swap ("a frisbee throws a man") is not grounded: "A man throws something." names no frisbee
    assert rows["rl1#0r1e"]["swapped_side"] == "hypothesis"
    # animacy tags name the agent's and the patient's: "A man" acts on "something"
    assert rows["rl1#0r1e"]["tags"] == [
        "side:hypothesis",
        "construction:active",
        "labeler:agree",
        "animacy:animate-inanimate",
        "fallback",
    ]
    assert rows["rl1#0r1e"]["hypothesis"] == "Something throws a man."
    passive = rows["rl6#0r1e"]
    assert passive["premise"] == "Two men is being driven by a car."
    assert passive["original_premise"] == "A car is being driven by two men."
    assert passive["source_premise"] == "A car is being driven by two men."
    assert (passive["verb"], passive["verb_index"], passive["labeler"]) == ("driven", 4, "agree")
    assert passive["agent"] == {"text": "two men", "start": 6, "end": 8}
    assert passive["patient"] == {"text": "A car", "start": 0, "end": 2}
    assert passive["tags"] == ["side:premise", "construction:passive", "labeler:agree", "animacy:animate-inanimate"]
    # rl2's premise has no verb with both roles ("running through the snow"): the hypothesis is Algorithm 1's
    # first pick, no fallback
    assert rows["rl2#0r1e"]["tags"] == [
        "side:hypothesis",
        "construction:active",
        "labeler:agree",
        "animacy:animate-inanimate",
    ]
    assert rows["rl2#0r1e"]["permutation"] == []

    config = info.configs[0]
    assert (config.rows, config.not_applicable) == (3, 3)
    assert config.extra["candidates"] - config.extra["filtered"] == config.extra["final"] == 3
    card = (out / "README.md").read_text()
    assert "4 of 5 entailment pairs had a swappable verb (candidates); 1 was dropped by the filters; 3 kept" in card
    assert "| `reflexive_or_reciprocal` | 1 |" in card
    assert "its side:premise slice is what differs from shuffle-sr" in card
    # the judged sample on record is shuffle-sr's, not this configuration's
    assert "Validity was not measured for this build" in card
    features = json.loads(pq.read_schema(next((out / "shuffle-sr-premise").glob("*.parquet"))).metadata[b"huggingface"])
    assert features["info"]["features"]["binary_label"]["names"] == ["entailment", "non-entailment"]
    assert (config.name, config.extra["order"]) == ("shuffle-sr-premise", "premise-first")
    # built alone, it records its role labeler as shuffle-sr does
    assert info.role_labeler == "auto" and "- Role labeler of the role swaps: `--srl auto`." in card


def test_both_orders_build_side_by_side_and_share_the_swaps_of_the_pairs_where_they_agree(tmp_path):
    out, info = build(
        build_options(source=str(SOURCE), out=tmp_path / "out", variants=["shuffle-sr", "shuffle-sr-premise"])
    )
    first, premise = rows_of(out), rows_of(out, "shuffle-sr-premise")
    assert set(first) == set(premise)
    assert premise["rl6#0r1e"]["swapped_side"] == "premise" and first["rl6#0r1e"]["swapped_side"] == "hypothesis"
    for pair_id in ("rl1#0r1e", "rl2#0r1e"):  # no grounded premise swap: the same hypothesis swap either way
        assert premise[pair_id]["hypothesis"] == first[pair_id]["hypothesis"]
    assert [c.extra["order"] for c in info.configs] == ["hypothesis-first", "premise-first"]


def test_the_removed_order_option_says_which_configuration_to_build(tmp_path, capsys):
    from swapbench.commands.main import main

    with pytest.raises(SwapbenchError, match="sr_order .--sr-order. was removed: .*shuffle-sr-premise"):
        build_options(source=str(SOURCE), out=tmp_path / "out", variants=["shuffle-sr"], sr_order="premise-first")
    with pytest.raises(SystemExit) as stopped:
        main(["build", "--source", str(SOURCE), "--out", str(tmp_path / "cli"), "--sr-order", "premise-first"])
    assert stopped.value.code == 2
    assert "--sr-order was removed: the configuration names the order" in capsys.readouterr().err
    assert not (tmp_path / "cli").exists()
    with pytest.raises(SystemExit):
        main(["build", "--help"])
    assert "--sr-order" not in capsys.readouterr().out


def test_the_default_order_swaps_the_hypothesis_first(tmp_path):
    out, info = build(build_options(source=str(SOURCE), out=tmp_path / "out", variants=["shuffle-sr"]))
    rows = rows_of(out)
    check_invariants(rows)
    assert {pair_id: row["swapped_side"] for pair_id, row in rows.items()} == {
        "rl1#0r1e": "hypothesis",
        "rl2#0r1e": "hypothesis",
        "rl6#0r1e": "hypothesis",
    }
    assert rows["rl6#0r1e"]["hypothesis"] == "A car drive men."
    assert info.configs[0].extra["order"] == "hypothesis-first"
    assert set(info.configs[0].extra["filters"]) >= {"ungrounded_relation", "premodifier_compound"}


def test_validated_configuration_keeps_the_accepted_swaps_of_its_decisions(tmp_path):
    from swapbench.variants.role_validated import DECISIONS, ValidatedRoleShuffle

    assert DECISIONS.is_file()
    selection = tmp_path / "decisions.jsonl"
    selection.write_text(
        '{"pair_id": "rl1#0r1e", "decision": "accept", "side": "hypothesis"}\n'
        '{"pair_id": "rl2#0r1e", "decision": "reject", "side": "hypothesis"}\n'
        '{"pair_id": "rl6#0r1e", "decision": "accept", "side": "premise"}\n'
    )
    variant = ValidatedRoleShuffle(selection=selection)
    assert variant.name == "shuffle-sr-validated"
    assert make_variant("shuffle-sr-validated").selection_path == DECISIONS
    from swapbench.sources import load_split
    from swapbench.variants.randomness import example_rng

    pairs = load_split(str(SOURCE), "test", None).pairs
    variant.prepare(pairs)
    kept = {p.pair_id for p in pairs if variant.apply(p, None, example_rng(0, p.pair_id, variant.name))}
    assert kept == {"rl1#0r1e"}  # rl2 rejected; rl6 was judged on its premise, and the build swaps its hypothesis
    assert variant.statistics()["selection"]["stale"] == 1 and variant.statistics()["selection"]["rejected"] == 1


def test_tree_labelers_need_trees(tmp_path):
    plain = tmp_path / "plain.jsonl"
    plain.write_text(
        "".join(
            json.dumps({k: v for k, v in json.loads(line).items() if "parse" not in k}) + "\n"
            for line in SOURCE.read_text().splitlines()
        )
    )
    with pytest.raises(SwapbenchError, match="--srl tree needs constituency trees"):
        build(
            build_options(source=str(plain), out=tmp_path / "out", variants=["shuffle-sr"], srl="tree", parser="spacy")
        )


def test_selection_keeps_only_accepted_swaps_that_still_read_the_same(tmp_path):
    out, _ = build(build_options(source=str(SOURCE), out=tmp_path / "all", variants=["shuffle-sr"]))
    rows = rows_of(out)
    selection = tmp_path / "selection.jsonl"
    for pair_id, decision in (("rl1#0r1e", "accept"), ("rl2#0r1e", "reject")):
        append_decision(selection, Decision(pair_id, decision, rows[pair_id]["premise"], rows[pair_id]["hypothesis"]))
    append_decision(selection, Decision("rl6#0r1e", "accept", "A different swap .", rows["rl6#0r1e"]["hypothesis"]))

    kept, info = build(
        build_options(source=str(SOURCE), out=tmp_path / "kept", variants=["shuffle-sr"], sr_selection=selection)
    )
    assert set(rows_of(kept)) == {"rl1#0r1e"}
    assert info.configs[0].extra["selection"] == {
        "file": public_path(selection),
        "decisions": 3,
        "undecided": 0,
        "rejected": 1,
        "stale": 1,
    }


@pytest.mark.integration
def test_full_snli_test_split_with_spacy_roles(shared_snli, tmp_path, capsys):
    out, info = build(
        build_options(source=str(shared_snli), split="test", out=tmp_path / "out", variants=["shuffle-sr"], srl="spacy")
    )
    stats = info.configs[0].extra
    with capsys.disabled():
        print(
            f"\nshuffle-sr, SNLI test, --srl spacy: {stats['entailment_pairs']} entailment pairs, "
            f"{stats['candidates']} candidates, {stats['filtered']} filtered, {stats['final']} final; "
            f"drops {stats['drop_reasons']}"
        )
    rows = rows_of(out)
    assert len(rows) == stats["final"] == stats["candidates"] - stats["filtered"] == info.configs[0].rows
    assert sum(stats["drop_reasons"].values()) == stats["filtered"]
    assert stats["entailment_pairs"] == 3368 and stats["final"] > 600  # 880 with grounding, the goal 600
    check_invariants(rows)


def test_a_builds_role_configurations_share_their_labels_and_nothing_outlives_the_build(tmp_path):
    import gc

    from swapbench.dataset.pipeline import check_options
    from swapbench.variants.role_shuffle import RoleLabelings

    options = build_options(
        source=str(SOURCE), out=tmp_path / "out", variants=["shuffle-3", "shuffle-sr", "shuffle-sr-premise"]
    )
    _, sr, premise_first = check_options(options)
    assert sr.labelings is premise_first.labelings  # labelled once for the build
    assert check_options(options)[1].labelings is not sr.labelings  # a second build labels afresh
    del sr, premise_first
    _, info = build(options)
    assert [c.name for c in info.configs] == ["shuffle-3", "shuffle-sr", "shuffle-sr-premise"]
    gc.collect()
    assert not [o for o in gc.get_objects() if type(o) is RoleLabelings]
