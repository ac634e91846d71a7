"""No import cycles: no module of swapbench imports, directly or through others, a module that imports it back.

tests/test_layers.py keeps imports running down between layers; inside a layer (a folder) two modules could still
import each other. A cycle at module level works only while the order in which Python first meets its modules stays
as it is (a plug-in that imports the other end first meets a half-made module); a cycle through an import inside a
function is a knot all the same: neither end can be read, tested or reused without the other (a plug-in scorer
would import the pipeline that calls it). So every import counts here, as test_layers reads them: at module level,
inside functions and under `if TYPE_CHECKING:`. The test fails naming each cycle, with the file and line of every
import in it; the cure is a module both ends can import, holding what they share.
"""

from __future__ import annotations

from pathlib import Path

from test_layers import ROOT, imports_of, modules, where


def import_graph(texts: dict[Path, str] | None = None) -> dict[Path, dict[Path, int]]:
    """Each module of swapbench (or each of `texts`, read as if it stood at its path) with the swapbench modules it
    imports, each at the line of its first import."""
    sources = texts or {path: None for path in modules() if path.relative_to(ROOT).parts[0] == "swapbench"}
    graph: dict[Path, dict[Path, int]] = {}
    for path, text in sources.items():
        targets = graph.setdefault(path, {})
        for imp in imports_of(path, text):
            targets.setdefault(imp.target, imp.line)
    return graph


def cycles(graph: dict[Path, dict[Path, int]]) -> list[list[Path]]:
    """The strongly connected components of more than one module, each sorted (Tarjan's algorithm, iterative;
    imports_of leaves out a module's import of itself)."""
    index: dict[Path, int] = {}
    low: dict[Path, int] = {}
    stack: list[Path] = []
    on_stack: set[Path] = set()
    found: list[list[Path]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, {}))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            advanced = False
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, {})))))
                    advanced = True
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def describe(component: list[Path], graph: dict[Path, dict[Path, int]]) -> str:
    inside = set(component)
    edges = [
        f"  {where(source, line)} imports {target.relative_to(ROOT).as_posix()}"
        for source in component
        for target, line in sorted(graph[source].items())
        if target in inside
    ]
    return "\n".join(edges)


def test_no_module_imports_itself_back():
    graph = import_graph()
    found = cycles(graph)
    assert not found, (
        "import cycles in swapbench (move what both ends need into a module both can import):\n"
        + "\n\n".join(describe(component, graph) for component in found)
    )


def test_the_check_finds_a_cycle_through_functions_and_none_where_imports_run_one_way():
    """Read from text written here: a loop of three, one link inside a function, is found with its lines; the same
    modules importing one way only make none."""
    core = ROOT / "swapbench" / "core"
    a, b, c = core / "text.py", core / "files.py", core / "jsonl.py"
    texts = {
        a: "from . import files\n",
        b: "import os\n\ndef read():\n    from .jsonl import read_json\n",
        c: "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from swapbench.core import text\n",
    }
    graph = import_graph(texts)
    assert cycles(graph) == [sorted([a, b, c])]
    text = describe(sorted([a, b, c]), graph)
    assert "swapbench/core/files.py:4 imports swapbench/core/jsonl.py" in text
    assert "swapbench/core/jsonl.py:3 imports swapbench/core/text.py" in text

    texts[c] = "import json\n"
    assert cycles(import_graph(texts)) == []
