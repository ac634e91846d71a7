"""Where the tests find SNLI 1.0's release files, defined once (the `shared_snli` fixture of conftest.py uses it).

In order: $SWAPBENCH_SHARED_SNLI (the tests' own variable), $SWAPBENCH_SNLI_DIR (the one the README teaches for
`make build`: set for the build, it serves the tests too), else ../shared/data/snli_1.0 beside the repository. The
folder holds the release's test and dev files, as released (.jsonl) or compressed (.jsonl.gz). The variables are
read once, when the tests start: conftest's private_cache fixture unsets SWAPBENCH_SNLI_DIR for every test, so that
no test reads the user's data by accident. A test that needs the files and finds none is skipped with a reason that
names the folder, which variable or default named it, and how to run it.
"""

from __future__ import annotations

import gzip
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

VARIABLES = ("SWAPBENCH_SHARED_SNLI", "SWAPBENCH_SNLI_DIR")
SPLITS = ("test", "dev")  # the release files the integration tests read


def release_file(folder: Path, split: str) -> Path | None:
    """The release file of `split` in `folder` (snli_1.0_<split>.jsonl or .jsonl.gz); None when absent."""
    return next(
        (path for suffix in (".jsonl", ".jsonl.gz") if (path := folder / f"snli_1.0_{split}{suffix}").is_file()), None
    )


def release_bytes(folder: Path, split: str) -> bytes:
    """The release file of `split` in `folder` as released (decompressed)."""
    data = release_file(folder, split).read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


@dataclass(frozen=True)
class SharedSnli:
    folder: Path
    named_by: str  # "$SWAPBENCH_SNLI_DIR", or the default's words

    def skip_reason(self) -> str | None:
        """Why a test that reads the files cannot run; None when it can."""
        missing = [f"snli_1.0_{split}.jsonl" for split in SPLITS if release_file(self.folder, split) is None]
        if not missing:
            return None
        return (
            f"needs SNLI 1.0's release files: {self.folder} (named by {self.named_by}) holds no "
            f"{' nor '.join(missing)} (nor .jsonl.gz). Set SWAPBENCH_SNLI_DIR (or SWAPBENCH_SHARED_SNLI) to the "
            "folder of the release files to run it"
        )


def locate(environ: Mapping[str, str], repo: Path) -> SharedSnli:
    """Where the tests look for SNLI 1.0's files, given the environment they started in."""
    for name in VARIABLES:
        if environ.get(name):
            return SharedSnli(Path(environ[name]), f"${name}")
    default = repo.parent / "shared" / "data" / "snli_1.0"
    return SharedSnli(default, f"the default ../shared/data/snli_1.0, no {' nor '.join(VARIABLES)} being set")
