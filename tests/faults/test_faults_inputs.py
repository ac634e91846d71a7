"""Faults in what swapbench reads: SNLI files, parses, the Hub, selection files. Each case runs the real command
on a file written here and checks the exit code, the message (file and line) and that the previous output stays."""

from __future__ import annotations

import json
import re
import socket
import time
import zlib
from pathlib import Path

import pyarrow.parquet as pq
import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
QUICK = ("--variants", "shuffle-random", "--parser", "ptb", "--no-cache")  # the read is what is tested


def tree(sentence: str) -> str:
    """A flat bracketed parse of `sentence`: one preterminal per word, the final full stop tagged as such."""
    words = sentence.removesuffix(".").split()
    return "(ROOT (S " + " ".join(f"(NN {w})" for w in words) + (" (. .)" if sentence.endswith(".") else "") + "))"


def row(pair_id: str, premise: str, hypothesis: str, label: str = "entailment", **fields) -> dict:
    return {
        "gold_label": label,
        "pairID": pair_id,
        "sentence1": premise,
        "sentence2": hypothesis,
        "sentence1_parse": tree(premise),
        "sentence2_parse": tree(hypothesis),
        **fields,
    }


ROWS = [
    row("p1", "A dog runs in the park.", "An animal moves."),
    row("p2", "Two men play chess.", "People play a game.", "neutral"),
    row("p3", "A woman reads a book.", "A woman sleeps.", "contradiction"),
]


def write_snli(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def said(run) -> str:
    """The error message, unwrapped (the console breaks long lines, even inside a path)."""
    return run.stderr.replace("\n", "")


@pytest.fixture
def previous(tmp_path, digest):
    """An output folder from an earlier build, and its digest."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "README.md").write_text("an earlier build\n")
    (out / "build_info.json").write_text("{}\n")
    return out, digest(out)


def assert_refused(run, message: str, previous, digest) -> None:
    out, before = previous
    assert run.code == 2, run.output
    assert message in said(run), said(run)
    assert "Traceback" not in run.output
    assert digest(out) == before


# --- parses (item 8), pairIDs (9), splits (10), non-string parses (14) ---


def test_a_premise_parse_of_another_sentence_is_refused(tmp_path, swapbench_cli, previous, digest):
    source = write_snli(
        tmp_path / "snli_1.0_test.jsonl",
        [*ROWS[:2], {**ROWS[2], "sentence1_parse": tree("A woman reads a newspaper.")}],
    )
    run = swapbench_cli("build", "--source", source, "--out", previous[0], *QUICK)
    assert_refused(
        run,
        f"{source}:3: sentence1_parse is not a tree of sentence1: its words read 'A woman reads a newspaper .'",
        previous,
        digest,
    )


def test_a_malformed_hypothesis_parse_is_refused_not_replaced_by_spacy(tmp_path, swapbench_cli, previous, digest):
    source = write_snli(
        tmp_path / "snli_1.0_test.jsonl",
        [ROWS[0], {**ROWS[1], "sentence2_parse": tree("People play a game.")[:-2]}, ROWS[2]],
    )
    run = swapbench_cli("build", "--source", source, "--out", previous[0], "--variants", "shuffle-sr", "--no-cache")
    assert_refused(
        run, f"{source}:2: malformed bracketed parse in sentence2_parse: 2 bracket(s) left open", previous, digest
    )


def test_a_hypothesis_parse_of_another_sentence_is_refused(tmp_path, swapbench_cli, previous, digest):
    source = write_snli(
        tmp_path / "snli_1.0_test.jsonl", [{**ROWS[0], "sentence2_parse": tree("A cat sleeps.")}, *ROWS[1:]]
    )
    run = swapbench_cli("build", "--source", source, "--out", previous[0], *QUICK)
    assert_refused(run, f"{source}:1: sentence2_parse is not a tree of sentence2", previous, digest)


@pytest.mark.parametrize("field, value, kind", [("sentence1_parse", 42, "int"), ("sentence2_parse", ["(S x)"], "list")])
def test_a_parse_that_is_not_a_string_is_refused(tmp_path, swapbench_cli, previous, digest, field, value, kind):
    source = write_snli(tmp_path / "snli_1.0_test.jsonl", [ROWS[0], {**ROWS[1], field: value}, ROWS[2]])
    run = swapbench_cli("build", "--source", source, "--out", previous[0], *QUICK)
    assert_refused(run, f"{source}:2: {field} must be a string (a bracketed parse), not {kind}", previous, digest)


def test_a_duplicate_pair_id_names_both_lines(tmp_path, swapbench_cli, previous, digest):
    source = write_snli(tmp_path / "snli_1.0_test.jsonl", [*ROWS, row("p2", "A cat sleeps.", "An animal rests.")])
    run = swapbench_cli("build", "--source", source, "--out", previous[0], *QUICK)
    assert_refused(run, f"{source}:4: duplicate pairID 'p2', first on line 2", previous, digest)


def test_a_file_of_another_split_is_refused(tmp_path, swapbench_cli, previous, digest):
    source = write_snli(tmp_path / "snli_1.0_test.jsonl", ROWS)
    run = swapbench_cli("build", "--split", "dev", "--source", source, "--out", previous[0], *QUICK)
    assert_refused(
        run, f"{source}: this is SNLI's test split by its name, not the dev split asked for", previous, digest
    )


# --- corrupt gzip (14) ---

GZ_ROWS = 400


def gzipped_halves() -> tuple[bytes, bytes]:
    """A .jsonl.gz of GZ_ROWS pairs in two parts: the first half flushed to a byte boundary, which deflate marks
    with an empty stored block (00 00 ff ff), then the rest."""
    lines = [
        json.dumps(row(f"g{i}", f"A dog number {i} runs past {i * 7 % 13} red cars.", f"A dog {i} moves.")) + "\n"
        for i in range(GZ_ROWS)
    ]
    stream = zlib.compressobj(wbits=31)  # gzip framing
    first = stream.compress("".join(lines[: GZ_ROWS // 2]).encode()) + stream.flush(zlib.Z_FULL_FLUSH)
    return first, stream.compress("".join(lines[GZ_ROWS // 2 :]).encode()) + stream.flush()


def test_a_truncated_gzip_names_the_line_where_the_data_end(tmp_path, swapbench_cli, previous, digest):
    data = b"".join(gzipped_halves())
    truncated = data[: len(data) // 2]
    line = zlib.decompressobj(wbits=31).decompress(truncated).count(b"\n") + 1
    source = tmp_path / "snli_1.0_test.jsonl.gz"
    source.write_bytes(truncated)
    run = swapbench_cli("build", "--source", source, "--out", previous[0], *QUICK)
    assert_refused(
        run,
        f"{source}:{line}: corrupt gzip data: Compressed file ended before the end-of-stream marker",
        previous,
        digest,
    )


def test_a_bit_flip_in_the_deflate_stream_names_a_line_before_it(tmp_path, swapbench_cli, previous, digest):
    first, rest = gzipped_halves()
    flipped = bytearray(first + rest)
    flipped[len(first) - 1] ^= 0x01  # the stored block's length check (ff -> fe): zlib fails right there
    source = tmp_path / "snli_1.0_test.jsonl.gz"
    source.write_bytes(bytes(flipped))
    run = swapbench_cli("build", "--source", source, "--out", previous[0], *QUICK)
    assert_refused(
        run, "corrupt gzip data: Error -3 while decompressing data: invalid stored block lengths", previous, digest
    )
    line = int(re.search(rf"{re.escape(str(source))}:(\d+): corrupt gzip data", said(run))[1])
    assert 1 < line <= GZ_ROWS // 2 + 1  # the lines before it decompressed; the damage is at or after it


def test_a_bit_flip_in_the_checksum_names_file_and_line(tmp_path, swapbench_cli, previous, digest):
    flipped = bytearray(b"".join(gzipped_halves()))
    flipped[-8] ^= 0x01  # the CRC-32 of the trailer
    source = tmp_path / "snli_1.0_test.jsonl.gz"
    source.write_bytes(bytes(flipped))
    run = swapbench_cli("build", "--source", source, "--out", previous[0], *QUICK)
    assert_refused(run, f"{source}:{GZ_ROWS + 1}: corrupt gzip data: CRC check failed", previous, digest)


# --- raw U+2028 / U+0085 inside JSON strings (15) ---


def test_raw_line_separators_inside_json_strings_are_text(tmp_path, swapbench_cli):
    source = write_snli(
        tmp_path / "snli_1.0_test.jsonl",
        [ROWS[0], row("p2", "Two men\u0085 play chess.", "People\u2028 play a game."), ROWS[2]],
    )
    out = tmp_path / "out"
    run = swapbench_cli("build", "--source", source, "--out", out, *QUICK)
    assert run.code == 0, run.output
    rows = {r["pair_id"]: r for r in pq.read_table(next((out / "shuffle-random").glob("*.parquet"))).to_pylist()}
    assert rows["p2"]["source_premise"] == "Two men\u0085 play chess."
    # read as text; the rendering squashes white space, which U+2028 and U+0085 are
    assert (rows["p2"]["hypothesis"], rows["p2"]["original_premise"]) == ("People play a game.", "Two men play chess.")


# --- --source (12) and the Hub without network (11) ---


@pytest.mark.parametrize("source", ["data/snli_1.0", "snli/snli_1.0_test.jsonl"])
def test_a_missing_relative_source_is_a_missing_file_not_a_hub_id(
    tmp_path, swapbench_cli, previous, digest, offline_env, source
):
    (tmp_path / "data").mkdir()  # "data/..." is a path under an existing folder, not the Hub user "data"
    run = swapbench_cli("build", "--source", source, "--out", previous[0], *QUICK)
    assert_refused(run, f"{source}: no such file or folder", previous, digest)


def test_an_owner_name_source_found_nowhere_says_both_were_tried(
    tmp_path, swapbench_cli, previous, digest, offline_env
):
    run = swapbench_cli("build", "--source", "someone/snli-copy", "--out", previous[0], *QUICK)
    assert_refused(
        run,
        "cannot load the Hub dataset someone/snli-copy (tried because someone/snli-copy is not a "
        "local file or folder): HF_HUB_OFFLINE is set",
        previous,
        digest,
    )


_STARTUP: list[float] = []


@pytest.fixture
def startup_seconds(swapbench_cli, tmp_path) -> float:
    """How long the build takes to fail on a missing local folder (start-up and imports, no network); once."""
    if not _STARTUP:
        start = time.monotonic()
        assert swapbench_cli("build", "--source", tmp_path / "nowhere", *QUICK).code == 2
        _STARTUP.append(time.monotonic() - start)
    return _STARTUP[0]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def online_env(tmp_path: Path, endpoint: str) -> dict:
    return {
        "HF_HUB_OFFLINE": "0",
        "HF_DATASETS_OFFLINE": "0",
        "TRANSFORMERS_OFFLINE": "0",
        "HF_ENDPOINT": endpoint,
        "HF_HOME": str(tmp_path / "hf"),
        "HF_HUB_ETAG_TIMEOUT": "1",
    }


def build_by_default(swapbench_cli, out: Path, env: dict | None = None):
    """`make build`: no --source and no $SWAPBENCH_SNLI_DIR (conftest unsets it), so the SNLI 1.0 release archive;
    and its wall time."""
    start = time.monotonic()
    run = swapbench_cli("build", "--split", "test", "--out", out, "--variants", "shuffle-3", env=env, timeout=120)
    return run, time.monotonic() - start


def assert_points_to_local_files(run) -> None:
    assert "cannot get the SNLI 1.0 release archive from " in said(run)
    assert "(tried because no --source was given and $SWAPBENCH_SNLI_DIR is unset)" in said(run)
    assert "pass --source or set SWAPBENCH_SNLI_DIR to a folder holding snli_1.0_test.jsonl" in said(run)


# The archive is never asked for in offline mode, and an unreachable server is not retried.
def test_offline_mode_fails_at_once_pointing_to_local_files(
    swapbench_cli, previous, digest, offline_env, startup_seconds, tmp_path
):
    run, seconds = build_by_default(swapbench_cli, previous[0], env={"HF_HOME": str(tmp_path / "hf")})
    assert_refused(run, "HF_HUB_OFFLINE is set and the cache holds no copy of it", previous, digest)
    assert_points_to_local_files(run)
    assert seconds < startup_seconds + 10


def test_a_closed_archive_port_fails_at_once_pointing_to_local_files(
    swapbench_cli, previous, digest, startup_seconds, tmp_path
):
    url = f"http://127.0.0.1:{closed_port()}/snli_1.0.zip"
    env = {**online_env(tmp_path, f"http://127.0.0.1:{closed_port()}"), "SWAPBENCH_SNLI_URL": url}
    run, seconds = build_by_default(swapbench_cli, previous[0], env=env)
    assert_refused(run, f"{url} does not answer: ", previous, digest)
    assert_points_to_local_files(run)
    assert seconds < startup_seconds + 10


def test_a_closed_hub_port_fails_at_once_pointing_to_local_files(
    swapbench_cli, previous, digest, startup_seconds, tmp_path
):
    """--source stanfordnlp/snli, SNLI's Hub copy, asked of a Hub that does not answer."""
    endpoint = f"http://127.0.0.1:{closed_port()}"
    start = time.monotonic()
    run = swapbench_cli(
        "build",
        "--source",
        "stanfordnlp/snli",
        "--split",
        "test",
        "--out",
        previous[0],
        "--variants",
        "shuffle-3",
        env=online_env(tmp_path, endpoint),
        timeout=120,
    )
    seconds = time.monotonic() - start
    assert_refused(run, f"{endpoint} does not answer: ", previous, digest)
    assert (
        "cannot load the Hub dataset stanfordnlp/snli (tried because stanfordnlp/snli is not a local file or folder)"
    ) in said(run)
    assert "pass --source or set SWAPBENCH_SNLI_DIR to a folder holding snli_1.0_test.jsonl" in said(run)
    assert seconds < startup_seconds + 10


@pytest.mark.parametrize("source", [None, "stanfordnlp/snli"])
def test_a_silent_server_fails_after_its_timeout(swapbench_cli, previous, digest, startup_seconds, tmp_path, source):
    """The archive's server, or the Hub for SNLI's Hub copy, listens and never answers."""
    with socket.create_server(("127.0.0.1", 0)) as server:  # listens, never answers: requests wait for the timeout
        endpoint = f"http://127.0.0.1:{server.getsockname()[1]}"
        env = {**online_env(tmp_path, endpoint), "SWAPBENCH_SNLI_URL": f"{endpoint}/snli_1.0.zip"}
        start = time.monotonic()
        run = swapbench_cli(
            "build",
            *(["--source", source] if source else []),
            "--split",
            "test",
            "--out",
            previous[0],
            "--variants",
            "shuffle-3",
            env=env,
            timeout=120,
        )
        seconds = time.monotonic() - start
    assert_refused(run, f"{endpoint}{'' if source else '/snli_1.0.zip'} does not answer", previous, digest)
    assert "pass --source or set SWAPBENCH_SNLI_DIR to a folder holding snli_1.0_test.jsonl" in said(run)
    assert seconds < startup_seconds + 10


# --- curate's selection file (3, 15) ---


@pytest.fixture(scope="module")
def swaps(tmp_path_factory) -> Path:
    """A shuffle-sr build of the hand-written role fixture: three swaps, rl1, rl2 and rl6."""
    from swapbench.commands.main import main

    out = tmp_path_factory.mktemp("swaps") / "data"
    assert (
        main(
            [
                "build",
                "--source",
                str(FIXTURES / "snli_roles.jsonl"),
                "--out",
                str(out),
                "--variants",
                "shuffle-sr",
                "--no-cache",
            ]
        )
        == 0
    )
    return out


def decisions(selection: Path) -> list[tuple[str, str]]:
    lines = [line for line in selection.read_text(encoding="utf-8").split("\n") if line]
    return [(d["pair_id"], d["decision"]) for d in map(json.loads, lines)]


def test_curate_ends_an_unterminated_last_line_before_appending(swaps, tmp_path, swapbench_cli):
    selection = tmp_path / "selection.jsonl"
    assert swapbench_cli("curate", swaps, "--selection", selection, input="a\n").code == 0
    selection.write_bytes(selection.read_bytes().rstrip(b"\n"))  # saved by an editor without a final newline

    run = swapbench_cli("curate", swaps, "--selection", selection, input="a\n")
    assert run.code == 0, run.output
    assert "3 swaps: 1 already decided, 2 to judge" in run.stdout
    assert decisions(selection) == [("rl1#0r1e", "accept"), ("rl2#0r1e", "accept")]

    out = tmp_path / "curated"
    run = swapbench_cli(
        "build",
        "--source",
        FIXTURES / "snli_roles.jsonl",
        "--out",
        out,
        "--variants",
        "shuffle-sr",
        "--no-cache",
        "--sr-selection",
        selection,
    )
    assert run.code == 0, run.output
    kept = pq.read_table(next((out / "shuffle-sr").glob("*.parquet"))).column("pair_id").to_pylist()
    assert sorted(kept) == ["rl1#0r1e", "rl2#0r1e"]


def test_curate_reads_back_raw_line_separators(swaps, tmp_path, swapbench_cli):
    selection = tmp_path / "selection.jsonl"
    judged = {"pair_id": "other#1", "decision": "reject", "premise": "Two\u2028 men\u0085 talk .", "hypothesis": "x"}
    selection.write_text(json.dumps(judged, ensure_ascii=False) + "\n", encoding="utf-8")  # as curate writes
    run = swapbench_cli("curate", swaps, "--selection", selection, input="r\n")
    assert run.code == 0, run.output
    run = swapbench_cli("curate", swaps, "--selection", selection, input="")
    assert run.code == 0, run.output
    assert "3 swaps: 1 already decided, 2 to judge" in run.stdout
    assert "In the file: 0 accepted, 2 rejected" in run.stdout
    assert decisions(selection) == [("other#1", "reject"), ("rl1#0r1e", "reject")]
