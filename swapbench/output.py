"""Writing a build as a Hugging Face dataset repository: Parquet per configuration and build metadata (the dataset
card is card.py).

The folder is written beside its destination and swapped in at the end (destination.py).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, Field

from . import __version__
from .labels import LABEL_NAMES
from .selection import SelectionFile

BUILD_INFO = "build_info.json"


def common_features() -> dict[str, datasets.Feature]:
    """The columns every configuration has; variants add their own."""
    label = datasets.ClassLabel(names=list(LABEL_NAMES))
    return {
        "pair_id": datasets.Value("string"),
        "premise": datasets.Value("string"),
        "hypothesis": datasets.Value("string"),
        "label": label,
        "original_premise": datasets.Value("string"),
        "original_hypothesis": datasets.Value("string"),
        "original_label": label,
        "variant": datasets.Value("string"),
        "source_premise": datasets.Value("string"),
        "permutation": datasets.Sequence(datasets.Value("int32")),
        "tags": datasets.Sequence(datasets.Value("string")),
    }


# Every column that a figure, a slice or a label view of `swapbench eval` reads: the pair scored, its gold
# label, the original pair it is compared with and that pair's gold label, and (shuffle-sr) the binary label.
FINGERPRINT_COLUMNS = ("pair_id", "premise", "hypothesis", "label", "original_premise", "original_hypothesis",
                       "original_label", "binary_label")
FINGERPRINT_FORMAT = "swapbench-content-2"


def content_fingerprint(columns: dict[str, list]) -> str:
    """sha256 of the FINGERPRINT_COLUMNS that `columns` has, independent of the Parquet writer's version.

    Canonical form, in UTF-8: a header line, the JSON array [FINGERPRINT_FORMAT, names of the columns present in
    FINGERPRINT_COLUMNS order]; then one line per row, the JSON array of its values in that order (strings
    as they are, ensure_ascii off; ClassLabel columns as their stored indices). Lines end with a newline.
    """
    names = [name for name in FINGERPRINT_COLUMNS if name in columns]
    encode = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps would build an encoder per row
    digest = hashlib.sha256()
    digest.update(encode([FINGERPRINT_FORMAT, *names]).encode() + b"\n")
    for row in zip(*(columns[name] for name in names)):
        digest.update(encode(row).encode())
        digest.update(b"\n")
    return "sha256:" + digest.hexdigest()


class ConfigInfo(BaseModel):
    name: str = Field(description="configuration name, e.g. shuffle-3")
    description: str = Field(description="what the variant does")
    rows: int = Field(description="rows in the configuration")
    not_applicable: int = Field(description="pairs the variant did not apply to")
    fingerprint: str = Field(description="content_fingerprint of the FINGERPRINT_COLUMNS it has")
    num_bytes: int = Field(default=0, description="size of the configuration's Arrow table")
    tag_counts: dict[str, int] = Field(default_factory=dict, description="rows per slice tag")
    extra: dict = Field(default_factory=dict, description="variant-specific statistics")


class BuildInfo(BaseModel):
    swapbench_version: str = __version__
    split: str = Field(description="Hub split name of the built split")
    source: str = Field(description="SNLI file or Hub id read")
    source_fingerprint: str = Field(description="sha256 of the source file, or the Hub dataset fingerprint")
    rows_read: int = Field(description="rows read from the source, before --limit cut")
    dropped_no_gold: int = Field(description="rows dropped because their gold label is '-'")
    pairs: int = Field(description="labelled pairs the variants were applied to")
    limit: int | None = Field(description="--limit, when given")
    parser: str = Field(description="constituency backend")
    parser_version: str = Field(description="backend model and rules version")
    unique_premises: int = Field(description="distinct premises parsed")
    seed: int
    shuffle_scope: str = Field(description="'all' constituents of N words shuffled, or 'one'")
    configs: list[ConfigInfo]
    parser_agreement: dict | None = Field(default=None, description="spacy projection vs the supplied PTB trees")
    role_labeler: str | None = Field(default=None, description="--srl of shuffle-sr, when it was built")
    spacy_pipelines: list[str] = Field(default_factory=list, description="spaCy pipelines (name-version/spacy-"
                                       "version) any step ran: the parser, shuffle-sr's role labeler")
    sr_selection: SelectionFile | None = Field(default=None, description="the curation file shuffle-sr kept its "
                                                                         "swaps by (--sr-selection)")


def write_config(folder: Path, name: str, split: str, rows: dict[str, list], features: dict) -> int:
    """Write one configuration's Parquet file; ClassLabel columns hold label indices. Returns the table's bytes."""
    target = folder / name
    target.mkdir(parents=True, exist_ok=True)
    # The Arrow schema of `datasets.Features` carries the features (ClassLabel names included) in its metadata,
    # which `datasets.load_dataset` reads back; building the table directly skips a slow encode pass.
    schema = datasets.Features(features).arrow_schema
    table = pa.Table.from_pydict(rows, schema=schema)
    pq.write_table(table, target / f"{split}-00000-of-00001.parquet")
    return table.nbytes
