"""How many CPU threads torch runs on: the cores free when a run starts, not the cores present.

On a machine shared with other jobs, torch's default (one thread per core) makes its threads wait on each other
whenever a core is taken: measured on 2 shared cores, 2 threads scored 1,000 pairs in 16.2 s where 1 thread took
4.7 s, and runs swung by 5x with the neighbours' load. Counting the cores that others keep busy, over a short
window, before the run starts removes most of that (scripts/bench_eval.py --threads compares).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager

import torch

WINDOW = 0.2  # seconds over which the machine's busy cores are counted


def usable_cores() -> int:
    """The cores this process may run on (its affinity, where the system tells it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def busy_elsewhere(window: float = WINDOW) -> float | None:
    """The cores that other processes kept busy over `window` seconds (from /proc/stat, less this process's own
    CPU time); None where the system does not tell."""

    def machine_busy() -> float:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = [int(x) for x in stat.readline().split()[1:]]
        idle = fields[3] + fields[4]  # idle, iowait
        return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")  # user .. steal, not guest (counted in user)

    def own() -> float:
        times = os.times()
        return times.user + times.system

    try:
        machine, mine, began = machine_busy(), own(), time.perf_counter()
        time.sleep(window)
        machine, mine = machine_busy() - machine, own() - mine
    except (OSError, ValueError, IndexError):
        return None
    return max(0.0, machine - mine) / (time.perf_counter() - began)


def free_cores() -> int:
    """The usable cores less those others keep busy, at least 1. The busy share is rounded to the nearest core:
    a neighbour using half a core leaves the core to a thread of ours."""
    cores = usable_cores()
    busy = busy_elsewhere()
    return cores if busy is None else max(1, min(cores, cores - round(busy)))


def choose_threads(requested: int | None = None) -> int:
    """`requested`, else OMP_NUM_THREADS when set (a launcher's, e.g. torchrun's, or the user's), else the cores
    free now."""
    if requested:
        return requested
    if os.environ.get("OMP_NUM_THREADS", "").isdigit():
        return torch.get_num_threads()
    return free_cores()


@contextmanager
def cpu_threads(requested: int | None = None) -> Iterator[int]:
    """Within it, torch runs on choose_threads(requested) threads; the caller's count is restored at the end."""
    before = torch.get_num_threads()
    threads = choose_threads(requested)
    torch.set_num_threads(threads)
    try:
        yield threads
    finally:
        torch.set_num_threads(before)
