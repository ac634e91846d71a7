"""swapbench's messages are standard logging (issue 46): each module logs on its own "swapbench.<area>..." logger;
the command line sends them to stderr at INFO, WARNING with --quiet, DEBUG with --verbose, while what a command
prints as its output stays on stdout; a program that imports swapbench as a library gets no handler of
swapbench's, and a handler of its own on "swapbench" receives every message."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from swapbench.commands.main import main

READ = "Read 7 labelled pairs from"  # INFO: the build's first message on the fixture
CUT = "warning: "  # the fixture is a cut copy of SNLI's test split: the build warns that it holds only these pairs
DEBUG = "Parser: "  # DEBUG: the build's parser and variants


def build(fixtures, out, *flags: str) -> int:
    return main(
        ["build", "--source", str(fixtures), "--out", str(out), "--no-cache", "--variants", "shuffle-3", *flags]
    )


def test_a_command_says_its_info_messages_on_stderr_and_its_output_on_stdout(fixtures, tmp_path, capsys):
    assert build(fixtures, tmp_path / "out") == 0
    out, err = capsys.readouterr()
    assert READ in err and "the build holds only these pairs" in err and DEBUG not in err
    assert READ not in out and "shuffle-3" in out  # the table of configurations is the command's output


def test_quiet_keeps_the_warnings_alone(fixtures, tmp_path, capsys):
    assert build(fixtures, tmp_path / "out", "--quiet") == 0
    out, err = capsys.readouterr()
    assert READ not in err and "Wrote 1 configuration" not in err
    assert err.startswith(CUT) and "the build holds only these pairs" in err
    assert "shuffle-3" in out  # the output is not a message: --quiet keeps it


def test_verbose_adds_the_debug_messages(fixtures, tmp_path, capsys):
    assert build(fixtures, tmp_path / "out", "-v") == 0
    err = capsys.readouterr().err
    assert READ in err and f"{DEBUG}ptb" in err


def test_verbose_and_quiet_exclude_each_other(capsys):
    with pytest.raises(SystemExit):
        main(["build", "--verbose", "--quiet"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_a_handler_of_the_users_own_receives_the_messages_by_area(fixtures, tmp_path, caplog):
    """swapbench as a library: a handler of the user's own (here pytest's, on the root logger) gets every message at
    the level it asks for, each on the logger of its module."""
    import swapbench

    caplog.set_level(logging.INFO, logger="swapbench")
    swapbench.build(source=str(fixtures), out=tmp_path / "out", no_cache=True, variants="shuffle-3")
    read = [r for r in caplog.records if r.getMessage().startswith(READ)]
    assert [(r.name, r.levelno) for r in read] == [("swapbench.dataset.pipeline", logging.INFO)]
    assert any(r.levelno == logging.WARNING and "holds only these pairs" in r.getMessage() for r in caplog.records)
    assert not any(r.levelno < logging.INFO for r in caplog.records)


def test_the_command_lines_handler_goes_when_main_returns(fixtures, tmp_path):
    logger = logging.getLogger("swapbench")
    before = (list(logger.handlers), logger.level)
    assert build(fixtures, tmp_path / "out", "--verbose") == 0
    assert (logger.handlers, logger.level) == before


def test_the_library_installs_no_handler():
    """`import swapbench.api`: a NullHandler on "swapbench" and nothing else, the root logger untouched."""
    code = (
        "import logging, swapbench.api\n"
        "s = logging.getLogger('swapbench')\n"
        "print([type(h).__name__ for h in s.handlers], s.level, logging.getLogger().handlers)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["['NullHandler']", "0", "[]"]
