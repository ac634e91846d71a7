"""`swapbench curate`, driven through the command line with scripted standard input."""

from __future__ import annotations

import io
import json

import pyarrow.parquet as pq
import pytest
from roles_helpers import FIXTURES

from swapbench.commands.main import main


@pytest.fixture
def built(tmp_path):
    out = tmp_path / "data"
    assert (
        main(["build", "--source", str(FIXTURES / "snli_roles.jsonl"), "--out", str(out), "--variants", "shuffle-sr"])
        == 0
    )
    return out


def curate(monkeypatch, capsys, dataset, selection, keys: str) -> str:
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "200")  # wide enough that no table cell wraps
    monkeypatch.setattr("sys.stdin", io.StringIO(keys))
    assert main(["curate", str(dataset), "--selection", str(selection)]) == 0
    return capsys.readouterr().out


def decisions(path) -> list[tuple[str, str]]:
    return [(d["pair_id"], d["decision"]) for d in map(json.loads, path.read_text().splitlines())]


def test_curate_records_decisions_resumes_and_feeds_the_build(built, tmp_path, monkeypatch, capsys):
    selection = tmp_path / "selection.jsonl"
    # accept the first, an unknown key is asked again, reject the second; input then ends: stop there
    screen = curate(monkeypatch, capsys, built, selection, "a\nmaybe\nr\n")
    assert "3 swaps: 0 already decided, 3 to judge" in screen
    assert "A man in a grassy field throws a frisbee." in screen  # original beside ...
    assert "Something throws a man." in screen  # ... swapped (the hypothesis)
    assert decisions(selection) == [("rl1#0r1e", "accept"), ("rl2#0r1e", "reject")]
    record = json.loads(selection.read_text().splitlines()[0])
    assert (record["hypothesis"], record["side"]) == ("Something throws a man.", "hypothesis")

    # a second session resumes with the one swap not yet judged; skipping records nothing
    screen = curate(monkeypatch, capsys, built, selection, "s\n")
    assert "3 swaps: 2 already decided, 1 to judge" in screen and "rl6#0r1e" in screen
    assert len(decisions(selection)) == 2
    screen = curate(monkeypatch, capsys, built, selection, "accept\n")
    assert decisions(selection)[-1] == ("rl6#0r1e", "accept")
    assert "In the file: 2 accepted, 1 rejected" in screen

    out = tmp_path / "selected"
    assert (
        main(
            [
                "build",
                "--source",
                str(FIXTURES / "snli_roles.jsonl"),
                "--out",
                str(out),
                "--variants",
                "shuffle-sr",
                "--sr-selection",
                str(selection),
            ]
        )
        == 0
    )
    kept = pq.read_table(next((out / "shuffle-sr").glob("*.parquet"))).column("pair_id").to_pylist()
    assert sorted(kept) == ["rl1#0r1e", "rl6#0r1e"]


def test_curate_without_text_records_ids_sides_and_decisions_only(built, tmp_path, monkeypatch, capsys):
    selection = tmp_path / "ids.jsonl"
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.StringIO("a\nr\n"))
    assert main(["curate", str(built), "--selection", str(selection), "--without-text"]) == 0
    records = [json.loads(line) for line in selection.read_text().splitlines()]
    assert records == [
        {"pair_id": "rl1#0r1e", "decision": "accept", "side": "hypothesis"},
        {"pair_id": "rl2#0r1e", "decision": "reject", "side": "hypothesis"},
    ]
    # a rerun asks only about the swap without a decision
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    assert main(["curate", str(built), "--selection", str(selection), "--without-text"]) == 0
    assert "2 already decided, 1 to judge" in capsys.readouterr().out


def test_curate_needs_a_shuffle_sr_configuration(tmp_path, capsys):
    assert main(["curate", str(tmp_path), "--selection", str(tmp_path / "s.jsonl")]) == 2
    assert "no shuffle-sr configuration" in " ".join(capsys.readouterr().err.split())


def test_a_selection_record_is_checked_with_file_and_line(tmp_path):
    from swapbench.core.errors import InputError
    from swapbench.core.selection import read_selection

    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"pair_id": "a", "decision": "accept", "side": "hypothesis"}\n'
        '{"pair_id": "b", "decision": "accept", "side": "both"}\n'
    )
    with pytest.raises(InputError, match=r"s.jsonl:2: side must be premise or hypothesis"):
        read_selection(path)
    path.write_text('{"pair_id": "a", "decision": "accept", "premise": "A ball kicks a boy ."}\n')
    with pytest.raises(InputError, match=r"s.jsonl:1: a record holds both premise and hypothesis or neither"):
        read_selection(path)
    path.write_text('{"pair_id": "a", "decision": "accept", "side": "premise"}\n')
    decision = read_selection(path)["a"]
    assert decision.judged("any premise", "any hypothesis", "premise")
    assert not decision.judged("any premise", "any hypothesis", "hypothesis")


def test_a_decision_with_text_holds_for_the_same_words_however_they_are_spaced():
    from swapbench.core.selection import Decision

    # judged on the swap written as text; the build compares its tokens joined by spaces, and a file judged before
    # swaps were written as text holds them so
    decision = Decision("a", "accept", "A boy's dog sees a man.", "A man sees a dog.", "hypothesis")
    assert decision.judged("A boy 's dog sees a man .", "A man sees a dog .", "hypothesis")
    assert decision.judged("A boy's dog sees a man.", "A man sees a dog.", "hypothesis")
    assert not decision.judged("A boy 's dog sees a man .", "A dog sees a man .", "hypothesis")  # other words


def test_the_committed_decisions_hold_no_text():
    import json as _json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "data" / "annotations"
    records = [_json.loads(line) for line in (root / "shuffle-sr-selection.jsonl").read_text().splitlines()]
    assert records and all(set(r) == {"pair_id", "decision", "side"} for r in records)
    validity = _json.loads((root / "shuffle-sr-validity.json").read_text())
    assert validity["judged"] >= 150 and validity["low"] <= validity["validity"] <= validity["high"]
    assert validity["valid"] == sum(s["valid"] for s in validity["sample"])
    assert len(validity["sample"]) == validity["judged"]
    # the judged samples hold pair IDs, sides and decisions, never SNLI text
    for name in ("shuffle-sr-validity.json", "shuffle-sr-reversible-validity.json"):
        judged = _json.loads((root / name).read_text())
        samples = judged["sample"] + judged.get("held_out", {}).get("sample", [])
        assert samples and all(set(s) == {"pair_id", "side", "valid"} for s in samples), name
    # role-quartets' judgement is per quartet (its two rows share the pair ID): an invalid one says why, in words of
    # the judge's own
    quartets = _json.loads((root / "role-quartets-validity.json").read_text())
    assert (
        quartets["valid"]
        == sum(s["valid"] for s in quartets["sample"])
        == sum(v["valid"] for v in quartets["by_source"].values())
    )
    assert len({s["pair_id"] for s in quartets["sample"]}) == quartets["judged"] >= 100
    assert all(
        set(s) == {"pair_id", "source", "valid"} | ({"why"} if not s["valid"] else set()) for s in quartets["sample"]
    )
    # each sample's 3-way check covers its valid quartets, each counted once: agreeing with the rule, or named with
    # the judge's other label
    for judged in (quartets, quartets["dev_seed46"], quartets["earlier"]):
        check, valid = judged["three_way"], {s["pair_id"] for s in judged["sample"] if s["valid"]}
        named = [d["pair_id"] for d in check["disagree"]]
        assert check["judged"] == len(valid) == check["agree"] + len(named)
        assert len(set(named)) == len(named) and set(named) <= valid
        assert all(
            set(d) == {"pair_id", "judge"} and d["judge"] in ("neutral", "contradiction") for d in check["disagree"]
        )
