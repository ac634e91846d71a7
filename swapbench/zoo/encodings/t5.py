"""T5's bucketed relative position bias."""

from __future__ import annotations

import math

import torch
from torch import nn

from .base import ModelPositions, init, register_built_in, relative_positions


def t5_bucket(relative_position: torch.Tensor, num_buckets: int = 32, max_distance: int = 128) -> torch.Tensor:
    """The bidirectional bucket of each relative position j - i (Raffel et al. 2020, section 2.1; the released
    T5 code): half the buckets for keys after the query, half for keys before; within each half, distances
    below num_buckets/4 get a bucket each, larger ones share logarithmically wider buckets up to
    max_distance, and everything beyond falls in the last bucket."""
    half = num_buckets // 2
    buckets = (relative_position > 0).long() * half
    distance = relative_position.abs()
    exact = half // 2
    # clamp(min=1) only keeps log() finite for the small distances, which take the exact branch anyway
    logarithmic = (
        exact
        + (torch.log(distance.clamp(min=1).float() / exact) / math.log(max_distance / exact) * (half - exact)).long()
    )
    logarithmic = logarithmic.clamp(max=half - 1)
    return buckets + torch.where(distance < exact, distance, logarithmic)


class T5Bias(ModelPositions):
    """Relative position bias of Raffel et al. 2020 ("Exploring the Limits of Transfer Learning with a Unified
    Text-to-Text Transformer"): a learned scalar per (bucket, head) added to the logits; as in T5, one table
    shared by all layers.

    Initialised at T5's ratio to the content logits. T5 draws the bias with standard deviation d_model^-1/2
    against content logits of standard deviation about 1 (its initialisation folds 1/sqrt(d) into the query);
    the zoo's BERT initialisation gives content logits of standard deviation about initializer_range^2 * d_model,
    so the bias is drawn with initializer_range^2 * sqrt(d_model), the same ratio d_model^-1/2 (BERT's plain
    initializer_range made it 0.8)."""

    def __init__(self, config):
        super().__init__(config)
        self.num_buckets = config.t5_num_buckets
        self.max_distance = config.t5_max_distance
        # A parameter, not an nn.Embedding, so that BERT's embedding initialisation does not overwrite its own.
        self.bias = nn.Parameter(torch.zeros(config.t5_num_buckets, config.num_attention_heads))
        self.hidden_size = config.hidden_size

    def init_parameters(self, std):
        init.normal_(self.bias, mean=0.0, std=std**2 * self.hidden_size**0.5)

    def shared_bias(self, length, device, dtype):
        buckets = t5_bucket(relative_positions(length, device), self.num_buckets, self.max_distance)
        return self.bias[buckets].permute(2, 0, 1).to(dtype)  # (heads, length, length)


register_built_in("t5_bias", positions=T5Bias)
