"""What scoring in a dtype other than float32 costs in labels (bfloat16, the default where the device runs it fast:
a CUDA card, a CPU with AMX or AVX512-BF16): a fixed sample of the distinct pairs is scored again by a float32 copy
of the same model, and the share of pairs given the same label is recorded (provenance.scoring.dtype_agreement) and
printed. Under --dtype auto a run whose sample agrees less than THRESHOLD is scored again in float32 (falls_short).

The sample is the same for any run over the same pairs, and a pair's place in it does not depend on which
configurations were scored beside it: the SAMPLE pairs of lowest sha256 (of the premise, a line break and the
hypothesis). The copy is made straight in float32 (the model's own tensors are never cast, nor duplicated in their
dtype) and freed once the sample is scored.

This module imports nothing heavy: scorers import NotMeasured from it.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from collections.abc import Sequence

logger = logging.getLogger(__name__)

SAMPLE = 500
SAMPLE_RULE = (
    f"the {SAMPLE} distinct pairs of lowest sha256 of premise, line break, hypothesis (every pair, when fewer)"
)
REFERENCE = "float32"
# --dtype auto keeps a reduced precision only when at least this share of the sample gets float32's labels. On
# MiniLM over SNLI, bf16 gave 1985 of 2000 (99.25%): a model for which bf16 changes more than one label in a hundred
# is one whose figures would move with the dtype.
THRESHOLD = 0.99


class NotMeasured(Exception):
    """The agreement cannot be measured for this run; the message says why, as the results record it."""


def sample_positions(pairs: Sequence[tuple[str, str]], size: int = SAMPLE) -> list[int]:
    """The positions among `pairs` of the sample, in the pairs' order."""
    keys = [hashlib.sha256(f"{premise}\n{hypothesis}".encode()).digest() for premise, hypothesis in pairs]
    return sorted(sorted(range(len(pairs)), key=keys.__getitem__)[:size])


@contextlib.contextmanager
def float32_copy(model):
    """A copy of `model` whose floating-point weights and buffers are float32 (the others copied as they are), on
    the devices of the model's; NotMeasured when it is spread by a device map or does not fit in memory."""
    import copy

    import torch

    if getattr(model, "hf_device_map", None):
        raise NotMeasured("the model is spread over devices (--device-map), where no float32 copy is made")
    # deepcopy takes what `memo` holds for an object instead of copying it: each tensor of another floating dtype
    # is cast once (tied weights stay tied), and the copy never holds it in its own dtype.
    memo = {}
    on_cpu = all(tensor.device.type == "cpu" for tensor in model.parameters())
    try:
        with torch.no_grad():
            for tensor in [*model.parameters(), *model.buffers()]:
                if id(tensor) in memo or not tensor.is_floating_point() or tensor.dtype == torch.float32:
                    continue
                cast = tensor.detach().float()
                memo[id(tensor)] = (
                    torch.nn.Parameter(cast, requires_grad=tensor.requires_grad)
                    if isinstance(tensor, torch.nn.Parameter)
                    else cast
                )
            reference = copy.deepcopy(model, memo)
    except Exception as err:
        if out_of_memory(err):
            raise NotMeasured(f"a float32 copy of the model does not fit in memory beside it ({err})") from None
        raise
    del memo
    try:
        yield reference
    finally:
        del reference
        if not on_cpu:
            from accelerate.utils.memory import clear_device_cache

            clear_device_cache(garbage_collection=True)


def out_of_memory(err: BaseException) -> bool:
    """Whether `err`, or what caused it (scoring.in_batches' error at a batch of one), is running out of memory."""
    from accelerate.utils.memory import should_reduce_batch_size

    return any(isinstance(e, Exception) and should_reduce_batch_size(e) for e in (err, err.__cause__))


def dtype_agreement(scorer, run, prepared, pairs: Sequence[tuple[str, str]], predictions):
    """The DtypeAgreement of a run in a dtype other than float32, said in one line (logged); None in
    float32. `predictions` are the run's, one per pair of `pairs`; the float32 ones come from
    scorer.reference_predictions."""
    import numpy as np
    import torch

    from ..results.schema import DtypeAgreement

    if run.dtype == torch.float32:
        return None
    dtype = str(run.dtype).removeprefix("torch.")
    positions = sample_positions(pairs)
    try:
        reference = scorer.reference_predictions(run, prepared, [pairs[i] for i in positions])
    except NotMeasured as err:
        why = str(err)
    except Exception as err:
        if not out_of_memory(err):
            raise
        why = f"the float32 copy of the model ran out of memory ({err})"
    else:
        why = None
    if why is not None:
        logger.info(f"{dtype} not compared with {REFERENCE}: {why}")
        return DtypeAgreement(
            dtype=dtype, sample=SAMPLE_RULE, pairs=None, agreeing=None, fraction=None, not_measured=why
        )
    ours = np.asarray(predictions)[positions]
    agreeing = int((ours == np.asarray(reference)).sum())
    fraction = agreeing / len(positions) if positions else 1.0
    logger.info(
        f"{dtype} against {REFERENCE}: {agreeing:,} of {len(positions):,} sampled distinct pairs get "
        f"the same label ({fraction:.1%})"
    )
    return DtypeAgreement(dtype=dtype, sample=SAMPLE_RULE, pairs=len(positions), agreeing=agreeing, fraction=fraction)


def falls_short(agreement) -> bool:
    """Whether `agreement` (dtype_agreement's, None in float32) was measured and is below THRESHOLD: under --dtype
    auto the pairs are then scored in float32 instead. One that could not be measured keeps its dtype (a model
    spread over devices, or one whose float32 copy does not fit, could rarely be scored in float32 at all)."""
    return agreement is not None and agreement.fraction is not None and agreement.fraction < THRESHOLD
