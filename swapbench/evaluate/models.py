"""Loading the model to score: a Hub id or a local folder, on the chosen device, with its labels mapped.

A sequence-classification model is used as is; any other model (a base model such as roberta-base) has to be
fine-tuned first (finetune.py), which `is_classifier` tells the command.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

import torch

from ..errors import SwapbenchError
from ..hub_access import cache_only, check_model, is_hub_id, load_failure
from ..options import device_problem
from ..zoo import register_auto_classes
from .labels import LabelMap, LabelMapError, from_config, from_option
from .positional import unimplemented_positional_encoding
from .schema import LoadedWeights


@dataclass
class LoadedModel:
    model: torch.nn.Module
    tokenizer: object
    config: object
    labels: LabelMap
    device: torch.device
    dtype: torch.dtype
    weights: LoadedWeights | None = None  # what did not load, when --allow-missing let it be scored


def load_config(name_or_path: str, revision: str | None = None, trust_remote_code: bool = False):
    """The model's config; from the local cache alone when the Hub cannot be reached."""
    from transformers import AutoConfig

    register_auto_classes()  # so that zoo checkpoints load too
    check_model(name_or_path, revision)
    try:
        return AutoConfig.from_pretrained(name_or_path, revision=revision, trust_remote_code=trust_remote_code,
                                          local_files_only=cache_only(name_or_path))
    except (OSError, ValueError) as err:
        raise SwapbenchError(load_failure(name_or_path, err)) from err


def check_positional_support(name_or_path: str, config, trust_remote_code: bool) -> None:
    """Refuse a config whose positional encoding the code that would load it does not implement."""
    ships_code = bool(getattr(config, "auto_map", None))
    if trust_remote_code and ships_code:
        return  # the model's own code runs it
    reason = unimplemented_positional_encoding(config)
    if reason:
        hint = ("the model ships its own code (auto_map): --trust-remote-code loads it" if ships_code else
                "a model that needs its own code (JinaBERT's and MosaicBERT's ALiBi, for instance) has to ship it "
                "(auto_map in config.json) and be loaded with --trust-remote-code")
        raise SwapbenchError(f"{name_or_path}: {reason}; refused, since its scores would not be the model's: {hint}")


def weight_problems(name_or_path: str, loading_info: dict, *, may_be_new=lambda key: False) -> LoadedWeights | None:
    """What did not load whole, from from_pretrained's loading info; keys for which `may_be_new` holds (a new
    classification head) are left out. None when everything loaded."""
    missing = sorted(k for k in loading_info.get("missing_keys", ()) if not may_be_new(k))
    unexpected = sorted(loading_info.get("unexpected_keys", ()))
    mismatched = sorted(k[0] if isinstance(k, tuple) else k for k in loading_info.get("mismatched_keys", ())
                        if not may_be_new(k[0] if isinstance(k, tuple) else k))
    if not (missing or unexpected or mismatched):
        return None
    return LoadedWeights(missing=missing, unexpected=unexpected, mismatched=mismatched, allowed=False)


def describe_weights(weights: LoadedWeights) -> str:
    parts = [f"{len(keys)} {what} ({', '.join(keys[:5])}{', ...' if len(keys) > 5 else ''})"
             for what, keys in (("missing from the checkpoint, newly initialised", weights.missing),
                                ("in the checkpoint but unused", weights.unexpected),
                                ("of another shape, newly initialised", weights.mismatched)) if keys]
    return "; ".join(parts)


def check_weights(name_or_path: str, weights: LoadedWeights | None, allow_missing: bool) -> LoadedWeights | None:
    """Refuse a checkpoint that did not load whole unless --allow-missing, which records it instead."""
    if weights is None:
        return None
    if not allow_missing:
        raise SwapbenchError(f"{name_or_path} does not load whole: {describe_weights(weights)}. Its scores would "
                             "not be the published model's; --allow-missing scores it all the same and records this")
    return weights.model_copy(update={"allowed": True})


def is_classifier(config) -> bool:
    return any(a.endswith("ForSequenceClassification") for a in (config.architectures or []))


def model_revision(name_or_path: str, config, revision: str | None = None) -> str | None:
    """The Hub commit the files came from, or for a local folder sha256 of its files (names and contents)."""
    folder = Path(name_or_path)
    if folder.is_dir():
        return folder_fingerprint(folder)
    # transformers 4 records the commit on the config; transformers 5 leaves _commit_hash None.
    return getattr(config, "_commit_hash", None) or hub_commit(name_or_path, revision)


COMMIT = re.compile(r"[0-9a-f]{40}")


def hub_commit(name: str, revision: str | None = None) -> str | None:
    """The commit of a Hub model at `revision` (a branch, tag or commit): the snapshot folder huggingface_hub
    keeps its config.json in, resolved through the local cache, or the Hub when it can be reached. None when
    neither has it."""
    from huggingface_hub import hf_hub_download

    if not is_hub_id(name):
        return None
    try:
        path = Path(hf_hub_download(name, "config.json", revision=revision, local_files_only=cache_only(name)))
    except (OSError, ValueError):  # not in the cache, not on the Hub, not a repo id: load_config says why
        return None
    return path.parent.name if COMMIT.fullmatch(path.parent.name) else None


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


def map_labels(config, label_map: str | None, force: bool = False) -> LabelMap:
    """The model's outputs as NLI labels: from --label-map, else from config.id2label. A --label-map that would
    override labels the model names itself, differently, is refused unless `force`."""
    if not label_map:
        return from_config(config.id2label)
    mapped = from_option(label_map, config.id2label, config.num_labels)
    try:
        own = from_config(config.id2label).names
    except LabelMapError:
        return mapped  # the model's names do not tell: --label-map is what they need
    if own != mapped.names and not force:
        outputs = lambda names: ", ".join(f"{i}={name}" for i, name in enumerate(names))  # noqa: E731
        raise SwapbenchError(f"--label-map ({outputs(mapped.names)}) overrides the labels the model names itself in "
                             f"config.id2label ({outputs(own)}); without --label-map its own names are used. Add "
                             "--force to score it with your mapping all the same (the results record "
                             "label_map_source: --label-map)")
    return mapped


def load_classifier(name_or_path: str, config, labels: LabelMap, *, revision: str | None = None,
                    device: torch.device, dtype: torch.dtype, trust_remote_code: bool = False,
                    allow_missing: bool = False) -> LoadedModel:
    """Load a sequence-classification model and its tokenizer; `config` is load_config's, `labels` mapped from it
    beforehand, so that a refusal costs no weight loading. Every weight must load and be used, unless
    `allow_missing`."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    check_positional_support(name_or_path, config, trust_remote_code)
    local = cache_only(name_or_path)
    tokenizer = AutoTokenizer.from_pretrained(name_or_path, revision=revision, trust_remote_code=trust_remote_code,
                                              local_files_only=local)
    model, info = AutoModelForSequenceClassification.from_pretrained(
        name_or_path, revision=revision, dtype=dtype, trust_remote_code=trust_remote_code, output_loading_info=True,
        local_files_only=local)
    weights = check_weights(name_or_path, weight_problems(name_or_path, info), allow_missing)
    model.to(device).eval()
    return LoadedModel(model=model, tokenizer=tokenizer, config=config, labels=labels, device=device, dtype=dtype,
                       weights=weights)


def is_head(model, key: str) -> bool:
    """Whether a weight belongs to the task head, outside the base model (bert., roberta., ...)."""
    return not key.startswith(f"{model.base_model_prefix}.")
