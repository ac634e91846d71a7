"""Absolute encodings: one vector per position, added to the token embeddings."""

from __future__ import annotations

import torch
from torch import nn

from .base import ModelPositions, register_built_in


class LearnedAbsolute(ModelPositions):
    """Learned absolute position embeddings, as BERT (Devlin et al. 2019, "BERT: Pre-training of Deep
    Bidirectional Transformers for Language Understanding"): a trained vector p_i per position i < max."""

    def __init__(self, config):
        super().__init__(config)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)

    def input_embeddings(self, length, device, dtype):
        limit = self.position_embeddings.num_embeddings
        if length > limit:
            raise ValueError(f"{length} tokens exceed the {limit} learned positions (max_position_embeddings)")
        return self.position_embeddings.weight[:length]


def sinusoidal_table(length: int, dim: int, base: float = 10000.0, device=None) -> torch.Tensor:
    """(length, dim): PE(pos, 2i) = sin(pos / base^(2i/dim)), PE(pos, 2i+1) = cos(pos / base^(2i/dim))."""
    positions = torch.arange(length, dtype=torch.float64, device=device)[:, None]
    frequencies = base ** (-torch.arange(0, dim, 2, dtype=torch.float64, device=device) / dim)
    angles = positions * frequencies[None, :]
    table = torch.empty(length, dim, dtype=torch.float64, device=device)
    table[:, 0::2] = torch.sin(angles)
    table[:, 1::2] = torch.cos(angles)
    return table


class Sinusoidal(ModelPositions):
    """Fixed sinusoidal position encodings of Vaswani et al. 2017 ("Attention Is All You Need", section 3.5);
    no parameters, any length.

    At the paper's scale relative to the word embeddings. The paper multiplies its word embeddings (drawn with
    variance 1/d) by sqrt(d) (section 3.4), so that each word coordinate has variance 1 against the sinusoids'
    mean square 1/2: position/word norm ratio 1/sqrt(2) = 0.71. The zoo's word embeddings are BERT's, drawn with
    standard deviation initializer_range and not rescaled (as for every other encoding), so the table is scaled by
    initializer_range instead, which gives the same ratio. Unscaled, the sinusoids (norm sqrt(d/2), 5.7 at d = 64)
    drowned the words (norm 0.16) 35 to 1."""

    def __init__(self, config):
        super().__init__(config)
        self.hidden_size = config.hidden_size
        self.base = config.sinusoidal_base
        self.scale = config.initializer_range

    def input_embeddings(self, length, device, dtype):
        return (self.scale * sinusoidal_table(length, self.hidden_size, self.base, device)).to(dtype)

    @classmethod
    def check(cls, config):
        if config.hidden_size % 2:
            raise ValueError("sinusoidal embeddings pair sines and cosines: hidden_size must be even")


register_built_in("learned_absolute", positions=LearnedAbsolute)
register_built_in("sinusoidal", positions=Sinusoidal)
