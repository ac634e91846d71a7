"""Sources: the registry's declarations, MultiNLI's release files, a Hub dataset read by column mapping, and what
`--source` resolves to. Every fixture is written here or in tests/fixtures in the source's own format."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest
import yaml

from swapbench.commands.main import main, make_parser
from swapbench.core.errors import InputError
from swapbench.core.registry import SOURCES
from swapbench.core.text import public_path
from swapbench.sources import Columns, load_split, release_tag, resolve, source_named
from swapbench.sources.hub import load_hub
from swapbench.sources.multinli import MULTINLI
from swapbench.sources.snli import SNLI

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MULTINLI_RELEASE = FIXTURES / "multinli_1.0"
NLI = datasets.ClassLabel(names=["entailment", "neutral", "contradiction"])


# --- declarations --------------------------------------------------------------------------------------------------


def test_registered_sources_declare_what_the_card_and_the_board_read():
    assert SOURCES.names() == ["snli", "multinli", "hub:ORG/NAME"]
    for source in (SNLI, MULTINLI):
        assert source.citation.startswith("@inproceedings{") and source.license and source.homepage
        assert source.hub_id and len(source.hub_revision) == 40 and source.archive_url.endswith(".zip")
        assert source.has_trees
    assert SNLI.license == "cc-by-sa-4.0" and SNLI.hub_id == "stanfordnlp/snli"
    assert set(SNLI.checksums) == {"snli_1.0_test.jsonl", "snli_1.0_dev.jsonl"}
    assert MULTINLI.hub_id == "nyu-mll/multi_nli"


def test_split_names_and_aliases():
    assert (SNLI.split("dev"), SNLI.file_split("validation"), SNLI.file_stem("test")) == (
        "validation",
        "dev",
        "snli_1.0_test",
    )
    assert MULTINLI.split("dev_mismatched") == "validation_mismatched"
    assert MULTINLI.file_stem("validation_matched") == "multinli_1.0_dev_matched"
    with pytest.raises(InputError, match="unknown split 'test': expected one of train, validation_matched"):
        MULTINLI.split("test")  # MultiNLI's test labels were never released


def test_a_declaration_is_validated():
    with pytest.raises(ValueError, match="not a sha256 hex digest"):
        SNLI.model_validate({**SNLI.model_dump(), "checksums": {"snli_1.0_test.jsonl": "abc"}})
    with pytest.raises(ValueError, match="aliases dev name no split"):
        SNLI.model_validate({**SNLI.model_dump(), "aliases": {"dev": "devel"}})


# --- MultiNLI ------------------------------------------------------------------------------------------------------


def test_multinli_release_files_are_read_with_their_trees_and_pair_ids():
    split = load_split(MULTINLI_RELEASE, "validation_matched")
    assert split.declaration is MULTINLI and split.split == "validation_matched"
    assert (split.rows_read, split.dropped_no_gold, len(split.pairs)) == (6, 1, 5)
    first = split.pairs[0]
    assert (first.pair_id, first.label, first.line) == ("70001e", "entailment", 1)
    assert first.premise == "The old farmer sells fresh apples at the market."
    assert split.has_premise_parses and first.hypothesis_parse.startswith("(ROOT")
    assert load_split(MULTINLI_RELEASE, "dev_mismatched").pairs[0].pair_id == "80001e"


def test_a_multinli_file_of_another_split_is_refused_by_its_name():
    path = MULTINLI_RELEASE / "multinli_1.0_dev_mismatched.jsonl"
    with pytest.raises(
        InputError,
        match="this is MultiNLI's dev_mismatched split by its name, not the validation_matched split asked for",
    ):
        load_split(path, "validation_matched")


def test_multinli_by_name_reads_the_folder_its_variable_names(monkeypatch):
    monkeypatch.setenv("SWAPBENCH_MULTINLI_DIR", str(MULTINLI_RELEASE))
    assert resolve("multinli").kind == "files"
    assert [p.pair_id for p in load_split("multinli", "validation_mismatched").pairs] == ["80001e", "80001n", "80001c"]


def test_multinli_checks_its_trees_like_snli(tmp_path):
    rows = [json.loads(line) for line in (MULTINLI_RELEASE / "multinli_1.0_dev_matched.jsonl").open()]
    rows[1]["sentence1_parse"] = rows[3]["sentence1_parse"]
    (tmp_path / "multinli_1.0_dev_matched.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(
        InputError,
        match=r"multinli_1.0_dev_matched.jsonl:2: sentence1_parse is not a tree of "
        "sentence1",
    ):
        load_split(tmp_path, "validation_matched")


def test_build_multinli_validation_matched_end_to_end(tmp_path, monkeypatch):
    """`swapbench build --source multinli --split validation_matched` on a fixture laid out as the release."""
    monkeypatch.setenv("SWAPBENCH_MULTINLI_DIR", str(MULTINLI_RELEASE))
    monkeypatch.chdir(tmp_path)
    assert (
        main(
            [
                "build",
                "--source",
                "multinli",
                "--split",
                "validation_matched",
                "--no-cache",
                "--variants",
                "shuffle-3,shuffle-random",
            ]
        )
        == 0
    )
    out = tmp_path / "data" / "multinli-validation_matched"  # the default name comes from the source
    info = json.loads((out / "build_info.json").read_text())
    assert (info["source_name"], info["split"], info["parser"], info["pairs"]) == (
        "multinli",
        "validation_matched",
        "ptb",
        5,
    )
    rows = datasets.load_dataset(str(out), "shuffle-random", split="validation_matched")
    assert sorted(rows["pair_id"]) == ["70001c", "70001e", "70001n", "70002e", "70002n"]
    assert source_named(info["source_name"]) is MULTINLI
    card = (out / "README.md").read_text()
    metadata = yaml.safe_load(card.split("---")[1])
    assert metadata["license"] == "other" and "MultiNLI" in metadata["pretty_name"]
    assert "williams-etal-2018-broad" in card


# --- the Hub, by column mapping ------------------------------------------------------------------------------------


def hub_folder(root: Path, splits: dict[str, dict], features: datasets.Features) -> Path:
    """A local folder laid out as the Hub serves a dataset: data/<split>-00000-of-00001.parquet and a card whose
    configs name each split's files."""
    (root / "data").mkdir(parents=True)
    for split, columns in splits.items():
        datasets.Dataset.from_dict(columns, features=features).to_parquet(
            str(root / "data" / f"{split}-00000-of-00001.parquet")
        )
    config = {"config_name": "default", "data_files": [{"split": s, "path": f"data/{s}-*"} for s in splits]}
    (root / "README.md").write_text("---\n" + yaml.safe_dump({"configs": [config]}) + "---\n")
    return root


@pytest.fixture
def other_nli(tmp_path) -> Path:
    """An NLI dataset with its own column names and class order (0 = contradiction)."""
    features = datasets.Features(
        {
            "uid": datasets.Value("string"),
            "sentence_a": datasets.Value("string"),
            "sentence_b": datasets.Value("string"),
            "gold": datasets.Value("int64"),
        }
    )
    validation = {
        "uid": ["q1", "q2", "q3", "q4"],
        "sentence_a": [
            "A boy kicks a red ball across the yard.",
            "The chef cuts fresh bread.",
            "Two dogs chase a small cat.",
            "A woman rides her bike to work.",
        ],
        "sentence_b": ["A boy plays.", "Nobody cooks.", "Animals run.", "A woman walks."],
        "gold": [2, 0, -1, 0],
    }
    return hub_folder(tmp_path / "other-nli", {"validation": validation}, features)


COLUMN_OPTIONS = [
    "--premise",
    "sentence_a",
    "--hypothesis",
    "sentence_b",
    "--label",
    "gold",
    "--label-names",
    "contradiction,neutral,entailment",
    "--pair-id",
    "uid",
]


def test_a_hub_dataset_is_read_by_its_columns(other_nli):
    columns = Columns(
        premise="sentence_a",
        hypothesis="sentence_b",
        label="gold",
        label_names=("contradiction", "neutral", "entailment"),
        pair_id="uid",
    )
    split = load_split(f"hub:{other_nli}", "dev", columns=columns)
    assert split.split == "validation" and (split.rows_read, split.dropped_no_gold) == (4, 1)
    assert [(p.pair_id, p.label, p.hypothesis) for p in split.pairs] == [
        ("q1", "entailment", "A boy plays."),
        ("q2", "contradiction", "Nobody cooks."),
        ("q4", "contradiction", "A woman walks."),
    ]
    assert split.declaration.name == f"hub:{other_nli}" and not split.has_premise_parses
    without_ids = load_split(f"hub:{other_nli}", "validation", columns=columns.model_copy(update={"pair_id": None}))
    assert [p.pair_id for p in without_ids.pairs] == [
        "other-nli-validation-0",
        "other-nli-validation-1",
        "other-nli-validation-3",
    ]


def test_a_missing_column_and_unnamed_classes_are_refused(other_nli):
    with pytest.raises(InputError, match=r"no column\(s\) premise, hypothesis, label \(it has uid, sentence_a"):
        load_split(f"hub:{other_nli}", "validation")
    with pytest.raises(InputError, match=r"label 2 has no name: the names are entailment, neutral"):
        load_split(
            f"hub:{other_nli}",
            "validation",
            columns=Columns(
                premise="sentence_a", hypothesis="sentence_b", label="gold", label_names=("entailment", "neutral")
            ),
        )


def test_build_from_a_hub_dataset_by_column_mapping(other_nli, tmp_path):
    out = tmp_path / "out"
    assert (
        main(
            [
                "build",
                "--source",
                f"hub:{other_nli}",
                *COLUMN_OPTIONS,
                "--split",
                "validation",
                "--out",
                str(out),
                "--no-cache",
                "--parser",
                "spacy",
                "--variants",
                "shuffle-random",
            ]
        )
        == 0
    )
    info = json.loads((out / "build_info.json").read_text())
    assert (info["source_name"], info["pairs"], info["source"]) == (f"hub:{other_nli}", 3, public_path(other_nli))
    assert source_named(info["source_name"]).hub_id == str(other_nli)
    rows = datasets.load_dataset(str(out), "shuffle-random", split="validation")
    assert sorted(rows["pair_id"]) == ["q1", "q2", "q4"]


def test_column_options_need_a_hub_source(tmp_path, capsys):
    assert main(["build", "--source", str(FIXTURES), "--premise", "text", "--out", str(tmp_path / "out")]) == 2
    assert "name the columns of a hub:ORG/NAME source, not of" in capsys.readouterr().err
    assert main(["build", "--source", "hub:x/y", "--label-names", "yes,no", "--out", str(tmp_path / "out")]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "--label-names: label name 'yes' is none of entailment, neutral, contradiction" in said
    assert not (tmp_path / "out").exists()


def test_eval_takes_the_column_options_for_its_training_source(other_nli):
    from swapbench.evaluation.finetune import DataChoice, load_training_data
    from swapbench.sources.options import columns_from

    args = make_parser().parse_args(
        [
            "eval",
            "some/model",
            "--train-source",
            f"hub:{other_nli}",
            "--train-split",
            "validation",
            "--val-holdout",
            "1",
            *COLUMN_OPTIONS,
        ]
    )
    columns = columns_from(args)
    assert columns.premise == "sentence_a" and columns.label_names == ("contradiction", "neutral", "entailment")
    train, train_info, val, val_info = load_training_data(
        DataChoice(train_source=args.train_source, train_split="validation", val_holdout=1, columns=columns), seed=0
    )
    assert len(train) + len(val) == 3 and train_info.source == str(other_nli)


def test_fine_tuning_data_from_the_multinli_release():
    from swapbench.evaluation.finetune import DataChoice, load_training_data
    from swapbench.leaderboard.store import training_tag

    train, train_info, val, val_info = load_training_data(
        DataChoice(train_source=str(MULTINLI_RELEASE), train_split="validation_matched", val_split="dev_mismatched"),
        seed=0,
    )
    assert (len(train), len(val), val_info.split) == (5, 3, "validation_mismatched")
    assert (training_tag(train_info), training_tag(val_info)) == ("MultiNLI dev_matched", "MultiNLI dev_mismatched")


def test_multinli_hub_copy_keeps_its_pair_ids_and_trees(tmp_path):
    rows = [json.loads(line) for line in (MULTINLI_RELEASE / "multinli_1.0_dev_matched.jsonl").open()]
    columns = {
        "promptID": [r["promptID"] for r in rows],
        "pairID": [r["pairID"] for r in rows],
        "premise": [r["sentence1"] for r in rows],
        "premise_parse": [r["sentence1_parse"] for r in rows],
        "hypothesis": [r["sentence2"] for r in rows],
        "hypothesis_parse": [r["sentence2_parse"] for r in rows],
        "genre": [r["genre"] for r in rows],
        "label": [NLI.names.index(r["gold_label"]) if r["gold_label"] != "-" else -1 for r in rows],
    }
    features = datasets.Features({**{k: datasets.Value("string") for k in columns if k != "label"}, "label": NLI})
    folder = hub_folder(tmp_path / "multi_nli", {"validation_matched": columns}, features)
    split = load_hub(MULTINLI, str(folder), "dev_matched", None, tried="", option="--source")
    assert split.split == "validation_matched" and split.has_premise_parses
    assert [p.pair_id for p in split.pairs] == ["70001e", "70001c", "70001n", "70002e", "70002n"]


# --- resolution and tags -------------------------------------------------------------------------------------------


def test_what_source_resolves_to(monkeypatch, tmp_path):
    assert (resolve(None).source, resolve(None).kind) == (SNLI, "archive")
    assert resolve("snli").kind == "archive" and resolve("multinli").kind == "archive"
    hub = resolve("stanfordnlp/snli")
    assert (hub.source, hub.kind, hub.where) == (SNLI, "hub", "stanfordnlp/snli")
    assert resolve("nyu-mll/multi_nli").source is MULTINLI
    assert resolve("someone/nli-copy").source.name == "hub:someone/nli-copy"
    assert resolve(MULTINLI_RELEASE).source is MULTINLI and resolve(FIXTURES).source is SNLI
    monkeypatch.setenv("SWAPBENCH_SNLI_DIR", str(tmp_path))
    assert (resolve(None).kind, resolve(None).where) == ("files", str(tmp_path))


def test_release_tags_name_the_source():
    assert release_tag("/data/snli_1.0/snli_1.0_train_first1024.jsonl.gz") == "SNLI train_first1024"
    assert release_tag("multinli_1.0_dev_matched.jsonl") == "MultiNLI dev_matched"
    assert release_tag("stanfordnlp/snli") is None


def test_the_cli_lists_the_registered_sources_and_their_splits(capsys):
    toy = SNLI.model_copy(
        update={"name": "toy-nli", "short_name": "ToyNLI", "splits": {"toy_split": "toy"}, "aliases": {}}
    )
    SOURCES.add(toy.name, toy, help="a toy source registered by a test")
    try:
        with pytest.raises(SystemExit):
            main(["build", "--help"])
    finally:
        SOURCES.remove(toy.name)
    text = " ".join(capsys.readouterr().out.split())
    assert "toy-nli: a toy source registered by a test" in text and "ToyNLI: toy_split" in text
    assert "snli: SNLI 1.0, the release archive" in text and "multinli: MultiNLI 1.0" in text
    assert "hub:ORG/NAME: any NLI dataset on the Hub" in text and "validation_matched" in text
