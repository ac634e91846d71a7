"""Errors of the positional-attention probe."""

from __future__ import annotations

from ..core.errors import SwapbenchError


class ProbeError(SwapbenchError):
    """The probe cannot run on this model or tokenizer, or was asked for something it cannot do."""


class MatrixError(SwapbenchError, ValueError):
    """A matrix handed to a metric is not a square, row-stochastic matrix."""
