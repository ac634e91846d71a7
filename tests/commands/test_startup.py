"""Every command answers `--help` and a bad argument at once: neither imports torch, transformers, datasets or pandas
(eval's --help took 4.3 s CPU when its options imported models.loading, and so torch; zoo's 4.8 s when its parser
imported the encodings' torch modules to list them: zoo/catalogue.py now declares them without torch). A plain
`--help` imports not even pydantic, the options' modules or importlib.metadata: it answers from
commands/help_texts.json (tests/commands/test_help_texts.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from swapbench.commands.listing import COMMANDS

HEAVY = ("torch", "transformers", "datasets", "pandas", "matplotlib")
# Nor does a plain --help import these: 0.6 s of imports for eval's options; 0.05-0.1 s to look for plugins.
HELP_FREE = (*HEAVY, "pydantic", "swapbench.core.command_options", "importlib.metadata")

# One argument error per command, refused by argparse (a value of the wrong type, or a required one missing).
BAD_ARGUMENTS = {
    "build": ["--seed", "x"],
    "probe": ["MODEL", "--out", "o", "--words", "x"],
    "eval": ["--epochs", "x", "MODEL"],
    "suite": [],
    "leak": ["--bogus"],
    "curate": ["--bogus"],
    "submit": [],
    "leaderboard": ["--bogus"],
    "zoo": ["params", "--layers", "x"],
}
# The zoo's own commands, each with a bad argument.
ZOO_BAD_ARGUMENTS = {
    "train": ["bogus-encoding", "--out", "o"],
    "run": ["--encodings", "bogus"],
    "params": ["--layers", "x"],
    "scales": ["--seed", "x"],
    "report": [],
}


def imported(argv: list[str], modules: tuple[str, ...] = HEAVY) -> tuple[int, list[str]]:
    """The exit code of `swapbench ARGV` in a fresh process, and which of `modules` it imported. Plugins are on, as
    for a user: --help looks for them without importlib.metadata (an installed one makes it take the real parser,
    and pydantic)."""
    script = (
        "import sys\nfrom swapbench.commands.main import main\n"
        f"try:\n    code = main({argv!r})\nexcept SystemExit as exit:\n    code = exit.code\n"
        f"print(code, *[m for m in {modules!r} if m in sys.modules], file=sys.__stderr__)"
    )
    environ = {k: v for k, v in os.environ.items() if k != "SWAPBENCH_NO_PLUGINS"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, env=environ)
    code, *heavy = done.stderr.strip().splitlines()[-1].split()
    return int(code), heavy


def test_every_command_has_its_bad_argument():
    assert set(BAD_ARGUMENTS) == set(COMMANDS)


def test_the_programs_help_imports_no_heavy_library():
    assert imported(["--help"], HELP_FREE) == (0, [])


@pytest.mark.parametrize("command", COMMANDS)
def test_help_and_a_bad_argument_import_no_heavy_library(command):
    assert imported([command, "--help"], HELP_FREE) == (0, [])
    assert imported([command, *BAD_ARGUMENTS[command]]) == (2, [])


@pytest.mark.parametrize("command", ZOO_BAD_ARGUMENTS)
def test_each_zoo_commands_help_and_a_bad_argument_import_no_heavy_library(command):
    assert imported(["zoo", command, "--help"], HELP_FREE) == (0, [])
    assert imported(["zoo", command, *ZOO_BAD_ARGUMENTS[command]]) == (2, [])


def test_the_zoo_lists_every_registered_encoding_as_declared():
    """zoo/catalogue.py, read by the command line without torch, and the registry the encodings' modules fill
    agree: the same names in the same order, each with its paper, family, kind and fields."""
    from swapbench.core.registry import ENCODINGS
    from swapbench.zoo import catalogue, encodings  # noqa: F401

    assert ENCODINGS.names()[: len(catalogue.BUILT_IN)] == list(catalogue.BUILT_IN)
    for entry in ENCODINGS:
        assert catalogue.listed()[entry.name] == (entry.help, entry.value.family, entry.value.kind, entry.value.fields)


def test_version_is_the_installed_distributions():
    from importlib.metadata import version

    done = subprocess.run([sys.executable, "-m", "swapbench", "--version"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"swapbench {version('swapbench')}"
