"""Loading the model to score: a Hub id or a local folder, on the chosen device, with its labels mapped.

A sequence-classification model is used as is; any other model (a base model such as roberta-base) has to be
fine-tuned first (finetune.py), which `is_classifier` tells the command.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import torch

from ..errors import SwapbenchError
from ..hub_access import cache_only, check_model, load_failure
from ..options import device_problem
from ..zoo import register_auto_classes
from .labels import LabelMap, from_config, from_option


@dataclass
class LoadedModel:
    model: torch.nn.Module
    tokenizer: object
    config: object
    labels: LabelMap
    device: torch.device
    dtype: torch.dtype


def load_config(name_or_path: str, revision: str | None = None):
    """The model's config; from the local cache alone when the Hub cannot be reached."""
    from transformers import AutoConfig

    register_auto_classes()  # so that zoo checkpoints load too
    check_model(name_or_path, revision)
    try:
        return AutoConfig.from_pretrained(name_or_path, revision=revision, local_files_only=cache_only(name_or_path))
    except (OSError, ValueError) as err:
        raise SwapbenchError(load_failure(name_or_path, err)) from err


def is_classifier(config) -> bool:
    return any(a.endswith("ForSequenceClassification") for a in (config.architectures or []))


def model_revision(name_or_path: str, config) -> str | None:
    """The Hub commit the files came from, or for a local folder sha256 of its files (names and contents)."""
    folder = Path(name_or_path)
    if folder.is_dir():
        return folder_fingerprint(folder)
    return getattr(config, "_commit_hash", None)


def folder_fingerprint(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return "sha256:" + digest.hexdigest()


def choose_device(requested: str | None) -> torch.device:
    if requested and requested != "auto":
        problem = device_problem(requested)
        if problem:
            raise SwapbenchError(f"--device {problem}")
        return torch.device(requested)
    if torch.cuda.is_available():
        return torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def choose_dtype(device: torch.device, requested: str | None = None) -> torch.dtype:
    """bf16 on GPUs that support it, else fp16 on GPUs; float32 on CPU."""
    if requested and requested != "auto":
        return DTYPES[requested]
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if device.type == "mps":
        return torch.float16
    return torch.float32


def map_labels(config, label_map: str | None) -> LabelMap:
    if label_map:
        return from_option(label_map, config.id2label, config.num_labels)
    return from_config(config.id2label)


def load_classifier(name_or_path: str, config, labels: LabelMap, *, revision: str | None = None,
                    device: torch.device, dtype: torch.dtype) -> LoadedModel:
    """Load a sequence-classification model and its tokenizer; `config` is load_config's, `labels` mapped from it
    beforehand, so that a refusal costs no weight loading."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    local = cache_only(name_or_path)
    tokenizer = AutoTokenizer.from_pretrained(name_or_path, revision=revision, local_files_only=local)
    model = AutoModelForSequenceClassification.from_pretrained(name_or_path, revision=revision, dtype=dtype,
                                                               local_files_only=local)
    model.to(device).eval()
    return LoadedModel(model=model, tokenizer=tokenizer, config=config, labels=labels, device=device, dtype=dtype)
