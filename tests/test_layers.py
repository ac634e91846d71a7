"""Imports run only downward: every module's imports, those inside functions included, held against tests/layers.json.

The layers file lists the layers of the package top first, each one or more folders (or top-level files), and a
few nevers (downward imports forbidden all the same, each with why). A module imports within its own layer or from
one below it; anything else is reported with its file and line.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = json.loads((Path(__file__).with_name("layers.json")).read_text(encoding="utf-8"))
PARTS: dict[str, list[str]] = {layer["name"]: layer["is"] for layer in LAYERS["layers"]}
RANK = {name: rank for rank, name in enumerate(PARTS)}  # 0: the top
NEVER = {(n[0], n[1]): n[2] for n in LAYERS["never"]}


def modules() -> list[Path]:
    return sorted([*ROOT.glob("swapbench/**/*.py"), *ROOT.glob("scripts/**/*.py")])


def part_of(path: Path) -> str | None:
    """The part whose longest path holds `path` (a file path, or a folder path ending in /)."""
    relative = path.relative_to(ROOT).as_posix()
    best, length = None, -1
    for name, places in PARTS.items():
        for place in places:
            holds = relative.startswith(place) if place.endswith("/") else relative == place
            if holds and len(place) > length:
                best, length = name, len(place)
    return best


def module_file(dotted: str) -> Path | None:
    """The file of a swapbench module: name.py, or name/__init__.py; None for another package's module."""
    if dotted != "swapbench" and not dotted.startswith("swapbench."):
        return None
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@dataclass(frozen=True)
class Import:
    source: Path
    line: int
    target: Path
    name: str  # as the module wrote it, for the message


def package_of(path: Path) -> list[str]:
    """The dotted parts of the package a relative import in `path` starts from (for __init__.py, its own)."""
    return list(path.relative_to(ROOT).parts[:-1])


def imports_of(path: Path, text: str | None = None) -> list[Import]:
    """Every import of a swapbench module in `path` (or in `text`, read as if it stood there), at module level or
    inside functions and classes."""
    text = path.read_text(encoding="utf-8") if text is None else text
    tree = ast.parse(text, filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [(alias.name, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = package_of(path)
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            # `from pkg import name` imports pkg, and the module pkg.name where there is one.
            names = [
                (f"{base}.{a.name}", f"{base}.{a.name}") if module_file(f"{base}.{a.name}") else (base, base)
                for a in node.names
            ]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):  # a name the code spells out; a computed one is not seen
            names = [(node.args[0].value, node.args[0].value)]
        else:
            continue
        for dotted, written in names:
            target = module_file(dotted)
            if target is not None and target != path:
                found.append(Import(path, node.lineno, target, written))
    return list(dict.fromkeys(found))  # `from .m import a, b` is one import of m


def where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT).as_posix()}:{line}"


def test_the_layers_are_folders_and_the_nevers_run_down():
    """Each layer is a folder (or a top-level file) of its own, no module sits loose at the top of the package, and
    a never names two layers, the first above the second (an upward import is refused anyway)."""
    places = [place for places in PARTS.values() for place in places]
    assert len(places) == len(set(places)), "layers.json: a place is on two layers"
    for a, b in NEVER:
        assert a in PARTS and b in PARTS, f"layers.json: a never between {a} and {b}, not both layers"
        assert RANK[a] < RANK[b], f"layers.json: the never {a} -> {b} runs up; imports up are refused anyway"
    loose = sorted(
        p.name for p in (ROOT / "swapbench").glob("*.py") if p.name not in ("__init__.py", "__main__.py", "api.py")
    )
    assert not loose, f"modules loose at the top of swapbench/ (put each in the folder of its layer): {loose}"


def test_every_module_is_on_a_part():
    loose = [path.relative_to(ROOT).as_posix() for path in modules() if part_of(path) is None]
    assert not loose, f"modules on no part of tests/layers.json (add each to the part it belongs to): {loose}"


def test_no_import_runs_up_or_breaks_a_never():
    problems = []
    for path in modules():
        source = part_of(path)
        for imp in imports_of(path):
            target = part_of(imp.target)
            if source is None or target is None or target == source:
                continue
            if (source, target) in NEVER:
                problems.append(
                    f"{where(path, imp.line)}: {source} imports {imp.name} ({target}), which it must "
                    f"never do: {NEVER[source, target]}"
                )
            elif RANK[target] < RANK[source]:
                problems.append(
                    f"{where(path, imp.line)}: {source} imports {imp.name} ({target}), a layer above "
                    "it in tests/layers.json"
                )
    assert not problems, "imports against tests/layers.json:\n" + "\n".join(problems)


def test_the_check_sees_imports_inside_functions():
    """The reader finds relative imports in function bodies, `from package import module` and plain imports."""
    text = (
        "import swapbench.parsing.ptb\n"
        "def f():\n    from ..variants import role_swap\n    from ..core import errors\n"
        "    from .base import Span\n"
        "    importlib.import_module('swapbench.core.text')\n"
    )
    found = {
        (i.line, i.target.relative_to(ROOT).as_posix())
        for i in imports_of(ROOT / "swapbench" / "roles" / "anything.py", text)
    }
    assert found == {
        (1, "swapbench/parsing/ptb.py"),
        (3, "swapbench/variants/role_swap.py"),
        (4, "swapbench/core/errors.py"),
        (5, "swapbench/roles/base.py"),
        (6, "swapbench/core/text.py"),
    }
    assert part_of(ROOT / "swapbench" / "roles" / "anything.py") == "Roles"
