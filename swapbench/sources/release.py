"""Reading release files in SNLI's format (JSON lines or TSV, optionally gzipped): SNLI 1.0, MultiNLI 1.0.

Every pair keeps its origin (file and line) so that later stages can point at the input when it is bad.
Rows whose gold label is "-" (no annotator majority) are dropped and counted.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import zlib
from pathlib import Path

from ..core.errors import InputError
from ..core.jsonl import read_objects, split_lines
from ..core.labels import LABEL_NAMES
from ..core.treebank import spells, tree_words
from .declaration import Source
from .pair import Pair, SourceSplit, take_labelled

NO_GOLD = "-"
FILE_SUFFIXES = (".jsonl", ".txt", ".gz")
GZIP_PIECE = 1 << 14  # bytes decompressed per read: a gzip error is located within the read that fails
PARSE_FIELDS = ("sentence1_parse",)  # what a TSV header must hold besides the declared fields


def release_split_of(source: Source, path: Path) -> str | None:
    """The release split a file's name says (snli_1.0_dev.jsonl -> dev; snli_1.0_train_first1024... -> train)."""
    splits = "|".join(sorted(map(re.escape, set(source.splits.values())), key=len, reverse=True))
    named = re.match(rf"{re.escape(source.file_prefix)}({splits})(?![a-z])", path.name)
    return named[1] if named else None


def find_split_file(source: Source, folder: Path, split: str) -> Path:
    """The release file of `split` in a folder, or the file itself if its name does not say another split."""
    wanted = source.file_split(split)
    if folder.is_file():
        named = release_split_of(source, folder)
        if named and named != wanted:
            raise InputError(
                f"this is {source.short_name}'s {named} split by its name, not the {split} split asked for",
                path=str(folder),
            )
        return folder
    if not folder.is_dir():
        raise InputError("no such file or folder", path=str(folder))
    stem = source.file_stem(split)
    exact = [folder / f"{stem}{ext}" for ext in (".jsonl", ".jsonl.gz", ".txt", ".txt.gz")]
    found = [p for p in exact if p.is_file()]
    if not found:  # e.g. a truncated copy such as snli_1.0_train_first1024.jsonl.gz
        found = sorted(
            p for p in folder.glob(f"{stem}*") if p.suffix in FILE_SUFFIXES and release_split_of(source, p) == wanted
        )
    if not found:
        raise InputError(
            f"no {source.release} file for split {split!r} ({stem}.jsonl or .txt, optionally .gz)", path=str(folder)
        )
    return found[0]


def read_release_file(source: Source, path: Path, split: str, limit: int | None = None) -> SourceSplit:
    raw = _read_bytes(path)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise InputError(f"not UTF-8 text: {err.reason} at byte {err.start}", path=str(path), line=line) from err
    is_tsv = path.name.removesuffix(".gz").endswith(".txt")
    rows = _tsv_rows(source, text, path) if is_tsv else _jsonl_rows(source, text, path)
    taken = take_labelled(rows, lambda numbered: _pair_from_row(numbered[1], path, numbered[0]), limit)
    pairs = taken.pairs
    if not pairs:
        raise InputError(f"no labelled {source.short_name} pairs in the file", path=str(path))
    check_pairs(pairs)
    named = release_split_of(source, path) == source.file_split(split)  # a file of another name claims no split
    return SourceSplit(
        pairs=pairs,
        split=source.split(split),
        source=str(path),
        fingerprint="sha256:" + hashlib.sha256(raw).hexdigest(),
        rows_read=taken.read,
        dropped_no_gold=taken.dropped,
        limited=taken.limited,
        declaration=source,
        declared_pairs=source.declared_pairs(split) if named else None,
    )


def _read_bytes(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:
        raise InputError(f"cannot read: {err}", path=str(path)) from err
    return _gunzip(data, path) if data[:2] == b"\x1f\x8b" else data


def _gunzip(data: bytes, path: Path) -> bytes:
    """Decompressed piece by piece, so that an error names the line up to which the data decompressed."""
    pieces: list[bytes] = []
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
        try:
            while piece := stream.read1(GZIP_PIECE):
                pieces.append(piece)
        except (OSError, EOFError, zlib.error) as err:
            line = sum(piece.count(b"\n") for piece in pieces) + 1
            raise InputError(
                f"corrupt gzip data: {err} (it decompressed up to this line)", path=str(path), line=line
            ) from err
    return b"".join(pieces)


def _jsonl_rows(source: Source, text: str, path: Path):
    for number, row in read_objects(text, path):
        missing = [f for f in source.fields if f not in row]
        if missing:
            raise InputError(f"missing field(s): {', '.join(missing)}", path=str(path), line=number)
        yield number, row


def _tsv_rows(source: Source, text: str, path: Path):
    if not text.strip():
        raise InputError("empty file", path=str(path))
    lines = split_lines(text)
    header = lines[0].split("\t")
    missing = [f for f in (*source.fields, *PARSE_FIELDS) if f not in header]
    if missing:
        raise InputError(f"header lacks column(s): {', '.join(missing)}", path=str(path), line=1)
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) < len(header):
            raise InputError(
                f"expected {len(header)} tab-separated fields, found {len(cells)}", path=str(path), line=number
            )
        yield number, dict(zip(header, cells))


def _pair_from_row(row: dict, path: Path, line: int) -> Pair | None:
    label = row["gold_label"]
    if label == NO_GOLD:
        return None
    if label not in LABEL_NAMES:
        raise InputError(
            f"unknown gold_label {label!r}: expected one of {', '.join(LABEL_NAMES)} or '-'", path=str(path), line=line
        )
    texts = {}
    for name in ("sentence1", "sentence2", "pairID"):
        value = row[name]
        if not isinstance(value, str):
            raise InputError(f"{name} must be a string, not {type(value).__name__}", path=str(path), line=line)
        if not value.strip():
            raise InputError(f"empty {name}", path=str(path), line=line)
        texts[name] = value.strip()
    return Pair(
        pair_id=texts["pairID"],
        premise=texts["sentence1"],
        hypothesis=texts["sentence2"],
        label=label,
        premise_parse=parse_field(row, "sentence1_parse", str(path), line),
        hypothesis_parse=parse_field(row, "sentence2_parse", str(path), line),
        path=str(path),
        line=line,
        annotator_labels=_annotator_labels(row),
    )


def _annotator_labels(row: dict) -> tuple[str, ...] | None:
    """The annotators' labels: a JSONL row's annotator_labels, a TSV row's label1..label5 (empty cells are
    annotators who did not label); None where the row has neither."""
    labels = row.get("annotator_labels")
    if labels is None and "label1" in row:
        labels = [row.get(f"label{n}", "") for n in range(1, 6)]
    if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
        return None
    return tuple(label for label in labels if label) or None


def parse_field(row: dict, name: str, path: str, line: int) -> str | None:
    """The bracketed parse in `name`, or None where the row has none (absent, null or empty)."""
    value = row.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise InputError(
            f"{name} must be a string (a bracketed parse), not {type(value).__name__}", path=path, line=line
        )
    return value


def check_pairs(pairs: list[Pair]) -> None:
    """Each pairID once, and each supplied parse a tree of its own sentence."""
    first_line: dict[str, int] = {}
    spelled: set[tuple[str, str]] = set()  # SNLI repeats each premise about three times: check each tree once
    for pair in pairs:
        first = first_line.setdefault(pair.pair_id, pair.line)
        if first != pair.line:
            raise InputError(
                f"duplicate pairID {pair.pair_id!r}, first on line {first}", path=pair.path, line=pair.line
            )
        for name, text, tree in (
            ("sentence1", pair.premise, pair.premise_parse),
            ("sentence2", pair.hypothesis, pair.hypothesis_parse),
        ):
            if tree is not None and (text, tree) not in spelled:
                _check_tree(name, text, tree, pair)
                spelled.add((text, tree))


def _check_tree(name: str, text: str, tree: str, pair: Pair) -> None:
    try:
        words = tree_words(tree)
    except ValueError as err:
        raise InputError(f"malformed bracketed parse in {name}_parse: {err}", path=pair.path, line=pair.line) from err
    if not spells(words, text):
        raise InputError(
            f"{name}_parse is not a tree of {name}: its words read {' '.join(words)!r}", path=pair.path, line=pair.line
        )
