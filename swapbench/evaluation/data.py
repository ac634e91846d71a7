"""Reading the benchmark that `swapbench build` wrote, from a local folder or a Hub dataset repo.

Each configuration's content fingerprint is recomputed over all its rows and checked against build_info.json,
so that the results name exactly the data they were computed on.

Every file is checked before any model scores a pair: a Parquet file that cannot be read, lacks the feature
metadata that names the labels, lacks a column eval reads (or holds one of another type, or an empty value), or
holds a label outside its label names is refused naming the file, and the row where there is one; so is a card
whose data files leave the folder (results/build_record.py `card_configs`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import InputError, SwapbenchError, excerpt
from ..core.fingerprint import content_fingerprint
from ..core.hub_access import is_hub_id
from ..core.jsonl import read_json
from ..results.build_record import BUILD_INFO, BuildInfo, card_configs
from ..results.displacement import measure_rows


@dataclass
class Configuration:
    name: str
    pair_ids: list[str]
    originals: list[tuple[str, str]]  # (original_premise, original_hypothesis)
    perturbed: list[tuple[str, str]]  # (premise, hypothesis)
    gold: list[str]  # label of the perturbed pair
    gold_original: list[str]  # label of the original pair
    tags: list[list[str]]  # slice tags of each row
    # The variant makes every perturbed pair non-entailment (it has a binary_label column): report that rate.
    non_entailment_view: bool
    rows: int  # rows before --limit
    fingerprint: str
    verified: bool  # fingerprint matched build_info.json
    all_pair_ids: frozenset[str] = frozenset()  # of every row, before --limit: what no training may use
    all_source_premises: frozenset[str] = frozenset()  # SNLI's premise text of every row
    all_original_labels: dict[str, str] = field(default_factory=dict)  # pair id -> original label, every row
    # (distance, moved) of each scored row's premise shuffle (results/displacement.py), from its permutation; an
    # entry is None where the row reorders no premise, and the list None where the permutations were not read
    displacements: list[tuple[int, int] | None] | None = None
    # Which of its pair's permutations each scored row is, in a configuration of several rows per pair (unlu);
    # None in the others
    permutation_indices: list[int] | None = None


@dataclass
class Benchmark:
    path: str
    revision: str | None  # Hub commit; None for a local folder
    split: str
    build_info: BuildInfo | None
    configurations: list[Configuration]  # those with rows
    limit: int | None
    empty: list[str] = field(default_factory=list)  # configurations without rows (a variant that never applied)
    # The gold label of every original pair of the split in a configuration that keeps the source's labels (pair id
    # -> label), scored or not, and those configurations: what a constant answer is judged against (health.py).
    split_labels: dict[str, str] = field(default_factory=dict)
    split_labels_from: list[str] = field(default_factory=list)


def open_benchmark(
    path: str,
    *,
    configs: list[str] | None = None,
    split: str | None = None,
    revision: str | None = None,
    limit: int | None = None,
) -> Benchmark:
    local = Path(path).is_dir()
    if not local and not is_hub_id(path):
        raise SwapbenchError(
            f"--data {path}: no such folder, and not a Hub dataset id (owner/name); "
            f"`swapbench build --out {path}` makes one"
        )
    # A Hub dataset is read at one commit throughout: its configurations, its build_info.json and its data.
    hub_revision = None if local else _hub_commit(path, revision)
    available = _local_config_names(Path(path)) if local else _hub_config_names(path, hub_revision)
    build_info = _local_build_info(Path(path)) if local else _hub_build_info(path, hub_revision)
    chosen = configs or available
    unknown = [c for c in chosen if c not in available]
    if unknown:
        raise SwapbenchError(
            f"{path} has no configuration {', '.join(map(repr, unknown))} (it has {', '.join(available)})"
        )
    split = split or (build_info.split if build_info else "test")
    expected = {c.name: c.fingerprint for c in build_info.configs} if build_info else {}
    loaded = [_load_configuration(path, name, split, hub_revision, limit, expected.get(name)) for name in chosen]
    empty = [c.name for c in loaded if not c.rows]
    if len(empty) == len(loaded):
        raise SwapbenchError(f"no rows to score in {', '.join(empty)} of {path}")
    # The configurations not scored are read too, for their original labels only: chance is the whole split's.
    others = [
        _load_configuration(path, name, split, hub_revision, None, expected.get(name))
        for name in available
        if name not in chosen
    ]
    keeping = [c for c in loaded + others if not c.non_entailment_view and c.rows]
    split_labels = {pair_id: label for c in keeping for pair_id, label in c.all_original_labels.items()}
    return Benchmark(
        path=path,
        revision=hub_revision,
        split=split,
        build_info=build_info,
        configurations=[c for c in loaded if c.rows],
        limit=limit,
        empty=empty,
        split_labels=split_labels,
        split_labels_from=sorted(c.name for c in keeping),
    )


def _load_configuration(
    path: str, name: str, split: str, revision: str | None, limit: int | None, expected: str | None
) -> Configuration:
    import datasets

    try:
        if Path(path).is_dir():
            table = _local_table(Path(path), name, split)
        else:
            table = datasets.load_dataset(path, name, split=split, revision=revision)
            check_table(table, f"{path}@{revision or 'main'} ({name}, {split})")
    except (ValueError, FileNotFoundError, datasets.exceptions.DatasetsError) as err:
        raise SwapbenchError(f"cannot load configuration {name!r}, split {split!r} of {path}: {err}") from err
    columns = table.to_dict()
    # Dataset.features is a deep copy at each access: read once, and the label names looked up, not int2str'd.
    features = table.features
    gold = [features["label"].names[i] for i in columns["label"]]
    gold_original = [features["original_label"].names[i] for i in columns["original_label"]]
    fingerprint = content_fingerprint(columns)  # over the stored ClassLabel indices, as `swapbench build` does
    if expected is not None and fingerprint != expected:
        raise SwapbenchError(
            f"configuration {name!r} of {path} differs from what {BUILD_INFO} records "
            f"({fingerprint} vs {expected}): the data were changed after the build"
        )
    rows = len(gold)
    indices = columns.get("permutation_index")
    # --limit counts pairs: a configuration of K rows per pair (stored pair by pair) keeps K rows of each
    per_pair = rows // max(1, len(set(columns["pair_id"]))) if indices is not None else 1
    keep = slice(0, None if limit is None else limit * per_pair)
    return Configuration(
        name=name,
        pair_ids=columns["pair_id"][keep],
        originals=list(zip(columns["original_premise"], columns["original_hypothesis"]))[keep],
        perturbed=list(zip(columns["premise"], columns["hypothesis"]))[keep],
        gold=gold[keep],
        gold_original=gold_original[keep],
        tags=columns["tags"][keep],
        displacements=measure_rows(columns["permutation"][keep]),
        permutation_indices=None if indices is None else indices[keep],
        non_entailment_view="binary_label" in columns,
        rows=rows,
        all_pair_ids=frozenset(columns["pair_id"]),
        all_source_premises=frozenset(columns["source_premise"]),
        all_original_labels=dict(zip(columns["pair_id"], gold_original)),
        fingerprint=fingerprint,
        verified=expected is not None,
    )


def _local_table(folder: Path, name: str, split: str):
    """A local configuration read from its Parquet files themselves: `datasets.load_dataset` would serve a cached
    copy named after the dataset card, so a folder changed after its build could be read as it was before."""
    import datasets

    [config] = [c for c in card_configs(folder) if c["config_name"] == name]
    patterns = [f["path"] for f in config["data_files"] if f["split"] == split]
    held = sorted({f["split"] for f in config["data_files"]})
    if not held:
        raise FileNotFoundError(f"its card lists no data_files for {name!r}: {REBUILD}")
    if split not in held:
        raise FileNotFoundError(
            f"the folder holds no {split!r} split, only {', '.join(map(repr, held))}: give "
            f"--split {' or '.join(held)}, or leave --split out to score the split it was built "
            "from"
        )
    files = sorted(p for pattern in patterns for p in folder.glob(pattern))
    if not files:
        raise FileNotFoundError(f"no {split!r} Parquet file for {name!r} ({', '.join(patterns)})")
    inside = folder.resolve()
    for file in files:  # the card's patterns stay inside (card_configs); a link may not lead out either
        if not file.resolve().is_relative_to(inside):
            raise InputError(
                f"leads outside the dataset folder {folder} (to {file.resolve()}): {REBUILD}", path=str(file)
            )
    parts = [_read_parquet(file) for file in files]
    try:
        return parts[0] if len(parts) == 1 else datasets.concatenate_datasets(parts)
    except ValueError as err:
        raise InputError(
            f"the {split!r} files of {name!r} do not match each other ({err}): {REBUILD}", path=str(folder)
        ) from None


REBUILD = "rebuild the folder with `swapbench build`"


def _read_parquet(file: Path):
    """The Parquet file as a Dataset, its features (the ClassLabel names) from the schema metadata that `swapbench
    build` writes, checked (check_table); InputError naming the file when it cannot be read or is not a build's."""
    import datasets
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(file)
        table.validate(full=True)  # Parquet checks no UTF-8 nor offsets: a flipped byte would fail later, or not
    except (pa.ArrowException, OSError, ValueError) as err:  # a column name not UTF-8 is a UnicodeDecodeError
        problem = excerpt(" ".join(str(err).split()))  # on one line
        raise InputError(f"not a readable Parquet file ({problem}): {REBUILD}", path=str(file)) from None
    if b"huggingface" not in (table.schema.metadata or {}):
        raise InputError(
            "has no feature metadata (the `huggingface` entry of its Parquet schema, which names the "
            f"labels): it was not written by `swapbench build`; {REBUILD}",
            path=str(file),
        )
    try:
        dataset = datasets.Dataset(table)
    except (ValueError, TypeError, KeyError, AttributeError) as err:  # the metadata's JSON or features are broken
        raise InputError(
            f"broken feature metadata ({type(err).__name__}: {excerpt(err)}): {REBUILD}", path=str(file)
        ) from None
    check_table(dataset, str(file))
    return dataset


def _is_text(kind) -> bool:
    import pyarrow as pa

    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _is_integer(kind) -> bool:
    import pyarrow as pa

    return pa.types.is_integer(kind)


def _list_of(item):
    def is_list(kind) -> bool:
        import pyarrow as pa

        return (pa.types.is_list(kind) or pa.types.is_large_list(kind)) and item(kind.value_type)

    return is_list


# The columns eval reads, each with what it must hold; the label columns are ClassLabels besides.
TEXT, INTEGER = ("text", _is_text), ("an integer", _is_integer)
COLUMNS = {
    "pair_id": TEXT,
    "premise": TEXT,
    "hypothesis": TEXT,
    "label": INTEGER,
    "original_premise": TEXT,
    "original_hypothesis": TEXT,
    "original_label": INTEGER,
    "source_premise": TEXT,
    "tags": ("a list of texts", _list_of(_is_text)),
    "permutation": ("a list of integers", _list_of(_is_integer)),
}
OPTIONAL = {"permutation_index": INTEGER, "binary_label": INTEGER}
LABELS = ("label", "original_label")


def check_table(dataset, where: str) -> None:
    """InputError naming `where` (a file, or a Hub configuration) of the first thing in `dataset` that eval could not
    read: a missing column, one of another type or with an empty value, a label column without label names or with
    a value outside them. Checked before any row is used, so a damaged file is refused rather than half-scored."""
    import datasets
    import numpy as np

    table = dataset.data.table
    missing = [column for column in COLUMNS if column not in table.column_names]
    if missing:
        raise InputError(f"no column {', '.join(missing)}: {REBUILD}", path=where)
    for column, (kind, holds) in {**COLUMNS, **OPTIONAL}.items():
        if column not in table.column_names:
            continue
        values = table.column(column)
        if not holds(values.type):
            raise InputError(f"column {column} holds {values.type}, not {kind}: {REBUILD}", path=where)
        if values.null_count:
            row = int(np.flatnonzero(values.is_null().to_numpy(zero_copy_only=False))[0])
            raise InputError(f"row {row + 1}: column {column} is empty: {REBUILD}", path=where)
    for column in LABELS:
        feature = dataset.features[column]
        if not isinstance(feature, datasets.ClassLabel):
            raise InputError(
                f"column {column} has no label names (its feature is {excerpt(repr(feature))}, not a "
                f"ClassLabel): {REBUILD}",
                path=where,
            )
        labels = table.column(column).to_numpy()
        wrong = np.flatnonzero((labels < 0) | (labels >= feature.num_classes))
        if wrong.size:
            row = int(wrong[0])
            names = excerpt(", ".join(feature.names))
            raise InputError(
                f"row {row + 1}: {column} {labels[row]} is not one of its {feature.num_classes} labels "
                f"(0 to {feature.num_classes - 1}: {names}): {REBUILD}",
                path=where,
            )


def _local_build_info(folder: Path) -> BuildInfo | None:
    path = folder / BUILD_INFO
    if not path.is_file():
        return None
    return _read_build_info(path, str(path))


def _read_build_info(path: Path, where: str) -> BuildInfo:
    return read_json(path, BuildInfo, where=where, what=f"the {BUILD_INFO} of a `swapbench build`")


def _local_config_names(folder: Path) -> list[str]:
    if not (folder / "README.md").is_file():
        raise SwapbenchError(f"{folder} has no README.md dataset card: is it a `swapbench build` output?")
    return [config["config_name"] for config in card_configs(folder)]


def _hub_config_names(repo: str, revision: str | None) -> list[str]:
    import datasets

    try:
        return datasets.get_dataset_config_names(repo, revision=revision)
    except Exception as err:  # the Hub client raises many kinds; all mean "cannot read that dataset"
        raise SwapbenchError(
            f"{repo!r} is neither a local folder nor a readable Hub dataset ({err}); "
            "`swapbench build --out FOLDER` makes one"
        ) from err


def _hub_build_info(repo: str, revision: str | None) -> BuildInfo | None:
    """The build_info.json of a Hub dataset at `revision`; None when the repo has none there (the caller warns,
    and the results record its data as unverified). Any other failure to read it stops the evaluation."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError, LocalEntryNotFoundError

    where = f"{repo}@{revision or 'main'}/{BUILD_INFO}"
    try:
        path = hf_hub_download(repo, BUILD_INFO, repo_type="dataset", revision=revision)
    except LocalEntryNotFoundError as err:
        raise SwapbenchError(
            f"cannot read {where}: the Hub cannot be reached and the local cache has no copy "
            f"({err}); without it the data cannot be checked against their build"
        ) from err
    except EntryNotFoundError:
        return None
    except Exception as err:  # the Hub client raises many kinds; none may pass for a missing record
        raise SwapbenchError(f"cannot read {where}: {err}") from err
    return _read_build_info(Path(path), where)


def _hub_commit(repo: str, revision: str | None) -> str | None:
    from huggingface_hub import HfApi

    try:
        return HfApi().dataset_info(repo, revision=revision).sha
    except Exception:
        return revision  # offline with a cached copy: record what was asked for
