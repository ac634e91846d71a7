"""Every positional encoding of the zoo as a (ModelPositions, LayerScores) pair (see base.py for the split), each
registered in `swapbench.core.registry.ENCODINGS` by its own module; importing this package registers the built-in ones,
in the order the zoo lists them."""

from __future__ import annotations

from ...core.registry import ENCODINGS

# isort: off
from . import absolute, rope, alibi, t5, relative, tisa, tupe, attenuated  # noqa: F401  (registration, in order)

# isort: on
from .base import Encoding, LayerScores, ModelPositions, register


def encoding_of(config) -> Encoding:
    return ENCODINGS.get(config.position_encoding)


def model_positions(config) -> ModelPositions:
    return encoding_of(config).positions(config)


def layer_scores(config) -> LayerScores:
    return encoding_of(config).scores(config)


__all__ = [
    "ENCODINGS",
    "Encoding",
    "LayerScores",
    "ModelPositions",
    "encoding_of",
    "layer_scores",
    "model_positions",
    "register",
]
