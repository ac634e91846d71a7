"""eval, probe and zoo under faults: nothing lost, nothing silent.

Each test runs the real command in a subprocess and breaks something for real: a destination mounted read-only,
a file system that fills up, a Hub endpoint on a closed port, a model path that does not exist, a dataset folder
without build_info.json, an option value out of range. It checks the exit code, the message, that the failure
came before any work, and that what the user had is unchanged.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from eval_models import save_base, save_classifier

from swapbench.results.schema import EvalResults

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
CONFIGS = ["shuffle-3", "shuffle-random", "shuffle-sr"]
CLOSED_PORT = {"HF_ENDPOINT": "http://127.0.0.1:9"}  # the discard port: nothing listens, a connection is refused
SLOWEST_FAILURE = 15  # seconds beyond the command's start-up; the Hub client's retries alone would take 23


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(CONFIGS)


@pytest.fixture(scope="module")
def classifier(tmp_path_factory):
    return save_classifier(tmp_path_factory.mktemp("models") / "classifier", NLI)


@pytest.fixture
def datasets_cache() -> Path:
    """The private datasets cache of this test (tests/conftest.py): eval fills it as soon as it reads the data."""
    return Path(os.environ["HF_DATASETS_CACHE"])


@pytest.fixture
def private_hub(tmp_path, monkeypatch) -> Path:
    """An empty Hugging Face cache of this test's own, and no offline switch from the caller's environment."""
    home = tmp_path / "hf-home"
    monkeypatch.setenv("HF_HOME", str(home))
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE", "HF_HUB_CACHE"):
        monkeypatch.delenv(name, raising=False)
    return home


def one_line(text: str) -> str:
    """Rich wraps long messages at the terminal width."""
    return " ".join(text.split())


def eval_args(model, data, output, *extra) -> list[str]:
    return [
        "eval",
        str(model),
        "--data",
        str(data),
        "--output",
        str(output),
        "--no-progress",
        "--bootstrap",
        "200",
        "--probe-words",
        "3",
        "--probe-length",
        "8",
        *extra,
    ]


def mount(*args) -> bool:
    return subprocess.run(["mount", *map(str, args)], capture_output=True).returncode == 0


def unmount(folder: Path) -> None:
    subprocess.run(["umount", str(folder)], capture_output=True, check=True)


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder holding an earlier results file, mounted read-only: the tests run as root, whom permission bits
    do not stop. A read-only bind mount of a folder with the file, else an empty read-only tmpfs."""
    source, folder = tmp_path / "source", tmp_path / "read-only"
    source.mkdir()
    folder.mkdir()
    (source / "results.json").write_text('{"earlier": "results"}\n')
    if mount("--bind", source, folder):
        if not mount("-o", "remount,ro,bind", folder):
            unmount(folder)
            pytest.skip("a bind mount cannot be made read-only here")
    elif not mount("-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", folder):
        pytest.skip(
            "neither a read-only bind mount nor a read-only tmpfs can be mounted (root and CAP_SYS_ADMIN are needed)"
        )
    yield folder
    unmount(folder)


@pytest.fixture
def full_folder(tmp_path):
    """A 16 KiB tmpfs holding an earlier results file and filled up: an empty file can still be created in it,
    but no data can be written."""
    folder = tmp_path / "full"
    folder.mkdir()
    if not mount("-t", "tmpfs", "-o", "size=16k", "tmpfs", folder):
        pytest.skip("a tmpfs cannot be mounted here (root and CAP_SYS_ADMIN are needed)")
    (folder / "results.json").write_text('{"earlier": "results"}\n')
    with open(folder / "filler", "wb", buffering=0) as filler:
        try:
            while True:
                filler.write(b"\0" * 4096)
        except OSError:
            pass
    yield folder
    unmount(folder)


# ---- the output -----------------------------------------------------------------------------------------------------


def test_eval_output_on_a_read_only_mount_is_refused_before_any_scoring(
    swapbench_cli, dataset, classifier, read_only_folder, datasets_cache, digest
):
    before = digest(read_only_folder)
    output = read_only_folder / "results.json"
    run = swapbench_cli(*eval_args(classifier, dataset, output))
    assert run.code == 2 and "Traceback" not in run.output
    message = one_line(run.stderr)
    assert f"cannot write {output} (--output)" in message and "Read-only file system" in message
    assert "Nothing was done" in message
    assert "Probe:" not in run.output and "Wrote" not in run.output
    assert digest(datasets_cache) == {}  # the data were not even read
    assert digest(read_only_folder) == before


def test_probe_out_on_a_read_only_mount_is_refused_before_probing(swapbench_cli, classifier, read_only_folder, digest):
    before = digest(read_only_folder)
    out = read_only_folder / "probe"
    run = swapbench_cli("probe", classifier, "--out", out, "--words", "3", "--length", "8")
    assert run.code == 2 and "Traceback" not in run.output
    message = one_line(run.stderr)
    assert f"cannot write {out / 'probe.json'} (--out)" in message and "Read-only file system" in message
    assert "locality" not in run.output
    assert digest(read_only_folder) == before


def test_a_full_disk_at_the_end_keeps_the_scores_in_a_temporary_file(
    swapbench_cli, dataset, classifier, full_folder, tmp_path, digest
):
    before = digest(full_folder)
    output = full_folder / "results.json"
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    run = swapbench_cli(*eval_args(classifier, dataset, output), env={"TMPDIR": str(temporary)})
    assert run.code == 2 and "Traceback" not in run.output
    message = one_line(run.stderr)
    assert f"cannot write {output} (No space left on device)" in message
    saved = Path(re.search(r"the results were saved to (\S+) instead", message)[1])
    assert saved.parent.parent == temporary and saved.name == output.name
    assert "with results.predictions.jsonl beside it" in message
    results = EvalResults.model_validate_json(saved.read_text())  # all of them, as the schema wants them
    assert list(results.results) == CONFIGS and results.model.probe is not None
    predictions = saved.parent / results.predictions.path
    assert predictions.is_file() and len(predictions.read_text().splitlines()) == results.predictions.rows
    assert all(config in run.stdout for config in CONFIGS)  # the table was printed all the same
    assert digest(full_folder) == before  # the earlier results file is untouched, no staging file is left


# ---- no network -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def start_up_seconds(tmp_path_factory, dataset) -> float:
    """How long `swapbench eval` takes to start and refuse a model at once (a missing path): the yardstick of a
    failure that is fast."""
    folder = tmp_path_factory.mktemp("start-up")
    began = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "swapbench.commands.main", *eval_args(folder / "missing", dataset, folder / "r.json")],
        capture_output=True,
        cwd=folder,
    )
    return time.perf_counter() - began


@pytest.mark.parametrize("command", ["eval", "probe"])
def test_a_hub_model_on_an_unreachable_hub_fails_fast_and_says_so(
    command, swapbench_cli, dataset, tmp_path, private_hub, start_up_seconds
):
    output = tmp_path / "out"
    args = (
        eval_args("some-org/some-model", dataset, output / "r.json")
        if command == "eval"
        else ["probe", "some-org/some-model", "--out", output]
    )
    began = time.perf_counter()
    run = swapbench_cli(*args, env=CLOSED_PORT)
    seconds = time.perf_counter() - began
    assert run.code == 2 and "Traceback" not in run.output
    message = one_line(run.stderr)
    assert "cannot load model 'some-org/some-model': the Hub cannot be reached (http://127.0.0.1:9 does not" in message
    assert "and the local Hugging Face cache has no copy of it" in message
    assert "Retrying" not in run.output  # the Hub client's back-off never started
    assert seconds < start_up_seconds + SLOWEST_FAILURE, (seconds, start_up_seconds)
    assert not output.exists()


def test_a_cached_hub_model_is_probed_while_the_hub_cannot_be_reached(swapbench_cli, classifier, tmp_path, private_hub):
    # The Hub cache's own layout: the files of commit `commit` under snapshots/, and refs/main naming it.
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = private_hub / "hub" / "models--some-org--cached-model"
    shutil.copytree(classifier, repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    run = swapbench_cli(
        "probe", "some-org/cached-model", "--out", tmp_path / "probe", "--words", "3", "--length", "8", env=CLOSED_PORT
    )
    assert run.code == 0, run.output
    assert "Retrying" not in run.output
    probe = json.loads((tmp_path / "probe" / "probe.json").read_text())
    assert probe["model"] == "some-org/cached-model" and 0 <= probe["locality"] <= 1


def test_a_base_model_offline_without_training_data_names_what_fine_tuning_would_read(
    swapbench_cli, dataset, tmp_path, offline_env, start_up_seconds
):
    base = save_base(tmp_path / "base")
    output = tmp_path / "out" / "r.json"
    began = time.perf_counter()
    run = swapbench_cli(*eval_args(base, dataset, output))
    seconds = time.perf_counter() - began
    assert run.code == 2 and "Traceback" not in run.output
    message = one_line(run.stderr)
    assert f"{base} is fine-tuned on SNLI before it is scored" in message
    assert "cannot get the SNLI 1.0 release archive from " in message
    assert "(tried because no --train-source was given and $SWAPBENCH_SNLI_DIR is unset)" in message
    assert "pass --train-source or set SWAPBENCH_SNLI_DIR to a folder holding snli_1.0_train.jsonl" in message
    # Reading and scoring the data comes first, hence a wider margin than for a model refused at once.
    assert seconds < start_up_seconds + 2 * SLOWEST_FAILURE, (seconds, start_up_seconds)
    assert not output.exists()


# ---- a missing model path -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["./missing-model", "models/missing-model", "checkpoints/run-1/final", "~/no-such-swapbench-model"]
)
def test_a_missing_model_path_is_named_as_such(name, swapbench_cli, dataset, tmp_path, datasets_cache, digest):
    (tmp_path / "models").mkdir()  # models/missing-model: a folder of that name is there, the model is not
    run = swapbench_cli(*eval_args(name, dataset, tmp_path / "r.json"), cwd=tmp_path)
    assert run.code == 2 and "Traceback" not in run.output
    message = one_line(run.stderr)
    where = Path(name).expanduser() if name.startswith("~") else tmp_path / name
    assert f"cannot load model {name!r}: no such folder ({where} does not exist)" in message
    assert "Repo id must be" not in message
    assert digest(datasets_cache) == {}


def test_probe_names_a_missing_model_path(swapbench_cli, tmp_path):
    run = swapbench_cli("probe", "./missing-model", "--out", tmp_path / "probe", cwd=tmp_path)
    assert run.code == 2 and "Traceback" not in run.output
    assert f"no such folder ({tmp_path / 'missing-model'} does not exist)" in one_line(run.stderr)
    assert not (tmp_path / "probe").exists()


# ---- data without build_info.json -----------------------------------------------------------------------------------


def test_data_without_build_info_are_scored_with_a_warning_and_refused_by_submit(
    swapbench_cli, dataset, classifier, tmp_path, digest
):
    unverified = tmp_path / "unverified"
    shutil.copytree(dataset, unverified)
    (unverified / "build_info.json").unlink()
    output = tmp_path / "results.json"
    run = swapbench_cli(*eval_args(classifier, unverified, output, "--no-probe"))
    assert run.code == 0, run.output
    assert (
        f"warning: the data of {', '.join(CONFIGS)} are unverified: there is no {unverified}/build_info.json"
        in one_line(run.stderr)
    )
    results = EvalResults.model_validate_json(output.read_text())
    assert [c.verified for c in results.dataset.configurations] == [False] * len(CONFIGS)

    board = tmp_path / "board"  # a board whose reference is the very build the data were copied from
    assert swapbench_cli("leaderboard", "--board", board, "--set-reference", dataset).code == 0
    before = digest(board)
    submitted = swapbench_cli("submit", output, "--board", board)
    assert submitted.code == 1 and "Traceback" not in submitted.output
    assert (
        "dataset.configurations.0.verified: the shuffle-3 data were unverified when scored: their folder had no "
        "build_info.json listing them"
    ) in one_line(submitted.stdout)
    assert digest(board) == before


# ---- option values --------------------------------------------------------------------------------------------------

NO_GPU = "cuda:99" if torch.cuda.is_available() else "cuda"  # a device this machine does not have

EVAL_OPTIONS = [
    ("--bootstrap", "0", "0 is out of range: expected an integer >= 1"),
    ("--epochs", "0", "0 is out of range: expected an integer >= 1"),
    ("--lr", "-1", "-1 is out of range: expected a number > 0"),
    ("--train-batch-size", "0", "0 is out of range: expected an integer >= 1"),
    ("--train-max-length", "2", "2 is out of range: expected an integer >= 8"),
    ("--probe-batch-size", "0", "0 is out of range: expected an integer >= 1"),
    ("--eval-batch-size", "0", "0 is out of range: expected an integer >= 1"),
    ("--device", NO_GPU, f"{NO_GPU}: "),
    ("--seed", "-1", "-1 is out of range: expected an integer >= 0 and <= 4294967295"),
    ("--max-length", "2", "2 is out of range: expected an integer >= 8"),
    ("--probe-length", "2", "2 is out of range: expected an integer >= 3"),
    ("--limit", "0", "0 is out of range: expected an integer >= 1"),
    ("--val-holdout", "-5", "-5 is out of range: expected an integer >= 1"),
    ("--train-split", "dve", "invalid choice: 'dve'"),
]


@pytest.mark.parametrize("option, value, expected", EVAL_OPTIONS, ids=[o for o, _, _ in EVAL_OPTIONS])
def test_an_eval_option_out_of_range_stops_it_before_any_work(
    option, value, expected, swapbench_cli, dataset, classifier, tmp_path, datasets_cache, digest
):
    output = tmp_path / "out" / "r.json"
    run = swapbench_cli(*eval_args(classifier, dataset, output, option, value))
    assert run.code == 2 and "Traceback" not in run.output
    assert f"argument {option}: {expected}" in one_line(run.stderr)
    assert digest(datasets_cache) == {} and not output.parent.exists()


OTHER_OPTIONS = [
    (["probe", "MODEL"], "--words", "0", "0 is out of range: expected an integer >= 1"),
    (["probe", "MODEL"], "--length", "2", "2 is out of range: expected an integer >= 3"),
    (["probe", "MODEL"], "--probe-batch-size", "0", "0 is out of range: expected an integer >= 1"),
    (["zoo", "train", "rope"], "--dropout", "1", "1 is out of range: expected a number >= 0 and < 1"),
    (["zoo", "train", "rope"], "--warmup-ratio", "1.5", "1.5 is out of range: expected a number >= 0 and <= 1"),
    (["zoo", "train", "rope"], "--lr", "0", "0 is out of range: expected a number > 0"),
    (
        ["zoo", "run", "--data", "DATA", "--work", "WORK"],
        "--seeds",
        "0,-1",
        "-1 is out of range: expected an integer >= 0 and <= 4294967295",
    ),
    (["zoo", "run", "--data", "DATA", "--work", "WORK"], "--encodings", "rope,nope", "'nope' is not an encoding"),
    (["zoo", "params"], "--heads", "0", "0 is out of range: expected an integer >= 1"),
    (["zoo", "params"], "--vocab-size", "0", "0 is out of range: expected an integer >= 1"),
]


@pytest.mark.parametrize(
    "command, option, value, expected", OTHER_OPTIONS, ids=[f"{c[0]}-{c[1]}{o}" for c, o, _, _ in OTHER_OPTIONS]
)
def test_a_probe_or_zoo_option_out_of_range_stops_it_before_any_work(
    command, option, value, expected, swapbench_cli, dataset, classifier, tmp_path
):
    stand_in = {"MODEL": str(classifier), "DATA": str(dataset), "WORK": str(tmp_path / "work")}
    args = [stand_in.get(arg, arg) for arg in command]
    out = [] if command[:2] == ["zoo", "params"] else ["--out", tmp_path / "out"]
    run = swapbench_cli(*args, *out, option, value)
    assert run.code == 2 and "Traceback" not in run.output
    assert f"argument {option}: {expected}" in one_line(run.stderr)
    assert not (tmp_path / "out").exists() and not (tmp_path / "work").exists()


def test_zoo_settings_that_do_not_fit_together_stop_it_before_reading_data(swapbench_cli, tmp_path):
    # --train-source names nothing: had the data been read first, that would have been the error.
    run = swapbench_cli(
        "zoo",
        "train",
        "rope",
        "--out",
        tmp_path / "out",
        "--hidden",
        "66",
        "--heads",
        "2",
        "--train-source",
        tmp_path / "no-snli-here",
    )
    assert run.code == 2 and "Traceback" not in run.output
    message = one_line(run.stderr)
    assert "rope: invalid zoo encoder settings: rope rotates pairs of dimensions: the head size must be even" in message
    assert "(from --layers, --hidden, --heads, --intermediate, --max-length and --encoding-option)" in message
    assert "no-snli-here" not in message and not (tmp_path / "out").exists()
