"""Attention with linear biases (ALiBi)."""

from __future__ import annotations

import math

import torch

from .base import ModelPositions, register_built_in, relative_positions


def alibi_slopes(heads: int) -> list[float]:
    """The head-specific slopes m of Press et al. 2022, section 3: for n heads (a power of 2), the geometric
    sequence that starts at 2^(-8/n) with that same ratio; for other n, the slopes of the nearest smaller power
    of 2, then every other slope of twice that power (the paper's reference implementation)."""

    def power_of_two(n: int) -> list[float]:
        start = 2 ** (-8 / n)
        return [start * start**i for i in range(n)]

    if heads < 1:
        raise ValueError(f"heads must be at least 1, got {heads}")
    if math.log2(heads).is_integer():
        return power_of_two(heads)
    closest = 2 ** math.floor(math.log2(heads))
    return power_of_two(closest) + alibi_slopes(2 * closest)[0::2][: heads - closest]


class Alibi(ModelPositions):
    """ALiBi of Press et al. 2022 ("Train Short, Test Long: Attention with Linear Biases Enables Input Length
    Extrapolation"): each head adds -m_h * |j - i| to its logits. The paper's models are causal (j <= i only);
    an encoder sees both sides, so the bias here is symmetric in the distance. No parameters."""

    def __init__(self, config):
        super().__init__(config)
        self.slopes = alibi_slopes(config.num_attention_heads)

    def shared_bias(self, length, device, dtype):
        slopes = torch.tensor(self.slopes, dtype=dtype, device=device)[:, None, None]
        return -slopes * relative_positions(length, device).abs().to(dtype)[None]


register_built_in("alibi", positions=Alibi)
