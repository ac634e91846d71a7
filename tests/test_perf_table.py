"""scripts/perf_table.py: the performance table (docs/performance.md), rendered from the benchmark scripts' --json
files and put between its markers, nothing else in the file touched."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from swapbench.core.errors import SwapbenchError

REPO = Path(__file__).resolve().parent.parent


def load_script():
    spec = importlib.util.spec_from_file_location("perf_table", REPO / "scripts" / "perf_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


perf_table = load_script()

STARTUP = {
    "every command's `--help`, slowest, whole process, wall": {
        "value": 0.21,
        "low": 0.19,
        "high": 0.25,
        "unit": "s",
        "goal": "≤ 0.3 s",
        "note": "slowest: swapbench zoo --help",
        "command": "python scripts/bench_startup.py --json startup.json",
        "load": "load 0.50 0.40 0.30",
        "machine": "Intel Xeon, 2 cores",
        "commands": {"zoo --help": {"wall": 0.21}},
    }
}
SCORING = {
    "scoring FLOP/s / matmul FLOP/s": {  # another script's keys: a ratio, extra keys, no goal or unit
        "ratio": 0.523,
        "low": 0.42,
        "high": 0.62,
        "command": "python scripts/bench_eval.py --pairs 2000 | tee log",
        "load": "load 1.10 1.00 0.90",
        "machine": "NVIDIA H200",
        "flops": 1.2e15,
    },
    "bf16 / fp32 scoring": {
        "ratio": 2.37,
        "low": 2.1,
        "high": 2.5,
        "unit": "x",
        "command": "the same",
        "load": "2.00 1.00 0.50",
        "machine": "NVIDIA H200",
    },
}


@pytest.fixture
def figures(tmp_path):
    paths = []
    for name, data in (("startup.json", STARTUP), ("scoring.json", SCORING)):
        (tmp_path / name).write_text(json.dumps(data))
        paths.append(tmp_path / name)
    return paths


def test_renders_each_figure_with_its_goal_range_command_and_machine(figures):
    table = perf_table.render(figures).splitlines()
    assert table[:2] == ["| figure | goal | measured | command |", "|---|---|---|---|"]
    assert table[2] == (
        "| every command's `--help`, slowest, whole process, wall | ≤ 0.3 s | 0.21 s (0.19-0.25); "
        "slowest: swapbench zoo --help | `python scripts/bench_startup.py --json startup.json` |"
    )
    assert table[3] == (
        "| scoring FLOP/s / matmul FLOP/s |  | 0.523 (0.42-0.62) | "
        "`python scripts/bench_eval.py --pairs 2000 \\| tee log` |"
    )
    assert "startup.json: Intel Xeon, 2 cores, load 0.50 0.40 0.30." in table
    assert table[4] == "| bf16 / fp32 scoring |  | 2.37x (2.1-2.5) | `the same` |"
    assert "scoring.json: NVIDIA H200, load 1.10 1.00 0.90; load 2.00 1.00 0.50." in table  # one line a file


def test_replaces_only_what_lies_between_the_markers(figures, tmp_path):
    readme = tmp_path / "README.md"
    before, after = "# Title\n\n## Performance\n\nIntro.\n\n", "\nHow each is measured.\n"
    readme.write_text(f"{before}{perf_table.START}\n| old | table |\n{perf_table.END}{after}")
    assert perf_table.main([str(p) for p in figures] + ["--file", str(readme)]) == 0
    text = readme.read_text()
    assert text.startswith(before + perf_table.START + "\n| figure | goal |") and text.endswith(perf_table.END + after)
    assert "| old | table |" not in text and "0.21 s (0.19-0.25)" in text
    again = text
    assert perf_table.main([str(p) for p in figures] + ["--file", str(readme)]) == 0
    assert readme.read_text() == again  # regenerating is stable


def test_refuses_a_file_without_markers_and_leaves_it_alone(figures, tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# Title\n\nno table here\n")
    assert perf_table.main([str(p) for p in figures] + ["--file", str(readme)]) == 2
    assert "has no performance-table markers" in capsys.readouterr().err
    assert readme.read_text() == "# Title\n\nno table here\n"
    with pytest.raises(SwapbenchError, match="once"):
        perf_table.replace_table(f"{perf_table.END}\n{perf_table.START}\n", "table")


def test_refuses_a_figure_without_a_number(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"a figure": {"low": 1, "high": 2}}))
    with pytest.raises(SwapbenchError, match='neither "ratio" nor "value"'):
        perf_table.render([path])
