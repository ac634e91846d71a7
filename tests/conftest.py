"""Shared fixtures: hand-written SNLI files, the shared SNLI data when present, a private parse cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings
from shared_snli import locate

# The fault and fuzz searches draw the same examples on every run (HYPOTHESIS_PROFILE=explore draws new ones), so
# that CI's verdict is reproducible: a search that finds a case is made a fixed test of it.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# Read now, before private_cache unsets SWAPBENCH_SNLI_DIR for each test (shared_snli.py says where it looks).
SHARED_SNLI = locate(os.environ, REPO)


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    """Tests never read or write the user's caches, nor reach the internet for a source."""
    monkeypatch.setenv("SWAPBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path_factory.mktemp("hf-datasets")))
    monkeypatch.delenv("SWAPBENCH_SNLI_DIR", raising=False)
    monkeypatch.delenv("SWAPBENCH_MULTINLI_DIR", raising=False)
    # A default source's archive is never fetched from the internet: port 9 on this machine refuses at once.
    monkeypatch.setenv("SWAPBENCH_SNLI_URL", "http://127.0.0.1:9/snli_1.0.zip")
    monkeypatch.setenv("SWAPBENCH_MULTINLI_URL", "http://127.0.0.1:9/multinli_1.0.zip")


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def shared_snli() -> Path:
    """The folder of SNLI 1.0's release files (shared_snli.py); the test is skipped, saying why, without them."""
    reason = SHARED_SNLI.skip_reason()
    if reason:
        pytest.skip(reason)
    return SHARED_SNLI.folder


@pytest.fixture(scope="session")
def build_fixture_dataset(tmp_path_factory):
    """Build the hand-written fixture pairs into a fresh dataset folder with the given variants."""
    from swapbench.commands.main import main

    def build(variants: list[str]) -> Path:
        out = tmp_path_factory.mktemp("data") / "snli-test"
        assert main(["build", "--source", str(FIXTURES), "--out", str(out), "--no-cache",
                     "--variants", ",".join(variants)]) == 0
        return out

    return build
