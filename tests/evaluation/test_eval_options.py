"""`swapbench eval`'s options are made from one model: the command line and `swapbench.evaluate` take the same
options, check them the same way, and name a bad one the same way; renamed options keep their old spelling."""

from __future__ import annotations

import argparse

import pytest
from eval_models import save_base, save_classifier, write_training_file

import swapbench
from swapbench.commands.main import main, make_parser
from swapbench.core.command_options import from_arguments
from swapbench.core.errors import SwapbenchError
from swapbench.evaluation.options import eval_options_model
from swapbench.results.schema import EvalResults

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


def subparser(command: str) -> argparse.ArgumentParser:
    actions = make_parser([command])._subparsers._group_actions[0]
    return actions.choices[command]


def options_of(parser: argparse.ArgumentParser) -> set[str]:
    """The destinations of the parser's arguments, aliases and --help left out."""
    return {action.dest for action in parser._actions if action.dest != "help"}


def parse_eval(*argv: str):
    args = make_parser(["eval"]).parse_args(["eval", "MODEL", *argv])
    return from_arguments(eval_options_model(), args, command=["test"])


def test_the_command_line_and_the_api_take_the_same_options():
    typed = {name for name, field in eval_options_model().model_fields.items() if name != "command"}
    # -v/-q are every command's (commands/main.py's CommandParser), not eval's options
    assert options_of(subparser("eval")) - {"verbosity"} == typed
    assert {"train_batch_size", "eval_batch_size", "probe_batch_size", "train_max_length", "max_length"} <= typed
    assert "batch_size" not in typed  # one name per meaning


def test_defaults_are_the_same_from_both_paths():
    assert parse_eval() == eval_options_model().from_keywords(model="MODEL", command=["test"])


def test_an_out_of_range_value_is_named_the_same_from_the_command_line_and_the_api(capsys):
    for flag, keyword, value, bound in [
        ("--max-length", "max_length", 2, 8),
        ("--train-max-length", "train_max_length", 7, 8),
        ("--train-batch-size", "train_batch_size", 0, 1),
        ("--probe-batch-size", "probe_batch_size", 0, 1),
        ("--limit", "limit", 0, 1),
    ]:
        with pytest.raises(SystemExit):
            parse_eval(flag, str(value))
        assert f"argument {flag}: {value} is out of range: expected an integer >= {bound}" in capsys.readouterr().err
        with pytest.raises(SwapbenchError, match=f"^{flag}: {value} is out of range: expected an integer >= {bound}$"):
            eval_options_model().from_keywords(model="m", **{keyword: value})


@pytest.fixture(scope="module")
def scored(build_fixture_dataset, tmp_path_factory):
    """A dataset, a classifier and a training file, shared by the cases below."""
    root = tmp_path_factory.mktemp("options")
    return {
        "data": build_fixture_dataset(["shuffle-3"]),
        "model": save_classifier(root / "bert", NLI),
        "train": write_training_file(root / "snli" / "snli_1.0_train.jsonl", "train"),
    }


TRAIN = object()  # stands for the training file, made by the fixture

# Each bad option as the command line takes it and as swapbench.evaluate takes it (the flag's name as keyword),
# with the message both give. The model is a classifier, so training options are refused there.
BAD_OPTIONS = [
    (["--limit", "0"], {"limit": 0}, "--limit: 0 is out of range: expected an integer >= 1"),
    (["--lr", "0"], {"lr": 0}, "--lr: 0 is out of range: expected a number > 0"),
    (["--max-length", "4"], {"max_length": 4}, "--max-length: 4 is out of range: expected an integer >= 8"),
    (
        ["--train-batch-size", "0"],
        {"train_batch_size": 0},
        "--train-batch-size: 0 is out of range: expected an integer >= 1",
    ),
    (["--seed", "-1"], {"seed": -1}, "--seed: -1 is out of range: expected an integer >= 0 and <= 4294967295"),
    (["--epochs", "x"], {"epochs": "x"}, "--epochs: 'x' is not an integer: expected an integer >= 1"),
    (
        ["--epochs", "1"],
        {"epochs": 1},
        (
            "already is a sequence classifier, which is scored as it is: --epochs would "
            "be ignored. Add --finetune to fine-tune it on them before it is scored, or "
            "leave it out"
        ),
    ),
    (
        ["--train-source", TRAIN, "--train-limit", "8"],
        {"train_source": TRAIN, "train_limit": 8},
        "--train-source and --train-limit would be ignored. Add --finetune",
    ),
    (
        ["--val-split", "test", "--lr", "1e-4"],
        {"val_split": "test", "lr": 1e-4},
        "--val-split and --lr would be ignored. Add --finetune",
    ),
    (
        ["--mode", "prompt", "--finetune"],
        {"mode": "prompt", "finetune": True},
        "--finetune is for --mode classifier, not --mode prompt",
    ),
    (
        ["--mode", "prompt", "--epochs", "2"],
        {"mode": "prompt", "epochs": 2},
        "--epochs is for --mode classifier, not --mode prompt",
    ),
    (
        ["--mode", "prompt", "--train-limit", "5"],
        {"mode": "prompt", "train_limit": 5},
        "--train-limit is not read by --mode prompt, which trains nothing",
    ),
    (
        ["--label-map", "0=contradiction,1=neutral,2=entailment"],
        {"label_map": "0=contradiction,1=neutral,2=entailment"},
        "overrides the labels the model names itself in config.id2label",
    ),
    # --seeds fine-tunes once per seed: refused where nothing is fine-tuned, and for a seed given twice or alone
    (
        ["--seeds", "0,1"],
        {"seeds": [0, 1]},
        (
            "--seeds fine-tunes the model once per seed, but",
            "already is a sequence classifier, which is scored as it is: add --finetune",
        ),
    ),
    (
        ["--mode", "prompt", "--seeds", "0,1"],
        {"mode": "prompt", "seeds": [0, 1]},
        "--seeds is for --mode classifier, not --mode prompt",
    ),
    (["--seeds", "1,1"], {"seeds": "1,1"}, "--seeds: seed 1 is given twice: each seed is one run"),
    (
        ["--seeds", "3"],
        {"seeds": [3]},
        "--seeds: 3 is one seed: --seeds takes two or more, and one fine-tuning's seed is --seed",
    ),
    (["--seeds", "0,-2"], {"seeds": [0, -2]}, "-2 is out of range"),
]


@pytest.mark.parametrize("argv, keywords, message", BAD_OPTIONS, ids=[" ".join(map(str, c[0])) for c in BAD_OPTIONS])
def test_a_bad_option_is_refused_with_the_same_message_from_the_command_line_and_the_api(
    argv, keywords, message, scored, tmp_path, capsys
):
    def given(value):
        return str(scored["train"]) if value is TRAIN else value

    output = tmp_path / "r.json"
    try:
        rc = main(
            [
                "eval",
                str(scored["model"]),
                "--data",
                str(scored["data"]),
                "--output",
                str(output),
                "--no-probe",
                "--no-progress",
                *map(given, argv),
            ]
        )
    except SystemExit as exit_:  # argparse's: a value its type refuses
        rc = exit_.code
    assert rc == 2
    said = " ".join(capsys.readouterr().err.split())
    with pytest.raises(SwapbenchError) as caught:
        swapbench.evaluate(
            scored["model"],
            scored["data"],
            output=output,
            no_probe=True,
            no_progress=True,
            **{key: given(value) for key, value in keywords.items()},
        )
    for part in message if isinstance(message, tuple) else (message,):
        assert part in said and part in str(caught.value)
    assert not output.exists()


def test_training_options_are_taken_for_a_classifier_with_finetune_and_for_a_prompt_s_shots():
    assert parse_eval("--finetune", "--epochs", "1", "--lr", "1e-4").epochs == 1  # (refused at prepare otherwise)
    from swapbench.evaluation.scorers import scorer_for

    shots = eval_options_model().from_keywords(
        model="m", mode="prompt", shots=2, train_split="dev", train_limit=50, command=["test"]
    )
    assert scorer_for(shots).mode == "prompted"  # the pool of the shots: not refused


def test_flag_names_are_keywords_with_the_flag_s_meaning():
    from_cli = parse_eval("--lr", "1e-4", "--no-probe", "--no-progress", "--train-batch-size", "8")
    assert (
        eval_options_model().from_keywords(
            model="MODEL", lr=1e-4, no_probe=True, no_progress=True, train_batch_size=8, command=["test"]
        )
        == from_cli
    )
    assert (
        eval_options_model().from_keywords(
            model="MODEL", learning_rate=1e-4, probe=False, progress=False, train_batch_size=8, command=["test"]
        )
        == from_cli
    )
    with pytest.raises(SwapbenchError, match=r"^no_probe and probe are the same option \(--no-probe\): give one"):
        eval_options_model().from_keywords(model="m", no_probe=True, probe=False)
    with pytest.raises(SwapbenchError, match=r"^unknown option learning_rat \(did you mean learning_rate\?\)"):
        eval_options_model().from_keywords(model="m", learning_rat=1e-4)


def test_a_choice_is_checked_on_both_paths():
    with pytest.raises(SystemExit):
        parse_eval("--train-split", "dve")
    with pytest.raises(SwapbenchError, match="--train-split: 'dve' is not one of train"):
        eval_options_model().from_keywords(model="m", train_split="dve")
    assert eval_options_model().from_keywords(model="m", split="dev").split == "validation"
    assert parse_eval("--split", "dev").split == "validation"


def test_the_old_batch_size_still_sets_the_training_batch_and_warns(capsys):
    options = parse_eval("--batch-size", "16")
    assert options.train_batch_size == 16 and options.eval_batch_size is None
    assert capsys.readouterr().err.strip() == "warning: --batch-size is deprecated: use --train-batch-size"
    assert parse_eval("--train-batch-size", "16") == options
    with pytest.warns(DeprecationWarning, match="batch_size is deprecated: use train_batch_size"):
        assert eval_options_model().from_keywords(model="MODEL", batch_size=16, command=["test"]) == options
    with pytest.raises(SwapbenchError, match="batch_size is the old name of train_batch_size"):
        eval_options_model().from_keywords(model="m", batch_size=16, train_batch_size=8)


def test_the_old_batch_size_on_the_command_line_trains_in_batches_of_it(tmp_path, build_fixture_dataset, capsys):
    base = save_base(tmp_path / "base")
    train = write_training_file(tmp_path / "snli" / "snli_1.0_train.jsonl", "train")
    data = build_fixture_dataset(["shuffle-3"])
    assert (
        main(
            [
                "eval",
                str(base),
                "--data",
                str(data),
                "--output",
                str(tmp_path / "r.json"),
                "--no-progress",
                "--no-probe",
                "--train-source",
                str(train),
                "--val-holdout",
                "8",
                "--epochs",
                "1",
                "--batch-size",
                "4",
                "--train-max-length",
                "24",
                "--max-length",
                "40",
                "--cache-dir",
                str(tmp_path / "cache"),
                "--bootstrap",
                "100",
            ]
        )
        == 0
    )
    assert "warning: --batch-size is deprecated: use --train-batch-size" in capsys.readouterr().err
    results = EvalResults.model_validate_json((tmp_path / "r.json").read_text())
    recipe = results.model.fine_tuning.recipe
    assert (recipe.batch_size, recipe.max_length) == (4, 24)  # the recipe's max_length: the fine-tuning's
    assert results.provenance.scoring.max_length == 40


def test_the_api_takes_configs_as_a_string_or_a_list(tmp_path, build_fixture_dataset):
    model = save_classifier(tmp_path / "bert", NLI)
    data = build_fixture_dataset(["shuffle-3", "shuffle-random"])
    one = swapbench.evaluate(
        model, data, output=tmp_path / "one.json", configs="shuffle-3", probe=False, bootstrap=100, progress=False
    )
    assert list(one.results.results) == ["shuffle-3"]
    both = swapbench.evaluate(
        model,
        data,
        output=tmp_path / "both.json",
        configs=["shuffle-random", "shuffle-3"],
        probe=False,
        bootstrap=100,
        progress=False,
        max_length=16,
    )
    assert sorted(both.results.results) == ["shuffle-3", "shuffle-random"]
    assert both.results.provenance.scoring.max_length == 16
    with pytest.raises(SwapbenchError, match=r"^--max-length: 4 is out of range: expected an integer >= 8$"):
        swapbench.evaluate(model, data, output=tmp_path / "no.json", max_length=4)
    with pytest.raises(SwapbenchError, match=r"unknown option batch \(did you mean train_batch_size\?\): expected"):
        swapbench.evaluate(model, data, output=tmp_path / "no.json", batch=4)
    assert not (tmp_path / "no.json").exists()


def test_threads_run_the_scoring_are_recorded_and_key_no_run(tmp_path, build_fixture_dataset):
    import torch

    from swapbench.evaluation.options import eval_options_model

    model = save_classifier(tmp_path / "bert", NLI)
    data = build_fixture_dataset(["shuffle-3"])
    before = torch.get_num_threads()
    run = swapbench.evaluate(
        model, data, output=tmp_path / "one.json", threads=1, probe=False, bootstrap=100, progress=False
    )
    assert run.results.provenance.torch_threads == 1
    assert torch.get_num_threads() == before  # the caller's count, restored
    # how fast a run goes is not what it computes: a resumed suite or a cache key never sees it
    assert "threads" not in eval_options_model().from_keywords(model="m", data="d", threads=2).model_dump()
