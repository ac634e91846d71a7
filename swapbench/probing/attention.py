"""Running a model's encoder on sequences and averaging its attention weights per layer."""

from __future__ import annotations

import contextlib

import numpy as np
from rich.console import Console

from ..core.compat import switches_attention
from ..core.progress import progress_bar
from ..models.loading import input_device
from .errors import ProbeError


def encoder_of(model):
    """The part of the model that attends over the input: the encoder of an encoder-decoder, else the base model."""
    if getattr(model.config, "is_encoder_decoder", False):
        return model.get_encoder()
    return getattr(model, "base_model", model)


@contextlib.contextmanager
def eager_attention(model):
    """Switch the model to eager attention (the only kind that returns its weights) and back afterwards."""
    before = getattr(model.config, "_attn_implementation", None)
    if before in (None, "eager") or not switches_attention(model):
        yield
        return
    try:
        model.set_attn_implementation("eager")
    except Exception as err:  # each architecture words its refusal differently
        raise ProbeError(
            f"cannot switch {type(model).__name__} to eager attention ({err}); load it with attn_implementation='eager'"
        ) from err
    try:
        yield
    finally:
        model.set_attn_implementation(before)


@contextlib.contextmanager
def evaluation_mode(model):
    """Dropout off while probing; the model's training flag is restored afterwards."""
    was_training = model.training
    model.eval()
    try:
        yield
    finally:
        model.train(was_training)


def layer_attention(model, sequences: list[list[int]], *, batch_size: int = 8, progress: bool = True) -> np.ndarray:
    """Attention weights averaged over heads and sequences, one n x n matrix per layer: shape (layers, n, n).

    All sequences must have the same length n, so they are batched without padding or attention mask.
    """
    import torch  # here, not at the top, so that `swapbench --help` does not wait for torch

    if not sequences:
        raise ProbeError("no sequences to probe")
    lengths = {len(s) for s in sequences}
    if len(lengths) != 1:
        raise ProbeError(f"the probe sequences differ in length: {sorted(lengths)}")
    encoder = encoder_of(model)
    device = input_device(model)
    totals = None
    # The bar on stderr: stdout holds the results table (`swapbench eval`) and the probe's figures.
    bar = progress_bar(enabled=progress, console=Console(stderr=True), lines=True)
    with eager_attention(model), evaluation_mode(model), torch.inference_mode(), bar:
        task = bar.add_task("probing attention", total=len(sequences), unit="sequences")
        for start in range(0, len(sequences), batch_size):
            batch = torch.tensor(sequences[start : start + batch_size], dtype=torch.long, device=device)
            try:
                outputs = encoder(input_ids=batch, output_attentions=True)
            except TypeError as err:
                if "output_attentions" not in str(err):
                    raise ProbeError(
                        f"{type(model).__name__} failed on {batch.shape[0]} sequences of {batch.shape[1]} tokens: {err}"
                    ) from err
                # transformers 4's attention-free models (Mamba) refuse the argument; 5's return no weights
                raise ProbeError(
                    f"{type(model).__name__} returns no attention weights (it takes no "
                    "output_attentions); the probe needs a model that can output them"
                ) from err
            except (IndexError, RuntimeError, ValueError) as err:
                raise ProbeError(
                    f"{type(model).__name__} failed on {batch.shape[0]} sequences of {batch.shape[1]} tokens: {err}"
                ) from err
            attentions = getattr(outputs, "attentions", None)
            if not attentions or any(a is None for a in attentions):
                raise ProbeError(
                    f"{type(model).__name__} returns no attention weights "
                    f"(attention implementation: {getattr(model.config, '_attn_implementation', None)}); "
                    "the probe needs a model that can output them"
                )
            # Per layer: mean over heads (layers may have different head counts), summed over the batch.
            summed = torch.stack([as_float64(a).mean(dim=1).sum(dim=0) for a in attentions]).cpu().numpy()
            totals = summed if totals is None else totals + summed
            bar.advance(task, batch.shape[0])
    return totals / len(sequences)


def as_float64(attention):
    """Attention weights (a torch tensor) in float64. Weights a half-precision model computed (bfloat16, float16) are
    divided by their row sums: a softmax rounded to 8 bits of mantissa sums to 1 only within about 1% (SmolLM2's rows
    in bfloat16 reached 1.0014), and what the probe measures is each row's distribution, not that rounding."""
    import torch

    weights = attention.to(torch.float64)
    if attention.dtype in (torch.bfloat16, torch.float16):
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights
