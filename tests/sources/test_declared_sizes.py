"""A split read whole that holds fewer pairs than its source declares (a cut copy of the release) says so."""

from __future__ import annotations

import pytest
from eval_models import write_training_file

from swapbench.sources import Source, load_split
from swapbench.sources.snli import SNLI


def test_snli_declares_the_labelled_pairs_of_each_split():
    assert SNLI.declared_pairs("train") == 549_367
    assert SNLI.declared_pairs("dev") == SNLI.declared_pairs("validation") == 9_842
    assert SNLI.declared_pairs("test") == 9_824


def test_a_declared_size_names_a_split():
    with pytest.raises(ValueError, match="split_pairs dev_other name no split"):
        Source(**{**SNLI.model_dump(), "split_pairs": {"dev_other": 3}})


def test_a_release_file_shorter_than_its_split_is_a_cut_copy(tmp_path):
    path = write_training_file(tmp_path / "snli_1.0_train_first48.jsonl", "train")  # 48 hand-written pairs
    split = load_split(path, "train")
    assert split.declared_pairs == 549_367
    problem = split.shortfall()
    assert problem and "holds 48 labelled pairs" in problem and "SNLI 1.0's train split has 549,367" in problem
    assert str(path) in problem


def test_a_limit_that_stops_the_reading_is_no_shortfall(tmp_path):
    path = write_training_file(tmp_path / "snli_1.0_train.jsonl", "train")
    assert load_split(path, "train", limit=10).shortfall() is None
    assert "holds 48 labelled pairs" in load_split(path, "train", limit=100).shortfall()  # the file ran out first


def test_a_file_whose_name_claims_no_split_is_not_compared(tmp_path):
    path = write_training_file(tmp_path / "my_pairs.jsonl", "train")
    split = load_split(path, "train")
    assert split.declared_pairs is None and split.shortfall() is None


def test_a_build_from_a_cut_copy_says_so(tmp_path, capsys):
    from swapbench.commands.main import main

    source = write_training_file(tmp_path / "snli" / "snli_1.0_train.jsonl", "train")
    assert (
        main(
            [
                "build",
                "--split",
                "train",
                "--source",
                str(source.parent),
                "--out",
                str(tmp_path / "out"),
                "--variants",
                "shuffle-random",
                "--no-cache",
            ]
        )
        == 0
    )
    said = " ".join(capsys.readouterr().err.split())
    assert "warning:" in said and "holds 48 labelled pairs, but SNLI 1.0's train split has 549,367" in said
    assert "the build holds only these pairs" in said
