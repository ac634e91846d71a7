"""Telling a Hub id from a local path, and knowing at once whether the Hugging Face Hub can be reached.

Asked for a file it does not have, huggingface_hub retries an unreachable Hub for about half a minute before it
gives up, and a path that does not exist reads to it as a malformed repo id ("Repo id must be in the form...").
So a model is first checked here: a name that is neither an existing path nor a Hub id is refused as a missing
path, and when the Hub does not answer one quick request, models are loaded from the local cache alone
(`local_files_only`), and refused at once when the cache does not have them.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from .errors import SwapbenchError

HUB_TIMEOUT = 5.0  # seconds to wait for the Hub's answer before loading from the local cache alone


def is_hub_id(name: str) -> bool:
    """Whether `name` reads as a Hub repo id (`name` or `owner/name`) that is not a local path: nothing exists at
    `name`, `owner` is not a local folder, and the Hub's own rules accept it (no leading `.`, `/` or `~`, no
    second `/`, ...)."""
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    owner, slash, _ = name.partition("/")
    if Path(name).exists() or (slash and Path(owner).is_dir()):
        return False
    try:
        validate_repo_id(name)
    except HFValidationError:
        return False
    return True


def check_model(name: str, revision: str | None = None, file: str = "config.json") -> None:
    """Refuse at once a model that cannot load: a path that does not exist (a name that is not a Hub id), or a Hub
    id while the Hub is out of reach and the local cache has no copy of its `file` (its config, or the GGUF file
    that holds one)."""
    from huggingface_hub import try_to_load_from_cache

    if Path(name).expanduser().exists():
        return
    if not is_hub_id(name):
        raise SwapbenchError(
            f"cannot load model {name!r}: no such folder ({Path(name).expanduser().absolute()} "
            "does not exist), and it is not a Hub model id (name or owner/name)"
        )
    if cache_only(name) and not isinstance(try_to_load_from_cache(name, file, revision=revision), str):
        raise SwapbenchError(_not_cached(name))


@functools.cache
def hub_unreachable() -> str | None:
    """Why the Hub cannot be asked (offline mode, or no answer to one request with a short timeout and no
    retries); None when it answers. Asked once per process."""
    from huggingface_hub import constants, get_session

    if constants.HF_HUB_OFFLINE:
        return "HF_HUB_OFFLINE is set"
    try:
        get_session().head(constants.ENDPOINT, timeout=min(HUB_TIMEOUT, constants.HF_HUB_ETAG_TIMEOUT))
    except Exception as err:  # whatever the HTTP library raises (httpx's errors today): no answer
        return f"{constants.ENDPOINT} does not answer: {str(err) or type(err).__name__}"
    return None


def cache_only(name: str) -> bool:
    """Whether to load model `name` from the local Hugging Face cache alone: a Hub id while the Hub is out of
    reach (a local folder never asks the Hub)."""
    return not Path(name).expanduser().exists() and hub_unreachable() is not None


def load_failure(name: str, err: Exception) -> str:
    """What to tell the user when model `name` did not load."""
    offline = f" (only the local cache was read: the Hub cannot be reached, {hub_unreachable()})" * cache_only(name)
    return f"cannot load model {name!r}: {err}{offline}"


def _not_cached(name: str) -> str:
    return (
        f"cannot load model {name!r}: the Hub cannot be reached ({hub_unreachable()}) and the local Hugging Face "
        "cache has no copy of it. Give a local folder, or load it once where the Hub can be reached"
    )


COMMIT = re.compile(r"[0-9a-f]{40}")


def hub_commit(name: str, revision: str | None = None, file: str = "config.json") -> str | None:
    """The commit of a Hub model at `revision` (a branch, tag or commit): the snapshot folder huggingface_hub
    keeps its `file` in (its config.json, or the GGUF file that holds one), resolved through the local cache, or
    the Hub when it can be reached. None when neither has it."""
    from huggingface_hub import hf_hub_download

    if not is_hub_id(name):
        return None
    try:
        path = Path(hf_hub_download(name, file, revision=revision, local_files_only=cache_only(name)))
    except (OSError, ValueError):  # not in the cache, not on the Hub, not a repo id: load_config says why
        return None
    snapshot = path.parents[len(Path(file).parts) - 1].name
    return snapshot if COMMIT.fullmatch(snapshot) else None
