"""The scores cache: a model's outputs on each distinct pair, kept so that a second eval scores nothing, one that
adds a configuration scores only the pairs that are new, and one killed midway goes on from what it had scored.

An entry is one SQLite file per key, CACHE_DIR/scores/<model>-<key[:16]>.sqlite. The key is the sha256 of what
decides a pair's outputs: the model's identity, the scoring mode and every option that changes the outputs (the
scorer names them: length limit, dtype, device type, prompt, verbalizers, shots ...), and the torch and
transformers versions. The model's identity is its Hub commit; for a local folder the sha256 of its files' names and
contents (models.loading.model_revision, which eval computes for the results anyway: sizes and times would not tell
two trainings apart); for a checkpoint fine-tuned here, the sha256 of its training record, which each training
writes anew with its own timings. A model whose identity is unknown (an offline Hub id), or whose weights did not
load whole (--allow-missing: some newly initialised at random), is not cached.

Each row holds one pair's outputs as scored (a classifier's logits as float32, a prompt's verbalizer scores before
any calibration as float64) and whether the pair was cut, keyed by the sha256 of its premise and hypothesis. The
predictions are read off these same numbers with the cache and without it, so the figures are the same either way. Not
in the key: the batch a pair ran in. Padding is masked, but another batch shape can move the last bits of a logit; a
prediction could differ only on a near tie (lm-evaluation-harness's cache keys requests alone likewise).

Rows are committed every COMMIT_SECONDS, at the end, and when scoring stops on an error or Ctrl-C, so a killed
run loses at most those seconds. A file that is not a sound cache is set aside with a warning naming it. Each row
carries a check (core.sqlite_store.row_check, keyed by the entry's key, over the pair's key, its outputs and its
cut flag), verified on every read: SQLite's own checks pass on a database whose values were edited, and an edited
logit would otherwise come back as a prediction. A row that fails (or whose outputs have another size) is not
served: it is scored again and overwritten, and the run says how many were.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.errors import SwapbenchError
from ..core.sqlite_store import DamagedStore, connect_checked, row_check, set_aside
from ..core.text import slug

logger = logging.getLogger(__name__)

FORMAT = 2  # bump when a change makes old entries unfit (it is in the key: an older entry is not read). 2: row checks
COMMIT_SECONDS = 5.0
COLUMNS = ["pair", "outputs", "cut", "checked"]
CREATE = "CREATE TABLE IF NOT EXISTS scores (pair TEXT PRIMARY KEY, outputs BLOB, cut INTEGER, checked BLOB)"
CHUNK = 500  # SQLite caps the number of bound parameters


def scores_key(identity: dict) -> str:
    """sha256 of the identity (model, mode, scoring options) with the format and the library versions."""
    import torch
    import transformers

    whole = {"format": FORMAT, "torch": torch.__version__, "transformers": transformers.__version__, **identity}
    return hashlib.sha256(json.dumps(whole, sort_keys=True).encode()).hexdigest()


def pair_key(premise: str, hypothesis: str) -> str:
    return hashlib.sha256(f"{premise}\x00{hypothesis}".encode()).hexdigest()


def entry_path(cache_dir: Path, model: str, key: str) -> Path:
    return cache_dir / "scores" / f"{slug(model)}-{key[:16]}.sqlite"


class ScoreCache:
    """One entry: the outputs of one model under one scoring (its scores_key, `key`), `width` numbers of `dtype`
    per pair."""

    def __init__(self, path: Path, width: int, dtype, warn: Callable[[str], None], key: str):
        self.path, self.width, self.dtype, self._warn, self.key = path, width, np.dtype(dtype), warn, key
        self._pending: list[tuple[str, bytes, int, bytes]] = []
        self._written = time.monotonic()
        with self._reported():
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._db = connect_checked(path, "scores", CREATE, COLUMNS)
            except DamagedStore as err:
                aside = set_aside(path)
                warn(
                    f"the scores cache {path} is damaged ({err}); moved it to {aside} and started a new one, so "
                    "every pair is scored again"
                )
                self._db = connect_checked(path, "scores", CREATE, COLUMNS)

    def get_many(self, keys: Sequence[str]) -> tuple[dict[str, tuple[np.ndarray, bool]], int]:
        """The cached outputs of the pairs `keys` names, and whether each was cut; and how many rows were left out
        (scored again and overwritten), with a warning: those of another size, or that fail their check."""
        size = self.width * self.dtype.itemsize
        found, rejected = {}, 0
        with self._reported():
            for start in range(0, len(keys), CHUNK):
                chunk = list(keys[start : start + CHUNK])
                rows = self._db.execute(
                    f"SELECT pair, outputs, cut, checked FROM scores WHERE pair IN ({','.join('?' * len(chunk))})",
                    chunk,
                )
                for pair, outputs, cut, checked in rows:
                    if (
                        isinstance(outputs, bytes)
                        and len(outputs) == size
                        and cut in (0, 1)
                        and checked == self._check(pair, outputs, cut)
                    ):
                        found[pair] = (np.frombuffer(outputs, dtype=self.dtype), bool(cut))
                    else:
                        rejected += 1
        if rejected:
            self._warn(
                f"{rejected} row(s) of the scores cache {self.path} fail their check (not {self.width} "
                "outputs of a pair, or not the bytes that were written: edited or damaged); scoring them "
                "again"
            )
        return found, rejected

    def _check(self, pair: str, outputs: bytes, cut: int) -> bytes:
        return row_check(self.key, pair.encode(), outputs, bytes([cut]))

    def add(self, keys: Sequence[str], outputs: np.ndarray, cut: Sequence[bool]) -> None:
        """Keep these pairs' outputs; written with the next commit, at most COMMIT_SECONDS from now."""
        rows = np.ascontiguousarray(outputs, dtype=self.dtype)
        for i, key in enumerate(keys):
            outputs_bytes, flag = rows[i].tobytes(), int(bool(cut[i]))
            self._pending.append((key, outputs_bytes, flag, self._check(key, outputs_bytes, flag)))
        if time.monotonic() - self._written >= COMMIT_SECONDS:
            self.flush()

    def flush(self) -> None:
        if self._pending:
            with self._reported(), self._db:
                self._db.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?, ?)", self._pending)
            self._pending = []
        self._written = time.monotonic()

    def close(self) -> None:
        self._db.close()

    def _reported(self):
        return _Reported(self.path)


class _Reported:
    """What goes wrong with the file past the checks (it cannot be written, it was damaged while in use) is an
    error naming it and the way out."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self):
        return self

    def __exit__(self, kind, err, trace):
        if isinstance(err, (OSError, sqlite3.Error, DamagedStore)):
            raise SwapbenchError(
                f"cannot use the scores cache {self.path} ({err}): delete it, or run eval with "
                "--no-cache or another --cache-dir"
            ) from err
        return False


@dataclass
class Outputs:
    values: np.ndarray  # (pairs, width): each pair's outputs, in the order of the pairs
    cut: np.ndarray  # bool, per pair: cut to fit the length limit
    reused: int  # pairs whose outputs came from the cache
    scored: int  # pairs run through the model in this call
    scored_here: int  # of those, the pairs this process ran (all but under a launcher: its shard)
    rescored: int = 0  # of those, the pairs whose cached row failed its check


# A scorer's run over the pairs not cached: given them and a callback it calls after each batch with the
# batch's positions among them, their outputs and whether each was cut; returns all their outputs and cuts.
ScoreMissing = Callable[
    [list[tuple[str, str]], Callable[[np.ndarray, np.ndarray, np.ndarray], None]], tuple[np.ndarray, np.ndarray]
]


def cached_outputs(
    cache: ScoreCache | None,
    pairs: Sequence[tuple[str, str]],
    width: int,
    dtype,
    score: ScoreMissing,
    progress: Callable[[int], None] | None = None,
) -> Outputs:
    """Every pair's `width` outputs: those cached read back, the others scored by `score` and added to the cache
    batch by batch, so that an interrupted call keeps what it scored. Under a launcher the pairs left are scored
    in shards, one per process (sharding.score_sharded), and every process returns all of them."""
    from .sharding import score_sharded

    keys = [pair_key(p, h) for p, h in pairs] if cache else []
    found, rejected = cache.get_many(keys) if cache else ({}, 0)
    todo = [i for i, key in enumerate(keys) if key not in found] if cache else list(range(len(pairs)))
    if found and progress:
        progress(len(found))
    values = np.zeros((len(pairs), width), dtype=dtype)
    cut = np.zeros(len(pairs), dtype=bool)
    for i, key in enumerate(keys):
        if key in found:
            values[i], cut[i] = found[key]

    def on_batch(index: np.ndarray, outputs: np.ndarray, batch_cut: np.ndarray) -> None:
        if cache:
            cache.add([keys[todo[j]] for j in index], outputs, batch_cut)

    here = 0
    if todo:
        try:
            values[todo], cut[todo], here = score_sharded([pairs[i] for i in todo], score, on_batch, progress)
        finally:  # on success, and on an error or Ctrl-C: every batch scored so far is kept
            if cache:
                cache.flush()
    return Outputs(values=values, cut=cut, reused=len(found), scored=len(todo), scored_here=here, rescored=rejected)


def open_cache(options, model: str, identity: dict | None, width: int, dtype) -> ScoreCache | None:
    """The cache entry of this scoring, or None when --no-cache was given or the model's identity is unknown
    (logged)."""
    from ..core.paths import default_cache_dir

    if not getattr(options, "use_cache", True):
        return None
    if identity is None:
        logger.info("The scores are not cached: the model's revision is unknown, or its weights did not load whole")
        return None
    key = scores_key(identity)
    path = entry_path(options.cache_dir or default_cache_dir(), model, key)
    return ScoreCache(path, width, dtype, warn=logger.warning, key=key)


def report(outputs: Outputs, cache: ScoreCache | None) -> None:
    """How many pairs came from the cache and how many were scored, logged."""
    from .sharding import world_size

    shard = (
        f" ({outputs.scored_here:,} by this process, one of {world_size()})"
        if outputs.scored_here != outputs.scored
        else ""
    )
    if cache is None:
        if shard:
            logger.info(f"Scores: {outputs.scored:,} scored{shard}")
        return
    again = (
        f", {outputs.rescored:,} of them again: their cached row{'s' * (outputs.rescored != 1)} failed the check"
        if outputs.rescored
        else ""
    )
    logger.info(
        f"Scores: {outputs.reused:,} pair{'s' * (outputs.reused != 1)} from the cache, "
        f"{outputs.scored:,} scored{again}{shard} ({cache.path})"
    )
