"""What an options model adds for renamed and registry-made options: an old flag kept with a warning, an option
taken away refused with what to do instead, help and choices computed when the parser is built, a list given one
flag per item, a flag only the command line needs."""

from __future__ import annotations

import argparse

import pytest

from swapbench.core.command_options import CommandOptions, add_arguments, from_arguments, option
from swapbench.core.errors import SwapbenchError

REGISTERED = ["a", "b"]  # stands for a registry that grows after the model is defined


class Toy(CommandOptions):
    train_batch_size: int = option(32, ge=1, deprecated="--batch-size", help="training batch")
    kind: str = option("a", choices=lambda: tuple(REGISTERED), help=lambda: "one of " + ", ".join(REGISTERED))
    kinds: list[str] | None = option(None, choices=lambda: tuple(REGISTERED), help="several")
    setting: list[str] = option([], repeat=True, metavar="KEY=VALUE", help="repeatable")
    out: str | None = option(None, required=True, help="folder")
    old_order: str | None = option(None, help="", removed="name the order in --kind")


def parse(*argv: str) -> Toy:
    parser = argparse.ArgumentParser(prog="toy")
    add_arguments(parser, Toy)
    return from_arguments(Toy, parser.parse_args(["--out", "o", *argv]))


def test_an_old_flag_sets_the_new_option_and_warns_on_one_line(capsys):
    assert parse("--batch-size", "8").train_batch_size == 8
    assert capsys.readouterr().err == "warning: --batch-size is deprecated: use --train-batch-size\n"
    assert parse().train_batch_size == 32 and capsys.readouterr().err == ""
    with pytest.raises(SystemExit):
        parse("--batch-size", "0")
    assert "argument --batch-size: 0 is out of range: expected an integer >= 1" in capsys.readouterr().err


def test_an_old_keyword_sets_the_new_option_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match="batch_size is deprecated: use train_batch_size"):
        assert Toy.from_keywords(batch_size=8).train_batch_size == 8
    with pytest.raises(SwapbenchError, match="batch_size is the old name of train_batch_size: give one of them"):
        Toy.from_keywords(batch_size=8, train_batch_size=4)


def test_a_removed_option_is_refused_on_both_paths_with_what_to_do_instead(capsys):
    with pytest.raises(SystemExit) as stopped:
        parse("--old-order", "x")
    assert stopped.value.code == 2
    assert "--old-order was removed: name the order in --kind" in capsys.readouterr().err
    with pytest.raises(SwapbenchError, match=r"old_order \(--old-order\) was removed: name the order in --kind"):
        Toy.from_keywords(out="o", old_order="x")
    parser = argparse.ArgumentParser(prog="toy")
    add_arguments(parser, Toy)
    assert "--old-order" not in parser.format_help()
    options = parse()
    assert options.old_order is None and "old_order" not in options.model_dump()


def test_help_and_choices_are_those_registered_when_the_parser_is_built(capsys):
    REGISTERED.append("c")
    try:
        assert parse("--kind", "c", "--kinds", "a,c").kinds == ["a", "c"]
        assert Toy.from_keywords(kinds="c").kinds == ["c"]
        parser = argparse.ArgumentParser(prog="toy")
        add_arguments(parser, Toy)
        assert "one of a, b, c" in " ".join(parser.format_help().split())
    finally:
        REGISTERED.remove("c")
    with pytest.raises(SystemExit):
        parse("--kinds", "a,c")
    assert "argument --kinds: invalid choice: 'c' (choose from a, b)" in capsys.readouterr().err
    with pytest.raises(SwapbenchError, match=r"--kinds: 'c' is not one of a, b"):
        Toy.from_keywords(kinds=["c"])


def test_a_repeated_flag_gives_a_list_and_a_command_line_only_requirement(capsys):
    assert parse("--setting", "x=1", "--setting", "y=2").setting == ["x=1", "y=2"]
    assert parse().setting == []
    parser = argparse.ArgumentParser(prog="toy")
    add_arguments(parser, Toy)
    with pytest.raises(SystemExit):
        parser.parse_args([])
    assert "the following arguments are required: --out" in capsys.readouterr().err
    assert Toy.from_keywords().out is None
