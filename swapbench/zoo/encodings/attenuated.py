"""The attenuated encoding of Chen, Varoquaux & Suchanek."""

from __future__ import annotations

import math

import torch
from torch import nn

from .base import ModelPositions, init, register_built_in, relative_positions


def attenuated_bias(
    length: int, locality: torch.Tensor | float, symmetry: torch.Tensor | float, device=None, dtype=torch.float32
) -> torch.Tensor:
    """(length, length) alpha of equation 8: -s*w*l^2 for i <= j, -w*l^2 for i > j, with l = |i - j|."""
    relative = relative_positions(length, device)  # j - i
    squared = relative.to(dtype) ** 2
    return torch.where(relative >= 0, -symmetry * locality * squared, -locality * squared)


class Attenuated(ModelPositions):
    """The attenuated encoding of Chen, Varoquaux & Suchanek 2023 ("The Locality and Symmetry of Positional
    Encodings", Findings of EMNLP, equation 8): alpha_ij added to every head's logits, with locality w > 0 and
    symmetry s. Fixed at the config's values, or learned from them (attenuated_learnable); a learned w stays
    positive as softplus of a free parameter."""

    def __init__(self, config):
        super().__init__(config)
        self.learnable = config.attenuated_learnable
        self.initial_locality = config.attenuated_locality
        self.initial_symmetry = config.attenuated_symmetry
        if self.learnable:
            self.raw_locality = nn.Parameter(torch.zeros(()))
            self.symmetry_parameter = nn.Parameter(torch.zeros(()))

    def init_parameters(self, std):
        if self.learnable:
            w = self.initial_locality
            init.constant_(self.raw_locality, w + math.log(-math.expm1(-w)))  # softplus^-1(w)
            init.constant_(self.symmetry_parameter, self.initial_symmetry)

    @property
    def locality(self) -> torch.Tensor | float:
        return nn.functional.softplus(self.raw_locality) if self.learnable else self.initial_locality

    @property
    def symmetry(self) -> torch.Tensor | float:
        return self.symmetry_parameter if self.learnable else self.initial_symmetry

    def shared_bias(self, length, device, dtype):
        return attenuated_bias(length, self.locality, self.symmetry, device, torch.float32).to(dtype)[None]


register_built_in("attenuated", positions=Attenuated)
