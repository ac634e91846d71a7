"""Freed memory kept for reuse while a process runs models on the CPU.

glibc hands a freed block above its mmap threshold back to the system at once, and trims the top of its heap once
the free space there passes the trim threshold. A transformer frees and allocates activations of megabytes in every
layer, so each new one is fresh memory whose pages fault on first touch: measured on MiniLM at 2 threads, a batch
of 64 pairs of 40 tokens, GELU took 4.0 ms a call inside the model against 0.8 ms on a reused buffer, and a forward
230 ms against 198 ms once freed memory was kept (scripts/bench_eval.py: the scorer 6-8% faster). Raising both
thresholds keeps activations in the heap. The price is memory the process keeps after the run, up to the trim
threshold; it is paid by the `eval`, `probe` and `zoo` commands' own processes, not by a caller of the API, whose
process is left as it is.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (malloc.h)
MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's largest on 64-bit systems: blocks up to it come from the heap
TRIM_THRESHOLD = 1024 * 1024 * 1024  # free heap kept at its top before it is trimmed

_done: list[bool] = []  # whether this process has asked already, and glibc agreed


def keep_freed_memory() -> bool:
    """Ask glibc, once per process, to keep freed blocks of up to 32 MiB for reuse, and up to 1 GiB of free heap;
    False where the C library is not glibc or refuses (nothing is changed then)."""
    if _done:
        return _done[0]
    agreed = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            mallopt = libc.mallopt
        except (OSError, AttributeError):  # another C library (musl has no mallopt)
            mallopt = None
        if mallopt is not None:
            agreed = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD,
                                                                                        TRIM_THRESHOLD))
    _done.append(agreed)
    return agreed
