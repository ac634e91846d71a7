"""The record of a build (build_info.json): what was read, how it was parsed, and each configuration's rows and
content fingerprint. The build writes it, eval checks data against it, and the leaderboard's reference is made
from it."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath, PureWindowsPath

import yaml
from pydantic import BaseModel, Field, create_model

from ..core.declared import line_of, refuse_aliases
from ..core.errors import InputError, excerpt
from ..core.jsonl import read_text
from ..core.selection import SelectionFile
from ..core.version import __version__
from .displacement import Displacement

BUILD_INFO = "build_info.json"
CARD = "README.md"  # the dataset card, whose `configs:` block names each configuration's files


class ConfigInfo(BaseModel):
    name: str = Field(description="configuration name, e.g. shuffle-3")
    description: str = Field(description="what the variant does")
    rows: int = Field(description="rows in the configuration")
    not_applicable: int = Field(description="pairs the variant did not apply to")
    fingerprint: str = Field(description="content_fingerprint of the FINGERPRINT_COLUMNS it has")
    num_bytes: int = Field(default=0, description="size of the configuration's Arrow table")
    tag_counts: dict[str, int] = Field(default_factory=dict, description="rows per slice tag")
    extra: dict = Field(default_factory=dict, description="variant-specific statistics")
    displacement: Displacement | None = Field(
        default=None,
        description="how far its shuffles move words, over its rows that reorder the premise "
        "(results/displacement.py); null for a configuration that reorders none (a role "
        "swap) and in older builds",
    )


class BuildInfo(BaseModel):
    swapbench_version: str = __version__
    split: str = Field(description="Hub split name of the built split")
    source: str = Field(
        description="SNLI file or Hub id read (a path: from the working folder, ./x, or by its last parts, …/a/b)"
    )
    source_name: str | None = Field(
        default=None, description="the source read, as registered (sources): snli, multinli, hub:ORG/NAME"
    )
    source_fingerprint: str = Field(description="sha256 of the source file, or the Hub dataset fingerprint")
    rows_read: int = Field(description="rows read from the source, before --limit cut")
    dropped_no_gold: int = Field(description="rows dropped because their gold label is '-'")
    pairs: int = Field(description="labelled pairs the variants were applied to")
    limit: int | None = Field(description="--limit, when given")
    parser: str = Field(description="constituency backend")
    parser_version: str = Field(description="backend model and rules version")
    unique_premises: int = Field(description="distinct premises parsed")
    seed: int
    shuffle_scope: str = Field(
        default="all",
        description="'one' constituent of N words shuffled per premise, or "
        "'all' of them (--shuffle-scope); 'all' in builds made "
        "before it was recorded, which shuffled every one",
    )
    configs: list[ConfigInfo]
    parser_agreement: dict | None = Field(default=None, description="spacy projection vs the supplied PTB trees")
    role_labeler: str | None = Field(
        default=None, description="--srl of the role swaps (shuffle-sr, shuffle-sr-premise), when one was built"
    )
    spacy_pipelines: list[str] = Field(
        default_factory=list,
        description="spaCy pipelines (name-version/spacy-version) any step ran: the parser, shuffle-sr's role labeler",
    )
    sr_selection: SelectionFile | None = Field(
        default=None, description="the curation file shuffle-sr kept its swaps by (--sr-selection)"
    )
    variant_options: dict[str, dict] = Field(
        default_factory=dict,
        description="each configuration's own options (its variant's), by configuration name; absent from older builds",
    )


def card_configs(folder: Path) -> list[dict]:
    """The `configs:` block of the folder's dataset card, each configuration's name and data files as `swapbench
    build` writes them; InputError naming the card and line otherwise. A card is data: its data files are refused
    unless each is a relative path inside the folder (no "..", no absolute path, no URL), before anything is read."""
    path = folder / CARD
    text = read_text(path)
    parts = text.split("---", 2)
    if parts[0].strip() or len(parts) < 3:
        raise InputError(
            "no YAML front matter (between two --- lines): not the card of a `swapbench build`", path=str(path), line=1
        )
    try:  # the front matter's lines are the card's: parts[1] starts on the line of the first ---
        refuse_aliases(parts[1], path)
        root = yaml.compose(parts[1], Loader=yaml.SafeLoader)
        header = yaml.safe_load(parts[1])
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise InputError(
            f"front matter is not YAML: {excerpt(getattr(err, 'problem', None) or err)}",
            path=str(path),
            line=mark.line + 1 if mark else None,
        ) from None

    def refuse(location: tuple, problem: str):
        where = ".".join(map(str, location))
        raise InputError(
            f"{where}: {problem}; rebuild the folder with `swapbench build`",
            path=str(path),
            line=line_of(root, location) if root is not None else 1,
        )

    configs = header.get("configs") if isinstance(header, dict) else None
    if not isinstance(configs, list) or not configs:
        refuse(("configs",), "expected a list of configurations in the front matter")
    for i, config in enumerate(configs):
        if not isinstance(config, dict) or not isinstance(config.get("config_name"), str):
            refuse(("configs", i), "expected a mapping with a config_name")
        if any(other.get("config_name") == config["config_name"] for other in configs[:i]):
            refuse(("configs", i, "config_name"), f"{excerpt(config['config_name'])!r} is named twice")
        files = config.get("data_files")
        if not isinstance(files, list) or not files:
            refuse(("configs", i, "data_files"), "expected a list of {split, path}")
        for j, entry in enumerate(files):
            if not (
                isinstance(entry, dict) and isinstance(entry.get("split"), str) and isinstance(entry.get("path"), str)
            ):
                refuse(("configs", i, "data_files", j), "expected a mapping of a split and a path")
            problem = outside_problem(entry["path"])
            if problem:
                refuse(("configs", i, "data_files", j, "path"), f"{excerpt(entry['path'])!r} {problem}")
    return configs


def outside_problem(pattern: str) -> str | None:
    """Why the data-file path (or glob) `pattern` of a card could reach outside its folder, or None."""
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", pattern) or pattern.startswith(("\\\\", "//")):
        return "is a URL or drive: a data file must be a relative path inside the dataset folder"
    if not pattern.strip() or PurePosixPath(pattern).is_absolute() or PureWindowsPath(pattern).is_absolute():
        return "is not a relative path: a data file must be a relative path inside the dataset folder"
    if ".." in PurePosixPath(pattern.replace("\\", "/")).parts:
        return "leaves the dataset folder (..): a data file must be a relative path inside it"
    return None


def settings_model(name: str, fields: tuple[str, ...], base: type[BaseModel], doc: str) -> type[BaseModel]:
    """A model of some of the build record's fields, typed and described as BuildInfo declares them and all
    required: what a results file keeps of its data's build, or what the leaderboard's reference pins."""
    chosen = {
        field: (
            BuildInfo.model_fields[field].annotation,
            Field(description=BuildInfo.model_fields[field].description or field),
        )
        for field in fields
    }
    model = create_model(name, __base__=base, __module__=base.__module__, **chosen)
    model.__doc__ = doc
    return model
