"""Transformer with untied positional encoding (TUPE)."""

from __future__ import annotations

import torch
from torch import nn

from .base import LayerScores, ModelPositions, init, register_built_in


class Tupe(ModelPositions):
    """TUPE-A of Ke, He & Liu 2021 ("Rethinking Positional Encoding in Language Pre-training", ICLR, equations 9
    and 10): positions are not added to the input; each head adds (p_i U^Q)(p_j U^K)^T / sqrt(2d) to its logits,
    with p shared by the heads, U^Q and U^K per head, computed once and shared by all layers. The [CLS] token
    (position 0) is untied from positions: its row is replaced by a learned theta_1 and its column (other rows)
    by theta_2, per head.

    As in the authors' code, the position embeddings pass through a LayerNorm of their own before U^Q and U^K
    (without it, BERT-initialised p of norm 0.16 made the positional term about 1/2300 of the word term at
    initialisation, where the paper's two terms start alike)."""

    def __init__(self, config):
        super().__init__(config)
        self.head_size = config.hidden_size // config.num_attention_heads
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.position_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(config.hidden_size, config.hidden_size)
        self.cls_to_others = nn.Parameter(torch.zeros(config.num_attention_heads))  # theta_1
        self.others_to_cls = nn.Parameter(torch.zeros(config.num_attention_heads))  # theta_2

    def init_parameters(self, std):
        init.zeros_(self.cls_to_others)
        init.zeros_(self.others_to_cls)

    def positional_logits(self, length: int) -> torch.Tensor:
        """(heads, length, length): (p_i U^Q)(p_j U^K)^T / sqrt(2d), before the [CLS] reset."""
        limit = self.position_embeddings.num_embeddings
        if length > limit:
            raise ValueError(f"{length} tokens exceed the {limit} learned positions (max_position_embeddings)")
        p = self.position_norm(self.position_embeddings.weight[:length])
        q = self.query(p).view(length, self.num_heads, self.head_size).transpose(0, 1)
        k = self.key(p).view(length, self.num_heads, self.head_size).transpose(0, 1)
        return torch.matmul(q, k.transpose(-1, -2)) / (2 * self.head_size) ** 0.5

    def shared_bias(self, length, device, dtype):
        logits = self.positional_logits(length)
        row = torch.arange(length, device=logits.device)[:, None]
        column = torch.arange(length, device=logits.device)[None, :]
        theta_1 = self.cls_to_others[:, None, None].expand_as(logits)
        theta_2 = self.others_to_cls[:, None, None].expand_as(logits)
        logits = torch.where(row == 0, theta_1, torch.where(column == 0, theta_2, logits))
        return logits.to(dtype)


class TupeScores(LayerScores):
    """TUPE scales the word-to-word term by 1/sqrt(2d), not 1/sqrt(d), to balance it with the positional term."""

    def __init__(self, config):
        super().__init__(config)
        self.scale = (2 * self.head_size) ** -0.5


register_built_in("tupe", positions=Tupe, scores=TupeScores)
