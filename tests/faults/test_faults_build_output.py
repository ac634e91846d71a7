"""`build --out` and the other commands that write a folder: what the user had there stays, a bad option or an
empty result is refused before the previous build is touched, a build stopped by SIGTERM or SIGKILL leaves no
staging folder for good, and the old or the new build is at --out at every moment."""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from swapbench.commands.main import main
from swapbench.dataset.pipeline import build, build_options
from swapbench.results.build_record import BUILD_INFO

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def build_args(source, out, variants: str = "shuffle-random", *extra) -> tuple:
    return ("build", "--source", source, "--out", out, "--no-cache", "--variants", variants, *extra)


def leftovers(out: Path) -> list[str]:
    """What builds of `out` keep beside it while they run: staging folders, an old output being swapped out."""
    return sorted(p.name for p in Path(out).resolve().parent.glob(f".{Path(out).resolve().name}.*"))


def one_line(text: str) -> str:
    """The text with the console's line wrapping undone."""
    return " ".join(text.split())


def seed_of(out: Path) -> int:
    return json.loads((out / BUILD_INFO).read_text())["seed"]


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", ""])
    child.wait()
    return child.pid


@pytest.fixture
def previous_build(build_fixture_dataset) -> Path:
    """An earlier build (seed 0) of the hand-written pairs, as a user has it from a previous run."""
    return build_fixture_dataset(["shuffle-random"])


@pytest.fixture(scope="module")
def long_source(tmp_path_factory) -> Path:
    """20,000 pairs, the hand-written ones under new ids: a build that runs for seconds, long enough to be stopped."""
    lines = (FIXTURES / "snli_1.0_test.jsonl").read_text().splitlines()
    folder = tmp_path_factory.mktemp("long-source")
    with open(folder / "snli_1.0_test.jsonl", "w", encoding="utf-8") as file:
        for index in range(20_000):
            row = json.loads(lines[index % len(lines)])
            file.write(json.dumps({**row, "pairID": f"{row['pairID']}-{index}"}) + "\n")
    return folder


def start_build(source: Path, out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "swapbench.commands.main",
            *map(str, build_args(source, out, "shuffle-random", "--parser", "ptb")),
        ],
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_until_writing(process: subprocess.Popen, out: Path, timeout: float = 300) -> None:
    """Return once the build has made its staging folder beside `out`, and is still running."""
    deadline = time.monotonic() + timeout
    while not [name for name in leftovers(out) if ".building-" in name]:
        if process.poll() is not None:
            pytest.fail(f"the build ended before it made its staging folder: {process.communicate()}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("no staging folder appeared")
        time.sleep(0.01)


def test_out_on_a_folder_of_other_files_is_refused(tmp_path, swapbench_cli, digest):
    out = tmp_path / "mine"
    (out / "analysis").mkdir(parents=True)
    (out / "notes.txt").write_text("my notes\n")
    (out / "analysis" / "scores.csv").write_text("model,acc\nx,0.9\n")
    before = digest(out)
    result = swapbench_cli(*build_args(FIXTURES, out))
    assert result.code == 2
    assert (
        f"error: --out {out} is a folder of files that swapbench did not write (no build_info.json in it); it "
        "was left as it is: choose another folder, or pass --overwrite to replace it" in one_line(result.stderr)
    )
    assert "Traceback" not in result.output
    assert digest(out) == before and leftovers(out) == []


def test_out_on_the_working_directory_is_refused(tmp_path, swapbench_cli, digest):
    project = tmp_path / "project"
    project.mkdir()
    (project / "train.py").write_text("print('mine')\n")
    before = digest(project)
    result = swapbench_cli(*build_args(FIXTURES, "."), cwd=project)
    assert result.code == 2
    assert "error: --out . is a folder of files that swapbench did not write" in one_line(result.stderr)
    assert digest(project) == before and leftovers(project) == []


def test_out_on_a_regular_file_is_refused(tmp_path, swapbench_cli, digest):
    out = tmp_path / "results.txt"
    out.write_text("accuracy 0.91\n")
    before = digest(out)
    result = swapbench_cli(*build_args(FIXTURES, out))
    assert result.code == 2
    assert f"error: --out {out} is a file that swapbench did not write" in one_line(result.stderr)
    assert out.is_file() and digest(out) == before and leftovers(out) == []


def test_overwrite_replaces_what_is_at_out(tmp_path, swapbench_cli):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("my notes\n")
    result = swapbench_cli(*build_args(FIXTURES, out, "shuffle-random", "--overwrite"))
    assert result.code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["README.md", BUILD_INFO, "shuffle-random"]
    assert leftovers(out) == []


def test_a_previous_build_is_replaced_without_overwrite(previous_build, swapbench_cli):
    assert seed_of(previous_build) == 0
    result = swapbench_cli(*build_args(FIXTURES, previous_build, "shuffle-3", "--seed", "5"))
    assert result.code == 0, result.output
    assert seed_of(previous_build) == 5
    assert sorted(p.name for p in previous_build.iterdir()) == ["README.md", BUILD_INFO, "shuffle-3"]
    assert leftovers(previous_build) == []


def test_zoo_train_keeps_a_folder_of_other_files(tmp_path, swapbench_cli, digest, offline_env):
    out = tmp_path / "ckpt"
    out.mkdir()
    (out / "notes.txt").write_text("learning-rate sweep: try 3e-4 next\n")
    before = digest(out)
    result = swapbench_cli("zoo", "train", "rope", "--out", out, "--train-source", FIXTURES, "--epochs", "1")
    assert result.code == 2
    assert (
        f"error: --out {out} is a folder of files that swapbench did not write (no swapbench_zoo.json in it)"
        in one_line(result.stderr)
    )
    assert digest(out) == before and leftovers(out) == []


@pytest.mark.parametrize(
    ("variants", "message"),
    [
        (
            "",
            "error: --variants: no variant given; expected shuffle-N (2 <= N <= 64), shuffle-random, shuffle-sr, "
            "shuffle-sr-premise, shuffle-sr-validated, shuffle-sr-reversible, role-quartets or unlu",
        ),
        (",", "error: --variants: no variant given"),
        (
            "shuffle-99999999999999999999",
            "error: --variants: 'shuffle-99999999999999999999' asks for constituents of "
            "99999999999999999999 words; a constituency shuffle takes constituents of at "
            "least 2 words and at most 64",
        ),
        (
            "shuffle-9",
            "error: shuffle-9 would have no rows (the variant applies to none of the 7 labelled pairs read), "
            "and an empty configuration cannot be loaded: nothing was written, --out is as it was",
        ),
    ],
)
def test_a_variant_list_that_gives_no_dataset_leaves_the_previous_build(
    previous_build, capsys, digest, variants, message
):
    before = digest(previous_build)
    assert main([*map(str, build_args(FIXTURES, previous_build, variants))]) == 2
    assert message in one_line(capsys.readouterr().err)
    assert digest(previous_build) == before and leftovers(previous_build) == []


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--limit", "0", "error: argument --limit: 0 is out of range: expected an integer >= 1"),
        ("--seed", "-1", "error: argument --seed: -1 is out of range: expected an integer >= 0 and <= 4294967295"),
        (
            "--seed",
            str(2**32),
            "error: argument --seed: 4294967296 is out of range: expected an integer >= 0 and <= 4294967295",
        ),
        (
            "--srl",
            "bogus",
            "error: --srl: unknown role labeler 'bogus': expected one of spacy, tree, agree, auto, frames:FILE",
        ),
        (
            "--srl",
            "frames:/nonexistent/frames.jsonl",
            "error: --srl frames:/nonexistent/frames.jsonl: no such frames file",
        ),
        ("--variants", "shuffle-3,shuffle-3", "error: --variants: shuffle-3 given more than once"),
        ("--variants", "shuffle-x", "error: --variants: unknown variant 'shuffle-x'"),
        ("--split", "dev2", "argument --split: invalid choice: 'dev2'"),
        (
            "--sr-selection",
            str(FIXTURES / "snli_roles.jsonl"),
            "error: --sr-selection applies to shuffle-sr, which --variants leaves out",
        ),
    ],
)
def test_options_are_checked_before_the_source_is_read(tmp_path, capsys, option, value, message):
    args = [
        "build",
        "--source",
        str(tmp_path / "no-such-source"),
        "--out",
        str(tmp_path / "out"),
        "--variants",
        "shuffle-3",
        option,
        value,
    ]
    try:
        code = main(args)
    except SystemExit as exit_:  # argparse's own checks
        code = exit_.code
    assert code == 2
    assert message in one_line(capsys.readouterr().err)  # not the missing source: the option was checked first
    assert not (tmp_path / "out").exists() and leftovers(tmp_path / "out") == []


def test_sigterm_mid_build_leaves_the_previous_build_and_no_staging_folder(previous_build, long_source, digest):
    before = digest(previous_build)
    process = start_build(long_source, previous_build)
    wait_until_writing(process, previous_build)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 128 + signal.SIGTERM, stderr  # stopped mid-build, not finished
    assert "terminated; the previous output, if any, is unchanged" in one_line(stderr) and "Traceback" not in stderr
    assert leftovers(previous_build) == []
    assert digest(previous_build) == before


def test_sigkill_leaves_a_staging_folder_that_the_next_build_removes(
    previous_build, long_source, digest, swapbench_cli
):
    before = digest(previous_build)
    process = start_build(long_source, previous_build)
    wait_until_writing(process, previous_build)
    process.kill()
    process.wait()
    stale = leftovers(previous_build)
    assert len(stale) == 1 and f".building-{socket.gethostname()}-{process.pid}-" in stale[0]
    assert digest(previous_build) == before
    result = swapbench_cli(*build_args(FIXTURES, previous_build, "shuffle-random", "--seed", "3"))
    assert result.code == 0, result.output
    assert leftovers(previous_build) == [] and seed_of(previous_build) == 3


def test_the_staging_folder_of_a_running_build_is_left_alone(previous_build, swapbench_cli):
    running = previous_build.with_name(f".{previous_build.name}.building-{socket.gethostname()}-{os.getpid()}-x1")
    running.mkdir()
    (running / "part.parquet").write_bytes(b"half written")
    result = swapbench_cli(*build_args(FIXTURES, previous_build, "shuffle-random", "--seed", "4"))
    assert result.code == 0, result.output
    assert (running / "part.parquet").read_bytes() == b"half written"
    assert leftovers(previous_build) == [running.name] and seed_of(previous_build) == 4


def test_an_old_build_left_out_by_the_two_rename_swap_is_put_back(previous_build, swapbench_cli, digest):
    before = digest(previous_build)
    # What the fallback leaves when killed between its two renames: the old output beside --out, nothing at it.
    previous_build.rename(previous_build.with_name(f".{previous_build.name}.old-{socket.gethostname()}-{dead_pid()}"))
    result = swapbench_cli(*build_args(FIXTURES, previous_build, "shuffle-9"))  # fails after its clean-up
    assert result.code == 2 and "shuffle-9 would have no rows" in one_line(result.stderr)
    assert digest(previous_build) == before and leftovers(previous_build) == []


def test_without_an_atomic_exchange_the_build_is_swapped_in_by_two_renames(previous_build, monkeypatch):
    def no_exchange(a, b):  # as on a file system that refuses RENAME_EXCHANGE (NFS)
        raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))

    monkeypatch.setattr("swapbench.core.destination._exchange", no_exchange)
    build(build_options(source=str(FIXTURES), out=previous_build, variants=["shuffle-random"], use_cache=False, seed=6))
    assert seed_of(previous_build) == 6 and leftovers(previous_build) == []


SWAPPER = """
import sys
from pathlib import Path
from swapbench.dataset.pipeline import build, build_options

source, out, rounds = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
for seed in range(1, rounds + 1):
    build(build_options(source=source, out=out, variants=["shuffle-random"], use_cache=False, seed=seed))
"""


def test_the_old_or_the_new_build_is_at_out_at_every_moment(previous_build):
    # A bare stat is fast enough to land between two renames microseconds apart: polled so, the swap by two
    # renames (the fallback) misses build_info.json hundreds of times in 40 builds.
    info, rounds, misses, polls, done = str(previous_build / BUILD_INFO), 40, [], [], threading.Event()

    def poll():
        while not done.is_set():
            try:
                os.stat(info)
            except FileNotFoundError as err:
                misses.append(repr(err))
            polls.append(None)

    poller = threading.Thread(target=poll)
    poller.start()
    try:
        swapper = subprocess.run(
            [sys.executable, "-c", SWAPPER, str(FIXTURES), str(previous_build), str(rounds)],
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        done.set()
        poller.join()
    assert swapper.returncode == 0, swapper.stderr
    assert seed_of(previous_build) == rounds and len(polls) > 1000
    assert misses == []
    assert leftovers(previous_build) == []


def test_zoo_report_keeps_a_readme_written_without_its_markers():
    from swapbench.zoo.report import BEGIN, END, merge

    mine = "# Zoo runs on the lab machine\n\nseeds 0-4, see the log book\n"
    block = f"{BEGIN}\n| encoding | Δ |\n{END}"
    merged = merge(mine, block)
    assert merged.startswith(mine) and merged.endswith(block + "\n")
    assert merge(merged, f"{BEGIN}\nnew table\n{END}") == mine + f"\n{BEGIN}\nnew table\n{END}\n"
