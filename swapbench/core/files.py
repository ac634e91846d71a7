"""Files a command writes at the end of its work: checked for writability before the work starts, then written
beside their place and renamed into it, so that a failed write leaves what was there."""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; writers there are not kept apart
    fcntl = None

from .errors import SwapbenchError


def _nearest_existing(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_writable(path: Path, option: str) -> None:
    """Refuse, before any work, to aim at a file `path` that could not be written in the end: a folder is there,
    or the folder to hold it (or its nearest existing ancestor, the missing folders being made then) does not
    take a new file."""
    if path.is_dir():
        raise SwapbenchError(f"{option} {path} is a folder; give a file name. Nothing was done")
    folder = _nearest_existing(path.parent)
    try:
        with tempfile.TemporaryFile(dir=folder):  # a real file: permissions, read-only mounts
            pass
    except OSError as err:
        missing = path.absolute().parent.relative_to(folder).parts  # the folders that would be made
        where = f", where {folder / missing[0]} would be made," if len(missing) > 1 else ""
        why = (
            f"its folder {path.parent} does not exist and cannot be made: {folder}{where} takes no new file or "
            f"folder ({err.strerror})"
            if missing
            else f"the folder {folder} takes no new file ({err.strerror})"
        )
        raise SwapbenchError(
            f"cannot write {path} ({option}): {why}. Nothing was done; choose a writable place with {option}"
        ) from err


def replace_files(contents: dict[Path, str | bytes]) -> None:
    """Write every file (text as UTF-8, or bytes) beside its place, then rename them in: when a write fails, no
    file has been replaced. Raises OSError."""
    staged: list[tuple[Path, Path]] = []
    try:
        for path, data in contents.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            staging = staging_path(path)
            with open(staging, "xb") if isinstance(data, bytes) else open(staging, "x", encoding="utf-8") as stream:
                staged.append((staging, path))
                stream.write(data)
        for staging, path in staged:
            os.replace(staging, path)
    finally:
        for staging, _ in staged:
            with contextlib.suppress(FileNotFoundError):
                staging.unlink()


@contextlib.contextmanager
def folder_lock(folder: Path, shared: bool = False) -> Iterator[None]:
    """Hold an advisory lock on `folder` (flock on the folder itself, so no lock file is left behind): writers of
    files that go together take it exclusively, readers that need them consistent take it shared. The system
    lets it go when the process dies, even by kill -9, so a dead writer never blocks the next one."""
    if fcntl is None:
        yield
        return
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing the descriptor releases the lock


def staging_path(path: Path) -> Path:
    """A fresh name beside `path` to write it under before it is renamed into place: hidden, and unique to this
    process and call."""
    return path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")


def stale_staging(path: Path) -> list[Path]:
    """The staging files of `path` (staging_path) that are there: a writer that died left them."""
    return sorted(path.parent.glob(f".{glob_escape(path.name)}.*-*.tmp"))


def glob_escape(name: str) -> str:
    """`name` with glob's special characters taken literally."""
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


def rendered(write: Callable[[Path], object], suffix: str) -> bytes:
    """The bytes that `write(path)` puts in a file (a figure, which plotting libraries save to a path), written
    in a private temporary folder, for replace_files to put in place with the files that go with it."""
    with tempfile.TemporaryDirectory(prefix="swapbench-") as folder:
        path = Path(folder) / f"file{suffix}"
        write(path)
        return path.read_bytes()
