"""Shared fixtures: hand-written SNLI files, the shared SNLI data when present, a private parse cache."""

from __future__ import annotations

import os
import sys
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


@pytest.fixture(autouse=True)
def torch_state_kept():
    """A test leaves torch's process-wide state as it found it: a default dtype or a CPU autocast left at bfloat16
    (transformers 4 leaves one behind after a load that raises) builds every later test's model in bfloat16, and
    those tests then fail far from the cause. The test that leaked fails here, and the state is put back."""
    torch = sys.modules.get("torch")  # never imported here for tests that do not use it
    before = (torch.get_default_dtype(), torch.is_autocast_enabled("cpu")) if torch else None
    yield
    torch = sys.modules.get("torch")
    if torch is None:
        return
    dtype, autocast = torch.get_default_dtype(), torch.is_autocast_enabled("cpu")
    expected = before or (torch.float32, False)
    if (dtype, autocast) != expected:
        torch.set_default_dtype(expected[0])
        torch.set_autocast_enabled("cpu", expected[1])
        pytest.fail(
            f"this test left torch's default dtype {dtype} and CPU autocast {autocast} "
            f"(it found {expected[0]} and {expected[1]})"
        )


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
        assert (
            main(
                ["build", "--source", str(FIXTURES), "--out", str(out), "--no-cache", "--variants", ",".join(variants)]
            )
            == 0
        )
        return out

    return build


@pytest.fixture(scope="session")
def reference_build(tmp_path_factory) -> Path:
    """The reference dataset, built once for the session: SNLI test's default configurations, as `swapbench build
    --split test` writes them (about a minute); skipped, saying why, without the shared SNLI files. It is built
    before any test's private_cache runs, so its caches are made private here."""
    reason = SHARED_SNLI.skip_reason()
    if reason:
        pytest.skip(reason)
    from swapbench.commands.main import main

    root = tmp_path_factory.mktemp("reference")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SWAPBENCH_CACHE_DIR", str(root / "cache"))
        patch.setenv("HF_DATASETS_CACHE", str(root / "hf-datasets"))
        out = root / "snli-test"
        assert (
            main(["build", "--source", str(SHARED_SNLI.folder), "--split", "test", "--out", str(out), "--no-cache"])
            == 0
        )
    return out
