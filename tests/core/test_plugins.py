"""Plugins by entry point: a package of a user's own, installed beside swapbench, adds a source that the command line
lists and builds from, and a scorer with an option of its own that `swapbench eval` takes, with no edit to swapbench;
a plugin that fails to load is reported by name, not by traceback.

The plugin packages are real: written here, installed by pip into a temporary folder, found through their
entry-point metadata by importlib.metadata, as a user's would be.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from plugin_helpers import toy_source_module

from swapbench.core.plugins import PluginError, load_plugins
from swapbench.core.registry import SOURCES, Registry

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
PYTHON = sys.executable

GOOD_MODULE = (
    '''
"""A user's source: the hand-written SNLI-format fixture pairs, declared as a corpus of its own."""
'''
    + toy_source_module("ToyNLI, a source added by a plugin")
    + '''
CALLS = []


def register():
    """The callable form of an entry point: called once per registry that loads its group."""
    CALLS.append("register")
'''
)


SCORER_MODULE = '''
"""A user's scoring mode with an option of its own (it scores nothing here: the test reads eval's options)."""
from swapbench.core.command_options import CommandOptions, option
from swapbench.core.registry import SCORERS
from swapbench.evaluation.scorers.base import Scorer


class DepthOptions(CommandOptions):
    toy_depth: int = option(2, ge=1, le=9, group="toy depth (--mode toy-depth)",
                            help="how deep the toy mode looks, a plugin's option")


@SCORERS.register("toy-depth", help="a scoring mode added by a plugin")
class DepthScorer(Scorer):
    Options = DepthOptions
    refused_without = ("toy_depth",)
'''


def write_package(root: Path, name: str, module: str, body: str, entry_points: dict[str, dict[str, str]]) -> Path:
    root.mkdir(parents=True)
    groups = "\n".join(
        f'[project.entry-points."{group}"]\n' + "\n".join(f'{k} = "{v}"' for k, v in points.items())
        for group, points in entry_points.items()
    )
    (root / "pyproject.toml").write_text(
        textwrap.dedent(f"""\
        [build-system]
        requires = ["setuptools"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "{name}"
        version = "0.1"

        [tool.setuptools]
        py-modules = ["{module}"]

        """)
        + groups
        + "\n"
    )
    (root / f"{module}.py").write_text(body)
    return root


def pip_install(package: Path, target: Path) -> Path:
    done = subprocess.run(
        [
            PYTHON,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(package),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=package,
    )
    assert done.returncode == 0, done.stderr
    return target


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("good")
    package = write_package(
        root / "src",
        "toynli-swapbench-plugin",
        "toynli_plugin",
        GOOD_MODULE,
        {"swapbench.sources": {"toynli": "toynli_plugin"}, "swapbench.plugin_test": {"toy": "toynli_plugin:register"}},
    )
    return pip_install(package, root / "site")


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("broken")
    package = write_package(
        root / "src",
        "broken-swapbench-plugin",
        "broken_plugin",
        "import swapbench_dependency_never_installed  # noqa: F401\n",
        {"swapbench.sources": {"brokennli": "broken_plugin"}},
    )
    return pip_install(package, root / "site")


def swapbench(site: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "SWAPBENCH_NO_PLUGINS"}
    return subprocess.run(
        [PYTHON, "-m", "swapbench", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**environ, "PYTHONPATH": f"{site}{os.pathsep}{REPO}", "COLUMNS": "200", "NO_COLOR": "1", **(env or {})},
    )


def one_line(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.integration
def test_a_plugin_source_is_listed_and_built_from(good, tmp_path):
    done = swapbench(good, "build", "--help")
    assert done.returncode == 0, done.stderr
    assert "toynli: ToyNLI, a source added by a plugin" in one_line(done.stdout)
    out = tmp_path / "toy"
    done = swapbench(
        good,
        "build",
        "--source",
        "toynli",
        "--split",
        "test",
        "--out",
        str(out),
        "--no-cache",
        "--variants",
        "shuffle-3",
        env={"TOYNLI_DIR": str(FIXTURES)},
    )
    assert done.returncode == 0, done.stderr
    assert '"source_name": "toynli"' in (out / "build_info.json").read_text()
    assert "https://example.org/toynli" in (out / "README.md").read_text()  # the card reads the plugin's declaration


@pytest.fixture(scope="module")
def scorer_plugin(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("scorer")
    package = write_package(
        root / "src",
        "toydepth-swapbench-plugin",
        "toydepth_plugin",
        SCORER_MODULE,
        {"swapbench.scorers": {"toy-depth": "toydepth_plugin"}},
    )
    return pip_install(package, root / "site")


@pytest.mark.integration
def test_a_plugin_scorer_s_own_option_is_eval_s(scorer_plugin, tmp_path):
    done = swapbench(scorer_plugin, "eval", "--help")
    assert done.returncode == 0, done.stderr
    text = one_line(done.stdout)
    assert "toy-depth: a scoring mode added by a plugin" in text
    assert (
        "toy depth (--mode toy-depth): --toy-depth TOY_DEPTH how deep the toy mode looks, a plugin's option "
        "(default: 2)"
    ) in text
    # Its bounds are the command line's, and another mode refuses it by its flag before anything is loaded.
    done = swapbench(scorer_plugin, "eval", "some/model", "--mode", "toy-depth", "--toy-depth", "10")
    assert done.returncode == 2 and "argument --toy-depth: 10 is out of range" in one_line(done.stderr)
    done = swapbench(scorer_plugin, "eval", "some/model", "--data", str(tmp_path / "none"), "--toy-depth", "3")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "--toy-depth is for --mode toy-depth, not --mode classifier" in one_line(done.stderr)


@pytest.mark.integration
def test_a_broken_plugin_is_named_without_a_traceback(broken):
    done = swapbench(broken, "build", "--help")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    message = one_line(done.stderr)
    assert (
        "error: plugin 'brokennli' (broken_plugin) of broken-swapbench-plugin 0.1, entry point group "
        "swapbench.sources failed to load: ModuleNotFoundError: No module named "
        "'swapbench_dependency_never_installed'"
    ) in message
    assert "SWAPBENCH_NO_PLUGINS=1" in message
    # The way past it that the message names works.
    done = swapbench(broken, "build", "--help", env={"SWAPBENCH_NO_PLUGINS": "1"})
    assert done.returncode == 0 and "brokennli" not in done.stdout and "snli:" in done.stdout


@pytest.fixture
def forgets_the_toy_plugin():
    """Importing the plugin here registers its source in this process's SOURCES: later tests must not see it."""
    yield
    SOURCES.remove("toynli")
    sys.modules.pop("toynli_plugin", None)


@pytest.mark.integration
def test_a_registry_loads_its_group_once_and_lazily(good, monkeypatch, forgets_the_toy_plugin):
    monkeypatch.delenv("SWAPBENCH_NO_PLUGINS", raising=False)
    monkeypatch.syspath_prepend(str(good))
    registry = Registry("toy", group="swapbench.plugin_test")
    assert "toynli_plugin" not in sys.modules  # made, not yet listed: nothing loaded
    assert registry.names() == [] and registry.names() == []
    plugin = sys.modules["toynli_plugin"]
    assert plugin.CALLS == ["register"]  # the callable entry point, called once however often it is listed
    assert [ep.name for ep in load_plugins("swapbench.plugin_test")] == ["toy"]
    assert plugin.CALLS == ["register", "register"]
    monkeypatch.setenv("SWAPBENCH_NO_PLUGINS", "1")
    assert load_plugins("swapbench.plugin_test") == []


@pytest.mark.integration
def test_an_entry_point_naming_neither_module_nor_callable_is_refused(tmp_path, monkeypatch):
    package = write_package(
        tmp_path / "src",
        "odd-swapbench-plugin",
        "odd_plugin",
        "VALUE = 3\n",
        {"swapbench.odd_test": {"odd": "odd_plugin:VALUE"}},
    )
    monkeypatch.delenv("SWAPBENCH_NO_PLUGINS", raising=False)
    monkeypatch.syspath_prepend(str(pip_install(package, tmp_path / "site")))
    with pytest.raises(
        PluginError,
        match=r"plugin 'odd' \(odd_plugin:VALUE\) of odd-swapbench-plugin 0.1.*"
        r"TypeError: it names a int, neither a module nor a callable",
    ):
        Registry("odd", group="swapbench.odd_test").names()


@pytest.mark.integration
def test_a_registry_whose_plugin_failed_fails_at_every_listing(broken, monkeypatch):
    monkeypatch.delenv("SWAPBENCH_NO_PLUGINS", raising=False)
    monkeypatch.syspath_prepend(str(broken))
    registry = Registry("source", group="swapbench.sources")
    for _ in range(2):  # not a registry that passes for whole, without the plugin's entries, the second time
        with pytest.raises(PluginError, match="plugin 'brokennli' .* failed to load"):
            registry.names()
