"""What differs between the transformers versions swapbench runs on (4.45 to 5.x), in one place: each function
gives the keywords or objects the installed version wants."""

from __future__ import annotations

import re
from importlib.metadata import version

TRANSFORMERS = tuple(int(part) for part in re.findall(r"\d+", version("transformers"))[:2])  # (major, minor)
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
