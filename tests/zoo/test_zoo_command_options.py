"""The zoo's train and run options are made from one model each: the command line takes the model's fields, checks
them as the model does, and --batch-size is the old spelling of --train-batch-size."""

from __future__ import annotations

import pytest

from swapbench.commands.main import make_parser
from swapbench.core.command_options import from_arguments
from swapbench.core.errors import SwapbenchError
from swapbench.zoo.options import GPU_PRESET, ZooRunOptions, ZooTrainOptions

RUN = ["zoo", "run", "--data", "D", "--out", "o", "--work", "w"]


def parse(model, *argv: str):
    return from_arguments(model, make_parser(["zoo"]).parse_args(list(argv)))


def subparser(name: str):
    zoo = make_parser(["zoo"])._subparsers._group_actions[0].choices["zoo"]
    return zoo._subparsers._group_actions[0].choices[name]


@pytest.mark.parametrize("name, model", [("train", ZooTrainOptions), ("run", ZooRunOptions)])
def test_the_command_line_takes_the_models_fields(name, model):
    # -v/-q are every command's (commands/main.py's CommandParser), not the zoo's options
    dests = {action.dest for action in subparser(name)._actions if action.dest not in ("help", "verbosity")}
    assert dests == set(model.model_fields) - {"command"}
    assert "batch_size" not in dests and "train_batch_size" in dests


def test_the_old_batch_size_still_sets_the_training_batch_and_warns(capsys):
    options = parse(ZooTrainOptions, "zoo", "train", "rope", "--out", "o", "--batch-size", "16")
    assert capsys.readouterr().err.strip() == "warning: --batch-size is deprecated: use --train-batch-size"
    assert options == parse(ZooTrainOptions, "zoo", "train", "rope", "--out", "o", "--train-batch-size", "16")
    recipe = options.make_recipe(options.seed)
    assert (recipe.training.batch_size, recipe.training.max_length) == (16, 128)


def test_the_gpu_preset_fills_what_was_not_given():
    options = parse(ZooRunOptions, *RUN, "--preset", "gpu", "--layers", "3")
    assert options.layers == 3  # given: kept
    assert (options.hidden, options.learning_rate, options.train_batch_size) == (256, 5e-4, 128)
    assert options.setups == GPU_PRESET["setups"] and options.recipe.training.batch_size == 128
    assert parse(ZooRunOptions, *RUN).hidden == 64


def test_a_bad_value_is_named_the_same_from_the_command_line_and_the_model(capsys):
    with pytest.raises(SystemExit):
        parse(ZooTrainOptions, "zoo", "train", "rope", "--out", "o", "--dropout", "1")
    assert "argument --dropout: 1 is out of range: expected a number >= 0 and < 1" in capsys.readouterr().err
    with pytest.raises(SwapbenchError, match=r"^--dropout: 1 is out of range: expected a number >= 0 and < 1$"):
        ZooTrainOptions.from_keywords(encoding="rope", out="o", dropout=1)
    with pytest.raises(SystemExit):
        parse(ZooRunOptions, *RUN, "--encodings", "rope,nope")
    assert "argument --encodings: 'nope' is not an encoding" in capsys.readouterr().err
    with pytest.raises(SwapbenchError, match=r"^--encodings: 'nope' is not an encoding"):
        ZooRunOptions.from_keywords(data="D", out="o", work="w", encodings="rope,nope")
    with pytest.raises(SwapbenchError, match=r"^--seeds .*greater than or equal to 0"):
        ZooRunOptions.from_keywords(data="D", out="o", work="w", seeds=[0, -1])


def test_encoding_options_repeat_and_reach_the_recipe():
    options = parse(
        ZooTrainOptions,
        "zoo",
        "train",
        "attenuated",
        "--out",
        "o",
        "--encoding-option",
        "attenuated_learnable=false",
        "--encoding-option",
        "attenuated_locality=0.5",
    )
    assert options.make_recipe().encoding_options == {"attenuated_learnable": False, "attenuated_locality": 0.5}
    assert parse(ZooTrainOptions, "zoo", "train", "rope", "--out", "o").encoding_option == []
