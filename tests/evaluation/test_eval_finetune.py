"""A base model is fine-tuned on a few dozen pairs, the checkpoint cached, and reused by the next eval."""

from __future__ import annotations

import pytest
from eval_models import save_base, write_training_file

from swapbench.commands.main import main
from swapbench.core.text import public_path
from swapbench.evaluation.finetune import INFO_FILE
from swapbench.results.schema import EvalResults


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", "shuffle-random"])


@pytest.fixture
def setup(tmp_path, dataset):
    base = save_base(tmp_path / "base")
    train = write_training_file(tmp_path / "snli" / "snli_1.0_train.jsonl", "train")
    return base, train, dataset, tmp_path / "cache"


def evaluate(base, train, data, cache, output, *extra):
    argv = [
        "eval",
        str(base),
        "--data",
        str(data),
        "--output",
        str(output),
        "--no-progress",
        "--no-probe",
        "--train-source",
        str(train),
        "--val-holdout",
        "8",
        "--epochs",
        "2",
        "--train-batch-size",
        "8",
        "--cache-dir",
        str(cache),
        *extra,
    ]
    assert main(argv) == 0
    return EvalResults.model_validate_json(output.read_text())


def score_as_is(checkpoint, data, output):
    """A classifier scored as it is: no training options (they would be refused)."""
    argv = ["eval", str(checkpoint), "--data", str(data), "--output", str(output), "--no-progress", "--no-probe"]
    assert main(argv) == 0
    return EvalResults.model_validate_json(output.read_text())


def test_fine_tuning_is_cached_and_reused(setup, tmp_path):
    base, train, data, cache = setup
    first = evaluate(base, train, data, cache, tmp_path / "first.json")
    tuning = first.model.fine_tuning
    assert first.model.fine_tuned and not tuning.reused
    assert first.model.label_map_source == "fine-tuned"
    assert first.model.name_or_path == public_path(base) and first.model.revision == tuning.base_revision
    assert (tuning.train.n, tuning.validation.n, tuning.validation.held_out) == (39, 9, True)  # 3 whole premises
    assert tuning.recipe.learning_rate == 2e-5 and tuning.recipe.max_length == 128
    assert (tuning.recipe.epochs, tuning.recipe.batch_size) == (2, 8)
    assert [e.epoch for e in tuning.history] == [1, 2]
    assert tuning.best_validation_accuracy == max(e.validation_accuracy for e in tuning.history)
    assert first.provenance.timings.fine_tuning > 0
    checkpoint = cache / "finetuned" / next(p.name for p in (cache / "finetuned").iterdir() if p.is_dir())
    assert public_path(checkpoint) == tuning.checkpoint and (checkpoint / INFO_FILE).is_file()
    assert not list((cache / "finetuned").glob(".*"))  # no work or staging folder left behind
    weights = {p.name: p.stat().st_mtime_ns for p in checkpoint.iterdir()}

    second = evaluate(base, train, data, cache, tmp_path / "second.json")
    assert second.model.fine_tuning.reused
    assert second.model.fine_tuning.cache_key == tuning.cache_key
    assert second.provenance.timings.fine_tuning == 0
    assert {p.name: p.stat().st_mtime_ns for p in checkpoint.iterdir()} == weights  # not written again
    # The same checkpoint scores the same predictions.
    assert second.results == first.results

    other = evaluate(base, train, data, cache, tmp_path / "third.json", "--lr", "1e-4")
    assert not other.model.fine_tuning.reused
    assert other.model.fine_tuning.cache_key != tuning.cache_key
    assert len([p for p in (cache / "finetuned").iterdir() if p.is_dir()]) == 2


def test_train_precision_float32_trains_in_float32_and_keeps_a_checkpoint_of_its_own(setup, tmp_path):
    import torch

    from swapbench.models.precision import fast_bfloat16

    base, train, data, cache = setup
    auto = evaluate(base, train, data, cache, tmp_path / "auto.json")
    exact = evaluate(base, train, data, cache, tmp_path / "exact.json", "--train-precision", "float32")
    fast = fast_bfloat16(torch.device("cpu"))
    assert auto.model.fine_tuning.recipe.precision == ("bfloat16-autocast" if fast else "float32")
    assert (auto.model.fine_tuning.validation_agreement is not None) == fast
    assert exact.model.fine_tuning.recipe.precision == "float32"
    assert exact.model.fine_tuning.validation_agreement is None
    # a float32 training is another checkpoint where auto trains in bf16, the same one where it does not
    assert (exact.model.fine_tuning.cache_key != auto.model.fine_tuning.cache_key) == fast
    assert exact.model.fine_tuning.reused == (not fast)


def test_validation_that_overlaps_training_is_refused(setup, tmp_path, capsys):
    base, train, data, cache = setup
    rc = main(
        [
            "eval",
            str(base),
            "--data",
            str(data),
            "--output",
            str(tmp_path / "r.json"),
            "--no-probe",
            "--train-source",
            str(train),
            "--val-source",
            str(train),
            "--val-split",
            "train",
            "--cache-dir",
            str(cache),
        ]
    )
    assert rc == 2
    assert "overlap" in capsys.readouterr().err
    assert not cache.exists()


def test_a_checkpoint_scored_by_its_folder_goes_on_the_board_when_its_training_was_checked_against_these_data(
    setup, tmp_path, build_fixture_dataset
):
    from swapbench.leaderboard.board import check
    from swapbench.leaderboard.reference import reference_from_build, write_reference

    base, train, data, cache = setup
    tuned = evaluate(base, train, data, cache, tmp_path / "tuned.json")
    checkpoint = next(p for p in (cache / "finetuned").iterdir() if p.is_dir())
    board = tmp_path / "board"
    write_reference(board, reference_from_build(data))

    def overlap_problems(results: EvalResults, name: str) -> list[str]:
        path = tmp_path / name
        path.write_text(results.model_dump_json(), encoding="utf-8")
        return [p.message for p in check(path, board).problems if p.where.startswith("model.fine_tuning.data_over")]

    # scored by its folder on the data it was trained apart from: the check made at training time holds
    by_folder = score_as_is(checkpoint, data, tmp_path / "by-folder.json")
    assert by_folder.model.name_or_path == public_path(checkpoint) == by_folder.model.fine_tuning.checkpoint
    assert by_folder.model.fine_tuning.data_overlap == tuned.model.fine_tuning.data_overlap
    assert overlap_problems(by_folder, "by-folder.json") == []

    # on other data, that check says nothing: the board refuses it and says why, and what to do instead
    other = build_fixture_dataset(["shuffle-3"])
    elsewhere = score_as_is(checkpoint, other, tmp_path / "elsewhere.json")
    assert elsewhere.model.fine_tuning.data_overlap is None
    [message] = overlap_problems(elsewhere, "elsewhere.json")
    assert f"which swapbench fine-tuned from {public_path(base)}, was scored by its folder" in message
    assert f"`swapbench eval {public_path(base)}` with the same recipe" in message
    assert "score the model again with this version" not in message


def test_an_eval_shows_swapbench_s_lines_not_the_libraries_chatter(setup, tmp_path):
    """A user's terminal, in a process of its own: fine-tuning a base model loads it twice (the Trainer's
    model_init) and the checkpoint once more to score. transformers would print a load report of the new head,
    a list of layers "not sharded" and bars for loading and writing weights each time; swapbench says what counts."""
    import os
    import subprocess
    import sys

    base, train, data, cache = setup
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    env.pop("TRANSFORMERS_VERBOSITY", None)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "swapbench",
            "eval",
            str(base),
            "--data",
            str(data),
            "--output",
            str(tmp_path / "r.json"),
            "--no-probe",
            "--train-source",
            str(train),
            "--val-holdout",
            "8",
            "--epochs",
            "1",
            "--train-batch-size",
            "8",
            "--cache-dir",
            str(cache),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    said = done.stderr + done.stdout
    assert f"Fine-tuning {base} on 39 pairs" in " ".join(done.stderr.split())
    assert "epoch 1: validation loss" in done.stderr and "Wrote " in done.stderr
    for chatter in (
        "LOAD REPORT",
        "not sharded",
        "[transformers]",
        "MISSING",
        "newly initialized",
        "Loading weights",
        "Writing model shards",
    ):
        assert chatter not in said, chatter
