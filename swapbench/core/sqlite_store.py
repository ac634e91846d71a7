"""SQLite files that swapbench keeps as caches (parses, scores): opened only when sound, else set aside.

Nothing read back is trusted: a file that SQLite cannot read as a database, or whose table is not the one
expected, is a damaged cache. It is moved aside, kept for the user, and a new one started in its place. SQLite's
own checks cover its pages, not the values in them: a value edited (or written over by a stray process) leaves a
sound database, so a cache that must not serve a wrong value stores a `row_check` of each row beside it.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from itertools import count
from pathlib import Path

# What SQLite answers for a file that is no database, or one whose pages do not hold together.
DAMAGE = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB"})
# SQLite keeps a database's pending writes beside it, in files named after it.
COMPANIONS = ("-journal", "-wal", "-shm")


class DamagedStore(Exception):
    """The file is not a sound SQLite database holding the expected table."""


def connect_checked(path: Path, table: str, create: str, columns: list[str]) -> sqlite3.Connection:
    """The database at `path`, created when absent, with `table` made by the statement `create` when missing;
    DamagedStore when the file is not sound or the table has other columns than `columns`."""
    db = sqlite3.connect(path)
    try:
        check_table(db, table, create, columns)
    except BaseException:
        db.close()
        raise
    return db


def check_table(db: sqlite3.Connection, table: str, create: str, columns: list[str]) -> None:
    try:
        problems = [row[0] for row in db.execute("PRAGMA quick_check")]
        db.execute(create)
        found = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
    except sqlite3.DatabaseError as err:
        if err.sqlite_errorname in DAMAGE:
            raise DamagedStore(str(err)) from err
        raise
    if problems != ["ok"]:
        raise DamagedStore("; ".join(problems[:3]))
    if found != columns:
        raise DamagedStore(f"its table of {table} has the columns {', '.join(found)}")


def row_check(salt: str, *fields: bytes) -> bytes:
    """A 16-byte blake2b of a row's `fields`, keyed by `salt` (the entry's own key: a row copied from another entry
    fails too). Each field is prefixed with its length, so that bytes cannot move from one field to the next."""
    digest = hashlib.blake2b(key=hashlib.sha256(salt.encode()).digest(), digest_size=16)
    for field in fields:
        digest.update(len(field).to_bytes(8, "little"))
        digest.update(field)
    return digest.digest()


def set_aside(path: Path) -> Path:
    """Move a damaged cache, with SQLite's files beside it, to a free name next to it: NAME.damaged-1.sqlite."""
    aside = next(
        candidate
        for n in count(1)
        if not (candidate := path.with_name(f"{path.stem}.damaged-{n}{path.suffix}")).exists()
    )
    for suffix in ("", *COMPANIONS):
        source = path.with_name(path.name + suffix)
        if source.exists():
            os.replace(source, aside.with_name(aside.name + suffix))
    return aside
