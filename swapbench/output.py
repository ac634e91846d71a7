"""Writing a build as a Hugging Face dataset repository: Parquet per configuration and build metadata (the dataset
card is card.py).

The folder is written beside its destination and swapped in at the end (destination.py).
"""

from __future__ import annotations

from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, Field

from .labels import LABEL_NAMES
from .selection import SelectionFile
from .version import __version__

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
    source_name: str | None = Field(default=None, description="the source read, as registered (sources): snli, "
                                                              "multinli, hub:ORG/NAME")
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
