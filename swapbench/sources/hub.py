"""Reading an NLI dataset from the Hugging Face Hub (or a local folder laid out as the Hub serves it) by column
mapping; a declared source's Hub copy is read at its pinned revision."""

from __future__ import annotations

from pathlib import Path

from ..core.errors import InputError, SwapbenchError
from ..core.hub_access import hub_unreachable
from ..core.labels import LABEL_NAMES
from ..core.registry import SOURCES
from .declaration import Columns, Source
from .pair import Pair, SourceSplit, take_labelled
from .release import NO_GOLD, check_pairs, parse_field

HUB_PREFIX = "hub:"
HUB = Source(
    name="hub:ORG/NAME",
    short_name="Hub dataset",
    pretty_name="an NLI dataset on the Hugging Face Hub",
    citation="",
    license="other",
    license_note="the dataset's own licence, stated on its card",
    homepage="https://huggingface.co/datasets",
    splits={"train": "train", "validation": "validation", "test": "test"},
    aliases={"dev": "validation"},
    open_splits=True,
    has_trees=False,
    pair_ids="the --pair-id column, else <NAME>-<split>-<row index>",
)
SOURCES.add(
    HUB.name,
    HUB,
    pattern=r"hub:(.+)",
    help="any NLI dataset on the Hub, or a local folder laid out as the Hub serves it, read by column: "
    "--premise, --hypothesis, --label, --label-names, --pair-id",
)


def hub_source(repo: str, columns: Columns | None = None) -> Source:
    """The generic Hub source of `repo` with `columns` (default: premise, hypothesis, label)."""
    return HUB.model_copy(
        update={
            "name": f"{HUB_PREFIX}{repo}",
            "hub_id": repo,
            "hub_columns": columns or Columns(),
            "pretty_name": repo,
            "homepage": _homepage(repo),
        }
    )


def _homepage(repo: str) -> str:
    return f"https://huggingface.co/datasets/{repo}" if not Path(repo).is_dir() else HUB.homepage


def load_hub(source: Source, repo: str, split: str, limit: int | None, tried: str, option: str) -> SourceSplit:
    """One split of `repo`, read by `source.hub_columns`; `tried` says why the Hub was asked, for the error raised
    when it cannot answer."""
    name = source.split(split)
    revision = source.hub_revision if repo == source.hub_id and not Path(repo).is_dir() else None
    dataset = _hub_dataset(source, repo, name, revision, tried, option)
    columns = source.hub_columns
    missing = [
        c
        for c in (
            columns.premise,
            columns.hypothesis,
            columns.label,
            columns.pair_id,
            columns.premise_parse,
            columns.hypothesis_parse,
        )
        if c and c not in dataset.column_names
    ]
    if missing:
        raise InputError(
            f"no column(s) {', '.join(missing)} (it has {', '.join(dataset.column_names)}); name them "
            "with --premise, --hypothesis, --label, --pair-id",
            path=f"{repo}[{name}]",
        )
    names = _label_names(dataset.features[columns.label], columns, f"{repo}[{name}]")
    prefix = Path(source.name.removeprefix(HUB_PREFIX)).name
    where = f"{repo}[{name}]"

    def to_pair(numbered) -> Pair | None:
        index, row = numbered
        label = _label(row[columns.label], names, where, index + 1)
        if label is None:
            return None
        for column in (columns.premise, columns.hypothesis):
            if not isinstance(row[column], str) or not row[column].strip():
                raise InputError(f"empty {column}", path=where, line=index + 1)
        pair_id = str(row[columns.pair_id]).strip() if columns.pair_id else f"{prefix}-{name}-{index}"
        return Pair(
            pair_id=pair_id,
            premise=row[columns.premise].strip(),
            hypothesis=row[columns.hypothesis].strip(),
            label=label,
            premise_parse=_parse(row, columns.premise_parse, where, index + 1),
            hypothesis_parse=_parse(row, columns.hypothesis_parse, where, index + 1),
            path=where,
            line=index + 1,
        )

    taken = take_labelled(enumerate(dataset), to_pair, limit)
    pairs = taken.pairs
    if not pairs:
        raise InputError(f"no labelled pairs in split {name}", path=repo)
    check_pairs(pairs)
    return SourceSplit(
        pairs=pairs,
        split=name,
        source=repo,
        fingerprint=f"hub:{dataset._fingerprint}",
        rows_read=taken.read,
        dropped_no_gold=taken.dropped,
        limited=taken.limited,
        declaration=source,
        declared_pairs=source.declared_pairs(name) if revision else None,
    )  # the declared copy


def _label_names(feature, columns: Columns, where: str) -> tuple[str, ...]:
    names = columns.label_names or tuple(getattr(feature, "names", None) or LABEL_NAMES)
    unknown = [n for n in names if n not in LABEL_NAMES and n != NO_GOLD]
    if unknown:
        raise InputError(
            f"label names {', '.join(unknown)} are not NLI labels: map the column's classes in order "
            f"with --label-names (e.g. {','.join(LABEL_NAMES)})",
            path=where,
        )
    return names


def _label(value, names: tuple[str, ...], where: str, line: int) -> str | None:
    """The NLI label of a row's label cell; None for a row without gold label (-1, '-' or empty)."""
    if isinstance(value, str):
        value = value.strip()
        if value in ("", NO_GOLD):
            return None
        if value in LABEL_NAMES:
            return value
        raise InputError(
            f"unknown label {value!r}: expected one of {', '.join(LABEL_NAMES)} or '-'", path=where, line=line
        )
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"label must be a class index or a name, not {type(value).__name__}", path=where, line=line)
    if value < 0:
        return None
    if value >= len(names):
        raise InputError(
            f"label {value} has no name: the names are {', '.join(names)} (--label-names)", path=where, line=line
        )
    return None if names[value] == NO_GOLD else names[value]


def _parse(row: dict, column: str | None, where: str, line: int) -> str | None:
    return parse_field(row, column, where, line) if column else None


def _hub_dataset(source: Source, repo: str, split: str, revision: str | None, tried: str, option: str):
    """The split from the Hub, or from datasets' cache in offline mode (HF_HUB_OFFLINE=1).

    An unreachable Hub is an error at once: asked directly, huggingface_hub retries it for half a minute.
    """
    import datasets
    from huggingface_hub import constants

    cause = None
    if constants.HF_HUB_OFFLINE:
        cause = "HF_HUB_OFFLINE is set and the datasets cache does not hold it"
    elif not Path(repo).is_dir() and (unanswered := hub_unreachable()):  # a local copy needs no Hub
        raise _not_loaded(
            source,
            repo,
            split,
            tried,
            f"{unanswered}; to use a copy in the datasets cache, set HF_HUB_OFFLINE=1",
            option,
        )
    try:
        return datasets.load_dataset(repo, split=split, revision=revision)
    except (ConnectionError, FileNotFoundError) as err:
        raise _not_loaded(source, repo, split, tried, cause or first_line(err), option) from err
    except ValueError as err:  # datasets' answer to a split the dataset lacks
        if "split" not in str(err).lower():
            raise
        raise InputError(f"no split {split!r}: {first_line(err)}", path=repo) from err


def _not_loaded(source: Source, repo: str, split: str, tried: str, cause: str, option: str) -> SwapbenchError:
    because = f" (tried because {tried})" if tried else ""
    return SwapbenchError(f"cannot load the Hub dataset {repo}{because}: {cause}.{local_hint(source, split, option)}")


def local_hint(source: Source, split: str, option: str) -> str:
    """How to read the release files instead, where the source has a release."""
    if not source.release:
        return ""
    return (
        f" To read local {source.release} files, pass {option} or set {source.dir_env} to a folder holding "
        f"{source.file_stem(split)}.jsonl (or .txt, optionally .gz)"
    )


def first_line(err: Exception) -> str:
    return (str(err).strip().splitlines() or [type(err).__name__])[0]
