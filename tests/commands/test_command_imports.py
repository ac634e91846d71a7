"""The command line makes the parser of the command that runs alone: `swapbench --help` imports no library of a
command's own (torch alone took two seconds of it)."""

from __future__ import annotations

import subprocess
import sys


def imported_after(argv: list[str]) -> list[str]:
    script = (
        "import sys\nfrom swapbench.commands.main import make_parser\n"
        f"make_parser({argv!r})\n"
        "print(*[m for m in ('torch', 'transformers', 'datasets', 'spacy', 'nltk') if m in sys.modules])"
    )
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout.split()


def test_the_top_level_help_imports_none_of_the_commands_libraries():
    assert imported_after(["--help"]) == []


def test_a_command_gets_its_own_parser_and_the_others_their_line_of_help():
    from swapbench.commands.listing import COMMANDS
    from swapbench.commands.main import make_parser

    [commands] = [a for a in make_parser(["eval", "MODEL"])._actions if a.dest == "command"]
    assert list(commands.choices) == list(COMMANDS)
    assert "--mode" in commands.choices["eval"].format_help()
    assert "--mode" not in commands.choices["probe"].format_help() and not commands.choices["probe"].add_help
