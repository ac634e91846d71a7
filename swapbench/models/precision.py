"""Which reduced precision a device runs fast: the one question that scoring's and fine-tuning's defaults share.

bfloat16 pays on a CUDA card that supports it and on a CPU with AMX tiles (Intel Sapphire Rapids and later), whose
matrix units take bf16 and not float32: there a bf16 matmul runs several times faster than a float32 one. On a CPU
without them bf16 is emulated and slower than float32, so float32 stays the choice.
"""

from __future__ import annotations

import functools

import torch


@functools.cache
def cpu_has_amx() -> bool:
    """True when this CPU has AMX tiles that torch can use for bf16 matmuls."""
    init = getattr(torch._C._cpu, "_init_amx", None)  # asks the kernel for the tiles; False where there are none
    if init is not None:
        try:
            return bool(init())
        except RuntimeError:
            return False
    return "amx_bf16" in cpu_flags()


def cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            for line in info:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def fast_bfloat16(device: torch.device) -> bool:
    """True when bfloat16 matmuls on `device` run faster than float32 ones: a CUDA card with bf16 support, or a
    CPU with AMX."""
    if device.type == "cuda":
        return torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    if device.type == "cpu":
        return cpu_has_amx()
    return False
