"""torch's CPU threads: the cores free when a run starts, unless told."""

from __future__ import annotations

import torch

from swapbench.models.threads import choose_threads, cpu_threads, free_cores, usable_cores


def test_a_requested_count_wins_and_the_callers_count_comes_back():
    before = torch.get_num_threads()
    with cpu_threads(1) as threads:
        assert threads == torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


def test_omp_num_threads_is_a_choice_made_already(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert choose_threads() == torch.get_num_threads()


def test_the_free_cores_are_some_of_the_usable_ones(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert 1 <= free_cores() <= usable_cores()
    assert 1 <= choose_threads() <= usable_cores()


def test_cores_kept_busy_elsewhere_are_not_counted_free():
    # a process of our own spins on one core meanwhile; with a single usable core one is always left
    import subprocess
    import sys

    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        import time

        time.sleep(0.3)
        assert free_cores() <= max(1, usable_cores() - 1)
    finally:
        spinner.kill()
        spinner.wait()
