"""Reading the benchmark that `swapbench build` wrote, from a local folder or a Hub dataset repo.

Each configuration's content fingerprint is recomputed over all its rows and checked against build_info.json,
so that the results name exactly the data they were computed on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from ..core.errors import InputError, SwapbenchError
from ..core.fingerprint import content_fingerprint
from ..core.hub_access import is_hub_id
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


def open_benchmark(path: str, *, configs: list[str] | None = None, split: str | None = None,
                   revision: str | None = None, limit: int | None = None) -> Benchmark:
    local = Path(path).is_dir()
    if not local and not is_hub_id(path):
        raise SwapbenchError(f"--data {path}: no such folder, and not a Hub dataset id (owner/name); "
                             f"`swapbench build --out {path}` makes one")
    # A Hub dataset is read at one commit throughout: its configurations, its build_info.json and its data.
    hub_revision = None if local else _hub_commit(path, revision)
    available = _local_config_names(Path(path)) if local else _hub_config_names(path, hub_revision)
    build_info = _local_build_info(Path(path)) if local else _hub_build_info(path, hub_revision)
    chosen = configs or available
    unknown = [c for c in chosen if c not in available]
    if unknown:
        raise SwapbenchError(f"{path} has no configuration {', '.join(map(repr, unknown))} "
                             f"(it has {', '.join(available)})")
    split = split or (build_info.split if build_info else "test")
    expected = {c.name: c.fingerprint for c in build_info.configs} if build_info else {}
    loaded = [_load_configuration(path, name, split, hub_revision, limit, expected.get(name)) for name in chosen]
    empty = [c.name for c in loaded if not c.rows]
    if len(empty) == len(loaded):
        raise SwapbenchError(f"no rows to score in {', '.join(empty)} of {path}")
    # The configurations not scored are read too, for their original labels only: chance is the whole split's.
    others = [_load_configuration(path, name, split, hub_revision, None, expected.get(name))
              for name in available if name not in chosen]
    keeping = [c for c in loaded + others if not c.non_entailment_view and c.rows]
    split_labels = {pair_id: label for c in keeping for pair_id, label in c.all_original_labels.items()}
    return Benchmark(path=path, revision=hub_revision, split=split, build_info=build_info,
                     configurations=[c for c in loaded if c.rows], limit=limit, empty=empty,
                     split_labels=split_labels, split_labels_from=sorted(c.name for c in keeping))


def _load_configuration(path: str, name: str, split: str, revision: str | None, limit: int | None,
                        expected: str | None) -> Configuration:
    import datasets

    try:
        if Path(path).is_dir():
            table = _local_table(Path(path), name, split)
        else:
            table = datasets.load_dataset(path, name, split=split, revision=revision)
    except (ValueError, FileNotFoundError, datasets.exceptions.DatasetsError) as err:
        raise SwapbenchError(f"cannot load configuration {name!r}, split {split!r} of {path}: {err}") from err
    columns = table.to_dict()
    # Dataset.features is a deep copy at each access: read once, and the label names looked up, not int2str'd.
    features = table.features
    gold = [features["label"].names[i] for i in columns["label"]]
    gold_original = [features["original_label"].names[i] for i in columns["original_label"]]
    fingerprint = content_fingerprint(columns)  # over the stored ClassLabel indices, as `swapbench build` does
    if expected is not None and fingerprint != expected:
        raise SwapbenchError(f"configuration {name!r} of {path} differs from what {BUILD_INFO} records "
                             f"({fingerprint} vs {expected}): the data were changed after the build")
    rows = len(gold)
    indices = columns.get("permutation_index")
    # --limit counts pairs: a configuration of K rows per pair (stored pair by pair) keeps K rows of each
    per_pair = rows // max(1, len(set(columns["pair_id"]))) if indices is not None else 1
    keep = slice(0, None if limit is None else limit * per_pair)
    return Configuration(
        name=name, pair_ids=columns["pair_id"][keep],
        originals=list(zip(columns["original_premise"], columns["original_hypothesis"]))[keep],
        perturbed=list(zip(columns["premise"], columns["hypothesis"]))[keep],
        gold=gold[keep], gold_original=gold_original[keep], tags=columns["tags"][keep],
        displacements=measure_rows(columns["permutation"][keep]),
        permutation_indices=None if indices is None else indices[keep],
        non_entailment_view="binary_label" in columns,
        rows=rows, all_pair_ids=frozenset(columns["pair_id"]), all_source_premises=frozenset(columns["source_premise"]),
        all_original_labels=dict(zip(columns["pair_id"], gold_original)),
        fingerprint=fingerprint, verified=expected is not None)


def _local_table(folder: Path, name: str, split: str):
    """A local configuration read from its Parquet files themselves: `datasets.load_dataset` would serve a cached
    copy named after the dataset card, so a folder changed after its build could be read as it was before."""
    import datasets
    import pyarrow.parquet as pq

    [config] = [c for c in card_configs(folder) if c["config_name"] == name]
    patterns = [f["path"] for f in config["data_files"] if f["split"] == split]
    files = sorted(p for pattern in patterns for p in folder.glob(pattern))
    if not files:
        raise FileNotFoundError(f"no {split!r} Parquet file for {name!r} ({', '.join(patterns) or 'no data_files'})")
    return datasets.Dataset(pq.read_table(files))  # the features (ClassLabel names) come from the schema metadata


def _local_build_info(folder: Path) -> BuildInfo | None:
    path = folder / BUILD_INFO
    if not path.is_file():
        return None
    return _read_build_info(path, str(path))


def _read_build_info(path: Path, where: str) -> BuildInfo:
    try:
        return BuildInfo.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, UnicodeDecodeError) as err:
        raise InputError(f"not the {BUILD_INFO} of a `swapbench build`: {err}", path=where) from err


def _local_config_names(folder: Path) -> list[str]:
    if not (folder / "README.md").is_file():
        raise SwapbenchError(f"{folder} has no README.md dataset card: is it a `swapbench build` output?")
    return [config["config_name"] for config in card_configs(folder)]


def _hub_config_names(repo: str, revision: str | None) -> list[str]:
    import datasets

    try:
        return datasets.get_dataset_config_names(repo, revision=revision)
    except Exception as err:  # the Hub client raises many kinds; all mean "cannot read that dataset"
        raise SwapbenchError(f"{repo!r} is neither a local folder nor a readable Hub dataset ({err}); "
                             "`swapbench build --out FOLDER` makes one") from err


def _hub_build_info(repo: str, revision: str | None) -> BuildInfo | None:
    """The build_info.json of a Hub dataset at `revision`; None when the repo has none there (the caller warns,
    and the results record its data as unverified). Any other failure to read it stops the evaluation."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError, LocalEntryNotFoundError

    where = f"{repo}@{revision or 'main'}/{BUILD_INFO}"
    try:
        path = hf_hub_download(repo, BUILD_INFO, repo_type="dataset", revision=revision)
    except LocalEntryNotFoundError as err:
        raise SwapbenchError(f"cannot read {where}: the Hub cannot be reached and the local cache has no copy "
                             f"({err}); without it the data cannot be checked against their build") from err
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
