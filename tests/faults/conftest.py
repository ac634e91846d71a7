"""Fault injection: run the real command in a subprocess, break something for real, and check that the
exit code and message are the promised ones and that nothing the user had was touched."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest


def tree_digest(path: Path) -> dict[str, str]:
    """sha256 of every file under `path` (or of `path` itself), by relative name; {} when absent."""
    path = Path(path)
    if path.is_file():
        return {".": hashlib.sha256(path.read_bytes()).hexdigest()}
    if not path.exists():
        return {}
    return {
        str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(path.rglob("*"))
        if p.is_file()
    }


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@pytest.fixture
def digest():
    return tree_digest


@pytest.fixture
def offline_env(monkeypatch):
    """No network: the Hub libraries are told to stay offline, and any endpoint is unroutable on 127.0.0.1."""
    env = {
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HF_ENDPOINT": "http://127.0.0.1:9",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


@pytest.fixture
def swapbench_cli(tmp_path):
    """Run `swapbench ARGS` in a fresh interpreter; the environment is this test's (private caches included)."""

    def run(
        *args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 300, input: str | None = None
    ) -> Run:
        full_env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **(env or {})}
        done = subprocess.run(
            [sys.executable, "-m", "swapbench.commands.main", *map(str, args)],
            cwd=cwd or tmp_path,
            env=full_env,
            capture_output=True,
            text=True,
            timeout=timeout,
            input=input,
        )
        return Run(done.returncode, done.stdout, done.stderr)

    return run
