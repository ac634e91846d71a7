"""What the commands tell the user: announcements, help texts that agree with behaviour, messages that name the
actual problem, and output streams (bars and logs on stderr, the results table alone on stdout)."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import datasets
import huggingface_hub.utils
import pytest
import transformers
from eval_models import save_base, save_classifier, write_training_file
from rich.console import Console

from swapbench.commands.main import main, make_parser
from swapbench.core.errors import SwapbenchError
from swapbench.dataset import curate
from swapbench.evaluation.finetune import DataChoice, reference_recipe
from swapbench.evaluation.scorers.classifier import announce_fine_tuning
from swapbench.results.files import default_output, model_slug
from swapbench.results.schema import EvalResults
from swapbench.zoo.report import epochs_chosen

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
BAR_MARKS = ("%|", "\x1b[A", "Generating", "Loading weights", "Loading checkpoint")


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", "shuffle-random"])


@pytest.fixture
def library_bars():
    """Restore the libraries' progress bars that --no-progress turns off for the rest of the process."""
    yield
    datasets.enable_progress_bars()
    transformers.utils.logging.enable_progress_bar()
    huggingface_hub.utils.enable_progress_bars()


def help_of(command: str) -> str:
    parser = make_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    return " ".join(subparsers.choices[command].format_help().split())


# Fine-tuning: announced, its progress and log lines on stderr, the loading report once.


def test_fine_tuning_is_announced_with_its_data_and_device_and_no_size_it_has_not_read(monkeypatch):
    """The pairs are counted once read: a folder of SNLI files may hold a cut copy of the train split."""
    import torch

    recipe = reference_recipe()
    monkeypatch.setenv("SWAPBENCH_SNLI_DIR", "snli-files")
    text = announce_fine_tuning("bert-base-uncased", DataChoice(), recipe, classifier=False, device=torch.device("cpu"))
    assert "bert-base-uncased is scored after fine-tuning (it is a base model" in text
    assert "3 epochs on the train split of $SWAPBENCH_SNLI_DIR (snli-files)" in text and "the CPU" in text
    assert "549,367" not in text and "optimiser steps" not in text and "counted once read" in text
    monkeypatch.delenv("SWAPBENCH_SNLI_DIR")
    assert "the train split of the SNLI 1.0 release archive" in announce_fine_tuning(
        "m", DataChoice(), recipe, classifier=False, device=torch.device("cpu")
    )
    limited = announce_fine_tuning(
        "m", DataChoice(train_limit=1000), recipe, classifier=True, device=torch.device("cpu")
    )
    assert "--finetune was given" in limited and "at most the first 1,000 pairs of the train split" in limited


def test_fine_tuning_progress_and_logs_go_to_stderr_and_transformers_reports_nothing(dataset, tmp_path, capfd, caplog):
    base = save_base(tmp_path / "base")
    train = write_training_file(tmp_path / "snli" / "snli_1.0_train.jsonl", "train")
    capfd.readouterr()
    output = tmp_path / "r.json"
    rc = main(
        [
            "eval",
            str(base),
            "--data",
            str(dataset),
            "--output",
            str(output),
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
            str(tmp_path / "cache"),
        ]
    )
    out, raw_err = capfd.readouterr()
    err = " ".join(raw_err.split())  # rich wraps lines at the width of a non-terminal
    assert rc == 0
    assert "is scored after fine-tuning" in err and "optimiser steps on the CPU" in err
    assert err.index("is scored after fine-tuning") < err.index("epoch 1: loss")
    assert "epoch 2: validation loss" in err and "validation accuracy" in err
    assert "Fine-tuning" in err and not re.search(r"fine-tuning\s+━", raw_err)  # a log file gets no bar
    assert "\x1b[A" not in raw_err + out
    # stdout holds the results table and nothing of the training
    assert "'loss'" not in out and "epoch 1" not in out and "━" not in out and "%|" not in out
    assert "shuffle-3" in out
    # transformers' report of the new classifier head (its words differ between 4 and 5), and its list of layers
    # "not sharded": the head is what "a base model, not a sequence classifier" says, and any other weight that
    # does not load is swapbench's to report
    assert "it is a base model, not a sequence classifier" in err
    chatter = [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith(("transformers", "huggingface_hub"))
        and r.levelno >= logging.WARNING
        and (
            "LOAD REPORT" in r.getMessage()
            or "not sharded" in r.getMessage()
            or "were not initialized" in r.getMessage()
        )
    ]
    assert chatter == []


def test_no_progress_silences_every_bar(dataset, tmp_path, capfd, library_bars):
    model = save_classifier(tmp_path / "model", NLI)
    capfd.readouterr()
    rc = main(
        [
            "eval",
            str(model),
            "--data",
            str(dataset),
            "--output",
            str(tmp_path / "r.json"),
            "--no-probe",
            "--no-progress",
            "--bootstrap",
            "200",
        ]
    )
    out, err = capfd.readouterr()
    assert rc == 0
    assert not [mark for mark in BAR_MARKS if mark in out + err], err
    assert not datasets.is_progress_bar_enabled()


def test_the_probe_bar_goes_to_stderr(dataset, tmp_path, capfd):
    model = save_classifier(tmp_path / "model", NLI)
    rc = main(
        [
            "eval",
            str(model),
            "--data",
            str(dataset),
            "--output",
            str(tmp_path / "r.json"),
            "--probe-words",
            "10",
            "--probe-length",
            "16",
            "--bootstrap",
            "200",
        ]
    )
    out, err = capfd.readouterr()
    assert rc == 0
    assert "probing attention" in err and "probing attention" not in out
    assert "scoring" in err and "scoring" not in out


# --limit and --split: the help says what they do, and they do it.


def test_limit_help_says_it_limits_scoring_only_and_the_results_record_it(dataset, tmp_path):
    text = help_of("eval")
    assert "It limits scoring only" in text and "dataset.limit" in text
    model = save_classifier(tmp_path / "model", NLI)
    output = tmp_path / "r.json"
    assert (
        main(
            [
                "eval",
                str(model),
                "--data",
                str(dataset),
                "--output",
                str(output),
                "--no-probe",
                "--no-progress",
                "--limit",
                "2",
                "--bootstrap",
                "200",
            ]
        )
        == 0
    )
    assert EvalResults.model_validate_json(output.read_text()).dataset.limit == 2


def test_eval_takes_the_split_names_build_takes(dataset, tmp_path, library_bars, capsys):
    assert "dev (= validation" in help_of("eval") and "dev (= validation" in help_of("build")
    model = save_classifier(tmp_path / "model", NLI)
    rc = main(
        [
            "eval",
            str(model),
            "--data",
            str(dataset),
            "--output",
            str(tmp_path / "r.json"),
            "--no-probe",
            "--no-progress",
            "--split",
            "dev",
        ]
    )
    # dev is read as validation, the name build writes: the fixture build has a test split only
    assert rc == 2 and "split 'validation'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        make_parser().parse_args(["eval", str(model), "--split", "devel"])


def test_build_help_describes_auto_labeler_and_parser():
    text = help_of("build")
    assert "auto: agree where a sentence has a tree, spacy where it has none" in text
    assert "agree: the frames spacy and tree both find" in text
    assert "benepar runs only in its own environment" in text


# Default output path: it names the model.


def test_default_output_names_the_model_not_the_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # a local model by its own name, wherever it lies: `results/*/results_*.json` finds every results file
    installed = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages" / "pkg" / "bert-nli"
    installed.mkdir(parents=True)
    assert (
        model_slug(str(installed)) == "bert-nli"
        and model_slug(".venv/lib/python3.11/site-packages/pkg/bert-nli") == "bert-nli"
    )
    hidden = tmp_path / ".checkpoint"
    hidden.mkdir()
    assert model_slug(str(hidden)) == "checkpoint"  # never a hidden folder
    assert model_slug(str(Path("/") / "tmp")) == "tmp"
    commit = "0123456789abcdef0123456789abcdef01234567"
    assert model_slug("FacebookAI/roberta-large-mnli", commit) == "FacebookAI__roberta-large-mnli@0123456789ab"
    from datetime import datetime, timezone

    path = default_output(
        "FacebookAI/roberta-large-mnli", "you/snli-swap", datetime(2026, 1, 2, tzinfo=timezone.utc), commit
    )
    assert path.parent == Path("results/FacebookAI__roberta-large-mnli@0123456789ab")
    assert re.fullmatch(r"results_you__snli-swap_20260102T000000_000000Z_[0-9a-f]{6}\.json", path.name)


def test_a_written_path_is_printed_whole_on_one_line(tmp_path, fixtures, capsys):
    """A path is copied from the terminal: however long, it is never wrapped (rich wraps at 80 columns off a
    terminal)."""
    deep = tmp_path / ("a-folder-with-a-long-name-" * 3) / "and-another-one"
    data = deep / "snli-test"
    assert main(["build", "--source", str(fixtures), "--out", str(data), "--no-cache", "--variants", "shuffle-3"]) == 0
    assert f"Wrote 1 configuration to {data}.\n" in capsys.readouterr().err
    model = save_classifier(tmp_path / "model", {0: "entailment", 1: "neutral", 2: "contradiction"})
    output = deep / "results" / "results_of_the_tiny_model_on_the_fixture_data.json"
    assert (
        main(
            [
                "eval",
                str(model),
                "--data",
                str(data),
                "--output",
                str(output),
                "--no-progress",
                "--no-probe",
                "--bootstrap",
                "10",
            ]
        )
        == 0
    )
    assert f"Wrote {output} and {output.stem}.predictions.jsonl\n" in capsys.readouterr().err


# Misleading messages.


def test_unknown_srl_is_refused_before_the_source_is_read(tmp_path, capsys):
    rc = main(["build", "--srl", "bogus", "--source", str(tmp_path / "missing"), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert rc == 2 and "--srl" in err and "bogus" in err and "missing" not in err
    assert not (tmp_path / "out").exists()


def test_a_missing_spacy_pipeline_is_named():
    from swapbench.parsing.spacy_parser import load_english

    with pytest.raises(SwapbenchError) as caught:
        load_english("en_core_web_zz_missing")
    message = str(caught.value)
    assert "en_core_web_zz_missing' is not installed" in message
    assert "python -m spacy download en_core_web_zz_missing" in message
    assert not message.startswith("no spaCy English pipeline is installed")


def test_label_map_overriding_named_labels_needs_force(dataset, tmp_path, capsys):
    model = save_classifier(tmp_path / "model", NLI)
    argv = [
        "eval",
        str(model),
        "--data",
        str(dataset),
        "--no-probe",
        "--no-progress",
        "--bootstrap",
        "200",
        "--label-map",
        "0=contradiction,1=neutral,2=entailment",
    ]
    assert main([*argv, "--output", str(tmp_path / "refused.json")]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "overrides the labels the model names itself" in err and "--force" in err
    assert not (tmp_path / "refused.json").exists()
    output = tmp_path / "forced.json"
    assert main([*argv, "--output", str(output), "--force"]) == 0
    results = EvalResults.model_validate_json(output.read_text())
    assert results.model.label_map_source == "--label-map" and results.model.label_names[0] == "contradiction"
    same = tmp_path / "same.json"  # a --label-map that agrees with the model's names needs no --force
    assert (
        main(
            [
                "eval",
                str(model),
                "--data",
                str(dataset),
                "--no-probe",
                "--no-progress",
                "--bootstrap",
                "200",
                "--label-map",
                "0=entailment,1=neutral,2=contradiction",
                "--output",
                str(same),
            ]
        )
        == 0
    )


def test_curate_says_why_it_asks_again():
    console = Console(record=True, width=200)
    replies = iter(["x", "  ", "A"])
    assert curate._answer(lambda prompt: next(replies), console) == "accept"
    text = console.export_text()
    assert "'x' is not an answer: type a (accept), r (reject), s (skip) or q (quit)" in text
    assert "'' is not an answer" in text


def test_counts_take_the_singular(tmp_path, capsys, fixtures):
    assert (
        main(
            [
                "build",
                "--source",
                str(fixtures),
                "--out",
                str(tmp_path / "out"),
                "--no-cache",
                "--variants",
                "shuffle-3",
            ]
        )
        == 0
    )
    assert "Wrote 1 configuration to" in capsys.readouterr().err
    assert epochs_chosen(1) == "one epoch" and epochs_chosen(3) == "best of 3 epochs"


def test_submit_outside_the_repository_points_to_board(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    results = tmp_path / "results.json"
    results.write_text(json.dumps({}))
    assert main(["submit", str(results)]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "no leaderboard found at leaderboard" in err and "--board" in err
    assert "--set-reference" not in err
    (tmp_path / "empty").mkdir()
    assert main(["submit", str(results), "--board", str(tmp_path / "empty")]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "has no reference.json" in err and "--set-reference" not in err
