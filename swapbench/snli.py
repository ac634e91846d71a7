"""Reading SNLI: the original 1.0 release files (JSON lines or TSV, optionally gzipped) or the Hub dataset.

Every pair keeps its origin (file and line) so that later stages can point at the input when it is bad.
Rows whose gold label is "-" (no annotator majority) are dropped and counted.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .jsonl import read_objects
from .labels import LABEL_NAMES

HUB_DATASET = "stanfordnlp/snli"
ENV_DIR = "SWAPBENCH_SNLI_DIR"
NO_GOLD = "-"

# SNLI 1.0 calls the validation split "dev"; the Hub calls it "validation".
FILE_SPLIT = {"train": "train", "dev": "dev", "validation": "dev", "test": "test"}
HUB_SPLIT = {"train": "train", "dev": "validation", "validation": "validation", "test": "test"}

JSONL_FIELDS = ("gold_label", "pairID", "sentence1", "sentence2")
TSV_FIELDS = ("gold_label", "pairID", "sentence1", "sentence2", "sentence1_parse")


@dataclass(frozen=True, slots=True)
class Pair:
    pair_id: str
    premise: str
    hypothesis: str
    label: str
    premise_parse: str | None  # PTB bracketed tree, when the source has one
    hypothesis_parse: str | None
    path: str  # where the pair was read, for error messages
    line: int


@dataclass
class SNLISplit:
    pairs: list[Pair]
    split: str  # the Hub split name: train, validation or test
    source: str  # file path or Hub id
    fingerprint: str  # sha256 of the source file's uncompressed bytes, or the Hub fingerprint
    rows_read: int
    dropped_no_gold: int
    limited: bool = False

    @property
    def has_premise_parses(self) -> bool:
        return bool(self.pairs) and all(p.premise_parse for p in self.pairs)


def hub_split(split: str) -> str:
    if split not in HUB_SPLIT:
        raise InputError(f"unknown split {split!r}: expected one of train, dev, validation, test")
    return HUB_SPLIT[split]


def load_snli(source: str | os.PathLike | None, split: str, limit: int | None = None) -> SNLISplit:
    """Load one SNLI split from a local file or folder, from $SWAPBENCH_SNLI_DIR, or from the Hub."""
    hub_split(split)  # validates the name
    if source is None:
        source = os.environ.get(ENV_DIR) or None
    if source is None or (not Path(source).exists() and _looks_like_hub_id(str(source))):
        return _load_hub(str(source or HUB_DATASET), split, limit)
    return read_snli_file(find_split_file(Path(source), split), split, limit)


def _looks_like_hub_id(text: str) -> bool:
    return text.count("/") == 1 and not text.startswith((".", "/", "~"))


def find_split_file(source: Path, split: str) -> Path:
    """The release file of `split` in a folder, or the file itself."""
    if source.is_file():
        return source
    if not source.is_dir():
        raise InputError("no such file or folder", path=str(source))
    stem = f"snli_1.0_{FILE_SPLIT[split]}"
    exact = [source / f"{stem}{ext}" for ext in (".jsonl", ".jsonl.gz", ".txt", ".txt.gz")]
    found = [p for p in exact if p.is_file()]
    if not found:  # e.g. a truncated copy such as snli_1.0_train_first1024.jsonl.gz
        found = sorted(p for p in source.glob(f"{stem}*") if p.suffix in (".jsonl", ".txt", ".gz"))
    if not found:
        raise InputError(f"no SNLI 1.0 file for split {split!r} ({stem}.jsonl or .txt, optionally .gz)",
                         path=str(source))
    return found[0]


def read_snli_file(path: Path, split: str, limit: int | None = None) -> SNLISplit:
    raw = _read_bytes(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise InputError(f"not UTF-8 text: {err.reason} at byte {err.start}", path=str(path), line=line) from err
    is_tsv = path.name.removesuffix(".gz").endswith(".txt")
    rows = _tsv_rows(text, path) if is_tsv else _jsonl_rows(text, path)
    pairs: list[Pair] = []
    read = dropped = 0
    limited = False
    for line, row in rows:
        read += 1
        pair = _pair_from_row(row, path, line)
        if pair is None:
            dropped += 1
            continue
        if limit is not None and len(pairs) >= limit:
            limited = True
            break
        pairs.append(pair)
    if not pairs:
        raise InputError("no labelled SNLI pairs in the file", path=str(path))
    return SNLISplit(pairs=pairs, split=hub_split(split), source=str(path),
                     fingerprint="sha256:" + hashlib.sha256(raw).hexdigest(),
                     rows_read=read, dropped_no_gold=dropped, limited=limited)


def _read_bytes(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
    except (OSError, EOFError, gzip.BadGzipFile) as err:
        raise InputError(f"cannot read: {err}", path=str(path)) from err


def _jsonl_rows(text: str, path: Path):
    for number, row in read_objects(text, path):
        missing = [f for f in JSONL_FIELDS if f not in row]
        if missing:
            raise InputError(f"missing field(s): {', '.join(missing)}", path=str(path), line=number)
        yield number, row


def _tsv_rows(text: str, path: Path):
    lines = text.splitlines()
    if not lines:
        raise InputError("empty file", path=str(path))
    header = lines[0].split("\t")
    missing = [f for f in TSV_FIELDS if f not in header]
    if missing:
        raise InputError(f"header lacks column(s): {', '.join(missing)}", path=str(path), line=1)
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) < len(header):
            raise InputError(f"expected {len(header)} tab-separated fields, found {len(cells)}",
                             path=str(path), line=number)
        yield number, dict(zip(header, cells))


def _pair_from_row(row: dict, path: Path, line: int) -> Pair | None:
    label = row["gold_label"]
    if label == NO_GOLD:
        return None
    if label not in LABEL_NAMES:
        raise InputError(f"unknown gold_label {label!r}: expected one of {', '.join(LABEL_NAMES)} or '-'",
                         path=str(path), line=line)
    texts = {}
    for name in ("sentence1", "sentence2", "pairID"):
        value = row[name]
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"empty {name}", path=str(path), line=line)
        texts[name] = value.strip()
    return Pair(pair_id=texts["pairID"], premise=texts["sentence1"], hypothesis=texts["sentence2"], label=label,
                premise_parse=row.get("sentence1_parse") or None, hypothesis_parse=row.get("sentence2_parse") or None,
                path=str(path), line=line)


def _load_hub(repo: str, split: str, limit: int | None) -> SNLISplit:
    """The Hub copy has no pairIDs and no parses: ids are made from the split and row index."""
    import datasets

    name = hub_split(split)
    dataset = datasets.load_dataset(repo, split=name)
    names = dataset.features["label"].names if hasattr(dataset.features["label"], "names") else list(LABEL_NAMES)
    pairs: list[Pair] = []
    read = dropped = 0
    limited = False
    for index, row in enumerate(dataset):
        read += 1
        if row["label"] < 0:
            dropped += 1
            continue
        if limit is not None and len(pairs) >= limit:
            limited = True
            break
        where = f"{repo}[{name}]"
        for column in ("premise", "hypothesis"):
            if not (row[column] or "").strip():
                raise InputError(f"empty {column}", path=where, line=index + 1)
        pairs.append(Pair(pair_id=f"snli-{name}-{index}", premise=row["premise"].strip(),
                          hypothesis=row["hypothesis"].strip(), label=names[row["label"]],
                          premise_parse=None, hypothesis_parse=None, path=where, line=index + 1))
    return SNLISplit(pairs=pairs, split=name, source=repo, fingerprint=f"hub:{dataset._fingerprint}",
                     rows_read=read, dropped_no_gold=dropped, limited=limited)
