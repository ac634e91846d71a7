"""Publishing a built folder to the Hugging Face Hub: one commit holding the Parquet files, the card and
build_info.json, so that every revision of the repo carries the record its data are checked against.

commit_operations() computes the commit from the folder alone; push_folder() asks the Hub what the repo holds and
makes the commit on top of exactly that revision.
"""

from __future__ import annotations

import logging
from pathlib import Path

from huggingface_hub import CommitOperationAdd, CommitOperationDelete
from pydantic import ValidationError

from ..core.errors import SwapbenchError
from ..core.version import __version__
from ..results.build_record import BUILD_INFO, CARD, BuildInfo, card_configs
from .card import REPO_PLACEHOLDER

logger = logging.getLogger(__name__)


def published_files(folder: Path) -> list[str]:
    """The files a push commits, relative to `folder` and in order: the card, build_info.json, then each
    configuration's data files as the card lists them. Refuses a folder that is not a whole `swapbench build`."""
    for name in (CARD, BUILD_INFO):
        if not (folder / name).is_file():
            raise SwapbenchError(f"{folder} has no {name}: only a folder that `swapbench build` wrote can be pushed")
    try:
        info = BuildInfo.model_validate_json((folder / BUILD_INFO).read_text(encoding="utf-8"))
    except (ValidationError, UnicodeDecodeError) as err:
        raise SwapbenchError(f"{folder / BUILD_INFO} is not the record of a `swapbench build`: {err}") from err
    configs = card_configs(folder)
    carded, recorded = [c["config_name"] for c in configs], [c.name for c in info.configs]
    if carded != recorded:
        raise SwapbenchError(
            f"{folder / CARD} lists the configurations {carded}, {BUILD_INFO} {recorded}: build the folder again"
        )
    files = [CARD, BUILD_INFO]
    for config in configs:
        found = sorted(
            {
                path.relative_to(folder).as_posix()
                for entry in config["data_files"]
                for path in folder.glob(entry["path"])
                if path.is_file()
            }
        )
        if not found:
            raise SwapbenchError(
                f"{folder} has no data file of configuration {config['config_name']!r} "
                f"({', '.join(e['path'] for e in config['data_files'])})"
            )
        files += found
    return files


def commit_operations(folder: Path, repo_id: str, existing: list[str] | tuple[str, ...] = ()) -> list:
    """The operations of the one commit that publishes `folder` as `repo_id`: every published file added (the
    card with the repo id in its usage example), and the Parquet files of `existing` (the repo's files before) that
    the build does not have deleted, so that no configuration of an earlier build lingers beside the new one."""
    files = published_files(folder)
    card = (folder / CARD).read_text(encoding="utf-8").replace(f'"{REPO_PLACEHOLDER}"', f'"{repo_id}"')
    operations: list = [CommitOperationAdd(path_in_repo=CARD, path_or_fileobj=card.encode("utf-8"))]
    operations += [CommitOperationAdd(path_in_repo=name, path_or_fileobj=str(folder / name)) for name in files[1:]]
    operations += [
        CommitOperationDelete(path_in_repo=name)
        for name in sorted(existing)
        if name.endswith(".parquet") and name not in files
    ]
    return operations


def push_folder(folder: Path, repo_id: str, private: bool = False, api=None) -> str:
    """Publish `folder` as the dataset repo `repo_id` in one commit; returns the commit's id."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    api = api or HfApi()
    files = published_files(folder)  # a bad folder is refused before the Hub is asked anything
    info = BuildInfo.model_validate_json((folder / BUILD_INFO).read_text(encoding="utf-8"))
    logger.info(f"Pushing {len(files)} files of {folder} to the Hub dataset {repo_id} in one commit ...")
    try:
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        head = api.dataset_info(repo_id).sha
        existing = api.list_repo_files(repo_id, repo_type="dataset", revision=head)
        commit = api.create_commit(
            repo_id,
            commit_operations(folder, repo_id, existing),
            repo_type="dataset",
            parent_commit=head,
            commit_message=f"swapbench {__version__} build: {', '.join(c.name for c in info.configs)} ({info.split})",
            commit_description="Parquet files, dataset card and build_info.json of one `swapbench build`; "
            "`swapbench eval` checks the data against build_info.json at the same revision.",
        )
    except (HfHubHTTPError, OSError, ValueError) as err:  # ValueError: the Hub refused the card's metadata
        raise SwapbenchError(
            f"cannot push {folder} to the Hub dataset {repo_id}: {str(err).rstrip('.')}. Nothing "
            "was committed; the build is intact in its folder"
        ) from err
    logger.info(f"Pushed {repo_id} at commit {commit.oid}: {commit.commit_url}")
    return commit.oid
