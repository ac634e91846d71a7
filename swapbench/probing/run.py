"""Identical-word probing: feed a model sequences of one repeated word and measure its positional attention.

Repeating one word makes every position carry the same content, so what the attention weights still tell
apart is position alone.
"""

from __future__ import annotations

import time

from ..core.version import __version__
from .attention import encoder_of, layer_attention
from .errors import ProbeError
from .metrics import (
    CAUSAL_NOTE,
    FLAT_SPREAD,
    decay_ratio,
    degree_symmetry,
    degree_symmetry_note,
    is_causal,
    left_decay,
    locality,
    relative_locality,
    spread,
    symmetry,
)
from .options import MIN_LENGTH
from .result import LayerMetrics, PackedArray, ProbeResult
from .vocabulary import Word, sample_words


def special_token_frame(tokenizer, word: Word) -> tuple[list[int], list[int]]:
    """The ids the tokenizer puts before and after a text when it adds its special tokens."""
    plain = tokenizer(word.text, add_special_tokens=False)["input_ids"]
    framed = tokenizer(word.text, add_special_tokens=True)["input_ids"]
    for start in range(len(framed) - len(plain) + 1):
        if framed[start : start + len(plain)] == plain:
            return framed[:start], framed[start + len(plain) :]
    raise ProbeError(f"cannot find where {type(tokenizer).__name__} puts its special tokens around {word.text!r}")


def check_length(model, n: int) -> None:
    limit = getattr(encoder_of(model).config, "max_position_embeddings", None)
    if isinstance(limit, int) and n > limit:
        raise ProbeError(f"probe sequences of {n} tokens exceed the model's {limit} positions; use a smaller --length")


# The default framing: the copies alone, no [CLS]/[SEP]. Identical-word probing wants every position to hold the
# same content, so that the attention can tell positions apart only by their encoding; special tokens are other
# content, which attention also sinks into, and they change the figures (a briefly trained zoo TUPE: symmetry
# 0.747 bare, 0.895 framed). The authors' released code (tigerchen52/locality_symmetry) has the metrics but not
# the probe, so their framing cannot be read from it. Rows probed otherwise are not compared on the board.
ADD_SPECIAL_TOKENS = False


def flat_warning(spread_value: float) -> str:
    return (
        f"the attention is nearly flat (spread {spread_value:.3f} < {FLAT_SPREAD} of the uniform weight): "
        "the paper's symmetry measures noise, not a positional preference, and degree symmetry is undefined"
    )


def probe_model(
    model,
    tokenizer,
    *,
    n_words: int = 100,
    length: int = 128,
    seed: int = 0,
    add_special_tokens: bool = ADD_SPECIAL_TOKENS,
    progress: bool = True,
    batch_size: int = 8,
) -> ProbeResult:
    """Locality and symmetry of a loaded transformers model's positional attention: the paper's two figures and
    swapbench's relative_locality and degree_symmetry (metrics), for the average and for each layer.

    Under a causal mask (a decoder: no weight at all right of the diagonal) locality is computed as defined, on
    the rows as they are, and symmetry is None with the reason in `symmetry_note`; relative_locality then measures
    against uniform attention under the causal mask. degree_symmetry is None under a causal mask and for flat
    attention, with the reason in `degree_symmetry_note`. Every model also gets `left_decay`, a swapbench extension
    (metrics.left_decay).

    Draws `n_words` words from the vocabulary with `seed`, feeds each as `length` copies (framed by the
    tokenizer's special tokens if `add_special_tokens`), and averages the attention weights over heads,
    words and layers. The model is best loaded with attn_implementation="eager"; others are switched to
    eager attention for the probe and back.
    """
    if n_words < 1:
        raise ProbeError(f"the probe needs at least 1 word, got {n_words}")
    if length < MIN_LENGTH:
        raise ProbeError(f"the probe needs sequences of at least {MIN_LENGTH} copies to measure symmetry, got {length}")
    if batch_size < 1:
        raise ProbeError(f"batch size must be at least 1, got {batch_size}")
    began = time.perf_counter()
    convention, words = sample_words(tokenizer, n_words, seed)
    prefix, suffix = special_token_frame(tokenizer, words[0]) if add_special_tokens else ([], [])
    sequences = [prefix + [word.token_id] * length + suffix for word in words]
    check_length(model, len(sequences[0]))

    # Measured on the matrices as probe.json stores them, so that the file reproduces every figure exactly.
    packed_layers = PackedArray.of(layer_attention(model, sequences, batch_size=batch_size, progress=progress))
    layers = packed_layers.array()
    packed_average = PackedArray.of(layers.mean(axis=0))
    average = packed_average.array()
    average_spread = spread(average)
    # A decoder's causal mask leaves every row's right-hand side empty: symmetry is undefined there, not a number.
    causal = is_causal(average)
    measure_symmetry = (lambda m: None) if causal else symmetry
    return ProbeResult(
        model=getattr(model.config, "name_or_path", None) or None,
        revision=getattr(model.config, "_commit_hash", None),
        locality=locality(average),
        symmetry=measure_symmetry(average),
        symmetry_note=CAUSAL_NOTE if causal else None,
        relative_locality=relative_locality(average, causal=causal),
        degree_symmetry=degree_symmetry(average),
        degree_symmetry_note=degree_symmetry_note(average),
        causal=causal,
        left_decay=left_decay(average),
        decay_ratio=decay_ratio(average),
        spread=average_spread,
        flat=average_spread < FLAT_SPREAD,
        per_layer=[
            LayerMetrics(
                layer=k + 1,
                locality=locality(m),
                symmetry=measure_symmetry(m),
                relative_locality=relative_locality(m, causal=causal),
                degree_symmetry=degree_symmetry(m),
                spread=spread(m),
                left_decay=left_decay(m),
                decay_ratio=decay_ratio(m),
            )
            for k, m in enumerate(layers)
        ],
        positions=average.shape[0],
        length=length,
        n_words=len(words),
        add_special_tokens=add_special_tokens,
        seed=seed,
        word_start=convention,
        words=[w.text for w in words],
        token_ids=[w.token_id for w in words],
        seconds=round(time.perf_counter() - began, 3),
        swapbench_version=__version__,
        matrix=packed_average,
        layer_matrices=packed_layers,
    )
