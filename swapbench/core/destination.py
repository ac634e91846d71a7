"""Replacing a command's output folder without losing anything.

The output is written into a staging folder beside the destination, `.NAME.building-HOST-PID-XXXX`, and swapped
in when it is complete. On Linux renameat2(RENAME_EXCHANGE), on macOS renamex_np(RENAME_SWAP), exchange the two
in one step, so that either the old or the new output is at the destination at every moment. Where neither
exists (another system, or a file system without the exchange, such as NFS), two renames leave a gap of
microseconds: a process killed in it leaves the old output at `.NAME.old-HOST-PID`, which the next run puts back.

Only the command's own earlier output (a folder holding its marker file, e.g. build_info.json) or an empty
folder is replaced, unless the user asks for --overwrite. A run removes the staging folders that runs on this
machine left when they died (SIGKILL, a crash): the process id in the name says whether one is still running.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import glob
import os
import re
import shutil
import socket
import sys
import tempfile
from pathlib import Path

import psutil

from .errors import SwapbenchError

AT_FDCWD = -100  # Linux: a path relative to the working directory
RENAME_EXCHANGE = 2  # Linux renameat2 flag
RENAME_SWAP = 2  # macOS renamex_np flag
NO_EXCHANGE = {errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP}


@contextlib.contextmanager
def atomic_directory(destination: Path, *, marker: str, overwrite: bool = False):
    """Yield a fresh folder that replaces `destination` if the block finishes without an exception.

    What is at `destination` is checked with `check_replaceable` before the block runs and again before the swap.
    """
    check_replaceable(destination, marker, overwrite)
    target = Path(destination).resolve()
    staging = _make_staging(destination, target)
    try:
        yield staging
        check_replaceable(destination, marker, overwrite)
        _swap_in(destination, staging, target)
    finally:
        _remove(staging)  # the unfinished output or, after the swap, the previous one


def check_replaceable(destination: Path, marker: str, overwrite: bool = False) -> None:
    """Refuse to replace anything but an earlier output of the command (a folder holding `marker`) or an empty
    folder, unless `overwrite`."""
    path = Path(destination)
    if overwrite or not path.exists():
        return
    if path.is_dir() and ((path / marker).is_file() or not any(path.iterdir())):
        return
    what = "a folder of files" if path.is_dir() else "a file" if path.is_file() else "not a folder"
    raise SwapbenchError(
        f"--out {destination} is {what} that swapbench did not write (no {marker} in it); it was "
        "left as it is: choose another folder, or pass --overwrite to replace it"
    )


def _make_staging(destination: Path, target: Path) -> Path:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _clear_leftovers(target)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.building-{_owner()}-", dir=target.parent))
    except OSError as err:
        raise SwapbenchError(f"--out {destination}: cannot write beside it ({err.strerror}: {err.filename})") from err
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)  # mkdtemp makes it private; the output is an ordinary folder
    return staging


def _owner() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


def _clear_leftovers(target: Path) -> None:
    """Remove what dead runs on this machine left beside `target`; put back an old output one left out."""
    # mkdtemp's random suffix has no "-", so a host name with dashes cannot be mistaken for another's.
    leftover = re.compile(
        rf"\.{re.escape(target.name)}\.(building|old)-{re.escape(socket.gethostname())}"
        r"-(\d+)(-[a-z0-9_]+)?"
    )
    for path in target.parent.glob(glob.escape(f".{target.name}.") + "*"):
        match = leftover.fullmatch(path.name)
        if not match or psutil.pid_exists(int(match[2])):
            continue
        if match[1] == "old" and not os.path.lexists(target):
            os.rename(path, target)  # the run died between the two renames of the fallback
        else:
            _remove(path)


def _swap_in(destination: Path, staging: Path, target: Path) -> None:
    """Put `staging` at `target`; what was at `target` ends up at `staging`."""
    try:
        if not os.path.lexists(target):
            os.rename(staging, target)
            return
        try:
            _exchange(staging, target)
        except OSError as err:
            if err.errno not in NO_EXCHANGE:
                raise
            old = target.with_name(f".{target.name}.old-{_owner()}")
            os.rename(target, old)
            os.rename(staging, target)
            os.rename(old, staging)
    except OSError as err:
        raise SwapbenchError(f"--out {destination}: cannot put the new output in place ({err.strerror})") from err


def _exchange(a: Path, b: Path) -> None:
    """Exchange two paths in one step; OSError with errno ENOSYS where the system cannot."""
    if sys.platform.startswith("linux"):
        name, args = "renameat2", (AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE)
    elif sys.platform == "darwin":
        name, args = "renamex_np", (os.fsencode(a), os.fsencode(b), RENAME_SWAP)
    else:
        name, args = None, ()
    function = getattr(ctypes.CDLL(None, use_errno=True), name, None) if name else None
    if function is None:  # glibc before 2.28 has no renameat2 either
        raise OSError(errno.ENOSYS, "no atomic exchange of two paths on this system")
    if function(*args) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(a), None, str(b))


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


__all__ = ["atomic_directory", "check_replaceable"]
