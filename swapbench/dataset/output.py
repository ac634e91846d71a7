"""Writing a build as a Hugging Face dataset repository: Parquet per configuration (the dataset card is card.py,
the build record results/build_record.py).

The folder is written beside its destination and swapped in at the end (destination.py).
"""

from __future__ import annotations

from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq

from ..core.labels import LABEL_NAMES


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
        "premise_tokens": datasets.Sequence(datasets.Value("string")),
        "permutation": datasets.Sequence(datasets.Value("int32")),
        "tags": datasets.Sequence(datasets.Value("string")),
    }


def parquet_path(config: str, split: str, fingerprint: str) -> str:
    """Where a configuration's Parquet file lies in the folder and in the Hub repo, as the card names it.

    Its name carries the content fingerprint: `datasets` names its cache of a local folder after the card alone
    (neither the files' bytes nor their times count), so a folder rebuilt in place with other rows of the same
    size, another seed's shuffles say, must have another card to be read anew.
    """
    return f"{config}/{split}-{fingerprint.removeprefix('sha256:')[:16]}.parquet"


def write_config(folder: Path, name: str, split: str, rows: dict[str, list], features: dict, fingerprint: str) -> int:
    """Write one configuration's Parquet file; ClassLabel columns hold label indices. Returns the table's bytes."""
    target = folder / parquet_path(name, split, fingerprint)
    target.parent.mkdir(parents=True, exist_ok=True)
    # The Arrow schema of `datasets.Features` carries the features (ClassLabel names included) in its metadata,
    # which `datasets.load_dataset` reads back; building the table directly skips a slow encode pass.
    schema = datasets.Features(features).arrow_schema
    table = pa.Table.from_pydict(rows, schema=schema)
    pq.write_table(table, target)
    return table.nbytes
