"""Translation-invariant self-attention (TISA)."""

from __future__ import annotations

import torch
from torch import nn

from .base import LayerScores, init, register_built_in, relative_positions


def tisa_bias(amplitudes: torch.Tensor, sharpness: torch.Tensor, offsets: torch.Tensor, length: int) -> torch.Tensor:
    """(heads, length, length): f_h(i - j) = sum_s a_hs * exp(-|b_hs| * (i - j - c_hs)^2), for parameters of
    shape (heads, S)."""
    distance = -relative_positions(length, amplitudes.device).to(amplitudes.dtype)  # i - j
    d = distance[None, :, :, None]  # (1, length, length, 1)
    a, b, c = (p[:, None, None, :] for p in (amplitudes, sharpness, offsets))  # (heads, 1, 1, S)
    return (a * torch.exp(-b.abs() * (d - c) ** 2)).sum(dim=-1)


class TisaScores(LayerScores):
    """Translation-invariant self-attention of Wennberg & Henter 2021 ("The Case for Translation-Invariant
    Self-Attention in Transformer-Based Language Models", ACL): each head of each layer adds a learned function
    of i - j, a sum of S radial-basis kernels with amplitude a, sharpness b and offset c, to its logits.
    Initialised as the authors' code: c ~ N(0, 5), a ~ N(0.1, 0.01), b ~ N(0.1, 0.01)."""

    def __init__(self, config):
        super().__init__(config)
        shape = (config.num_attention_heads, config.tisa_kernels)
        self.amplitudes = nn.Parameter(torch.zeros(shape))
        self.sharpness = nn.Parameter(torch.zeros(shape))
        self.offsets = nn.Parameter(torch.zeros(shape))

    def init_parameters(self, std):
        init.normal_(self.amplitudes, mean=0.1, std=0.01)
        init.normal_(self.sharpness, mean=0.1, std=0.01)
        init.normal_(self.offsets, mean=0.0, std=5.0)

    def forward(self, query, key, shared_bias):
        bias = tisa_bias(self.amplitudes, self.sharpness, self.offsets, query.shape[-2]).to(query.dtype)
        return super().forward(query, key, bias if shared_bias is None else shared_bias + bias)


register_built_in("tisa", scores=TisaScores)
