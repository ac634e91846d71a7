"""A source's declaration: what it is, where its data live, how its splits and fields are named.

A declaration is data, not code: a new NLI corpus in the release format SNLI set (JSON lines with gold_label,
pairID, sentence1, sentence2 and optional sentence1_parse), or one on the Hub, is a module holding one `Source` and
one registration in `registry.SOURCES`.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..core.errors import InputError
from ..core.labels import LABEL_NAMES
from ..core.registry import SOURCES

SHA256 = re.compile(r"[0-9a-f]{64}")


class Columns(BaseModel):
    """Which Hub columns hold the pair; `label_names[i]` is the NLI label of class index i (or of the string
    label_names[i] where the column holds strings)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    premise: str = "premise"
    hypothesis: str = "hypothesis"
    label: str = "label"
    label_names: tuple[str, ...] | None = None  # None: the column's ClassLabel names, else LABEL_NAMES
    pair_id: str | None = None  # None: ids made as <source>-<split>-<row index>
    premise_parse: str | None = None  # a column of PTB bracketed trees, in SNLI's format
    hypothesis_parse: str | None = None

    @model_validator(mode="after")
    def _known_labels(self) -> Columns:
        for name in self.label_names or ():
            if name not in LABEL_NAMES and name != "-":
                raise ValueError(f"label name {name!r} is none of {', '.join(LABEL_NAMES)} (or '-', no gold label)")
        return self


class Source(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="registry name, as --source takes it")
    short_name: str = Field(description="how tags and messages call it: SNLI, MultiNLI")
    pretty_name: str
    citation: str = Field(description="BibTeX")
    license: str = Field(description="SPDX-like id, as the Hub's card metadata takes it")
    license_note: str = ""
    homepage: str
    hub_id: str | None = None
    hub_revision: str | None = Field(None, description="the commit every Hub read is pinned to")
    hub_columns: Columns = Columns()
    release: str | None = Field(None, description="the release's name in messages: 'SNLI 1.0'")
    archive_url: str | None = None
    url_env: str | None = Field(None, description="environment variable that overrides archive_url")
    dir_env: str | None = Field(None, description="environment variable naming a folder of release files")
    archive_folder: str = Field("", description="the folder inside the archive that holds the split files")
    file_prefix: str = Field("", description="release file names are <prefix><file split>.jsonl")
    checksums: dict[str, str] = Field(
        default_factory=dict, description="sha256 of extracted release files, by file name"
    )
    splits: dict[str, str] = Field(description="canonical (Hub) split name -> the release file's split name")
    aliases: dict[str, str] = Field(default_factory=dict, description="other accepted split names -> canonical")
    split_pairs: dict[str, int] = Field(
        default_factory=dict,
        description="labelled pairs of each canonical split as released (rows "
        "without a gold label not counted): a copy with fewer is cut",
    )
    fields: tuple[str, ...] = Field(
        ("gold_label", "pairID", "sentence1", "sentence2"), description="fields every release row has"
    )
    extra_fields: tuple[str, ...] = Field((), description="further fields of the release, kept by no stage")
    pair_ids: str = Field(description="how pairs are identified")
    has_trees: bool = Field(description="whether the release carries PTB constituency trees of its sentences")
    open_splits: bool = Field(False, description="any split name the data have is accepted (Hub sources)")

    @model_validator(mode="after")
    def _consistent(self) -> Source:
        for name, digest in self.checksums.items():
            if not SHA256.fullmatch(digest):
                raise ValueError(f"checksum of {name} is not a sha256 hex digest")
        unknown = [a for a, c in self.aliases.items() if c not in self.splits]
        if unknown:
            raise ValueError(f"aliases {', '.join(unknown)} name no split")
        unknown = [name for name in self.split_pairs if name not in self.splits]
        if unknown:
            raise ValueError(f"split_pairs {', '.join(unknown)} name no split")
        if self.archive_url and not self.release:
            raise ValueError("an archive needs the release's name")
        return self

    def split_names(self) -> list[str]:
        return list(self.splits) + [a for a in self.aliases if a not in self.splits]

    def split(self, name: str) -> str:
        """The canonical name of split `name`; an InputError naming the accepted ones otherwise."""
        if name in self.splits:
            return name
        if name in self.aliases:
            return self.aliases[name]
        if self.open_splits:
            return name
        raise InputError(f"unknown split {name!r}: expected one of {', '.join(self.split_names())}")

    def file_split(self, name: str) -> str:
        """The release file's name for split `name` (SNLI: validation -> dev)."""
        canonical = self.split(name)
        return self.splits.get(canonical, canonical)

    def declared_pairs(self, name: str) -> int | None:
        """The labelled pairs split `name` has as released; None where the declaration does not say."""
        return self.split_pairs.get(self.split(name))

    def file_stem(self, name: str) -> str:
        return f"{self.file_prefix}{self.file_split(name)}"


SOURCES.accepts(Source, "instance")  # what its entries must be: core/registry.py checks each
