"""Reading SNLI: the original 1.0 release files (JSON lines or TSV, optionally gzipped) or the Hub dataset.

Every pair keeps its origin (file and line) so that later stages can point at the input when it is bad.
Rows whose gold label is "-" (no annotator majority) are dropped and counted.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError, SwapbenchError
from .hub_access import hub_unreachable, is_hub_id
from .jsonl import read_objects, split_lines
from .labels import LABEL_NAMES
from .parsing.ptb import spells, tree_words

HUB_DATASET = "stanfordnlp/snli"
ENV_DIR = "SWAPBENCH_SNLI_DIR"
NO_GOLD = "-"

# SNLI 1.0 calls the validation split "dev"; the Hub calls it "validation".
FILE_SPLIT = {"train": "train", "dev": "dev", "validation": "dev", "test": "test"}
HUB_SPLIT = {"train": "train", "dev": "validation", "validation": "validation", "test": "test"}
# A release file's name gives its split: snli_1.0_dev.jsonl, snli_1.0_train_first1024.jsonl.gz, ...
RELEASE_NAME = re.compile(r"snli_1\.0_(train|dev|test)")
FILE_SUFFIXES = (".jsonl", ".txt", ".gz")
GZIP_PIECE = 1 << 14  # bytes decompressed per read: a gzip error is located within the read that fails

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


def load_snli(source: str | os.PathLike | None, split: str, limit: int | None = None,
              option: str = "--source") -> SNLISplit:
    """Load one SNLI split from a local file or folder, from $SWAPBENCH_SNLI_DIR, or from the Hub; `option` is the
    command-line option that names the source, for the messages."""
    hub_split(split)  # validates the name
    if source is None:
        source = os.environ.get(ENV_DIR) or None
    if source is None:
        return _load_hub(HUB_DATASET, split, limit, f"no {option} was given and ${ENV_DIR} is unset", option)
    if is_hub_dataset(str(source)):
        return _load_hub(str(source), split, limit, f"{source} is not a local file or folder", option)
    return read_snli_file(find_split_file(Path(source), split), split, limit)


def is_hub_dataset(text: str) -> bool:
    """`owner/name` that names nothing on disk (see hub_access.is_hub_id) and is no file name."""
    owner, slash, name = text.partition("/")
    return bool(slash) and not name.endswith(FILE_SUFFIXES) and is_hub_id(text)


def find_split_file(source: Path, split: str) -> Path:
    """The release file of `split` in a folder, or the file itself if its name does not say another split."""
    if source.is_file():
        named = RELEASE_NAME.match(source.name)
        if named and named[1] != FILE_SPLIT[split]:
            raise InputError(f"this is SNLI's {named[1]} split by its name, not the {split} split asked for",
                             path=str(source))
        return source
    if not source.is_dir():
        raise InputError("no such file or folder", path=str(source))
    stem = f"snli_1.0_{FILE_SPLIT[split]}"
    exact = [source / f"{stem}{ext}" for ext in (".jsonl", ".jsonl.gz", ".txt", ".txt.gz")]
    found = [p for p in exact if p.is_file()]
    if not found:  # e.g. a truncated copy such as snli_1.0_train_first1024.jsonl.gz
        found = sorted(p for p in source.glob(f"{stem}*") if p.suffix in FILE_SUFFIXES)
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
    _check_pairs(pairs)
    return SNLISplit(pairs=pairs, split=hub_split(split), source=str(path),
                     fingerprint="sha256:" + hashlib.sha256(raw).hexdigest(),
                     rows_read=read, dropped_no_gold=dropped, limited=limited)


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
            raise InputError(f"corrupt gzip data: {err} (it decompressed up to this line)", path=str(path),
                             line=line) from err
    return b"".join(pieces)


def _jsonl_rows(text: str, path: Path):
    for number, row in read_objects(text, path):
        missing = [f for f in JSONL_FIELDS if f not in row]
        if missing:
            raise InputError(f"missing field(s): {', '.join(missing)}", path=str(path), line=number)
        yield number, row


def _tsv_rows(text: str, path: Path):
    if not text.strip():
        raise InputError("empty file", path=str(path))
    lines = split_lines(text)
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
        if not isinstance(value, str):
            raise InputError(f"{name} must be a string, not {type(value).__name__}", path=str(path), line=line)
        if not value.strip():
            raise InputError(f"empty {name}", path=str(path), line=line)
        texts[name] = value.strip()
    return Pair(pair_id=texts["pairID"], premise=texts["sentence1"], hypothesis=texts["sentence2"], label=label,
                premise_parse=_parse_field(row, "sentence1_parse", path, line),
                hypothesis_parse=_parse_field(row, "sentence2_parse", path, line), path=str(path), line=line)


def _parse_field(row: dict, name: str, path: Path, line: int) -> str | None:
    """The bracketed parse in `name`, or None where the row has none (absent, null or empty)."""
    value = row.get(name)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise InputError(f"{name} must be a string (a bracketed parse), not {type(value).__name__}",
                         path=str(path), line=line)
    return value


def _check_pairs(pairs: list[Pair]) -> None:
    """Each pairID once, and each supplied parse a tree of its own sentence."""
    first_line: dict[str, int] = {}
    spelled: set[tuple[str, str]] = set()  # SNLI repeats each premise about three times: check each tree once
    for pair in pairs:
        first = first_line.setdefault(pair.pair_id, pair.line)
        if first != pair.line:
            raise InputError(f"duplicate pairID {pair.pair_id!r}, first on line {first}", path=pair.path,
                             line=pair.line)
        for name, text, tree in (("sentence1", pair.premise, pair.premise_parse),
                                 ("sentence2", pair.hypothesis, pair.hypothesis_parse)):
            if tree is not None and (text, tree) not in spelled:
                _check_tree(name, text, tree, pair)
                spelled.add((text, tree))


def _check_tree(name: str, text: str, tree: str, pair: Pair) -> None:
    try:
        words = tree_words(tree)
    except ValueError as err:
        raise InputError(f"malformed bracketed parse in {name}_parse: {err}", path=pair.path, line=pair.line) from err
    if not spells(words, text):
        raise InputError(f"{name}_parse is not a tree of {name}: its words read {' '.join(words)!r}",
                         path=pair.path, line=pair.line)


def _load_hub(repo: str, split: str, limit: int | None, tried: str, option: str) -> SNLISplit:
    """The Hub copy has no pairIDs and no parses: ids are made from the split and row index.

    `tried` says why the Hub was asked, for the error raised when it cannot answer.
    """
    name = hub_split(split)
    dataset = _hub_dataset(repo, name, tried, option)
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


def _hub_dataset(repo: str, split: str, tried: str, option: str):
    """The split from the Hub, or from datasets' cache in offline mode (HF_HUB_OFFLINE=1).

    An unreachable Hub is an error at once: asked directly, huggingface_hub retries it for half a minute.
    """
    import datasets
    from huggingface_hub import constants

    cause = None
    if constants.HF_HUB_OFFLINE:
        cause = "HF_HUB_OFFLINE is set and the datasets cache does not hold it"
    elif not Path(repo).is_dir() and (unanswered := hub_unreachable()):  # a local copy needs no Hub
        raise _not_loaded(repo, split, tried, f"{unanswered}; to use a copy in the datasets cache, set "
                                              "HF_HUB_OFFLINE=1", option)
    try:
        return datasets.load_dataset(repo, split=split)
    except (ConnectionError, FileNotFoundError) as err:
        raise _not_loaded(repo, split, tried, cause or _first_line(err), option) from err


def _not_loaded(repo: str, split: str, tried: str, cause: str, option: str) -> SwapbenchError:
    because = f" (tried because {tried})" if tried else ""
    return SwapbenchError(f"cannot load the Hub dataset {repo}{because}: {cause}. To read local SNLI 1.0 files, pass "
                          f"{option} or set {ENV_DIR} to a folder holding snli_1.0_{FILE_SPLIT[split]}.jsonl (or .txt, "
                          "optionally .gz)")


def _first_line(err: Exception) -> str:
    return (str(err).strip().splitlines() or [type(err).__name__])[0]
