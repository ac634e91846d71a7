"""Loading a model by Hub id or folder for the probe, and naming the exact weights it used."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..hub_access import cache_only, check_model, load_failure
from .errors import ProbeError

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".h5", ".msgpack")


def load_model(name: str, revision: str | None = None):
    """(model, tokenizer) with eager attention; the bare encoder of a classifier checkpoint is enough."""
    from transformers import AutoModel, AutoTokenizer

    from ..zoo import register_auto_classes

    register_auto_classes()
    check_model(name, revision)
    local = cache_only(name)
    try:
        tokenizer = AutoTokenizer.from_pretrained(name, revision=revision, local_files_only=local)
        model = AutoModel.from_pretrained(name, revision=revision, attn_implementation="eager", local_files_only=local)
    except (OSError, ValueError, KeyError) as err:
        raise ProbeError(load_failure(name, err)) from err
    return model, tokenizer


def model_revision(name: str, model) -> str | None:
    """The Hub commit the weights came from, else the sha256 of a local folder's weight files."""
    commit = getattr(model.config, "_commit_hash", None)
    if commit:
        return commit
    folder = Path(name)
    if not folder.is_dir():
        return None
    digest = hashlib.sha256()
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.name.endswith(WEIGHT_SUFFIXES))
    if not files:
        return None
    for file in files:
        digest.update(file.name.encode() + b"\0")
        with file.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
    return "sha256:" + digest.hexdigest()
