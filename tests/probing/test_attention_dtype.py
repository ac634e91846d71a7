"""The probe reads half-precision attention as distributions: its rounding off a row sum of 1 is divided out."""

import torch

from swapbench.probing.attention import as_float64


def test_half_precision_rows_are_renormalised_and_float32_rows_left_as_they_are():
    weights = torch.softmax(torch.randn(2, 3, 40, 40, generator=torch.Generator().manual_seed(0)), dim=-1)
    rounded = as_float64(weights.to(torch.bfloat16))
    assert torch.allclose(rounded.sum(dim=-1), torch.ones(2, 3, 40, dtype=torch.float64), atol=1e-12)
    assert (weights.to(torch.bfloat16).to(torch.float64).sum(dim=-1) - 1).abs().max() > 1e-4  # the rounding
    assert torch.allclose(rounded, weights.to(torch.float64), atol=1e-2)
    assert torch.equal(as_float64(weights), weights.to(torch.float64))
