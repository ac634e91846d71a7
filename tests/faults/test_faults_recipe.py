"""A row says how it was made. Departures from the reference recipe and scoring settings show in the
row; truncation is counted, warned of at eval and refused at submit; a checkpoint swapbench trained keeps its
training record when it is scored as it is."""

from __future__ import annotations

import json

import pytest
from board_helpers import empty_board, make_results, save
from eval_models import save_base, save_classifier, save_tokenizer, write_training_file

from swapbench.commands.main import main
from swapbench.core.text import public_path

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3"])


def eval_args(model, data, output, *extra) -> list[str]:
    return [
        "eval",
        str(model),
        "--data",
        str(data),
        "--output",
        str(output),
        "--no-progress",
        "--no-probe",
        "--bootstrap",
        "50",
        *extra,
    ]


def test_a_one_epoch_run_says_so_in_its_board_row(tmp_path):
    data = make_results("base-model", trained_on="snli_1.0_dev.jsonl")
    recipe, train = data["model"]["fine_tuning"]["recipe"], data["model"]["fine_tuning"]["train"]
    recipe.update(epochs=1, learning_rate=1e-4, max_length=64)
    train.update(split="validation", limit=400, n=300)
    board = empty_board(tmp_path / "board")
    assert main(["submit", str(save(data, tmp_path / "r.json")), "--board", str(board)]) == 0
    [row] = [
        line
        for line in (board / "README.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| [base-model")
    ]
    assert (
        "departs from the reference: max length 64 (reference 128), learning rate 0.0001 (reference 2e-05), "
        "epochs 1 (reference 3), training data not the whole SNLI train split" in row
    )


def test_truncation_is_warned_of_at_eval_and_refused_at_submit(swapbench_cli, tmp_path, dataset, digest):
    output = tmp_path / "out" / "r.json"
    run = swapbench_cli(*eval_args(save_classifier(tmp_path / "model", NLI), dataset, output, "--max-length", "8"))
    assert run.code == 0, run.output
    scoring = json.loads(output.read_text(encoding="utf-8"))["provenance"]["scoring"]
    assert scoring["truncated"] == scoring["unique_pairs"] > 0
    assert (
        f"warning: {scoring['truncated']} of {scoring['unique_pairs']} distinct pairs are longer than "
        "--max-length 8 tokens and were truncated" in " ".join(run.stderr.split())
    )

    board = empty_board(tmp_path / "board")
    before = digest(board)
    run = swapbench_cli("submit", "--check", output, "--board", board)
    assert run.code == 1, run.output
    assert (
        f"provenance.scoring.truncated: {scoring['truncated']} pairs were truncated at --max-length 8; "
        "the board scores pairs up to 128 tokens"
    ) in " ".join(run.stdout.split())
    assert "Traceback" not in run.output and digest(board) == before


def test_a_cached_fine_tuned_checkpoint_scored_as_is_keeps_its_training(tmp_path, dataset):
    base = save_base(tmp_path / "base")
    train = write_training_file(tmp_path / "snli" / "snli_1.0_train.jsonl", "train")
    cache = tmp_path / "cache"
    assert (
        main(
            eval_args(
                base,
                dataset,
                tmp_path / "tuned.json",
                "--epochs",
                "1",
                "--train-source",
                str(train),
                "--val-holdout",
                "6",
                "--cache-dir",
                str(cache),
            )
        )
        == 0
    )
    [record] = cache.rglob("swapbench_finetune.json")
    assert main(eval_args(record.parent, dataset, tmp_path / "as-is.json")) == 0
    model = json.loads((tmp_path / "as-is.json").read_text(encoding="utf-8"))["model"]
    assert model["fine_tuned"] is True
    tuning = model["fine_tuning"]
    assert (tuning["base_model"], tuning["recipe"]["epochs"], tuning["reused"]) == (public_path(base), 1, True)
    assert tuning["checkpoint"] == public_path(record.parent) == model["name_or_path"]


def test_a_zoo_checkpoint_scored_as_is_keeps_its_training(tmp_path, dataset):
    out, tokenizer = tmp_path / "zoo", tmp_path / "tokenizer"
    save_tokenizer(tokenizer)
    assert (
        main(
            [
                "zoo",
                "train",
                "none",
                "--out",
                str(out),
                "--layers",
                "1",
                "--hidden",
                "16",
                "--heads",
                "2",
                "--epochs",
                "1",
                "--train-batch-size",
                "8",
                "--max-length",
                "32",
                "--tokenizer",
                str(tokenizer),
                "--train-source",
                str(write_training_file(tmp_path / "train.jsonl", "t")),
                "--val-holdout",
                "6",
                "--device",
                "cpu",
                "--no-progress",
            ]
        )
        == 0
    )
    assert main(eval_args(out, dataset, tmp_path / "r.json")) == 0
    model = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["model"]
    assert model["fine_tuned"] is False  # trained from scratch: no pretrained model was fine-tuned
    assert model["fine_tuning"]["from_scratch"] is True
    assert model["fine_tuning"]["base_model"] == "swapbench-zoo"  # the model type it was built from, not prose
    assert model["fine_tuning"]["recipe"]["max_length"] == 32
