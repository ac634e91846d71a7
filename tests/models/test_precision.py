"""Which CPUs get bf16 by default: those whose bf16 matrix instructions torch's matmuls use (AMX or AVX512-BF16),
and no other."""

from __future__ import annotations

import pytest
import torch

from swapbench.models import precision


@pytest.fixture
def cpu(monkeypatch):
    """A CPU described by its AMX answer and its /proc/cpuinfo flags."""

    def describe(amx: bool, flags: set[str], onednn: bool = True):
        precision.cpu_bfloat16_instructions.cache_clear()
        monkeypatch.setattr(precision, "cpu_has_amx", lambda: amx)
        monkeypatch.setattr(precision, "cpu_flags", lambda: flags)
        monkeypatch.setattr(torch.backends.mkldnn, "is_available", lambda: onednn)

    yield describe
    precision.cpu_bfloat16_instructions.cache_clear()


@pytest.mark.parametrize(
    ("amx", "flags", "found"),
    [
        (True, {"avx512f", "avx512_bf16", "amx_bf16"}, "AMX"),  # Sapphire Rapids
        (False, {"avx512f", "avx512_bf16"}, "AVX512-BF16"),  # AMD Zen 4, Intel Cooper Lake
        (False, {"avx512f", "avx512_vnni"}, None),  # Ice Lake: bf16 would be emulated
        (False, {"avx2"}, None),
    ],
)
def test_bf16_is_the_cpu_default_only_where_it_has_bf16_matrix_instructions(cpu, amx, flags, found):
    cpu(amx, flags)
    assert precision.cpu_bfloat16_instructions() == found
    assert precision.fast_bfloat16(torch.device("cpu")) is (found is not None)


def test_a_torch_without_onednn_keeps_float32(cpu):
    cpu(True, {"avx512_bf16", "amx_bf16"}, onednn=False)
    assert precision.cpu_bfloat16_instructions() is None
    assert not precision.fast_bfloat16(torch.device("cpu"))


def test_this_machine_answers_as_its_flags_say():
    flags = precision.cpu_flags()
    if precision.cpu_has_amx() or "avx512_bf16" in flags:
        assert precision.fast_bfloat16(torch.device("cpu")) is torch.backends.mkldnn.is_available()
    else:
        assert not precision.fast_bfloat16(torch.device("cpu"))
