"""Benchmark the command line's start-up: `swapbench --help` and `swapbench COMMAND --help` for every command (the
zoo's own commands too: `swapbench zoo train --help`).

Each is a whole fresh process (`python -m swapbench ...`: the interpreter's start, the imports, the parser, the
help text, the shutdown), timed by wall clock and by CPU time (the child's user + system time, which other jobs on
a shared machine inflate less). Baselines, run in the same rounds, alternating with the commands so that a
neighbour's load hits both: `python -c pass` (the interpreter alone) and `python -c "import swapbench"`.

Goal (issue 42): every command's `--help`, and its argument errors, in <= 0.3 s of wall time and without importing
torch, transformers, datasets or pandas (tests/commands/test_startup.py checks the imports). Printed per command:
the median seconds with the range of the rounds, and the ratio of the median to `python -c pass`'s median with the
range of the rounds' own ratios.

    python scripts/bench_startup.py [--rounds 7] [--commands zoo,eval] [--json startup.json]

--json PATH writes the figures for scripts/perf_table.py: the slowest command's --help in seconds and as a ratio to
`python -c pass`, each {"value"|"ratio", "low", "high", "unit", "command", "load", "machine", "goal", "note"},
and every command's figures under "commands" of the first.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree without installing

from swapbench.commands.help_texts import FILE  # noqa: E402  (imports nothing heavy)
from swapbench.commands.listing import COMMANDS  # noqa: E402

GOAL_SECONDS = 0.3
BASELINES = {"python -c pass": ["-c", "pass"], "import swapbench": ["-c", "import swapbench"]}


def runs(commands: list[str]) -> dict[str, list[str]]:
    """Each timed process's interpreter arguments, by name: the baselines first, then `swapbench --help` and every
    command's `--help`."""
    timed = dict(BASELINES)
    timed["swapbench --help"] = ["-m", "swapbench", "--help"]
    every = list(json.loads(Path(FILE).read_text(encoding="utf-8")))  # every parser: "zoo", "zoo train", ...
    for name in commands:
        for words in [words for words in every if words.split()[0] == name] or [name]:
            timed[f"{words} --help"] = ["-m", "swapbench", *words.split(), "--help"]
    return timed


def run_once(arguments: list[str]) -> tuple[float, float]:
    """The wall and CPU seconds of one fresh `python ARGUMENTS`, its output thrown away; a failure stops the run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *arguments], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"`python {' '.join(arguments)}` failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(timed: dict[str, list[str]], rounds: int) -> dict[str, dict[str, list[float]]]:
    """Every run of `timed` in turn, `rounds` times over, `python -c pass` again before each command, so that each
    command has a baseline beside it: each run's wall and CPU times over the rounds (the baseline's, one per
    command and round)."""
    times = {name: {"wall": [], "cpu": [], "beside": []} for name in timed}
    base = "python -c pass"
    for _ in range(rounds):
        for name, arguments in timed.items():
            beside = None
            if name != base:
                beside, cpu = run_once(timed[base])
                times[base]["wall"].append(beside)
                times[base]["cpu"].append(cpu)
            wall, cpu = run_once(arguments)
            times[name]["wall"].append(wall)
            times[name]["cpu"].append(cpu)
            times[name]["beside"].append(beside or wall)
    return times


def machine() -> str:
    """The CPU's model name and its cores, for the figures' header."""
    name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name}, {os.cpu_count()} cores; Python {platform.python_version()}"


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()) if hasattr(os, "getloadavg") else "load unknown"


def figures(times: dict[str, dict[str, list[float]]]) -> dict[str, dict]:
    """Per run: the median wall and CPU seconds with the rounds' range, and the ratio of the median wall time to
    `python -c pass`'s with the range of the rounds' own ratios."""
    base = times["python -c pass"]
    out = {}
    for name, runs_ in times.items():
        wall, cpu = runs_["wall"], runs_["cpu"]
        own = [t / b for t, b in zip(wall, runs_["beside"])]  # each round's ratio to the baseline beside it
        out[name] = {
            "wall": statistics.median(wall),
            "wall_low": min(wall),
            "wall_high": max(wall),
            "cpu": statistics.median(cpu),
            "cpu_low": min(cpu),
            "cpu_high": max(cpu),
            "ratio": statistics.median(wall) / statistics.median(base["wall"]),
            "ratio_low": min(own),
            "ratio_high": max(own),
        }
    return out


def report(measured: dict[str, dict], rounds: int, command: str) -> dict[str, dict]:
    """The JSON figures: the slowest --help (not a baseline) in seconds and as a ratio to `python -c pass`."""
    helps = {name: f for name, f in measured.items() if name not in BASELINES}
    slowest = max(helps, key=lambda name: helps[name]["wall"])
    worst = helps[slowest]
    common = {"command": command, "load": load(), "machine": machine(), "rounds": rounds}
    label = slowest if slowest == "swapbench --help" else f"swapbench {slowest}"
    return {
        "every command's `--help`, slowest, whole process, wall": {
            "value": round(worst["wall"], 3),
            "low": round(worst["wall_low"], 3),
            "high": round(worst["wall_high"], 3),
            "unit": "s",
            "goal": f"≤ {GOAL_SECONDS} s",
            "note": f"slowest: {label}",
            **common,
            "commands": {name: {k: round(v, 4) for k, v in f.items()} for name, f in measured.items()},
        },
        "every command's `--help`, slowest / `python -c pass`, wall": {
            "ratio": round(worst["ratio"], 2),
            "low": round(worst["ratio_low"], 2),
            "high": round(worst["ratio_high"], 2),
            "unit": "x",
            "note": f"slowest: {label}",
            **common,
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds, each running every process once (default 7)")
    parser.add_argument(
        "--commands",
        default=",".join(COMMANDS),
        help="comma-separated commands to time (default: all of `swapbench --help`'s)",
    )
    parser.add_argument("--json", type=Path, help="write the figures here, for scripts/perf_table.py")
    args = parser.parse_args(argv)
    commands = [name for name in args.commands.split(",") if name]
    unknown = [name for name in commands if name not in COMMANDS]
    if unknown:
        parser.error(f"not a command: {', '.join(unknown)}; expected some of {', '.join(COMMANDS)}")

    print(f"{machine()}; {load()}; {args.rounds} rounds, each process fresh, `python -c pass` before each")
    measured = figures(measure(runs(commands), args.rounds))
    print(f"{load()} after")
    print(f"{'process':<26} {'wall s (range)':>22} {'CPU s (range)':>22} {'/ python -c pass (range)':>26}")
    for name, f in measured.items():
        over = " over the goal" if name not in BASELINES and f["wall"] > GOAL_SECONDS else ""
        print(
            f"{name:<26} {f['wall']:>8.3f} ({f['wall_low']:.3f}-{f['wall_high']:.3f}) "
            f"{f['cpu']:>8.3f} ({f['cpu_low']:.3f}-{f['cpu_high']:.3f}) "
            f"{f['ratio']:>10.2f}x ({f['ratio_low']:.2f}-{f['ratio_high']:.2f}){over}"
        )
    if args.json:
        command = "python scripts/bench_startup.py" + (
            "" if argv is None and len(sys.argv) == 1 else " " + " ".join(sys.argv[1:] if argv is None else argv)
        )
        args.json.write_text(json.dumps(report(measured, args.rounds, command), indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
