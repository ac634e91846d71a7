"""The eval command's process keeps freed memory for reuse: glibc agrees to both thresholds, once per process."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mallopt is glibc's, on Linux")
def test_glibc_agrees_once_per_process_and_a_fresh_process_is_left_alone():
    # In a child process, so that this test run's own allocator keeps glibc's defaults.
    code = ("import swapbench.models.cpu_memory as m; assert not m._done; "
            "print(m.keep_freed_memory(), m.keep_freed_memory(), m._done)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.split()
    assert out == ["True", "True", "[True]"]


def test_importing_a_command_changes_nothing_until_it_runs():
    code = "import swapbench.commands.evaluate, swapbench.models.cpu_memory as m; print(m._done)"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.strip()
    assert out == "[]"
