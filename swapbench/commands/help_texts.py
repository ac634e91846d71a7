"""`swapbench COMMAND --help` at once: every command's parser, described in help_texts.json and rebuilt here with
argparse alone, so that a plain `--help` imports neither pydantic nor the options' modules (0.6-1 s of imports
for a page of text).

The one definition of every option stays its pydantic model (core/command_options.py builds the real parsers from
the models). `python scripts/make_help.py` describes those parsers into help_texts.json, and
tests/commands/test_help_texts.py fails when the committed file differs from what the parsers make now, so that an
option added or changed later cannot leave a stale help.

The file holds a description, not the text: each parser's prog, description, groups and, per argument, what
argparse's help formatter reads (option strings, dest, nargs, metavar, choices, required and the help with its
%(default)s-style fields filled in). The parser rebuilt from it is formatted by the running Python's argparse at
the width of the terminal it prints to, as the real one is; a text rendered once would be wrapped at one width.

The file answers only when its answer is the real parser's (`quick_parser`): argv is exactly `COMMAND --help` or
`zoo COMMAND --help` (`-h` too; anything else, an argument error included, takes the normal path), the registries
were never imported in this process (a test or a notebook that registered entries of its own gets the real parser,
which lists them), and no plugin can add to a registry: `SWAPBENCH_NO_PLUGINS` is set, or no installed distribution
declares an entry point in a `swapbench.` group (the file is made without plugins; importlib.metadata would cost
more than the rest of the answer, so `plugins_installed` reads the metadata folders on sys.path itself). A missing
or unreadable file takes the normal path too.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..core.plugins import plugins_disabled

FILE = os.path.join(os.path.dirname(__file__), "help_texts.json")
HELP = ("-h", "--help")
GROUP_PREFIX = "[swapbench."  # an entry-point group of a registry, as entry_points.txt spells its header
FRESH = "swapbench.core.registry"  # not imported yet: no registry holds anything but what the package registers


# Describing a real parser (scripts/make_help.py, which makes them, and the tests).


def describe(parser: argparse.ArgumentParser) -> dict:
    """What argparse's default help formatter reads of `parser`, its mutually exclusive groups (--verbose | --quiet)
    as the positions of their arguments; a parser it could not rebuild the same (another formatter, a mutually
    exclusive group nested in another, aliases) is refused, so that the file never says less than the parser."""
    if parser.formatter_class is not argparse.HelpFormatter:
        raise ValueError(f"{parser.prog}: only argparse's default formatter can be described")
    formatter = parser._get_formatter()
    groups = list(parser._action_groups)
    actions = []
    for action in parser._actions:
        if action.help is argparse.SUPPRESS:
            continue  # neither in the usage nor in the list
        group = next(i for i, g in enumerate(groups) if action in g._group_actions)
        help_text = _escaped(formatter, action)
        described = {
            "group": group,
            "option_strings": list(action.option_strings),
            "dest": action.dest,
            "nargs": action.nargs,
            "metavar": list(action.metavar) if isinstance(action.metavar, tuple) else action.metavar,
            "required": action.required,
            "help": help_text,
        }
        if isinstance(action, argparse._SubParsersAction):
            if any(choice.dest != name for name, choice in zip(action.choices, action._choices_actions)):
                raise ValueError(f"{parser.prog}: subcommands with aliases cannot be described")
            helps = {choice.dest: _escaped(formatter, choice) for choice in action._choices_actions}
            described["commands"] = [[name, helps.get(name)] for name in action.choices]
        else:
            described["choices"] = None if action.choices is None else [str(c) for c in action.choices]
        actions.append(described)
    shown = [action for action in parser._actions if action.help is not argparse.SUPPRESS]
    exclusive = []
    for mutex in parser._mutually_exclusive_groups:
        if mutex._container is not parser and mutex._container not in groups:
            raise ValueError(f"{parser.prog}: a mutually exclusive group inside another cannot be described")
        exclusive.append(
            {
                "required": mutex.required,
                "actions": [shown.index(action) for action in mutex._group_actions if action in shown],
            }
        )
    return {
        "prog": parser.prog,
        "usage": parser.usage,
        "description": parser.description,
        "epilog": parser.epilog,
        "prefix_chars": parser.prefix_chars,
        "groups": [{"title": group.title, "description": group.description} for group in groups],
        "exclusive": exclusive,
        "actions": actions,
    }


def _escaped(formatter: argparse.HelpFormatter, action: argparse.Action) -> str | None:
    """The action's help as the formatter shows it (%(default)s and the like filled in), escaped for argparse to
    fill in again: what it shows of the rebuilt action is the same."""
    if not action.help or not action.help.strip():
        return action.help
    return formatter._expand_help(action).replace("%", "%%")


# Answering from the file: argparse, json and os only.


def rebuild(description: dict) -> argparse.ArgumentParser:
    """A parser whose help is the described one's: the same groups and arguments in the same order, each a plain
    argparse.Action that parses nothing (the parser only prints its help)."""
    parser = argparse.ArgumentParser(
        prog=description["prog"],
        usage=description["usage"],
        description=description["description"],
        epilog=description["epilog"],
        prefix_chars=description["prefix_chars"],
        add_help=False,
    )
    parser._action_groups.clear()
    groups = [parser.add_argument_group(group["title"], group["description"]) for group in description["groups"]]
    actions = []
    for described in description["actions"]:
        metavar = described["metavar"]
        fields = {
            "option_strings": described["option_strings"],
            "dest": described["dest"],
            "nargs": described["nargs"],
            "required": described["required"],
            "help": described["help"],
            "metavar": tuple(metavar) if isinstance(metavar, list) else metavar,
        }
        if "commands" in described:
            del fields["nargs"]  # (always argparse.PARSER)
            action = argparse._SubParsersAction(
                prog=description["prog"], parser_class=argparse.ArgumentParser, **fields
            )
            for name, help_text in described["commands"]:
                action.add_parser(name, add_help=False, **({} if help_text is None else {"help": help_text}))
        else:
            action = argparse.Action(choices=described["choices"], **fields)
        groups[described["group"]]._add_action(action)
        actions.append(action)
    for exclusive in description.get("exclusive", []):  # the usage line's [-v | -q]
        mutex = parser.add_mutually_exclusive_group(required=exclusive["required"])
        mutex._group_actions.extend(actions[index] for index in exclusive["actions"])
    return parser


def plugins_installed() -> bool:
    """Whether a distribution on sys.path declares an entry point in a `swapbench.` group: its entry_points.txt,
    in a *.dist-info or *.egg-info folder of a sys.path folder, where importlib.metadata finds them (without
    importing it: 0.05-0.1 s). Unreadable metadata counts as a plugin, so that the real parser answers."""
    for folder in sys.path:
        try:
            entries = os.scandir(folder or ".")
        except FileNotFoundError:
            continue
        except OSError:  # a zip file or egg on sys.path (a zipapp): its metadata is not read here
            return True
        with entries:
            for entry in entries:
                if entry.name.endswith((".dist-info", ".egg-info")):
                    points = os.path.join(entry.path, "entry_points.txt")
                elif entry.name.endswith(".egg") or entry.name == "EGG-INFO":
                    points = os.path.join(
                        entry.path, "" if entry.name == "EGG-INFO" else "EGG-INFO", "entry_points.txt"
                    )
                else:
                    continue
                try:
                    with open(points, encoding="utf-8") as file:
                        if GROUP_PREFIX in file.read():
                            return True
                except (FileNotFoundError, NotADirectoryError):
                    continue
                except (OSError, UnicodeDecodeError):
                    return True
    return False


def quick_parser(argv: list[str]) -> argparse.ArgumentParser | None:
    """The parser rebuilt from help_texts.json when argv asks only for a command's help and the file's answer is
    the real parser's (see the module's docstring); None otherwise, for the normal path."""
    if len(argv) not in (2, 3) or argv[-1] not in HELP or FRESH in sys.modules:
        return None
    if not plugins_disabled() and plugins_installed():
        return None
    try:
        with open(FILE, encoding="utf-8") as file:
            description = json.load(file).get(" ".join(argv[:-1]))
        return None if description is None else rebuild(description)
    except (OSError, ValueError, KeyError, TypeError, IndexError):  # a file missing, or not one this code made
        return None
