"""From what `--source` says to a source and its pairs.

`--source` may name a registered source (`snli`, `multinli`), `hub:ORG/NAME` (any NLI dataset by column mapping),
a Hub id, or a release file or folder. Without it, `$SWAPBENCH_SNLI_DIR` names a folder of SNLI files, else the
SNLI 1.0 release archive is read (downloaded once into the cache): the reference build's files, online as offline.
A path that exists on disk is always read as a path.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import InputError, SwapbenchError
from ..core.hub_access import is_hub_id
from ..core.registry import SOURCES
from .archive import DownloadError, archive_url, release_folder
from .declaration import Columns, Source
from .hub import HUB, HUB_PREFIX, hub_source, load_hub, local_hint
from .pair import SourceSplit
from .release import FILE_SUFFIXES, find_split_file, read_release_file

DEFAULT_SOURCE = "snli"
COLUMN_OPTIONS = "--premise, --hypothesis, --label, --label-names, --pair-id"


@dataclass(frozen=True)
class Resolved:
    source: Source
    kind: str  # "files" (a release file or folder), "archive" (the release archive in the cache) or "hub"
    where: str | None  # the path, or the Hub id / local Hub-layout folder
    tried: str = ""  # why this place was read, for the error when it cannot be
    named_by: str | None = None  # the environment variable that named the folder `where`, if one did


def default_source() -> Source:
    return SOURCES.get(DEFAULT_SOURCE)


def resolve(text: str | os.PathLike | None, option: str = "--source", columns: Columns | None = None) -> Resolved:
    """Where `text` points; no I/O beyond looking at the file system."""
    resolved = _resolve(None if text is None else str(text), option, columns)
    if columns is not None and not resolved.source.name.startswith(HUB_PREFIX):
        raise SwapbenchError(
            f"{COLUMN_OPTIONS} name the columns of a {HUB.name} source, not of {text or resolved.source.name}"
        )
    return resolved


def _resolve(text: str | None, option: str, columns: Columns | None) -> Resolved:
    if text is None:
        source = default_source()
        folder = os.environ.get(source.dir_env) if source.dir_env else None
        if folder:
            return Resolved(source, "files", folder, f"no {option} was given", named_by=source.dir_env)
        return Resolved(source, "archive", None, f"no {option} was given and ${source.dir_env} is unset")
    if Path(text).exists():
        return Resolved(_release_source(Path(text)), "files", text)
    if text.startswith(HUB_PREFIX):
        repo = text.removeprefix(HUB_PREFIX)
        if not repo:
            raise SwapbenchError(f"{option} {text}: name the dataset, {HUB.name}")
        return Resolved(hub_source(repo, columns), "hub", repo)
    if text in SOURCES.names() and text != HUB.name:
        return _declared(SOURCES.get(text), option)
    if is_hub_dataset(text):
        declared = [s.value for s in SOURCES if s.value.hub_id == text]
        source = declared[0] if declared else hub_source(text, columns)
        return Resolved(source, "hub", text, f"{text} is not a local file or folder")
    return Resolved(_release_source(Path(text)), "files", text)  # read, it says "no such file or folder"


def _declared(source: Source, option: str) -> Resolved:
    folder = os.environ.get(source.dir_env) if source.dir_env else None
    if folder:
        return Resolved(source, "files", folder, f"{option} {source.name} was given", named_by=source.dir_env)
    if source.archive_url:
        return Resolved(source, "archive", None, f"{option} {source.name} was given and ${source.dir_env} is unset")
    return Resolved(source, "hub", source.hub_id)


def _release_source(path: Path) -> Source:
    """The declared source whose release file names `path` has or holds; SNLI when none does."""
    names = [path.name] if not path.is_dir() else [p.name for p in path.iterdir()]
    for entry in SOURCES:
        prefix = entry.value.file_prefix
        if prefix and any(name.startswith(prefix) for name in names):
            return entry.value
    return default_source()


def is_hub_dataset(text: str) -> bool:
    """`owner/name` that names nothing on disk (see hub_access.is_hub_id) and is no file name."""
    owner, slash, name = text.partition("/")
    return bool(slash) and not name.endswith(FILE_SUFFIXES) and is_hub_id(text)


def source_named(name: str) -> Source:
    """The declaration a build recorded by name (build_info.json's source_name): snli, multinli, hub:ORG/NAME."""
    if name.startswith(HUB_PREFIX):
        return hub_source(name.removeprefix(HUB_PREFIX))
    return SOURCES.get(name)


def source_of(text: str | os.PathLike | None, columns: Columns | None = None, option: str = "--source") -> Source:
    return resolve(text, option, columns).source


def load_split(
    text: str | os.PathLike | None,
    split: str,
    limit: int | None = None,
    option: str = "--source",
    columns: Columns | None = None,
    *,
    cache_dir: Path | None = None,
    progress: bool = True,
    resolved: Resolved | None = None,
) -> SourceSplit:
    """One split of the source `text` names (see the module's docstring); `option` is the command-line option that
    names the source, for the messages. `resolved`: resolve(text, option, columns), when the caller has it."""
    resolved = resolved or resolve(text, option, columns)
    source = resolved.source
    source.split(split)  # validates the name before anything is read
    if resolved.kind == "hub":
        return load_hub(source, resolved.where, split, limit, resolved.tried, option)
    if resolved.kind == "files":
        return read_release_file(source, release_file(resolved, split, option), split, limit)
    try:
        folder = release_folder(source, cache_dir, progress=progress)
    except DownloadError as err:
        because = f" (tried because {resolved.tried})" if resolved.tried else ""
        raise SwapbenchError(
            f"cannot get the {source.release} release archive from {archive_url(source)}{because}: "
            f"{err}.{local_hint(source, split, option)}"
        ) from err
    path = find_split_file(source, folder, split)
    _verify(source, path)
    return read_release_file(source, path, split, limit)


def release_file(resolved: Resolved, split: str, option: str) -> Path:
    """The release file of `split` where `resolved` points; a folder named by an environment variable that does not
    hold it is blamed on the variable, which the user may have set long ago."""
    source = resolved.source
    try:
        return find_split_file(source, Path(resolved.where), split)
    except InputError as err:
        if resolved.named_by is None:
            raise
        archive = f", or unset it to read the {source.release} release archive" if source.archive_url else ""
        raise SwapbenchError(
            f"${resolved.named_by} names {resolved.where}, read because {resolved.tried}: {err}."
            f" Set ${resolved.named_by} to a folder holding {source.file_stem(split)}.jsonl "
            f"(or .jsonl.gz){archive}, or name the files with {option}"
        ) from err


def _verify(source: Source, path: Path) -> None:
    """The cached release file still has its declared sha256 (it was checked when extracted; this catches a copy
    changed since)."""
    expected = source.checksums.get(path.name)
    if not expected:
        return
    with open(path, "rb") as handle:
        found = hashlib.file_digest(handle, "sha256").hexdigest()
    if found != expected:
        raise InputError(
            f"sha256 {found} is not the {source.release} release's {expected}: the cached copy "
            f"changed; remove {path.parent} to download it again",
            path=str(path),
        )


def release_tag(source_text: str) -> str | None:
    """'SNLI dev', 'SNLI train_first1024', 'MultiNLI dev_matched' for a release file's path; None for another."""
    name = Path(source_text).name
    for suffix in (".gz", ".jsonl", ".txt"):
        name = name.removesuffix(suffix)
    for entry in SOURCES:
        prefix = entry.value.file_prefix
        if prefix and name.startswith(prefix):
            return f"{entry.value.short_name} {name.removeprefix(prefix)}"
    return None


def output_stem(source: Source) -> str:
    """A build's default folder name starts with this: snli, multinli, NAME of hub:ORG/NAME."""
    return Path(source.name.removeprefix(HUB_PREFIX)).name
