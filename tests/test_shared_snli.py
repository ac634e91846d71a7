"""The tests find SNLI 1.0 where the README's variable points, and a test that cannot find it says what it skipped
and why (shared_snli.py)."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

from shared_snli import locate, release_bytes

REPO = Path(__file__).resolve().parent.parent
ROWS = (
    b'{"gold_label": "neutral", "pairID": "p0", "sentence1": "Two dog sings near the city car.", '
    b'"sentence2": "Some dog near tall water."}\n'
)


def release(folder: Path, compressed: bool) -> Path:
    folder.mkdir(parents=True)
    for split in ("test", "dev"):
        path = folder / f"snli_1.0_{split}.jsonl"
        if compressed:
            path.with_suffix(".jsonl.gz").write_bytes(gzip.compress(ROWS))
        else:
            path.write_bytes(ROWS)
    return folder


def test_the_readme_s_variable_points_the_tests_at_snli(tmp_path):
    plain, packed = release(tmp_path / "plain", False), release(tmp_path / "packed", True)
    found = locate({"SWAPBENCH_SNLI_DIR": str(plain)}, REPO)
    assert (found.folder, found.named_by, found.skip_reason()) == (plain, "$SWAPBENCH_SNLI_DIR", None)
    assert release_bytes(plain, "test") == release_bytes(packed, "dev") == ROWS
    both = locate({"SWAPBENCH_SNLI_DIR": str(plain), "SWAPBENCH_SHARED_SNLI": str(packed)}, REPO)
    assert (both.folder, both.skip_reason()) == (packed, None)  # the tests' own variable first
    default = locate({}, REPO)
    assert default.folder == REPO.parent / "shared" / "data" / "snli_1.0"
    assert (
        "the default ../shared/data/snli_1.0, no SWAPBENCH_SHARED_SNLI nor SWAPBENCH_SNLI_DIR being set"
        in default.named_by
    )


def test_a_folder_without_the_files_is_a_reason_that_says_how_to_run_the_test(tmp_path):
    reason = locate({"SWAPBENCH_SNLI_DIR": str(tmp_path)}, REPO).skip_reason()
    assert reason == (
        f"needs SNLI 1.0's release files: {tmp_path} (named by $SWAPBENCH_SNLI_DIR) holds no "
        "snli_1.0_test.jsonl nor snli_1.0_dev.jsonl (nor .jsonl.gz). Set SWAPBENCH_SNLI_DIR (or "
        "SWAPBENCH_SHARED_SNLI) to the folder of the release files to run it"
    )


def test_a_skipped_snli_test_shows_its_reason_in_the_summary(tmp_path):
    env = {key: value for key, value in os.environ.items() if key != "SWAPBENCH_SHARED_SNLI"}
    env["SWAPBENCH_SNLI_DIR"] = str(tmp_path / "nowhere")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/dataset/test_build.py::test_full_snli_test_split_with_supplied_trees",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    text = " ".join(done.stdout.split())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in text
    assert "SKIPPED [1] tests/dataset/test_build.py:" in text  # -rs (pyproject.toml): the reasons are listed
    assert f"needs SNLI 1.0's release files: {tmp_path / 'nowhere'} (named by $SWAPBENCH_SNLI_DIR)" in text
