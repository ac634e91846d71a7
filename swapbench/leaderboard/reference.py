"""The leaderboard's reference dataset: the content fingerprint of each configuration a submission may report.

Only sha256 hashes and row counts are stored (leaderboard/reference.json), never SNLI text. A results file names
the configurations it scored with their fingerprints (dataset.configurations); each must be the reference's.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, ValidationError

from ..core.errors import SwapbenchError
from ..core.strict import Strict
from ..results.build_record import BUILD_INFO, BuildInfo, settings_model
from ..results.schema import dataset_fingerprint
from .store import write_atomically

REFERENCE_FILE = "reference.json"
REWRITE_HINT = "`swapbench leaderboard --set-reference DATA_FOLDER` rewrites it from a build"


class ReferenceConfiguration(Strict):
    fingerprint: str = Field(description="content_fingerprint of the configuration (build_info.json)")
    rows: int = Field(ge=1, description="rows in the configuration")


class Reference(
    settings_model(
        "ReferenceSettings",
        ("split", "source_fingerprint", "parser", "seed", "shuffle_scope"),
        Strict,
        "The settings of the build the board's reference was made from.",
    )
):
    description: str = Field(description="what the reference dataset is and how to rebuild it")
    configurations: dict[str, ReferenceConfiguration] = Field(min_length=1)

    def fingerprint_of(self, names) -> str:
        """dataset_fingerprint that a results file scoring exactly these configurations must carry."""
        return dataset_fingerprint({name: self.configurations[name].fingerprint for name in names})


def reference_from_build(folder: Path) -> Reference:
    """The reference of a `swapbench build` output folder, read from its build_info.json."""
    path = folder / BUILD_INFO
    if not path.is_file():
        raise SwapbenchError(f"{folder} has no {BUILD_INFO}: is it a `swapbench build` output?")
    info = BuildInfo.model_validate_json(path.read_text(encoding="utf-8"))
    if info.limit is not None:
        raise SwapbenchError(f"{folder} was built with --limit {info.limit}: a reference holds every pair")
    description = (
        f"{Path(info.source).name} ({info.source_fingerprint}), split {info.split!r}, as built by "
        f"`swapbench build --split {info.split}` (parser {info.parser}, seed {info.seed}, shuffle scope "
        f"{info.shuffle_scope}, swapbench {info.swapbench_version}). Only the sha256 content fingerprint "
        "and row count of each configuration are kept here, no text."
    )
    return Reference(
        description=description,
        split=info.split,
        source_fingerprint=info.source_fingerprint,
        parser=info.parser,
        seed=info.seed,
        shuffle_scope=info.shuffle_scope,
        configurations={c.name: ReferenceConfiguration(fingerprint=c.fingerprint, rows=c.rows) for c in info.configs},
    )


def load_reference(board: Path) -> Reference:
    path = board / REFERENCE_FILE
    if not path.is_file():
        raise SwapbenchError(
            f"{path} is missing: the board has no reference dataset "
            "(`swapbench leaderboard --set-reference DATA_FOLDER` writes it)"
        )
    try:
        return Reference.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError as err:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'file'}: {e['msg']}" for e in err.errors(include_url=False)
        )
        raise SwapbenchError(f"{path} is not a valid reference ({problems}); {REWRITE_HINT}") from err
    except (OSError, UnicodeDecodeError) as err:
        raise SwapbenchError(f"cannot read {path} ({err}); {REWRITE_HINT}") from err


def write_reference(board: Path, reference: Reference) -> Path:
    path = board / REFERENCE_FILE
    write_atomically(path, (reference.model_dump_json(indent=2) + "\n").encode("utf-8"))
    return path
