"""The parse cache, damaged for real between two builds: the build warns naming the file, parses again what it
cannot trust, and writes exactly what a build without a cache writes. `--no-cache` neither reads nor writes it."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CACHE = "parses.sqlite"


def build_args(out: Path, *cache: str) -> list[str]:
    """A build that parses with spaCy (the supplied trees are never cached) into `out`."""
    return [
        "build",
        "--source",
        str(FIXTURES),
        "--parser",
        "spacy",
        "--variants",
        "shuffle-3,shuffle-random",
        "--out",
        str(out),
        *cache,
    ]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """What a build without a cache writes, run from outside the repository as the builds it is compared with are
    (build_info.json names its source from the working folder when it lies inside it)."""
    from swapbench.commands.main import main

    out = tmp_path_factory.mktemp("reference") / "data"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(out.parent)
        assert main(build_args(out, "--no-cache")) == 0
    return out


@pytest.fixture(scope="module")
def filled_cache(tmp_path_factory) -> Path:
    """A parse cache as a build with a cache leaves it."""
    from swapbench.commands.main import main

    folder = tmp_path_factory.mktemp("filled")
    assert main(build_args(folder / "data", "--cache-dir", str(folder / "cache"))) == 0
    return folder / "cache" / CACHE


@pytest.fixture
def cache_dir(tmp_path, filled_cache) -> Path:
    """This test's copy of the filled cache."""
    folder = tmp_path / "cache"
    folder.mkdir()
    shutil.copyfile(filled_cache, folder / CACHE)
    return folder


def swap_two_parses(path: Path) -> tuple[str, str]:
    """Give each of the first two rows the other's parse, as a buggy writer could; their sentences."""
    with sqlite3.connect(path) as db:
        (first, one), (second, other) = db.execute("SELECT sentence, parse FROM parses LIMIT 2").fetchall()
        db.execute("UPDATE parses SET parse = ? WHERE sentence = ?", (other, first))
        db.execute("UPDATE parses SET parse = ? WHERE sentence = ?", (one, second))
    db.close()
    return first, second


def test_a_cache_of_garbage_bytes_is_set_aside_and_the_build_is_the_cacheless_one(
    swapbench_cli, tmp_path, cache_dir, reference, digest
):
    garbage = bytes(range(256)) * 64
    (cache_dir / CACHE).write_bytes(garbage)
    run = swapbench_cli(*build_args(tmp_path / "data", "--cache-dir", cache_dir))
    assert run.code == 0, run.output
    aside = cache_dir / "parses.damaged-1.sqlite"
    assert (
        f"warning: the parse cache {cache_dir / CACHE} is damaged (file is not a database); moved it to {aside}"
        in run.stderr
    )
    assert aside.read_bytes() == garbage  # kept for the user, as it was
    assert digest(tmp_path / "data") == digest(reference)
    assert sqlite3.connect(cache_dir / CACHE).execute("SELECT count(*) FROM parses").fetchone()[0] > 0


def test_a_truncated_cache_is_set_aside_and_the_build_is_the_cacheless_one(
    swapbench_cli, tmp_path, cache_dir, reference, digest
):
    whole = (cache_dir / CACHE).read_bytes()
    (cache_dir / CACHE).write_bytes(whole[: len(whole) // 2])
    run = swapbench_cli(*build_args(tmp_path / "data", "--cache-dir", cache_dir))
    assert run.code == 0, run.output
    assert (
        f"warning: the parse cache {cache_dir / CACHE} is damaged (database disk image is malformed); moved it "
        f"to {cache_dir / 'parses.damaged-1.sqlite'}" in run.stderr
    )
    assert digest(tmp_path / "data") == digest(reference)


def test_a_row_holding_another_sentences_parse_is_parsed_again_and_overwritten(
    swapbench_cli, tmp_path, cache_dir, reference, digest
):
    first, _ = swap_two_parses(cache_dir / CACHE)
    run = swapbench_cli(*build_args(tmp_path / "data", "--cache-dir", cache_dir))
    assert run.code == 0, run.output
    assert (
        f"warning: 2 row(s) of the parse cache {cache_dir / CACHE} do not hold a parse of their sentence "
        f"(the first: {first!r}); parsing them again" in run.stderr
    )
    assert digest(tmp_path / "data") == digest(reference)
    again = swapbench_cli(*build_args(tmp_path / "again", "--cache-dir", cache_dir))  # the rows were rewritten
    assert again.code == 0 and "parse cache" not in again.stderr, again.output
    assert digest(tmp_path / "again") == digest(reference)


def test_no_cache_neither_reads_nor_writes_the_cache(swapbench_cli, tmp_path, cache_dir, reference, digest):
    swap_two_parses(cache_dir / CACHE)  # read, it would be warned about; written, it would be repaired
    empty = tmp_path / "empty"
    before = digest(cache_dir)
    for folder in (cache_dir, empty):
        out = tmp_path / f"data-{folder.name}"
        run = swapbench_cli(*build_args(out, "--no-cache", "--cache-dir", folder))
        assert run.code == 0 and "parse cache" not in run.stderr, run.output
        assert digest(out) == digest(reference)
    assert digest(cache_dir) == before
    assert not empty.exists()


def test_a_cache_path_that_cannot_be_opened_names_it_and_the_way_out(swapbench_cli, tmp_path):
    cache_dir = tmp_path / "cache"
    (cache_dir / CACHE).mkdir(parents=True)  # a folder where the database file should be
    out = tmp_path / "data"
    run = swapbench_cli(*build_args(out, "--cache-dir", cache_dir))
    assert run.code == 2
    assert (
        f"error: cannot use the parse cache {cache_dir / CACHE} (unable to open database file): delete it, or "
        "build with --no-cache or another --cache-dir" in " ".join(run.stderr.split())
    )  # as rich wrapped it
    assert "Traceback" not in run.output
    assert not out.exists() and list(tmp_path.glob(".data.building-*")) == []
