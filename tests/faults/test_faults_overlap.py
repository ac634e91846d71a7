"""No training or model selection on the scored pairs, checked by content (pairIDs and premises),
whatever split or file they are read from; --val-holdout holds out whole premises; `submit` refuses a model whose
training data were not checked or overlap the scored data."""

from __future__ import annotations

import json
import shutil

import pytest
from board_helpers import empty_board, make_results, save
from eval_models import save_base, write_training_file

from swapbench.commands.main import main
from swapbench.evaluation.finetune import DataChoice, load_training_data
from swapbench.evaluation.scored_data import premise_key


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", "shuffle-random"])


@pytest.fixture
def base(tmp_path):
    return save_base(tmp_path / "base")


def eval_args(base, data, tmp_path, *training: str) -> list[str]:
    return [
        "eval",
        str(base),
        "--data",
        str(data),
        "--output",
        str(tmp_path / "out" / "r.json"),
        "--no-progress",
        "--no-probe",
        "--epochs",
        "1",
        "--cache-dir",
        str(tmp_path / "cache"),
        *training,
    ]


def test_training_on_the_scored_split_is_refused(swapbench_cli, tmp_path, fixtures, dataset, base, digest):
    """The issue's reproducer: the benchmark's own source file, given as training data."""
    before = digest(dataset)
    run = swapbench_cli(
        *eval_args(
            base, dataset, tmp_path, "--train-source", str(fixtures), "--train-split", "test", "--val-holdout", "2"
        )
    )
    assert run.code == 2, run.output
    message = " ".join(run.stderr.split())
    assert "you are training on the scored split: the training pairs (" in message
    assert "overlap the scored data (" in message
    assert "share a pairID" in message and "Traceback" not in run.output
    assert not (tmp_path / "out").exists() and not (tmp_path / "cache").exists() and digest(dataset) == before


def test_validating_on_the_scored_pairs_is_refused_even_from_another_file(tmp_path, fixtures, dataset, base, capsys):
    """--val-split test on a copy of the scored pairs under another name: caught by content, not by name."""
    train = write_training_file(tmp_path / "snli" / "snli_1.0_train.jsonl", "train")
    copy = tmp_path / "copy" / "snli_1.0_dev.jsonl"
    copy.parent.mkdir()
    shutil.copy(fixtures / "snli_1.0_test.jsonl", copy)
    rc = main(
        eval_args(
            base,
            dataset,
            tmp_path,
            "--train-source",
            str(train),
            "--val-source",
            str(copy.parent),
            "--val-split",
            "dev",
        )
    )
    assert rc == 2
    message = " ".join(capsys.readouterr().err.split())
    assert "the validation pairs (" in message and "overlap the scored data" in message


def test_a_copy_with_new_pair_ids_is_still_caught_by_its_premises(tmp_path, fixtures, dataset, base, capsys):
    rows = [json.loads(line) for line in (fixtures / "snli_1.0_test.jsonl").read_text().splitlines()]
    for i, row in enumerate(rows):
        row["pairID"] = f"renamed{i}"
    train = tmp_path / "renamed" / "snli_1.0_train.jsonl"
    train.parent.mkdir()
    train.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(eval_args(base, dataset, tmp_path, "--train-source", str(train), "--val-holdout", "2")) == 2
    message = " ".join(capsys.readouterr().err.split())
    assert "0 of" in message and "share a pairID and" in message and "a premise with a scored pair" in message


def test_a_premise_repeated_by_chance_is_set_apart_and_recorded(tmp_path, fixtures, dataset, base, capsys):
    """SNLI's splits share a few caption texts: one such pair among many is left out of training, not refused."""
    rows = []
    for start in (0, 100, 200):
        part = write_training_file(tmp_path / f"part{start}.jsonl", "train", start)
        rows += [json.loads(line) for line in part.read_text().splitlines()]
    scored = json.loads((fixtures / "snli_1.0_test.jsonl").read_text().splitlines()[1])
    rows.append(
        {
            "gold_label": "entailment",
            "pairID": "train-repeat",
            "sentence1": scored["sentence1"],
            "sentence2": "Somebody waits near a kiosk.",
        }
    )
    train = tmp_path / "snli" / "snli_1.0_train.jsonl"
    train.parent.mkdir()
    train.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(eval_args(base, dataset, tmp_path, "--train-source", str(train), "--val-holdout", "10")) == 0
    captured = capsys.readouterr()
    assert "Set apart 1 training pair whose premise is also a scored premise" in " ".join(
        (captured.out + captured.err).split()
    )
    tuning = json.loads((tmp_path / "out" / "r.json").read_text())["model"]["fine_tuning"]
    assert tuning["data_overlap"]["train_set_apart"] == 1 and tuning["data_overlap"]["train_shared_premises"] == 0
    assert tuning["train"]["n"] + tuning["validation"]["n"] == len(rows) - 1


def test_the_holdout_holds_out_whole_premises(tmp_path):
    train = write_training_file(tmp_path / "snli" / "snli_1.0_train.jsonl", "train")
    train_pairs, train_info, val_pairs, val_info = load_training_data(
        DataChoice(train_source=str(train), val_holdout=10), seed=0
    )
    assert val_info.held_out and val_info.n >= 10 and train_info.n + val_info.n == 48
    assert not {premise_key(p.premise) for p in train_pairs} & {premise_key(p.premise) for p in val_pairs}


def test_submit_refuses_training_data_that_were_not_checked_or_overlap(tmp_path, capsys):
    board = empty_board(tmp_path / "board")
    data = make_results("org/model", trained_on="snli_1.0_test.jsonl")
    check = data["model"]["fine_tuning"].pop("data_overlap")  # as written before the check existed
    path = save(data, tmp_path / "unchecked.json")
    assert main(["submit", "--check", str(path), "--board", str(board)]) == 1
    assert "model.fine_tuning.data_overlap: the training data were not checked" in capsys.readouterr().out

    check.update(train_shared_pair_ids=150, train_shared_premises=150)
    data["model"]["fine_tuning"]["data_overlap"] = check
    assert main(["submit", "--check", str(save(data, tmp_path / "overlap.json")), "--board", str(board)]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "model.fine_tuning.data_overlap: the training data overlap the reference data: train_shared_pair_ids 150" in out
    )

    check.update(train_shared_pair_ids=0, train_shared_premises=0)
    assert main(["submit", "--check", str(save(data, tmp_path / "clean.json")), "--board", str(board)]) == 0
