"""Relative position embeddings inside the attention logits: Shaw et al. and Huang et al.'s method 4."""

from __future__ import annotations

import torch
from torch import nn

from .base import LayerScores, register_built_in, relative_positions


def clipped_relative_index(length: int, k: int, device=None) -> torch.Tensor:
    """(length, length) index of clip(j - i, -k, k) + k into a table of 2k + 1 embeddings."""
    return relative_positions(length, device).clamp(-k, k) + k


class ShawScores(LayerScores):
    """Relative position representations of Shaw et al. 2018 ("Self-Attention with Relative Position
    Representations", equations 4-5): e_ij = x_i W^Q (x_j W^K + a^K_ij)^T / sqrt(d), with
    a^K_ij = w^K_clip(j - i, k), one table per layer shared by its heads. The paper's value term a^V is left out,
    as in its own ablation (and in transformers' "relative_key"): the zoo varies the logits only."""

    def __init__(self, config):
        super().__init__(config)
        self.k = config.max_relative_distance
        self.relative_keys = nn.Embedding(2 * self.k + 1, self.head_size)

    def relative_embeddings(self, length: int, device, dtype) -> torch.Tensor:
        """a_ij, (length, length, head_size)."""
        return self.relative_keys(clipped_relative_index(length, self.k, device)).to(dtype)

    def forward(self, query, key, shared_bias):
        a = self.relative_embeddings(query.shape[-2], query.device, query.dtype)
        logits = torch.matmul(query, key.transpose(-1, -2)) + torch.einsum("bhid,ijd->bhij", query, a)
        logits = logits * self.scale
        return logits if shared_bias is None else logits + shared_bias


class HuangM4Scores(ShawScores):
    """Method 4 of Huang et al. 2020 ("Improve Transformer Models with Better Relative Position Embeddings",
    Findings of EMNLP): the query, the key and the relative embedding all interact,
    e_ij = (q_i . k_j + q_i . a_ij + k_j . a_ij) / sqrt(d), with a_ij clipped as in ShawScores (transformers'
    "relative_key_query")."""

    def forward(self, query, key, shared_bias):
        a = self.relative_embeddings(query.shape[-2], query.device, query.dtype)
        logits = (
            torch.matmul(query, key.transpose(-1, -2))
            + torch.einsum("bhid,ijd->bhij", query, a)
            + torch.einsum("bhjd,ijd->bhij", key, a)
        )
        logits = logits * self.scale
        return logits if shared_bias is None else logits + shared_bias


register_built_in("shaw", scores=ShawScores)
register_built_in("huang_m4", scores=HuangM4Scores)
