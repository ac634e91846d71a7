"""What the probe finds: the JSON schema of probe.json, plus the matrices kept in memory for plotting."""

from __future__ import annotations

import base64

import numpy as np
from pydantic import BaseModel, Field

from ..results.schema import GGUFWeights
from .metrics import FLAT_SPREAD


class LayerMetrics(BaseModel):
    layer: int = Field(description="1-based layer number, the layer nearest the embeddings first")
    locality: float = Field(ge=0, le=1, description="the paper's locality of the layer's averaged weights")
    symmetry: float | None = Field(ge=0, le=1, description="the paper's symmetry; null under a causal mask")
    relative_locality: float | None = Field(
        None,
        le=1,
        description="swapbench figure: metrics.relative_locality "
        "of the layer; null in files written before it was recorded",
    )
    degree_symmetry: float | None = Field(
        None,
        ge=0,
        le=1,
        description="swapbench figure: "
        "metrics.degree_symmetry of the layer; null under a causal mask or for a "
        "flat layer",
    )
    spread: float = Field(ge=0, description="(max - min) of the layer's averaged weights, in units of 1/positions")
    left_decay: float | None = Field(None, ge=0, description="swapbench extension: metrics.left_decay of the layer")
    decay_ratio: float | None = Field(
        None,
        gt=0,
        description="swapbench figure: metrics.decay_ratio of the layer; "
        "null under a causal mask, for a flat layer and in files written before it",
    )


class PackedArray(BaseModel):
    """A float32 array as base64 of its little-endian bytes: a 128 x 128 matrix in 87 kB of JSON, exact."""

    shape: list[int]
    dtype: str = "<f4"
    base64: str

    @classmethod
    def of(cls, array: np.ndarray) -> PackedArray:
        array = np.ascontiguousarray(array, dtype=cls.model_fields["dtype"].default)
        return cls(shape=list(array.shape), base64=base64.b64encode(array.tobytes()).decode("ascii"))

    def array(self) -> np.ndarray:
        return np.frombuffer(base64.b64decode(self.base64), dtype=self.dtype).reshape(self.shape).astype(np.float64)


class ProbeResult(BaseModel):
    model: str | None = Field(None, description="the model's name or path")
    revision: str | None = Field(
        None, description="Hub commit, or sha256 of a local folder's weights (of a GGUF file alone)"
    )
    gguf: GGUFWeights | None = Field(
        None,
        description="the GGUF file the weights were read from, its quantization "
        "and the dtype it was dequantized to; null for any other "
        "checkpoint",
    )
    locality: float = Field(
        ge=0, le=1, description="the paper's locality of the matrix averaged over layers, heads and words"
    )
    symmetry: float | None = Field(
        ge=0,
        le=1,
        description="the paper's symmetry of the same averaged matrix; null "
        "under a causal mask, where it is undefined "
        "(symmetry_note)",
    )
    symmetry_note: str | None = Field(None, description="why symmetry is null, when it is")
    relative_locality: float | None = Field(
        None,
        le=1,
        description="swapbench figure, not the paper's: locality "
        "relative to uniform attention under the same mask, 0 for no positional "
        "preference, 1 for the diagonal alone (metrics.relative_locality)",
    )
    degree_symmetry: float | None = Field(
        None,
        ge=0,
        le=1,
        description="swapbench figure, not the paper's: 1 minus "
        "the total-variation distance between the attention beside the diagonal "
        "and its mirror image (metrics.degree_symmetry); null under a causal "
        "mask or for flat attention (degree_symmetry_note)",
    )
    degree_symmetry_note: str | None = Field(None, description="why degree_symmetry is null, when it is")
    causal: bool = Field(False, description="true when no position attends to its right (a decoder's causal mask)")
    left_decay: float | None = Field(
        None,
        ge=0,
        description="swapbench extension, not the paper's metric: the "
        "attenuated encoding's w fitted to the attention on and left of the diagonal "
        "(swapbench.probing.metrics.left_decay)",
    )
    decay_ratio: float | None = Field(
        None,
        gt=0,
        description="swapbench figure, not the paper's: the attenuated "
        "encoding's s fitted with its w, the decay to the right over the decay to the "
        "left (metrics.decay_ratio), 1 for symmetric decay; unlike both symmetries "
        "it does not move with locality. Null where degree_symmetry is, and in files "
        "written before it",
    )
    per_layer: list[LayerMetrics]
    spread: float = Field(
        ge=0,
        description="(max - min) of the averaged weights, in units of the uniform weight "
        "1/positions: how far the attention is from flat",
    )
    flat: bool = Field(
        description=f"spread under {FLAT_SPREAD}: the attention is nearly uniform, and symmetry "
        "(which min-max normalises each row's gaps) measures noise"
    )
    positions: int = Field(
        description="positions in each probe sequence and matrix: the copies of the word plus any special tokens"
    )
    length: int = Field(description="copies of the word in each probe sequence")
    n_words: int = Field(description="words probed, one sequence each")
    add_special_tokens: bool = Field(
        description="framing: true when each sequence was framed by the tokenizer's "
        "special tokens ([CLS] ... [SEP]), false for the copies alone"
    )
    seed: int
    word_start: str = Field(description="how the vocabulary marks word starts: wordpiece, sentencepiece, byte-level")
    words: list[str]
    token_ids: list[int]
    seconds: float = Field(description="wall time of the probe")
    swapbench_version: str
    matrix: PackedArray = Field(
        repr=False,
        description="the positions x positions attention averaged over layers, "
        "heads and words: every figure is recomputed from it",
    )
    layer_matrices: PackedArray = Field(
        repr=False, description="the per-layer averages, (layers, positions, positions)"
    )

    def matrix_array(self) -> np.ndarray:
        """The attention matrix averaged over layers, heads and words."""
        return self.matrix.array()

    def layer_arrays(self) -> np.ndarray:
        """The per-layer averages, shape (layers, positions, positions)."""
        return self.layer_matrices.array()
