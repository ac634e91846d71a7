"""`swapbench submit` on a copy of the repository's board, with the fault made for real: a damaged stored file,
a resubmission, an oversized file, a rebuild that cannot be written. A submission is all or nothing: whatever
is refused or fails, the board's every file is as it was."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
from board_helpers import make_results, save

from swapbench.leaderboard.reference import load_reference

REPO_BOARD = Path(__file__).resolve().parent.parent.parent / "leaderboard"
STORED = sorted((REPO_BOARD / "results").glob("*.json"))


def flat(text: str) -> str:
    """The CLI's output with rich's line wrapping undone."""
    return " ".join(text.split())


@pytest.fixture
def board(tmp_path) -> Path:
    if not STORED:
        pytest.skip("the repository's board holds no results file")
    return Path(shutil.copytree(REPO_BOARD, tmp_path / "leaderboard"))


@pytest.fixture(scope="module")
def another_model() -> dict:
    """The results of a model not on the board, scored on the board's reference dataset, with figures its own
    predictions give (board_helpers.make_results; `save` writes those predictions beside it)."""
    if not STORED:
        pytest.skip("the repository's board holds no results file")
    return make_results("example/another-model", reference=load_reference(REPO_BOARD))


@pytest.fixture
def new_results(tmp_path, another_model) -> Path:
    """A valid submission of a model not on the board: its results file and, beside it, its predictions."""
    return save(copy.deepcopy(another_model), tmp_path / "results.json")


def test_a_damaged_stored_file_refuses_the_submission_until_it_is_fixed(swapbench_cli, board, new_results, digest):
    damaged = board / "results" / STORED[0].name
    whole = damaged.read_bytes()
    damaged.write_bytes(whole[: len(whole) // 2])  # cut short, as an interrupted copy leaves it
    before = digest(board)
    run = swapbench_cli("submit", new_results, "--board", board)
    assert run.code == 2, run.output
    assert (
        f"error: the board holds a damaged file, so nothing was submitted: {damaged} is not a valid results "
        "file (" in flat(run.stderr)
    )
    assert "Traceback" not in run.output
    assert digest(board) == before
    damaged.write_bytes(whole)
    retry = swapbench_cli("submit", new_results, "--board", board)
    assert retry.code == 0, retry.output
    [stored] = (board / "results").glob("example-another-model__*.json")
    assert f"accepted as {stored}; board rebuilt" in flat(retry.stdout)
    assert stored.read_bytes() == new_results.read_bytes()
    assert "example/another-model" in (board / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("how", ["the stored file itself", "a copy of it", "another run of its model"])
def test_resubmitting_a_stored_file_says_it_is_already_on_the_board(swapbench_cli, tmp_path, board, digest, how):
    stored = board / "results" / STORED[0].name
    if how == "the stored file itself":
        submitted = stored
    elif how == "a copy of it":
        submitted = Path(shutil.copyfile(stored, tmp_path / "copy.json"))
    else:
        data = json.loads(stored.read_text(encoding="utf-8"))
        data["provenance"]["timings"]["total"] += 1.0
        submitted = tmp_path / "rerun.json"
        submitted.write_text(json.dumps(data), encoding="utf-8")
    before = digest(board)
    run = swapbench_cli("submit", submitted, "--board", board)
    assert run.code == 1, run.output
    assert f"is already on the board as {stored}; --replace replaces it" in flat(run.stdout)
    assert "clash" not in run.output
    assert digest(board) == before


def test_a_50_mb_file_is_refused_by_its_size_without_being_read(swapbench_cli, tmp_path, board, digest):
    huge = tmp_path / "huge.json"
    with huge.open("wb") as f:
        f.truncate(50_000_000)  # 50 MB of NUL bytes: parsed, it would be "not JSON"
    before = digest(board)
    run = swapbench_cli("submit", huge, "--board", board)
    assert run.code == 1, run.output
    assert (
        f"{huge}: refused, 1 problem(s): - 50.0 MB: the board takes results files of at most 1 MB (those of "
        "`swapbench eval` are about 100 kB), so it was not read" in flat(run.stdout)
    )
    assert "JSON" not in run.output
    assert digest(board) == before


def test_a_rebuild_that_cannot_be_written_takes_the_stored_file_back(swapbench_cli, board, new_results, digest):
    page = board / "index.html"
    page.unlink()
    page.mkdir()  # the page cannot be written: README.md and leaderboard.csv are, before it fails
    (page / "kept.txt").write_text("in the way")
    # A page that is not what results/ gives makes the board out of date: submit rebuilds it before storing
    # anything, that rebuild fails, and it says that nothing was submitted.
    before = digest(board)
    run = swapbench_cli("submit", new_results, "--board", board)
    assert run.code == 2, run.output
    assert f"error: cannot write {page}: [Errno 21] Is a directory:" in flat(run.stderr)
    assert "nothing was submitted, the board is as it was" in flat(run.stderr)
    assert digest(board) == before


def test_a_damaged_reference_refuses_the_submission(swapbench_cli, board, new_results, digest):
    reference = board / "reference.json"
    reference.write_bytes(reference.read_bytes()[:100])
    before = digest(board)
    run = swapbench_cli("submit", new_results, "--board", board)
    assert run.code == 2, run.output
    assert f"error: {reference} is not a valid reference (file: Invalid JSON: EOF while parsing" in flat(run.stderr)
    assert "Traceback" not in run.output
    assert digest(board) == before
