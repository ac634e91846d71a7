"""The two places a positional encoding can act, as two small interfaces.

- ModelPositions acts once per forward pass: vectors added to the input embeddings (absolute encodings) and/or
  a bias added to the attention logits of every layer (encodings whose parameters all layers share).
- LayerScores acts inside each layer: it turns that layer's queries and keys into attention logits, so encodings
  with per-layer parameters (Shaw, Huang, TISA) or that transform queries and keys (RoPE) live here.

An encoding is one of each, declared as an `Encoding` and registered in `swapbench.core.registry.ENCODINGS` by the
module that defines it (one file, one registration); the defaults below do nothing positional, which is the
`none` encoding.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

# `init`, used by the encodings' modules: transformers 5's init functions leave alone the weights a checkpoint
# filled; transformers 4 initialises only the modules a checkpoint did not fill, so torch's are right there.
try:
    from transformers import initialization as init  # noqa: F401
except ImportError:
    from torch.nn import init  # noqa: F401

from ...core.registry import ENCODINGS
from ..catalogue import BUILT_IN


class ModelPositions(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_heads = config.num_attention_heads

    def input_embeddings(self, length: int, device: torch.device, dtype: torch.dtype) -> torch.Tensor | None:
        """(length, hidden_size) vectors added to the token embeddings, or None."""
        return None

    def shared_bias(self, length: int, device: torch.device, dtype: torch.dtype) -> torch.Tensor | None:
        """(heads or 1, length, length) added to every layer's attention logits, or None."""
        return None

    def init_parameters(self, std: float) -> None:
        """Initialise the parameters that are not inside an nn.Linear or nn.Embedding (those get BERT's init)."""

    @classmethod
    def check(cls, config) -> None:
        """Raise ValueError for a config this encoding cannot run (called when the config is validated)."""


class LayerScores(nn.Module):
    """Scaled dot-product logits q_i . k_j / sqrt(d), plus the shared bias when there is one."""

    def __init__(self, config):
        super().__init__()
        self.head_size = config.hidden_size // config.num_attention_heads
        self.scale = self.head_size**-0.5

    def forward(self, query: torch.Tensor, key: torch.Tensor, shared_bias: torch.Tensor | None) -> torch.Tensor:
        """query, key: (batch, heads, length, head_size) -> logits (batch, heads, length, length)."""
        logits = torch.matmul(query, key.transpose(-1, -2)) * self.scale
        return logits if shared_bias is None else logits + shared_bias

    def init_parameters(self, std: float) -> None:
        """As ModelPositions.init_parameters."""

    @classmethod
    def check(cls, config) -> None:
        """As ModelPositions.check."""


def relative_positions(length: int, device: torch.device | None = None) -> torch.Tensor:
    """(length, length) matrix of j - i: the key's position minus the query's."""
    positions = torch.arange(length, device=device)
    return positions[None, :] - positions[:, None]


@dataclass(frozen=True)
class Encoding:
    """A zoo encoding as `ENCODINGS` holds it: the method it implements, the family `swapbench eval` reports for
    it, its two parts, and the ZooConfig fields that define it (the evidence of a results file; those other than
    max_position_embeddings are the settings `--encoding-option` may change)."""

    paper: str
    family: str  # as in swapbench.results.schema.PositionalEncodingInfo
    kind: str
    positions: type[ModelPositions] = ModelPositions
    scores: type[LayerScores] = LayerScores
    fields: tuple[str, ...] = ()


ENCODINGS.accepts(Encoding, "instance")  # what its entries must be: core/registry.py checks each


def register(name: str, encoding: Encoding) -> Encoding:
    """Add an encoding to the zoo: `swapbench zoo` lists, trains and scores it from then on."""
    ENCODINGS.add(name, encoding, help=encoding.paper)
    return encoding


def register_built_in(
    name: str, *, positions: type[ModelPositions] = ModelPositions, scores: type[LayerScores] = LayerScores
) -> Encoding:
    """Register a built-in encoding by its declaration in zoo/catalogue.py (which the command line reads without
    torch) and its two parts."""
    paper, family, kind, fields = BUILT_IN[name]
    return register(name, Encoding(paper, family, kind, positions=positions, scores=scores, fields=fields))


register_built_in("none")
