"""The SNLI 1.0 release archive as the default source: a release-format zip made from fixtures, served over HTTP on
127.0.0.1, downloaded once into the cache, resumed or restarted when the connection drops, refused when corrupt or
when its files are not the release's. With the shared SNLI data, a default build equals the local build."""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from shared_snli import release_bytes

from swapbench.commands.main import main
from swapbench.core.errors import SwapbenchError
from swapbench.core.registry import SOURCES
from swapbench.sources import load_split
from swapbench.sources.archive import ATTEMPTS
from swapbench.sources.snli import SNLI
from swapbench.variants import DEFAULT_VARIANTS

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
URL_ENV = "SWAPBENCH_FIXTURE_SNLI_URL"


def release_zip(path: Path, files: dict[str, bytes]) -> bytes:
    """A zip laid out as the SNLI 1.0 release: snli_1.0/<file>, with the macOS resource forks the release has."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(f"snli_1.0/{name}", data)
            archive.writestr(f"__MACOSX/snli_1.0/._{name}", b"\0\5\26\7")
        archive.writestr("snli_1.0/README.txt", "the release's readme\n")
    return path.read_bytes()


@dataclass
class Served:
    """What the server hands out and how it misbehaves; what it was asked."""

    body: bytes = b""
    drop: int = 0  # drop this many of the next responses half-way (the full length announced)
    ranges: bool = True  # honour Range requests
    requests: list[str | None] = field(default_factory=list)  # each request's Range header


@pytest.fixture
def server():
    served = Served()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            wanted = self.headers.get("Range")
            served.requests.append(wanted)
            start = int(wanted.removeprefix("bytes=").split("-")[0]) if wanted and served.ranges else 0
            if start >= len(served.body) > 0:
                self.send_response(416)
                self.end_headers()
                return
            part = served.body[start:]
            self.send_response(206 if start else 200)
            self.send_header("Content-Length", str(len(part)))
            if start:
                self.send_header("Content-Range", f"bytes {start}-{len(served.body) - 1}/{len(served.body)}")
            self.end_headers()
            if served.drop:
                served.drop -= 1
                self.wfile.write(part[: len(part) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(part)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    served.url = f"http://127.0.0.1:{httpd.server_address[1]}/snli_1.0.zip"
    yield served
    httpd.shutdown()
    httpd.server_close()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def release(tmp_path):
    """Release-format files made from the hand-written fixture: test, and a dev file of its first rows."""
    test = (FIXTURES / "snli_1.0_test.jsonl").read_bytes()
    dev = b"".join(test.splitlines(keepends=True)[:4])
    return {"snli_1.0_test.jsonl": test, "snli_1.0_dev.jsonl": dev}


@pytest.fixture
def fixture_snli(release, server, monkeypatch):
    """SNLI's declaration with the fixture files' sha256 and its own URL variable, registered for this test."""
    source = SNLI.model_copy(
        update={"name": "fixture-snli", "url_env": URL_ENV, "checksums": {n: sha256(d) for n, d in release.items()}}
    )
    SOURCES.add(source.name, source)
    monkeypatch.setenv(URL_ENV, server.url)
    yield source
    SOURCES.remove(source.name)


def cache_entries(cache: Path) -> list[str]:
    home = cache / "sources" / "fixture-snli"
    return sorted(str(p.relative_to(home)) for p in home.rglob("*")) if home.exists() else []


def test_download_once_then_read_from_the_cache(fixture_snli, release, server, tmp_path):
    server.body = release_zip(tmp_path / "served.zip", release)
    cache = tmp_path / "cache"
    first = load_split("fixture-snli", "test", cache_dir=cache, progress=False)
    assert server.requests == [None]
    assert cache_entries(cache) == [
        "snli_1.0",
        "snli_1.0.zip",
        "snli_1.0/snli_1.0_dev.jsonl",
        "snli_1.0/snli_1.0_test.jsonl",
    ]
    assert first.fingerprint == f"sha256:{sha256(release['snli_1.0_test.jsonl'])}" and len(first.pairs) == 7
    assert first.declaration.name == "fixture-snli"

    again = load_split("fixture-snli", "dev", cache_dir=cache, progress=False)
    assert server.requests == [None]  # no second request
    assert [p.pair_id for p in again.pairs] == [p.pair_id for p in first.pairs[:3]]


def test_offline_mode_reads_the_cache_and_never_asks(fixture_snli, release, server, tmp_path, monkeypatch):
    server.body = release_zip(tmp_path / "served.zip", release)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(SwapbenchError, match="HF_HUB_OFFLINE is set and the cache holds no copy of it"):
        load_split("fixture-snli", "test", cache_dir=tmp_path / "cache", progress=False)
    assert server.requests == []
    monkeypatch.delenv("HF_HUB_OFFLINE")
    load_split("fixture-snli", "test", cache_dir=tmp_path / "cache", progress=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert len(load_split("fixture-snli", "test", cache_dir=tmp_path / "cache", progress=False).pairs) == 7


@pytest.mark.parametrize("damage", ["not a zip", "a flipped byte"])
def test_a_corrupt_archive_is_refused_and_not_kept(fixture_snli, release, server, tmp_path, damage):
    body = release_zip(tmp_path / "served.zip", release)
    if damage == "not a zip":
        body = b"<html>a proxy's error page</html>" * 40
    else:  # inside the test file's compressed data: its CRC no longer matches
        at = body.index(b"snli_1.0/snli_1.0_test.jsonl") + 60
        body = body[:at] + bytes([body[at] ^ 0xFF]) + body[at + 1 :]
    server.body = body
    cache = tmp_path / "cache"
    with pytest.raises(SwapbenchError) as caught:
        load_split("fixture-snli", "test", cache_dir=cache, progress=False)
    message = str(caught.value)
    assert f"the archive downloaded from {server.url} is corrupt" in message
    assert "It was removed; the next run downloads it again" in message
    assert "pass --source or set SWAPBENCH_SNLI_DIR to a folder holding snli_1.0_test.jsonl" in message
    assert cache_entries(cache) == []

    server.body = release_zip(tmp_path / "served.zip", release)  # the next run downloads it again
    assert len(load_split("fixture-snli", "test", cache_dir=cache, progress=False).pairs) == 7
    assert len(server.requests) == 2


def test_a_checksum_mismatch_names_the_file(release, server, tmp_path, monkeypatch, capsys):
    """The default source, SNLI's declaration with the release's sha256, served the fixture's files instead."""
    server.body = release_zip(tmp_path / "served.zip", release)
    monkeypatch.setenv("SWAPBENCH_SNLI_URL", server.url)
    out = tmp_path / "out"
    assert main(["build", "--split", "test", "--out", str(out), "--variants", "shuffle-3"]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert (
        f"snli_1.0_test.jsonl in the archive downloaded from {server.url} has sha256 "
        f"{sha256(release['snli_1.0_test.jsonl'])}, not the SNLI 1.0 release's "
        f"{SNLI.checksums['snli_1.0_test.jsonl']}"
    ) in said
    assert "(tried because no --source was given and $SWAPBENCH_SNLI_DIR is unset)" in said
    assert not out.exists()
    home = Path(__import__("os").environ["SWAPBENCH_CACHE_DIR"]) / "sources" / "snli"
    assert not home.exists() or not any(home.iterdir())  # neither the archive nor its files are kept


def test_a_changed_cached_file_is_refused(fixture_snli, release, server, tmp_path):
    server.body = release_zip(tmp_path / "served.zip", release)
    cache = tmp_path / "cache"
    load_split("fixture-snli", "test", cache_dir=cache, progress=False)
    cached = cache / "sources" / "fixture-snli" / "snli_1.0" / "snli_1.0_test.jsonl"
    cached.write_bytes(cached.read_bytes().replace(b"red guitar", b"blue guitar"))
    with pytest.raises(
        SwapbenchError,
        match=r"snli_1.0_test.jsonl: sha256 [0-9a-f]{64} is not the SNLI 1.0 "
        r"release's [0-9a-f]{64}: the cached copy changed",
    ):
        load_split("fixture-snli", "test", cache_dir=cache, progress=False)


def test_a_dropped_connection_is_resumed_within_the_run(fixture_snli, release, server, tmp_path):
    server.body = release_zip(tmp_path / "served.zip", release)
    server.drop = 1
    split = load_split("fixture-snli", "test", cache_dir=tmp_path / "cache", progress=False)
    assert len(split.pairs) == 7
    assert server.requests == [None, f"bytes={len(server.body) // 2}-"]


@pytest.mark.parametrize("ranges", [True, False], ids=["resumed", "restarted"])
def test_an_interrupted_download_leaves_no_cache_entry_and_the_next_run_succeeds(
    fixture_snli, release, server, tmp_path, ranges
):
    server.body = release_zip(tmp_path / "served.zip", release)
    server.drop, server.ranges = ATTEMPTS, ranges
    cache = tmp_path / "cache"
    with pytest.raises(SwapbenchError, match=r"broke off after \d+ bytes .*; run the command again to resume it"):
        load_split("fixture-snli", "test", cache_dir=cache, progress=False)
    assert cache_entries(cache) == ["snli_1.0.zip.part"]  # nothing half-written bears the archive's name
    assert len(server.requests) == ATTEMPTS

    split = load_split("fixture-snli", "test", cache_dir=cache, progress=False)  # the next run
    assert len(split.pairs) == 7 and server.requests[-1] is not None  # it asked to resume
    assert cache_entries(cache) == [
        "snli_1.0",
        "snli_1.0.zip",
        "snli_1.0/snli_1.0_dev.jsonl",
        "snli_1.0/snli_1.0_test.jsonl",
    ]
    assert (cache / "sources" / "fixture-snli" / "snli_1.0.zip").read_bytes() == server.body


def test_a_stale_longer_part_starts_over(fixture_snli, release, server, tmp_path):
    server.body = release_zip(tmp_path / "served.zip", release)
    home = tmp_path / "cache" / "sources" / "fixture-snli"
    home.mkdir(parents=True)
    (home / "snli_1.0.zip.part").write_bytes(b"x" * (len(server.body) + 10))  # of an older, longer file
    assert len(load_split("fixture-snli", "test", cache_dir=tmp_path / "cache", progress=False).pairs) == 7
    assert server.requests == [f"bytes={len(server.body) + 10}-", None]


# --- online equals offline (the shared SNLI 1.0 files) -------------------------------------------------------------


def test_a_default_build_from_the_archive_equals_the_build_from_the_release_folder(
    shared_snli, server, tmp_path, monkeypatch
):
    files = {f"snli_1.0_{split}.jsonl": release_bytes(shared_snli, split) for split in ("test", "dev")}
    server.body = release_zip(tmp_path / "snli_1.0.zip", files)
    monkeypatch.setenv("SWAPBENCH_SNLI_URL", server.url)
    online, offline = tmp_path / "online", tmp_path / "offline"
    assert main(["build", "--split", "test", "--limit", "200", "--out", str(online)]) == 0
    assert (
        main(["build", "--source", str(shared_snli), "--split", "test", "--limit", "200", "--out", str(offline)]) == 0
    )
    assert len(server.requests) == 1
    built = [json.loads((out / "build_info.json").read_text()) for out in (online, offline)]
    assert (
        built[0]["source_fingerprint"]
        == built[1]["source_fingerprint"]
        == f"sha256:{SNLI.checksums['snli_1.0_test.jsonl']}"
    )
    assert {c["name"]: c["fingerprint"] for c in built[0]["configs"]} == {
        c["name"]: c["fingerprint"] for c in built[1]["configs"]
    }
    assert built[0]["parser"] == "ptb" and built[0]["role_labeler"] == built[1]["role_labeler"]
    # every default configuration, shuffle-sr-validated included: the first 200 test pairs hold judged ones
    assert [c["name"] for c in built[0]["configs"]] == list(DEFAULT_VARIANTS)
