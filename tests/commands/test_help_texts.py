"""`swapbench COMMAND --help` answers from swapbench/commands/help_texts.json (issue 42: every --help in 0.3 s): the
file is what the real parsers make now, the parser rebuilt from it prints their help at any width, and where the
file's answer could differ (a plugin installed, entries registered in the process, any other argv) the real parser
answers."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_helpers import toy_source_module

from swapbench.commands import help_texts

REPO = Path(__file__).resolve().parents[2]
WORDS = list(json.loads(Path(help_texts.FILE).read_text(encoding="utf-8")))


def make_help():
    spec = importlib.util.spec_from_file_location("make_help", REPO / "scripts" / "make_help.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# A user's source, declared by a plugin: `build --help` lists it (the registry loads the plugin).
PLUGIN = toy_source_module("ToyNLI, a source a plugin added")

# Every argv of `words`' help in one process: each one's output, whether the file answered, what was imported.
HELPS = """
import contextlib, io, json, sys
{prelude}
from swapbench.commands import help_texts
from swapbench.commands.main import main
out = {{}}
for argv in {argvs!r}:
    quick = help_texts.quick_parser(argv) is not None
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        try:
            code = main(argv)
        except SystemExit as exit:
            code = exit.code
    out[" ".join(argv)] = [code, quick, text.getvalue()]
heavy = [m for m in ("pydantic", "swapbench.core.command_options", "importlib.metadata") if m in sys.modules]
print(json.dumps({{"helps": out, "imported": heavy}}))
"""


def helps(argvs: list[list[str]], prelude: str = "", pythonpath: Path | None = None, **env: str) -> dict:
    """Run HELPS in a fresh process at 90 columns, without SWAPBENCH_NO_PLUGINS unless given."""
    environ = {k: v for k, v in os.environ.items() if k != "SWAPBENCH_NO_PLUGINS"}
    environ.update(COLUMNS="90", **env)
    if pythonpath is not None:
        environ["PYTHONPATH"] = f"{pythonpath}{os.pathsep}{REPO}"
    done = subprocess.run(
        [sys.executable, "-c", HELPS.format(prelude=prelude, argvs=argvs)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=environ,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_committed_file_is_what_the_parsers_make_now():
    """In a fresh process, without plugins, as scripts/make_help.py makes it: nothing registered by other tests."""
    done = subprocess.run(
        [sys.executable, "scripts/make_help.py", "--check"], capture_output=True, text=True, cwd=REPO, timeout=300
    )
    assert done.returncode == 0, f"{done.stdout}{done.stderr}"  # names `python scripts/make_help.py`


def test_every_command_and_zoo_command_is_in_the_file():
    from swapbench.commands.listing import COMMANDS

    assert WORDS == [*COMMANDS, "zoo train", "zoo run", "zoo params", "zoo scales", "zoo report"]


@pytest.mark.parametrize("columns", ["40", "80", "137", "250"])
def test_the_rebuilt_parser_prints_the_real_ones_help_at_any_width(columns, monkeypatch):
    monkeypatch.setenv("COLUMNS", columns)
    for words, parser in make_help().parsers().items():
        rebuilt = help_texts.rebuild(json.loads(json.dumps(help_texts.describe(parser))))  # through JSON, as read
        assert rebuilt.format_help() == parser.format_help(), words


def test_a_plain_help_answers_from_the_file_with_the_real_parsers_text_and_no_pydantic():
    argvs = [[*words.split(), "--help"] for words in WORDS] + [["eval", "-h"]]
    quick = helps(argvs)
    real = helps(argvs, prelude="import swapbench.core.registry")  # registries imported: the real parsers answer
    assert quick["imported"] == [] and "pydantic" in real["imported"]
    for argv, (code, answered, text) in quick["helps"].items():
        assert answered and code == 0 and "usage: swapbench" in text, argv
        assert real["helps"][argv] == [0, False, text], argv


def test_any_other_argv_takes_the_real_parser():
    done = helps(
        [
            ["eval", "--epochs", "x", "--help"],
            ["eval", "MODEL", "--help"],
            ["zoo", "bogus", "--help"],
            ["--help"],
            ["eval", "--help", "MODEL"],
        ]
    )
    assert [answered for _, answered, _ in done["helps"].values()] == [False] * 5
    assert done["helps"]["eval --epochs x --help"][0] == 2  # the argument error, as before
    assert done["helps"]["eval MODEL --help"][0] == 0 and "pydantic" in done["imported"]


@pytest.mark.parametrize("text", [None, "{", '{"eval": {"prog": "swapbench eval"}}'])
def test_a_missing_or_unreadable_file_leaves_help_to_the_real_parser(text, tmp_path):
    path = tmp_path / "help_texts.json"
    if text is not None:
        path.write_text(text)
    done = helps([["eval", "--help"]], prelude=f"import swapbench.commands.help_texts as h; h.FILE = {str(path)!r}")
    code, answered, output = done["helps"]["eval --help"]
    assert (code, answered) == (0, False) and "usage: swapbench eval" in output


def test_entries_registered_in_the_process_are_in_its_help():
    registered = PLUGIN.replace("a plugin added", "registered here")
    done = helps([["build", "--help"]], prelude=registered)
    code, answered, text = done["helps"]["build --help"]
    assert (code, answered) == (0, False) and "registered here" in " ".join(text.split())


def write_distribution(site: Path, entry_points: str) -> Path:
    """An installed distribution as importlib.metadata finds one: its .dist-info folder on sys.path."""
    info = site / "toynli_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toynli-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)
    (site / "toynli_plugin.py").write_text(PLUGIN)
    return site


def test_an_installed_plugin_is_listed_by_the_real_parser(tmp_path):
    site = write_distribution(tmp_path / "site", "[swapbench.sources]\ntoynli = toynli_plugin\n")
    done = helps([["build", "--help"], ["eval", "--help"]], pythonpath=site)
    assert [answered for _, answered, _ in done["helps"].values()] == [False, False]
    assert "toynli: ToyNLI, a source a plugin added" in " ".join(done["helps"]["build --help"][2].split())
    off = helps([["build", "--help"]], pythonpath=site, SWAPBENCH_NO_PLUGINS="1")  # as the real parser: no plugin
    code, answered, text = off["helps"]["build --help"]
    assert (code, answered) == (0, True) and "toynli" not in text


def test_only_entry_points_of_swapbench_groups_count_as_plugins(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(tmp_path / "site")])
    write_distribution(tmp_path / "site", "[console_scripts]\ntoynli = toynli_plugin:main\n")
    assert not help_texts.plugins_installed()
    (tmp_path / "site" / "toynli_plugin-0.1.dist-info" / "entry_points.txt").write_text(
        "[console_scripts]\ntoynli = toynli_plugin:main\n\n[swapbench.variants]\nmine = toynli_plugin\n"
    )
    assert help_texts.plugins_installed()
