"""The board's store, attacked and interrupted for real: file names a submission makes up, `kill -9` at each write
of `swapbench submit`, predictions missing, edited or relabelled."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from board_helpers import COMMITTED, empty_board, make_results, recomputable
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swapbench.commands.main import main
from swapbench.leaderboard.board import OUT_OF_DATE, check, rebuild, rendered
from swapbench.leaderboard.store import CACHE_KEY, REVISION, name_problems, normalized_name
from swapbench.leaderboard.table import AS_SUBMITTED, RECOMPUTED
from swapbench.results.files import predictions_path
from swapbench.results.schema import EvalResults

HOSTILE = [
    "sha256:/../../c",
    "../../../../outside",
    "a/b",
    "..",
    "a\\b",
    "a\x00b",
    "é" * 300,
    "x" * 5000,
    "/etc/passwd",
    ".hidden",
    "sha256:" + "a" * 64,
    "main",
    "abc123",
]
TEXT = st.one_of(st.sampled_from(HOSTILE), st.text(st.sampled_from("./\\\x00:aé-_ 9"), max_size=40), st.text())


@pytest.fixture(scope="module")
def base() -> dict:
    return make_results("org/model", trained_on="snli_1.0_dev.jsonl")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(model=TEXT, revision=TEXT, cache_key=TEXT)
def test_no_submission_names_a_file_outside_the_results_folder(tmp_path, base, model, revision, cache_key):
    data = json.loads(json.dumps(base))
    data["model"].update(name_or_path=model, revision=revision)
    data["model"]["fine_tuning"]["cache_key"] = cache_key
    name = normalized_name(EvalResults.model_validate(data))
    assert re.fullmatch(r"[a-z0-9][a-z0-9._-]{0,199}", name) and name.endswith(".json")
    folder = tmp_path / "board" / "results"
    assert (folder / name).resolve().parent == folder.resolve()
    wrong = {where for where, _ in name_problems(data)}
    assert ("model.revision" in wrong) == (REVISION.fullmatch(revision) is None)
    assert ("model.fine_tuning.cache_key" in wrong) == (CACHE_KEY.fullmatch(cache_key) is None)


@pytest.fixture
def board(tmp_path) -> Path:
    board = empty_board(tmp_path / "board")
    rebuild(board)
    return board


def everything(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    "revision, cache_key", [("sha256:/../../c", None), ("abc123", "/../../../outside"), ("..", None), ("a\\b", None)]
)
def test_a_revision_or_cache_key_that_would_leave_the_board_is_refused_by_check_and_submit(
    tmp_path, board, capsys, revision, cache_key
):
    data = make_results("org/evil", trained_on="snli_1.0_dev.jsonl", revision=revision)
    if cache_key:
        data["model"]["fine_tuning"]["cache_key"] = cache_key
    path = recomputable(data, tmp_path / "evil.json")
    before = everything(tmp_path)
    assert main(["submit", "--check", str(path), "--board", str(board)]) == 1
    assert main(["submit", str(path), "--board", str(board)]) == 1
    out = capsys.readouterr().out
    assert "model.revision: " in out or "model.fine_tuning.cache_key: " in out
    assert everything(tmp_path) == before


KILLER = """
import os, signal, sys
import swapbench.leaderboard.board as board
calls, write = [0], board.write_atomically
def killing(path, data):
    calls[0] += 1
    if calls[0] == int(sys.argv[1]):
        os.kill(os.getpid(), signal.SIGKILL)
    write(path, data)
board.write_atomically = killing
from swapbench.commands.main import main
sys.exit(main(sys.argv[2:]))
"""
# the writes of a submission on an up-to-date board: its predictions, its results file, the three outputs
WRITES = 5


@pytest.mark.parametrize("killed_at", range(1, WRITES + 1))
def test_a_submit_killed_at_any_write_leaves_a_board_the_next_command_brings_up_to_date(
    tmp_path, board, capsys, killed_at
):
    path = recomputable(make_results("org/model"), tmp_path / "r.json")
    run = subprocess.run(
        [sys.executable, "-c", KILLER, str(killed_at), "submit", str(path), "--board", str(board)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == -9, run.stdout + run.stderr
    stored = sorted((board / "results").glob("*.json"))
    if stored and killed_at > 2:  # the row is on the board, the outputs behind: --check says so
        assert main(["leaderboard", "--check", "--board", str(board)]) == 1
        assert OUT_OF_DATE in " ".join(capsys.readouterr().out.split())
    code = main(["submit", str(path), "--board", str(board)])
    out, err = (" ".join(stream.split()) for stream in capsys.readouterr())
    assert code == (1 if stored else 0), out
    if stored:  # the verdict is the command's output, the catch-up a warning logged beside it
        assert "already on the board" in out and "warning: the board was out of date" in err and "rebuilt it" in err
    assert main(["leaderboard", "--check", "--board", str(board)]) == 0, capsys.readouterr().out
    [row] = sorted((board / "results").glob("*.json"))
    assert sorted(p.name for p in (board / "predictions").iterdir()) == [f"{row.stem}.predictions.jsonl.gz"]
    assert {name: (board / name).read_bytes() for name in rendered(board)} == rendered(board)
    assert (board / "README.md").read_text(encoding="utf-8").count("org/model") == 1


def test_the_predictions_are_stored_compressed_and_the_row_is_marked_recomputed(tmp_path, board):
    path = recomputable(make_results("org/model"), tmp_path / "r.json")
    assert main(["submit", str(path), "--board", str(board)]) == 0
    [copy] = (board / "predictions").iterdir()
    import gzip

    assert gzip.decompress(copy.read_bytes()) == predictions_path(path).read_bytes()
    assert copy.read_bytes()[4:8] == b"\0\0\0\0"  # no time in the header: the same predictions, the same bytes
    assert RECOMPUTED in (board / "README.md").read_text(encoding="utf-8")
    assert main(["leaderboard", "--check", "--board", str(board)]) == 0


def test_predictions_given_elsewhere_with_the_option(tmp_path, board):
    path = recomputable(make_results("org/model"), tmp_path / "r.json")
    elsewhere = Path(shutil.move(predictions_path(path), tmp_path / "elsewhere.jsonl"))
    assert main(["submit", str(path), "--board", str(board), "--predictions", str(elsewhere)]) == 0


def test_a_relabelled_copy_is_refused(tmp_path, board, capsys):
    path = recomputable(make_results("org/model"), tmp_path / "r.json")
    assert main(["submit", str(path), "--board", str(board)]) == 0
    data = json.loads(path.read_text(encoding="utf-8"))
    data["model"]["name_or_path"] = "org/someone-else"
    relabelled = tmp_path / "relabelled.json"
    relabelled.write_text(json.dumps(data), encoding="utf-8")
    before = everything(board)
    assert main(["submit", str(relabelled), "--board", str(board), "--predictions", str(predictions_path(path))]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "predictions.sha256: these predictions are on the board already as" in out and "relabelled" in out
    assert everything(board) == before


def test_a_submission_without_its_predictions_is_refused_naming_the_file(tmp_path, board, capsys):
    path = recomputable(make_results("org/model"), tmp_path / "r.json")
    predictions_path(path).unlink()
    before = everything(board)
    assert main(["submit", "--check", str(path), "--board", str(board)]) == 1
    assert main(["submit", str(path), "--board", str(board)]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert f"predictions.path: {predictions_path(path)} not found" in out
    assert everything(board) == before


def test_predictions_whose_hash_differs_are_refused(tmp_path, board, capsys):
    path = recomputable(make_results("org/model"), tmp_path / "r.json")
    lines = predictions_path(path).read_text(encoding="utf-8").splitlines(keepends=True)
    predictions_path(path).write_text("".join(lines[1:] + lines[:1]), encoding="utf-8")  # same rows, reordered
    assert main(["submit", str(path), "--board", str(board)]) == 1
    assert "predictions.sha256: " in capsys.readouterr().out
    assert not (board / "results").exists() or not any((board / "results").iterdir())


def test_the_committed_rows_stay_valid_and_each_says_whether_its_figures_were_recomputed(tmp_path):
    board = Path(shutil.copytree(COMMITTED, tmp_path / "leaderboard"))
    rebuild(board)
    readme = (board / "README.md").read_text(encoding="utf-8")
    stored = {p.name.removesuffix(".predictions.jsonl.gz") for p in (board / "predictions").glob("*.jsonl.gz")}
    for path in sorted((board / "results").glob("*.json")):
        assert check(path, board).problems == []  # with its predictions on the board: every figure recomputed
        [line] = [line for line in readme.splitlines() if f"(results/{path.name})" in line]
        assert (RECOMPUTED if path.stem in stored else AS_SUBMITTED) in line
