"""Rotary position embeddings."""

from __future__ import annotations

import torch

from .base import LayerScores, register_built_in


def rope_angles(length: int, dim: int, base: float = 10000.0, device=None) -> torch.Tensor:
    """(length, dim / 2) angles m * theta_i, with theta_i = base^(-2i/dim) (RoFormer, equation 15)."""
    theta = base ** (-torch.arange(0, dim, 2, dtype=torch.float64, device=device) / dim)
    return torch.arange(length, dtype=torch.float64, device=device)[:, None] * theta[None, :]


def rotate(x: torch.Tensor, angles: torch.Tensor) -> torch.Tensor:
    """Rotate each pair (x_2i, x_2i+1) of the last dimension of x (..., length, dim) by its angle (length, dim/2)."""
    cos, sin = torch.cos(angles).to(x.dtype), torch.sin(angles).to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    rotated = torch.empty_like(x)
    rotated[..., 0::2] = even * cos - odd * sin
    rotated[..., 1::2] = even * sin + odd * cos
    return rotated


class RopeScores(LayerScores):
    """Rotary position embeddings of Su et al. 2021 ("RoFormer: Enhanced Transformer with Rotary Position
    Embedding"): queries and keys are rotated by angles proportional to their positions, so that
    q_m . k_n depends on the positions only through n - m. No parameters."""

    def __init__(self, config):
        super().__init__(config)
        self.base = config.sinusoidal_base

    def forward(self, query, key, shared_bias):
        angles = rope_angles(query.shape[-2], self.head_size, self.base, query.device)
        return super().forward(rotate(query, angles), rotate(key, angles), shared_bias)

    @classmethod
    def check(cls, config):
        if (config.hidden_size // config.num_attention_heads) % 2:
            raise ValueError("rope rotates pairs of dimensions: the head size must be even")


register_built_in("rope", scores=RopeScores)
