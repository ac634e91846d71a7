"""Content hashes: of a file's bytes, and of a dataset configuration's rows independent of how they are stored."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

BLOCK = 1 << 20  # bytes read at a time, so that a model's weights are never held whole for hashing

# Every column that a figure, a slice or a label view of `swapbench eval` reads: the pair scored, its gold
# label, the original pair it is compared with and that pair's gold label, and (shuffle-sr) the binary label.
FINGERPRINT_COLUMNS = (
    "pair_id",
    "premise",
    "hypothesis",
    "label",
    "original_premise",
    "original_hypothesis",
    "original_label",
    "binary_label",
)
FINGERPRINT_FORMAT = "swapbench-content-2"


def update_with_file(digest, path: Path) -> None:
    """Feed the bytes of the file at `path` to `digest` (a hashlib object), a block at a time."""
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(BLOCK), b""):
            digest.update(block)


def file_sha256(path: Path) -> str:
    """The hex sha256 of the file's bytes."""
    digest = hashlib.sha256()
    update_with_file(digest, path)
    return digest.hexdigest()


def folder_sha256(folder: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """The sha256 of every file under `folder` by its path inside it, but hidden files and those named in `skip`
    (a checkpoint's own records)."""
    return {
        path.relative_to(folder).as_posix(): file_sha256(path)
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.name.startswith(".") and path.name not in skip
    }


def content_fingerprint(columns: dict[str, list]) -> str:
    """sha256 of the FINGERPRINT_COLUMNS that `columns` has, independent of the Parquet writer's version.

    Canonical form, in UTF-8: a header line, the JSON array [FINGERPRINT_FORMAT, names of the columns present in
    FINGERPRINT_COLUMNS order]; then one line per row, the JSON array of its values in that order (strings
    as they are, ensure_ascii off; ClassLabel columns as their stored indices). Lines end with a newline.
    """
    names = [name for name in FINGERPRINT_COLUMNS if name in columns]
    digest = hashlib.sha256()
    digest.update(_encode([FINGERPRINT_FORMAT, *names]).encode() + b"\n")
    for row in zip(*(columns[name] for name in names)):
        digest.update(json_row(row).encode())
        digest.update(b"\n")
    return "sha256:" + digest.hexdigest()


_encode = json.JSONEncoder(ensure_ascii=False).encode
_encode_string = json.encoder.encode_basestring  # what _encode writes for a str


def json_row(values) -> str:
    """_encode(values), the JSON array of `values`, written directly where they are strings and ints: the encoder
    builds itself anew on each call, which took a fifth of a shuffle's time in a build."""
    parts = [
        _encode_string(value) if type(value) is str else repr(value) if type(value) is int else _encode(value)
        for value in values
    ]
    return "[" + ", ".join(parts) + "]"


def model_revision(name_or_path: str, config, revision: str | None = None, gguf_file: str | None = None) -> str | None:
    """The Hub commit the files came from, or for a local folder sha256 of its files (names and contents), for a
    GGUF file in a local folder sha256 of that file alone.

    Every file counts, not the weights alone: the config and the tokenizer change what a model computes as much
    as its weights do (a config's position_embedding_type, a tokenizer's vocabulary), and a sharded checkpoint
    may keep weights in sub-folders. A GGUF file holds all three, and its folder may hold anything else (a Python
    package's files and their bytecode). `swapbench eval` and `swapbench probe` both name models by it.
    """
    from .hub_access import hub_commit

    folder = Path(name_or_path)
    if folder.is_dir() and gguf_file:
        return "sha256:" + file_sha256(folder / gguf_file)
    if folder.is_dir():
        return folder_fingerprint(folder)
    # transformers 4 records the commit on the config; transformers 5 leaves _commit_hash None.
    return getattr(config, "_commit_hash", None) or hub_commit(name_or_path, revision, gguf_file or "config.json")


def folder_fingerprint(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        update_with_file(digest, path)
    return "sha256:" + digest.hexdigest()
