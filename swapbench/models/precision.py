"""Which reduced precision a device runs fast: the one question that scoring's and fine-tuning's defaults share.

bfloat16 pays on a CUDA card that supports it and on a CPU whose bf16 matrix instructions torch's matmuls (oneDNN)
use: AMX tiles (Intel Xeon 4th generation, Sapphire Rapids, and later) or AVX512-BF16 (AMD Zen 4 and later, Intel
Cooper Lake). At one thread a 2048 x 2048 bf16 matmul ran 5.8x the float32 rate on an AMX Xeon and 4.1x on an
EPYC with AVX512-BF16 and no AMX, and MiniLM scored 3.4x and 3.1x as fast (docs/commands/eval.md,
docs/performance.md). On a CPU with neither, bf16 is emulated and slower than float32, so float32 stays the choice.
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


@functools.cache
def cpu_bfloat16_instructions() -> str | None:
    """The bf16 matrix instructions of this CPU that torch's matmuls use: "AMX", "AVX512-BF16" or None (neither,
    or a torch built without oneDNN, whose kernels they are)."""
    if not torch.backends.mkldnn.is_available():
        return None
    if cpu_has_amx():
        return "AMX"
    if "avx512_bf16" in cpu_flags():
        return "AVX512-BF16"
    return None


def fast_bfloat16(device: torch.device) -> bool:
    """True when bfloat16 matmuls on `device` run faster than float32 ones: a CUDA card with bf16 support, or a
    CPU with bf16 matrix instructions (cpu_bfloat16_instructions: AMX or AVX512-BF16)."""
    if device.type == "cuda":
        return torch.cuda.is_available() and torch.cuda.is_bf16_supported()
    if device.type == "cpu":
        return cpu_bfloat16_instructions() is not None
    return False
