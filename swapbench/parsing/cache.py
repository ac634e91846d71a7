"""An on-disk cache of parses, keyed by backend, backend version and sentence.

Parsed batches are written together every few seconds (COMMIT_SECONDS), at the end, and when the build stops on an
error or Ctrl-C, each time in one short transaction, so an interrupted build keeps what it had parsed and a rerun
parses only the rest. Each commit waits for the disk (several fsyncs): one per batch cost 56 of them on SNLI's
test premises, which a slow or networked disk turns into seconds.

Nothing read back is trusted. A file that is not a sound SQLite database of parses is moved aside, kept for the
user, and a new cache started; a row that does not decode, or is not the backend's parse of its sentence, is
parsed again and overwritten. Either way a warning names the file, and the build's output is what it would have
been without a cache.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..core.errors import SwapbenchError
from ..core.sqlite_store import DamagedStore as DamagedCache
from ..core.sqlite_store import connect_checked, set_aside
from .base import ConstituencyParser, MalformedInput, Parse, ParseFailure

COLUMNS = ["backend", "version", "sentence", "parse"]
# About the most parsing time (seconds) that a build killed outright (SIGKILL, power loss) loses from the cache.
COMMIT_SECONDS = 5.0
logger = logging.getLogger(__name__)


class ParseCache:
    def __init__(self, path: Path, warn: Callable[[str], None] = logger.warning):
        self.path = path
        self._warn = warn
        with self._reported():
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                self._db = _connect(path)
            except DamagedCache as err:
                aside = set_aside(path)
                warn(
                    f"the parse cache {path} is damaged ({err}); moved it to {aside} and started a new one, "
                    "so every sentence is parsed again"
                )
                self._db = _connect(path)

    def get_many(self, parser: ConstituencyParser, sentences: list[str]) -> dict[str, Parse]:
        """The cached parses of `sentences` by `parser`. A row that does not decode, or is no parse of its
        sentence (another sentence's parse), is left out: it is parsed again and overwritten."""
        found: dict[str, Parse] = {}
        rejected = []
        for sentence, data in self._rows(parser, sentences):
            parse = _checked_parse(parser, sentence, data)
            if parse is None:
                rejected.append(sentence)
            else:
                found[sentence] = parse
        if rejected:
            self._warn(
                f"{len(rejected)} row(s) of the parse cache {self.path} do not hold a parse of their sentence "
                f"(the first: {rejected[0]!r}); parsing them again"
            )
        return found

    def put_many(self, parser: ConstituencyParser, parses: dict[str, Parse]) -> None:
        with self._reported(), self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO parses VALUES (?, ?, ?, ?)",
                [(parser.name, parser.version, s, json.dumps(p.to_json())) for s, p in parses.items()],
            )

    def close(self) -> None:
        self._db.close()

    def _rows(self, parser: ConstituencyParser, sentences: list[str]) -> list[tuple[str, str]]:
        rows = []
        with self._reported():
            for start in range(0, len(sentences), 500):  # SQLite caps the number of bound parameters
                chunk = sentences[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows += self._db.execute(
                    f"SELECT sentence, parse FROM parses WHERE backend=? AND version=? AND sentence IN ({marks})",
                    [parser.name, parser.version, *chunk],
                )
        return rows

    @contextmanager
    def _reported(self) -> Iterator[None]:
        """What goes wrong with the file past the checks (it cannot be written, it was damaged while in use) is
        an error naming it and the way out."""
        try:
            yield
        except (OSError, sqlite3.Error, DamagedCache) as err:
            raise SwapbenchError(
                f"cannot use the parse cache {self.path} ({err}): delete it, or build with "
                "--no-cache or another --cache-dir"
            ) from err


def _connect(path: Path) -> sqlite3.Connection:
    """The cache at `path`, created when absent; DamagedCache when the file is not a sound cache."""
    return connect_checked(
        path,
        "parses",
        "CREATE TABLE IF NOT EXISTS parses (backend TEXT, version TEXT, "
        "sentence TEXT, parse TEXT, PRIMARY KEY (backend, version, sentence))",
        COLUMNS,
    )


def _checked_parse(parser: ConstituencyParser, sentence: str, data: str) -> Parse | None:
    try:
        parse = Parse.from_json(json.loads(data))
        return parse if parser.is_parse_of(parse, sentence) else None
    except (ValueError, KeyError, TypeError):  # not JSON, or not a parse
        return None


def parse_with_cache(
    parser: ConstituencyParser, inputs: list[str], cache: ParseCache | None, batch_size: int = 256, progress=None
) -> dict[str, Parse]:
    """Parse each distinct input once, reading and filling the cache batch by batch.

    `progress(n)` is called with the number of inputs done after each batch.
    """
    unique = list(dict.fromkeys(inputs))
    done = cache.get_many(parser, unique) if cache else {}
    if progress:
        progress(len(done))
    todo = [s for s in unique if s not in done]
    pending: dict[str, Parse] = {}  # parsed, not yet in the cache: written in one transaction every few seconds
    written = time.monotonic()
    try:
        for start in range(0, len(todo), batch_size):
            batch = todo[start : start + batch_size]
            try:
                parsed = dict(zip(batch, parser.parse_many(batch)))
            except MalformedInput as err:
                raise ParseFailure(batch[err.index], str(err)) from err
            done.update(parsed)
            if cache:
                pending.update(parsed)
                if time.monotonic() - written >= COMMIT_SECONDS:
                    writing, pending = pending, {}
                    cache.put_many(parser, writing)
                    written = time.monotonic()
            if progress:
                progress(len(batch))
    finally:  # on success, and on an error or Ctrl-C: every batch parsed so far is kept
        if cache and pending:
            cache.put_many(parser, pending)
    return done
