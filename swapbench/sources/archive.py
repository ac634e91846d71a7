"""A source's release archive, downloaded once into the cache and checked before anything reads it.

The download goes to `<archive>.part` beside the target and is renamed into place only once whole: an interrupted
download resumes from where it stopped (HTTP Range) or, when the server does not resume, starts over; nothing
half-written ever bears the archive's name. The archive must be a sound zip (every member's CRC), and the split
files extracted from it must have the sha256 the source declares. Extraction is staged the same way, so the
cache holds either a checked copy or nothing.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import zipfile
import zlib
from pathlib import Path

from ..core.errors import SwapbenchError
from ..core.paths import default_cache_dir
from .declaration import Source

CHUNK = 1 << 20
ATTEMPTS = 3  # requests per run: a dropped connection is resumed this many times before giving up
CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 8.0  # seconds without a byte; a stall mid-download is resumed, a server silent from the start is not
OFFLINE = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")  # the Hugging Face libraries' offline switches, honoured here too
SPLIT_SUFFIXES = (".jsonl", ".txt")


class DownloadError(SwapbenchError):
    pass


def archive_url(source: Source) -> str:
    return (source.url_env and os.environ.get(source.url_env)) or source.archive_url


def release_folder(source: Source, cache_dir: Path | None = None, *, progress: bool = True) -> Path:
    """The folder of the source's extracted and verified split files in the cache; downloads the archive first
    when the cache has no checked copy."""
    url = archive_url(source)
    home = (cache_dir or default_cache_dir()) / "sources" / source.name
    folder = home / (source.archive_folder or "release")
    if folder.is_dir():
        return folder
    archive = home / Path(url.split("?")[0]).name
    if not archive.is_file():
        offline = [name for name in OFFLINE if _is_true(os.environ.get(name))]
        if offline:
            raise DownloadError(f"{offline[0]} is set and the cache holds no copy of it ({archive})")
        home.mkdir(parents=True, exist_ok=True)
        download(url, archive, label=f"{source.release} archive", progress=progress)
    extract(source, archive, folder, url)
    return folder


def _is_true(value: str | None) -> bool:
    return (value or "").upper() in {"1", "ON", "YES", "TRUE"}


def download(url: str, target: Path, *, label: str, progress: bool = True) -> None:
    """`url` to `target` through `target.part`, resumed on a dropped connection; the zip checked before the
    rename."""
    import httpx

    part = target.with_name(target.name + ".part")
    last: Exception | None = None
    for _ in range(ATTEMPTS):
        try:
            _fetch(url, part, label, progress)
            break
        except (httpx.ConnectError, httpx.ConnectTimeout, _Silent) as err:
            raise DownloadError(f"{url} does not answer: {str(err) or type(err).__name__}") from err
        except (httpx.TransportError, _Incomplete) as err:
            last = err
    else:
        have = part.stat().st_size if part.exists() else 0
        cause = str(last) or type(last).__name__
        raise DownloadError(
            f"the download of {url} broke off after {have} bytes ({cause}); run the command again "
            f"to resume it ({part} is kept)"
        ) from last
    check_zip(part, url)
    os.replace(part, target)
    if progress:  # (as the download's bar: a caller that shows none is told nothing)
        logging.getLogger(__name__).info(
            f"Downloaded the {label} ({target.stat().st_size:,} bytes) from {url} into {target}."
        )


class _Incomplete(Exception):
    pass


class _Silent(Exception):
    """No answer within READ_TIMEOUT to a request: not retried."""


def _fetch(url: str, part: Path, label: str, progress: bool) -> None:
    import httpx

    have = part.stat().st_size if part.exists() else 0
    headers = {"Accept-Encoding": "identity", **({"Range": f"bytes={have}-"} if have else {})}
    timeout = httpx.Timeout(READ_TIMEOUT, connect=CONNECT_TIMEOUT)
    with httpx.Client(follow_redirects=True, timeout=timeout) as client:
        try:
            response = client.send(client.build_request("GET", url, headers=headers), stream=True)
        except httpx.ReadTimeout as err:
            raise _Silent(f"no answer in {READ_TIMEOUT:g} s") from err
        try:
            _receive(response, part, have, url, label, progress)
        finally:
            response.close()


def _receive(response, part: Path, have: int, url: str, label: str, progress: bool) -> None:
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    if response.status_code == 416:  # the part is longer than the file: start over
        part.unlink()
        raise _Incomplete("the partial download did not fit the file; starting over")
    resumed = response.status_code == 206 and response.headers.get("content-range", "").startswith(f"bytes {have}-")
    if response.status_code not in (200, 206) or (response.status_code == 206 and not resumed):
        raise DownloadError(f"cannot download {url}: HTTP {response.status_code} {response.reason_phrase}")
    start = have if resumed else 0
    length = response.headers.get("content-length")
    total = start + int(length) if length and length.isdigit() else None
    with (
        open(part, "ab" if resumed else "wb") as handle,
        Progress(
            TextColumn(f"Downloading {label}"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            disable=not progress,
            transient=True,
        ) as bar,
    ):
        task = bar.add_task("download", total=total, completed=start)
        for chunk in response.iter_raw():  # as received: a buffered chunk would be lost when the connection drops
            handle.write(chunk)
            bar.advance(task, len(chunk))
    size = part.stat().st_size
    if total is not None and size != total:
        raise _Incomplete(f"{size} of {total} bytes received")


def check_zip(path: Path, url: str) -> None:
    """A sound zip archive, or the file is removed and an error says what was wrong."""
    try:
        with zipfile.ZipFile(path) as archive:
            broken = archive.testzip()
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as err:
        broken, cause = None, str(err)
    else:
        cause = f"member {broken} fails its CRC check" if broken else None
    if cause:
        path.unlink(missing_ok=True)
        raise DownloadError(
            f"the archive downloaded from {url} is corrupt: {cause}. It was removed; the next run downloads it again"
        )


def extract(source: Source, archive: Path, folder: Path, url: str) -> None:
    """The split files of `archive` into `folder`, each declared checksum verified before the folder appears."""
    check_zip(archive, url)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        with zipfile.ZipFile(archive) as zipped:
            files = [m for m in zipped.infolist() if _is_split_file(source, m.filename)]
            # The releases hold each split twice, as JSON lines and as TSV: one copy is enough.
            members = [m for m in files if m.filename.endswith(".jsonl")] or files
            if not members:
                raise DownloadError(
                    f"the archive downloaded from {url} holds no {source.release} split files "
                    f"({source.file_prefix}*.jsonl)"
                )
            for member in members:
                with zipped.open(member) as data, open(staging / Path(member.filename).name, "wb") as out:
                    shutil.copyfileobj(data, out, CHUNK)
        for name, expected in source.checksums.items():
            path = staging / name
            if not path.is_file():
                raise DownloadError(f"the archive downloaded from {url} lacks {name}")
            with open(path, "rb") as handle:
                found = hashlib.file_digest(handle, "sha256").hexdigest()
            if found != expected:
                raise DownloadError(
                    f"{name} in the archive downloaded from {url} has sha256 {found}, not the "
                    f"{source.release} release's {expected}. The archive was removed; check "
                    f"{source.url_env or 'the URL'}"
                )
        os.replace(staging, folder)
    except DownloadError:
        archive.unlink(missing_ok=True)
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _is_split_file(source: Source, member: str) -> bool:
    path = Path(member)
    return (
        path.name.startswith(source.file_prefix)
        and path.suffix in SPLIT_SUFFIXES
        and "__MACOSX" not in path.parts
        and not path.name.startswith("._")
    )
