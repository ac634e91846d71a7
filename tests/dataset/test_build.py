"""`swapbench build` end to end: the dataset folder, its card, atomic writes, located errors, determinism."""

import gc
import json
import logging

import datasets
import pytest
import yaml

from swapbench.commands.main import main
from swapbench.core import fingerprint
from swapbench.core.errors import InputError, SwapbenchError
from swapbench.core.labels import LABEL_NAMES
from swapbench.core.text import squash
from swapbench.dataset.pipeline import build, build_options
from swapbench.results import build_record

CONFIGS = ["shuffle-3", "shuffle-4", "shuffle-5", "shuffle-random"]


def load(folder, config):
    return datasets.load_dataset(str(folder), config, split="test")


@pytest.fixture(scope="module")
def built(build_fixture_dataset):
    return build_fixture_dataset(CONFIGS)


def test_every_configuration_loads_offline_with_named_labels(built):
    for config in CONFIGS:
        rows = load(built, config)
        assert rows.features["label"].names == list(LABEL_NAMES)
        assert rows.features["original_label"].names == list(LABEL_NAMES)
        for row in rows:
            assert row["variant"] == config
            assert (row["hypothesis"], row["label"]) == (row["original_hypothesis"], row["original_label"])
            tokens = row["premise_tokens"]  # the parse's, which the permutation indexes
            assert squash("".join(tokens)) == squash(row["original_premise"])
            assert squash(row["premise"]) == squash("".join(tokens[k] for k in row["permutation"]))
            assert row["premise"].lower() != row["original_premise"].lower()
    shuffle3 = load(built, "shuffle-3")
    first = shuffle3[0]
    assert first["pair_id"] == "fx1a#1r1e" and first["source_premise"] == "A man plays a red guitar on the street."
    assert {m["label"] for m in first["moved_spans"]} <= {"NP", "VP", "PP", "ADVP", "ADJP"}
    quoted = next(r for r in load(built, "shuffle-random") if r["pair_id"] == "fx3c#3r1c")
    assert "-LRB-" not in quoted["premise"] and "``" not in quoted["premise"] and '"' in quoted["premise"]


def test_card_and_build_info_describe_the_build(built):
    card = (built / "README.md").read_text()
    header = yaml.safe_load(card.split("---")[1])
    assert [c["config_name"] for c in header["configs"]] == CONFIGS
    info = build_record.BuildInfo.model_validate_json((built / "build_info.json").read_text())
    # the data file is named by its content, so that `datasets` does not serve a folder rebuilt in place from the
    # cache of its earlier content
    shuffle3 = info.configs[0].fingerprint.removeprefix("sha256:")[:16]
    assert header["configs"][0]["data_files"] == [{"split": "test", "path": f"shuffle-3/test-{shuffle3}.parquet"}]
    assert (built / "shuffle-3" / f"test-{shuffle3}.parquet").is_file()
    assert "Parser: `ptb`" in card and "Seed: 0" in card and "chen-etal-2023-locality" in card
    info = build_record.BuildInfo.model_validate_json((built / "build_info.json").read_text())
    assert (info.rows_read, info.dropped_no_gold, info.pairs, info.unique_premises) == (8, 1, 7, 5)
    counts = {c.name: (c.rows, c.not_applicable) for c in info.configs}
    assert counts == {"shuffle-3": (5, 2), "shuffle-4": (1, 6), "shuffle-5": (3, 4), "shuffle-random": (7, 0)}
    for config in info.configs:
        rows = load(built, config.name)
        assert config.fingerprint == fingerprint.content_fingerprint(rows.to_dict())
        assert f"| `{config.name}` | {config.rows} | {config.not_applicable} |" in card
        # how far its shuffles move words, from its rows' permutations, in build_info.json and in the card
        shifts = [
            (
                sum(abs(k - p) for k, p in enumerate(row["permutation"])),
                sum(k != p for k, p in enumerate(row["permutation"])),
            )
            for row in rows
        ]
        moved = config.displacement
        assert moved.rows == config.rows
        assert moved.distance.mean == pytest.approx(sum(d for d, _ in shifts) / len(shifts), abs=1e-4)
        assert (moved.distance.min, moved.distance.max) == (min(d for d, _ in shifts), max(d for d, _ in shifts))
        assert moved.moved.mean == pytest.approx(sum(m for _, m in shifts) / len(shifts), abs=1e-4)
        assert f"| `{config.name}` | {moved.rows} | {moved.distance.mean:.2f} | {moved.distance.p10:g} |" in card
    assert "## How far words move" in card
    assert "Constituency shuffles move words inside one NP/VP/PP/ADVP/ADJP constituent" in card
    assert "`--shuffle-scope one`" in card


def test_the_content_fingerprint_is_the_documented_json_lines():
    import hashlib

    columns = {
        "pair_id": ["1", "2\u2028"],
        "label": [0, 2],
        "premise": ['Quote " and \\ slash', "Ünï 😀\n"],
        "tags": [["x"], []],
        "binary_label": [None, True],
    }
    names = ["pair_id", "premise", "label", "binary_label"]  # FINGERPRINT_COLUMNS order; tags are not in it
    lines = [json.dumps(["swapbench-content-2", *names], ensure_ascii=False)]
    lines += [json.dumps([columns[n][i] for n in names], ensure_ascii=False) for i in range(2)]
    expected = "sha256:" + hashlib.sha256("".join(line + "\n" for line in lines).encode()).hexdigest()
    assert fingerprint.content_fingerprint(columns) == expected


def test_same_seed_same_output_regardless_of_pair_order(tmp_path, fixtures):
    lines = (fixtures / "snli_1.0_test.jsonl").read_text().splitlines()
    (tmp_path / "reversed").mkdir()
    (tmp_path / "reversed" / "snli_1.0_test.jsonl").write_text("\n".join(reversed(lines)) + "\n")
    options = dict(use_cache=False, variants=CONFIGS)
    forward = build(build_options(source=str(fixtures), out=tmp_path / "a", **options))[0]
    backward = build(build_options(source=str(tmp_path / "reversed"), out=tmp_path / "b", **options))[0]
    other_seed = build(build_options(source=str(fixtures), out=tmp_path / "c", seed=1, **options))[0]

    def by_id(folder, config):
        return {r["pair_id"]: r["premise"] for r in load(folder, config)}

    for config in CONFIGS:
        assert by_id(forward, config) == by_id(backward, config)
    assert by_id(forward, CONFIGS[-1]) != by_id(other_seed, CONFIGS[-1])


def test_a_failed_build_leaves_the_previous_output_intact(tmp_path, fixtures, monkeypatch):
    out = tmp_path / "out"
    build(build_options(source=str(fixtures), out=out, use_cache=False, variants=["shuffle-random"]))
    before = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("swapbench.dataset.pipeline.write_config", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build(build_options(source=str(fixtures), out=out, use_cache=False, variants=CONFIGS))
    assert {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging folder left behind


def test_the_garbage_collector_is_left_as_it_was(tmp_path, fixtures, monkeypatch):
    import swapbench.dataset.pipeline

    options = build_options(source=str(fixtures), out=tmp_path / "out", use_cache=False, variants=["shuffle-random"])
    frozen_while_applying = []
    apply_variant = swapbench.dataset.pipeline.apply_variant

    def recording(*args, **kwargs):
        frozen_while_applying.append(gc.get_freeze_count())
        return apply_variant(*args, **kwargs)

    monkeypatch.setattr("swapbench.dataset.pipeline.apply_variant", recording)
    assert gc.get_freeze_count() == 0
    build(options)
    assert frozen_while_applying[0] > 0 and gc.get_freeze_count() == 0

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("swapbench.dataset.pipeline.write_config", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build(options)
    assert gc.get_freeze_count() == 0
    monkeypatch.undo()
    gc.freeze()  # a caller that freezes its own objects: the build neither adds to them nor unfreezes them
    try:
        frozen = gc.get_freeze_count()
        build(options)
        assert 0 < gc.get_freeze_count() <= frozen  # (frozen objects may still be freed by reference counting)
    finally:
        gc.unfreeze()


def test_a_malformed_tree_is_reported_with_file_and_line(tmp_path, fixtures, capsys):
    lines = (fixtures / "snli_1.0_test.jsonl").read_text().splitlines()
    row = json.loads(lines[4])
    row["sentence1_parse"] = row["sentence1_parse"][:-3]  # unbalanced brackets
    lines[4] = json.dumps(row)
    source = tmp_path / "snli_1.0_test.jsonl"
    source.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as caught:
        build(build_options(source=str(source), out=tmp_path / "out", parser="ptb"))
    assert (caught.value.path, caught.value.line) == (str(source), 5)
    assert main(["build", "--source", str(source), "--out", str(tmp_path / "out")]) == 2
    assert f"{source}:5: malformed bracketed parse" in capsys.readouterr().err.replace("\n", "")
    assert not (tmp_path / "out").exists()


def test_ptb_parser_needs_supplied_trees(tmp_path, fixtures, capsys):
    lines = [json.loads(line) for line in (fixtures / "snli_1.0_test.jsonl").read_text().splitlines()]
    for row in lines:
        row.pop("sentence1_parse")
    (tmp_path / "snli_1.0_test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert main(["build", "--source", str(tmp_path), "--parser", "ptb", "--out", str(tmp_path / "o")]) == 2
    assert "needs bracketed parses" in capsys.readouterr().err


def test_spacy_backend_builds_and_measures_agreement(tmp_path, fixtures):
    out, info = build(
        build_options(
            source=str(fixtures),
            out=tmp_path / "spacy",
            parser="spacy",
            cache_dir=tmp_path / "cache",
            variants=["shuffle-3", "shuffle-random"],
        )
    )
    assert info.parser == "spacy" and info.parser_agreement["sentences"] == 5
    assert 0 < info.parser_agreement["precision"] <= 1 and 0 < info.parser_agreement["recall"] <= 1
    assert "Parser agreement" in (out / "README.md").read_text()
    assert len(load(out, "shuffle-random")) == 7
    assert (tmp_path / "cache" / "parses.sqlite").is_file()


def test_hub_push_reads_configurations_from_the_card(built):
    from swapbench.results.build_record import card_configs

    assert [c["config_name"] for c in card_configs(built)] == CONFIGS


def test_full_snli_test_split_with_supplied_trees(tmp_path, shared_snli):
    out, info = build(
        build_options(source=str(shared_snli), split="test", out=tmp_path / "snli", parser="ptb", variants=CONFIGS)
    )
    assert (info.rows_read, info.dropped_no_gold, info.pairs, info.unique_premises) == (10000, 176, 9824, 3323)
    counts = {c.name: c.rows for c in info.configs}
    assert counts["shuffle-random"] == 9824
    assert counts == {"shuffle-3": 9108, "shuffle-4": 7355, "shuffle-5": 6277, "shuffle-random": 9824}
    # the default scope (one constituent) makes the sizes a gradient of distance, on all rows and on the pairs
    # every configuration has (the matched slice)
    distances = [c.displacement.distance.mean for c in info.configs]
    assert distances[0] < distances[1] < distances[2] < distances[3]
    assert [c.displacement.moved.mean for c in info.configs] == sorted(c.displacement.moved.mean for c in info.configs)
    assert {c.tag_counts["matched:3-5"] for c in info.configs} == {4210}
    from swapbench.parsing.ptb import PTBParser
    from swapbench.sources import load_split as load_snli
    from swapbench.variants.contractions import binds

    trees = {p.pair_id: p.premise_parse for p in load_snli(shared_snli, "test").pairs}
    parses = dict(zip(trees, PTBParser().parse_many(list(trees.values()))))
    for config in CONFIGS:
        rows = load(out, config).to_list()
        assert len({r["pair_id"] for r in rows}) == len(rows)
        for row in rows:
            parse = parses[row["pair_id"]]
            tokens = row["premise_tokens"]
            assert tokens == list(parse.tokens)
            perm = row["permutation"]
            assert sorted(perm) == list(range(len(tokens)))
            assert squash(row["premise"]) == squash("".join(tokens[k] for k in perm))
            assert row["premise"].lower() != row["original_premise"].lower()
            punct = [i for i, p in enumerate(parse.punct) if p]
            assert [k for k in perm if parse.punct[k]] == punct  # punctuation keeps its order among the words
            if not binds([t.casefold() for t in tokens]):  # and its place, unless a contraction moved as one unit
                assert all(perm[i] == i for i in punct)
            assert (row["hypothesis"], row["label"]) == (row["original_hypothesis"], row["original_label"])
            if config != "shuffle-random":
                size = int(config.split("-")[1])
                moved = set()
                for span in row["moved_spans"]:
                    words = [i for i in range(span["start"], span["end"]) if not parse.punct[i]]
                    assert len(words) == size and span["label"] in {"NP", "VP", "PP", "ADVP", "ADJP"}
                    moved.update(range(span["start"], span["end"]))
                assert all(perm[i] == i for i in range(len(tokens)) if i not in moved)


def test_a_folder_rebuilt_in_place_loads_the_new_rows(tmp_path, fixtures):
    out = tmp_path / "snli-test"
    options = dict(source=str(fixtures), out=out, use_cache=False, variants=["shuffle-random"])
    build(build_options(seed=0, **options))
    first = load(out, "shuffle-random")["premise"]
    build(build_options(seed=5, **options))
    assert load(out, "shuffle-random")["premise"] != first


def test_a_default_variant_that_applies_to_no_pair_is_left_out_and_a_named_one_is_refused(tmp_path, fixtures, caplog):
    caplog.set_level(logging.INFO, logger="swapbench")
    # The fixture's pair IDs are none of the hand decisions that shuffle-sr-validated keeps, and its sentences have
    # no frame between two beings for shuffle-sr-reversible.
    out, info = build(build_options(source=str(fixtures), out=tmp_path / "default", use_cache=False))
    names = [c.name for c in info.configs]
    assert "shuffle-sr-validated" not in names and {"shuffle-3", "shuffle-random", "shuffle-sr"} <= set(names)
    assert (
        "Left out shuffle-sr-validated, shuffle-sr-reversible, role-quartets: no pair read applies to them."
        in caplog.messages
    )
    with pytest.raises(SwapbenchError, match="shuffle-sr-validated would have no rows"):
        build(
            build_options(
                source=str(fixtures),
                out=tmp_path / "named",
                use_cache=False,
                variants=["shuffle-random", "shuffle-sr-validated"],
            )
        )
    assert not (tmp_path / "named").exists()
