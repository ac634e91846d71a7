"""One options model gives a command its arguments and the API its keywords, with the same bounds."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Literal

import pytest

from swapbench.core.command_options import CommandOptions, add_arguments, from_arguments, option
from swapbench.core.errors import SwapbenchError


class Toy(CommandOptions):
    model: str = option(positional=True, metavar="MODEL", help="model id")
    words: int = option(100, ge=1, help="words drawn")
    rate: float = option(0.5, gt=0, lt=1, help="a rate")
    out: Path | None = option(None, help="folder")
    configs: list[str] | None = option(None, help="configurations")
    probe: bool = option(True, negative="--no-probe", help="skip the probe")
    mode: Literal["a", "b"] = option("a", group="scoring", help="mode")
    command: list[str] = option([], cli=False, help="the command line that ran")


@pytest.fixture
def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toy")
    add_arguments(parser, Toy)
    return parser


def test_the_command_line_and_the_api_give_the_same_model(parser):
    args = parser.parse_args(["m", "--words", "5", "--configs", "s-3, s-4", "--no-probe", "--out", "o"])
    from_cli = from_arguments(Toy, args, command=["toy"])
    from_api = Toy.from_keywords(model="m", words=5, configs="s-3,s-4", probe=False, out=Path("o"), command=["toy"])
    assert from_cli == from_api
    assert from_api.configs == ["s-3", "s-4"] and from_api.mode == "a"
    assert Toy.from_keywords(model="m", configs=["x"]).configs == ["x"]


def test_help_shows_defaults_choices_and_groups(parser):
    text = parser.format_help()
    assert "words drawn (default: 100)" in text and "{a,b}" in text and "scoring:" in text
    assert "--command" not in text  # filled in by the command, not typed


def test_a_bound_is_checked_on_both_paths_and_named_as_the_option(parser, capsys):
    with pytest.raises(SystemExit) as exit_:
        parser.parse_args(["m", "--words", "0"])
    assert exit_.value.code == 2
    assert "argument --words: 0 is out of range: expected an integer >= 1" in capsys.readouterr().err
    with pytest.raises(SwapbenchError, match=r"^--words: 0 is out of range: expected an integer >= 1$"):
        Toy.from_keywords(model="m", words=0)
    with pytest.raises(SwapbenchError, match=r"^--rate: 1.0 is out of range: expected a number > 0 and < 1$"):
        Toy.from_keywords(model="m", rate=1.0)


def test_unknown_and_missing_keywords_are_refused_by_name():
    with pytest.raises(
        SwapbenchError,
        match=r"^unknown option wordz \(did you mean words\?\): expected one of "
        r"model, words, .*; or named as a flag: no_probe$",
    ):
        Toy.from_keywords(model="m", wordz=1)
    with pytest.raises(SwapbenchError, match=r"^unknown options no_prob \(did you mean no_probe\?\), zzz: "):
        Toy.from_keywords(model="m", zzz=1, no_prob=True)
    with pytest.raises(SwapbenchError, match="MODEL: Field required"):
        Toy.from_keywords(words=3)


class Flagged(CommandOptions):
    learning_rate: float = option(0.1, gt=0, flag="--lr", help="learning rate")
    progress: bool = option(True, negative="--no-progress", help="no bars")
    internal: bool = option(True, cli=False, help="what the command fills in")


def test_a_flag_s_name_is_a_keyword_with_the_flag_s_meaning():
    assert Flagged.from_keywords(lr=0.5) == Flagged.from_keywords(learning_rate=0.5)
    assert Flagged.from_keywords(no_progress=True).progress is False
    assert Flagged.from_keywords(no_progress=False).progress is True
    with pytest.raises(SwapbenchError, match=r"^lr and learning_rate are the same option \(--lr\): give one"):
        Flagged.from_keywords(lr=0.5, learning_rate=0.5)
    with pytest.raises(SwapbenchError, match=r"^no_progress and progress are the same option \(--no-progress\)"):
        Flagged.from_keywords(no_progress=True, progress=True)
    with pytest.raises(SwapbenchError, match=r"^no_progress: expected True or False, not 'yes'"):
        Flagged.from_keywords(no_progress="yes")
    with pytest.raises(SwapbenchError, match=r"^--lr: 0 is out of range: expected a number > 0$"):  # as the field
        Flagged.from_keywords(lr=0)
    with pytest.raises(SwapbenchError, match="unknown option no_internal"):  # the command line has no flag for it
        Flagged.from_keywords(no_internal=True)


class Files(CommandOptions):
    results: list[Path] = option(positional=True, metavar="RESULTS", help="results files")


def test_a_list_positional_takes_one_argument_per_item():
    parser = argparse.ArgumentParser(prog="files")
    add_arguments(parser, Files)
    options = from_arguments(Files, parser.parse_args(["a.json", "b.json"]))
    assert options.results == [Path("a.json"), Path("b.json")]
    assert Files.from_keywords(results=[Path("a.json")]).results == [Path("a.json")]
    with pytest.raises(SystemExit):
        parser.parse_args([])


class MaybeResults(CommandOptions):
    results: Path | None = option(None, positional=True, metavar="RESULTS", help="a results file")
    words: int = option(3, help="words")


def test_a_positional_with_a_default_may_be_left_out():
    parser = argparse.ArgumentParser(prog="maybe")
    add_arguments(parser, MaybeResults)
    assert from_arguments(MaybeResults, parser.parse_args(["--words", "4"])).results is None
    assert from_arguments(MaybeResults, parser.parse_args(["r.json"])).results == Path("r.json")
