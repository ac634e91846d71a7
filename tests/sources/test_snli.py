"""Reading SNLI release files: formats, folders, dropped rows, and a located error for each kind of bad input."""

import gzip
import json

import pytest

from swapbench.core.errors import InputError
from swapbench.sources import find_split_file
from swapbench.sources import load_split as load_snli
from swapbench.sources.snli import SNLI

ROW = {
    "gold_label": "entailment",
    "pairID": "p1",
    "sentence1": "A dog runs.",
    "sentence2": "An animal moves.",
    "sentence1_parse": "(ROOT (S (NP (DT A) (NN dog)) (VP (VBZ runs)) (. .)))",
}


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_reads_fixture_and_drops_rows_without_gold_label(fixtures):
    split = load_snli(fixtures, "test")
    assert split.rows_read == 8 and split.dropped_no_gold == 1 and len(split.pairs) == 7
    first = split.pairs[0]
    assert (first.pair_id, first.label, first.line) == ("fx1a#1r1e", "entailment", 2)
    assert first.premise == "A man plays a red guitar on the street."
    assert first.premise_parse.startswith("(ROOT")
    assert split.split == "test" and split.fingerprint.startswith("sha256:")
    assert split.has_premise_parses


def test_limit_keeps_the_first_labelled_pairs(fixtures):
    split = load_snli(fixtures, "test", limit=3)
    assert [p.pair_id for p in split.pairs] == ["fx1a#1r1e", "fx1a#1r1n", "fx1a#1r1c"]
    assert split.limited


def test_gzip_tsv_and_environment_default(tmp_path, monkeypatch):
    header = [
        "gold_label",
        "sentence1_binary_parse",
        "sentence2_binary_parse",
        "sentence1_parse",
        "sentence2_parse",
        "sentence1",
        "sentence2",
        "captionID",
        "pairID",
    ]
    rows = [["neutral", "", "", ROW["sentence1_parse"], "", "A dog runs.", "The dog is happy.", "c", "p9"]]
    text = "\n".join("\t".join(r) for r in [header, *rows]) + "\n"
    (tmp_path / "snli_1.0_dev.txt.gz").write_bytes(gzip.compress(text.encode()))
    monkeypatch.setenv("SWAPBENCH_SNLI_DIR", str(tmp_path))
    split = load_snli(None, "validation")  # the Hub name of SNLI's dev split
    assert split.split == "validation"
    assert [(p.pair_id, p.label, p.hypothesis, p.line) for p in split.pairs] == [
        ("p9", "neutral", "The dog is happy.", 2)
    ]


def test_a_truncated_release_file_is_found_by_prefix(tmp_path):
    write_jsonl(tmp_path / "snli_1.0_train_first1024.jsonl", [ROW])
    assert find_split_file(SNLI, tmp_path, "train").name == "snli_1.0_train_first1024.jsonl"


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"gold_label": "entailment", "pairID": ', "broken JSON"),
        (json.dumps({k: v for k, v in ROW.items() if k != "sentence2"}), "missing field(s): sentence2"),
        (json.dumps({**ROW, "sentence1": "   "}), "empty sentence1"),
        (json.dumps({**ROW, "gold_label": "maybe"}), "unknown gold_label 'maybe'"),
        ("[1, 2]", "expected a JSON object"),
    ],
)
def test_bad_input_names_file_and_line(tmp_path, line, message):
    path = tmp_path / "snli_1.0_test.jsonl"
    path.write_text(json.dumps(ROW) + "\n" + line + "\n")
    with pytest.raises(InputError) as caught:
        load_snli(tmp_path, "test")
    assert caught.value.path == str(path) and caught.value.line == 2
    assert message in str(caught.value) and str(caught.value).startswith(f"{path}:2: ")


def test_a_file_that_is_not_utf8_is_located(tmp_path):
    path = tmp_path / "snli_1.0_test.jsonl"
    latin1 = json.dumps({**ROW, "sentence1": "caf\u00e9"}, ensure_ascii=False).encode("latin-1")
    path.write_bytes((json.dumps(ROW) + "\n").encode() + latin1)
    with pytest.raises(InputError, match=r"snli_1.0_test.jsonl:2: not UTF-8 text: invalid"):
        load_snli(path, "test")


def test_short_tsv_row_is_located(tmp_path):
    path = tmp_path / "snli_1.0_test.txt"
    path.write_text("gold_label\tpairID\tsentence1\tsentence2\tsentence1_parse\nentailment\tp1\tA dog.\n")
    with pytest.raises(InputError, match=r"snli_1.0_test.txt:2: expected 5 tab-separated fields"):
        load_snli(path, "test")


def test_missing_folder_and_unknown_split(tmp_path):
    with pytest.raises(InputError, match="no SNLI 1.0 file for split 'test'"):
        load_snli(tmp_path, "test")
    with pytest.raises(InputError, match="unknown split 'testing'"):
        load_snli(tmp_path, "testing")
    with pytest.raises(InputError, match="no such file or folder"):
        load_snli(tmp_path / "nowhere", "test")


def test_a_file_with_only_unlabelled_rows_is_an_error(tmp_path):
    path = write_jsonl(tmp_path / "snli_1.0_test.jsonl", [{**ROW, "gold_label": "-"}])
    with pytest.raises(InputError, match="no labelled SNLI pairs"):
        load_snli(path, "test")


def test_hub_loader_on_a_dataset_in_hub_layout(tmp_path):
    """The Hub copy of SNLI has premise/hypothesis/label (-1 without gold) and neither pairIDs nor parses."""
    import datasets

    from swapbench.sources.hub import load_hub

    rows = {
        "premise": ["A dog runs.", "A cat sleeps.", "A cow eats."],
        "hypothesis": ["An animal moves.", "x", "y"],
        "label": [0, -1, 2],
    }
    features = datasets.Features(
        {
            "premise": datasets.Value("string"),
            "hypothesis": datasets.Value("string"),
            "label": datasets.ClassLabel(names=["entailment", "neutral", "contradiction"]),
        }
    )
    (tmp_path / "snli").mkdir()
    datasets.Dataset.from_dict(rows, features=features).to_parquet(str(tmp_path / "snli" / "validation.parquet"))
    split = load_hub(SNLI, str(tmp_path / "snli"), "dev", None, tried="", option="--source")
    assert split.split == "validation" and (split.rows_read, split.dropped_no_gold) == (3, 1)
    assert [(p.pair_id, p.label) for p in split.pairs] == [
        ("snli-validation-0", "entailment"),
        ("snli-validation-2", "contradiction"),
    ]
    assert not split.has_premise_parses
