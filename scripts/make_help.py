"""Write swapbench/commands/help_texts.json: every command's parser (and the zoo's commands'), described as
argparse's help formatter reads it, so that `swapbench COMMAND --help` answers from the file without importing
pydantic or the options' modules (swapbench/commands/help_texts.py says when it does).

The file is generated, never edited by hand, from the real parsers, which core/command_options.py builds from the
options' pydantic models; tests/commands/test_help_texts.py fails when the committed file differs from what this
script makes now. After adding or changing an option, a command or its help, run

    python scripts/make_help.py            # rewrite swapbench/commands/help_texts.json
    python scripts/make_help.py --check    # exit 1 when the file is stale

It runs without plugins (SWAPBENCH_NO_PLUGINS=1, set by main()): their entries are never in the file; where a plugin
is installed, `--help` takes the real parser.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run as `python scripts/make_help.py` from anywhere
    sys.path.insert(0, str(REPO))

from swapbench.commands.help_texts import FILE, describe  # noqa: E402
from swapbench.commands.listing import COMMANDS  # noqa: E402
from swapbench.commands.main import make_parser  # noqa: E402


def parsers() -> dict[str, argparse.ArgumentParser]:
    """Every command's real parser, and the zoo's commands' ("zoo train"), by the words that name them."""
    found = {}
    for name in COMMANDS:
        command = _subcommands(make_parser([name]))[name]
        found[name] = command
        for sub, parser in _subcommands(command).items():
            found[f"{name} {sub}"] = parser
    return found


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return next(
        (dict(action.choices) for action in parser._actions if isinstance(action, argparse._SubParsersAction)), {}
    )


def render() -> str:
    """help_texts.json's text: every parser of `parsers()` described, in the commands' order, one argument a
    line, so that a change reads as one in a diff."""

    def line(value) -> str:
        return json.dumps(value, ensure_ascii=False)

    commands = []
    for words, parser in parsers().items():
        described = describe(parser)
        actions = described.pop("actions")
        commands.append(
            f' {line(words)}: {line(described)[:-1]}, "actions": [\n'
            + ",\n".join(f"  {line(action)}" for action in actions)
            + "]}"
        )
    return "{\n" + ",\n".join(commands) + "\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed file is stale; write nothing")
    args = parser.parse_args(argv)
    os.environ["SWAPBENCH_NO_PLUGINS"] = "1"  # before any registry is listed: no plugin's entry in the file
    text = render()
    path = Path(FILE)
    if args.check:
        stale = not path.exists() or path.read_text(encoding="utf-8") != text
        print(f"{path.relative_to(REPO)} is {'stale: run `python scripts/make_help.py`' if stale else 'up to date'}")
        return 1 if stale else 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
