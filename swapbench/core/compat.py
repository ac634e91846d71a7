"""What differs between the transformers versions swapbench runs on (4.45 to 5.x), in one place: each function
gives the keywords or objects the installed version wants."""

from __future__ import annotations

import re
from importlib.metadata import version

TRANSFORMERS_VERSION = version("transformers")
TRANSFORMERS = tuple(int(part) for part in re.findall(r"\d+", TRANSFORMERS_VERSION)[:2])  # (major, minor)
TRANSFORMERS_MAJOR = TRANSFORMERS[0]


def dtype_argument(dtype) -> dict:
    """from_pretrained's keyword for the weights' dtype: `dtype` since 4.56, `torch_dtype` before."""
    return {"dtype": dtype} if TRANSFORMERS >= (4, 56) else {"torch_dtype": dtype}


def trainer_tokenizer_argument(tokenizer) -> dict:
    """The Trainer's keyword for the tokenizer it saves with its checkpoints: `processing_class` since 4.46,
    `tokenizer` before."""
    return {"processing_class": tokenizer} if TRANSFORMERS >= (4, 46) else {"tokenizer": tokenizer}


def warmup_arguments(ratio: float) -> dict:
    """TrainingArguments keywords for a warm-up over `ratio` of the training steps: transformers 5 reads a
    `warmup_steps` below 1 as a ratio and has no `warmup_ratio`; transformers 4 reads `warmup_steps` as a count of
    steps and takes the ratio as `warmup_ratio`."""
    return {"warmup_steps": ratio} if TRANSFORMERS_MAJOR >= 5 else {"warmup_ratio": ratio}


def switches_attention(model) -> bool:
    """Whether a model made can switch its attention implementation (set_attn_implementation). 4.45 cannot, and
    needs not for the attention weights: its SDPA attention falls back to eager attention when asked for them."""
    return hasattr(model, "set_attn_implementation")


def takes_cache_as(model) -> str:
    """forward's keyword for a key-value cache: `cache` in the transformers 5 releases that renamed it (where
    `past_key_values` warns that it goes in 5.40), `past_key_values` before. Read from the signature, which
    follows the model's own forward, not from the version."""
    import inspect

    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def returned_cache(output):
    """The key-value cache a forward returned: `cache` where the model takes it so, `past_key_values` before
    (reading that name where it was renamed logs a deprecation)."""
    return output["cache"] if "cache" in output else output.past_key_values


def reorder_cache(model, cache, index):
    """`model`'s key-value cache with its batch rows taken in the order `index` (rows may repeat), in the form the
    model takes back. Older 4.x releases (4.45) return the legacy tuples, (key, value) per layer with the batch
    first; of those models, the ones that take a Cache object (`_supports_cache_class`) read tuples only when
    use_cache is on, so they get a DynamicCache back, and GPT-2 reads nothing but tuples."""
    if isinstance(cache, tuple) and getattr(model, "_supports_cache_class", False):
        from transformers import DynamicCache

        cache = DynamicCache.from_legacy_cache(cache)
    if isinstance(cache, tuple):
        return tuple(tuple(tensor.index_select(0, index.to(tensor.device)) for tensor in layer) for layer in cache)
    cache.reorder_cache(index)
    return cache


def rng_states_loadable():
    """A context in which the Trainer reads back the RNG states it saved (resuming a training): transformers
    before 4.48 reads them with torch.load's default, which refuses numpy's state since torch 2.6; the numpy
    objects that state holds are allowed (as transformers 5 allows them itself)."""
    import numpy as np
    import torch

    core = np._core if hasattr(np, "_core") else np.core
    return torch.serialization.safe_globals(
        [core.multiarray._reconstruct, np.ndarray, np.dtype, type(np.dtype(np.uint32))]
    )
