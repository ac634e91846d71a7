"""Messages that say what is wrong where a first hour's mistakes found them saying something else (issue 45, item
9): each names the option, file or variable at fault and the way out, and nothing is done."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_models import save_base, save_classifier

from swapbench.commands.main import main

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3"])


def said(capsys) -> str:
    return " ".join(capsys.readouterr().err.split())


def score(model: Path, dataset: Path, output: Path, *extra: str) -> int:
    return main(
        ["eval", str(model), "--data", str(dataset), "--output", str(output), "--no-probe", "--no-progress", *extra]
    )


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc, a folder that takes no new file")
def test_an_output_whose_folder_cannot_be_made_names_that_folder(tmp_path, dataset, capsys):
    model = save_classifier(tmp_path / "model", NLI)
    assert score(model, dataset, Path("/proc/nope/x.json")) == 2
    text = said(capsys)
    assert (
        "cannot write /proc/nope/x.json (--output): its folder /proc/nope does not exist and cannot be made: "
        "/proc takes no new file or folder"
    ) in text
    assert "/proc: No such file" not in text


def test_a_snli_folder_variable_that_leads_nowhere_is_named(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SWAPBENCH_SNLI_DIR", str(tmp_path / "nope"))
    assert main(["build", "--out", str(tmp_path / "out"), "--no-cache"]) == 2
    text = said(capsys)
    assert f"$SWAPBENCH_SNLI_DIR names {tmp_path / 'nope'}, read because no --source was given" in text
    assert "Set $SWAPBENCH_SNLI_DIR to a folder holding snli_1.0_test.jsonl (or .jsonl.gz), or unset it" in text
    assert not (tmp_path / "out").exists()


def test_training_on_the_scored_split_is_said_before_the_validation_overlap(tmp_path, fixtures, dataset, capsys):
    """SNLI's dev and test share a few premises: with --train-split test, the validation split overlaps the
    training pairs too, but what is wrong is training on the scored split."""
    folder = tmp_path / "snli"
    folder.mkdir()
    test_rows = (fixtures / "snli_1.0_test.jsonl").read_text()
    (folder / "snli_1.0_test.jsonl").write_text(test_rows)
    premise = json.loads(test_rows.splitlines()[0])["sentence1"]
    (folder / "snli_1.0_dev.jsonl").write_text(
        json.dumps(
            {"gold_label": "neutral", "pairID": "dev0", "sentence1": premise, "sentence2": "Two boys read near water."}
        )
        + "\n"
    )
    base = save_base(tmp_path / "base")
    assert (
        score(
            base,
            dataset,
            tmp_path / "r.json",
            "--train-source",
            str(folder),
            "--train-split",
            "test",
            "--cache-dir",
            str(tmp_path / "cache"),
        )
        == 2
    )
    text = said(capsys)
    assert "you are training on the scored split: the training pairs (" in text
    assert "the validation pairs" not in text
    assert not (tmp_path / "r.json").exists()


def test_every_mistaken_entry_of_a_suite_is_listed(tmp_path, dataset, capsys):
    model = save_classifier(tmp_path / "model", NLI)
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"data: {dataset}\nmodels:\n"
        f"  - model: {model}\n    options: {{eval_batch_size: 0}}\n"
        f"  - model: {model}\n    seeds: [1, 2]\n    options: {{probe_words: -1}}\n"
        f"  - model: {model}\n    mode: prompt\n    options: {{label_map: '0=entailment'}}\n"
    )
    assert main(["suite", str(suite), "--out", str(tmp_path / "out")]) == 2
    text = said(capsys)
    assert f"{suite}:4: models.0 ({model}): --eval-batch-size: 0 is out of range" in text
    assert f"; line 7: models.1 ({model}): --probe-words: -1 is out of range" in text
    assert f"; line 10: models.2 ({model}): " in text and "--label-map" in text
    assert text.count("models.1") == 1  # once for the entry, not once per seed
    assert not (tmp_path / "out").exists()


def test_a_label_map_that_leaves_an_output_out_names_it(tmp_path, dataset, capsys):
    model = save_classifier(tmp_path / "model", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    assert score(model, dataset, tmp_path / "r.json", "--label-map", "0=entailment,1=neutral") == 2
    text = said(capsys)
    assert (
        "--label-map names no NLI label for output 2: the model has 3 outputs (0=LABEL_0, 1=LABEL_1, "
        "2=LABEL_2), and each needs one"
    ) in text
    assert "None" not in text


def test_a_split_the_build_does_not_hold_lists_those_it_holds(tmp_path, dataset, capsys):
    model = save_classifier(tmp_path / "model", NLI)
    assert score(model, dataset, tmp_path / "r.json", "--split", "train") == 2
    assert (
        "the folder holds no 'train' split, only 'test': give --split test, or leave --split out to score the "
        "split it was built from"
    ) in said(capsys)


def test_an_encoding_option_that_tunes_none_of_the_encodings_is_refused(tmp_path, dataset, capsys):
    assert (
        main(
            [
                "zoo",
                "run",
                "--data",
                str(dataset),
                "--out",
                str(tmp_path / "out"),
                "--work",
                str(tmp_path / "w"),
                "--encoding-option",
                "attenuated_locality=0.5",
                "--encodings",
                "rope",
            ]
        )
        == 2
    )
    assert (
        "--encoding-option attenuated_locality=0.5 tunes none of the encodings trained (rope): "
        "attenuated_locality is a setting of attenuated"
    ) in said(capsys)
    assert (
        main(["zoo", "train", "alibi", "--out", str(tmp_path / "ckpt"), "--encoding-option", "sinusoidal_base=500"])
        == 2
    )
    assert "sinusoidal_base is a setting of sinusoidal and rope" in said(capsys)
    assert not (tmp_path / "out").exists() and not (tmp_path / "ckpt").exists()
