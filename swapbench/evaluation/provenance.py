"""What produced a results file: package versions, the source tree's git commit, the processor."""

from __future__ import annotations

import platform
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import torch

PACKAGES = (
    "torch",
    "transformers",
    "tokenizers",
    "accelerate",
    "datasets",
    "huggingface_hub",
    "numpy",
    "pydantic",
    "safetensors",
)


def package_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            pass
    return versions


def git_state() -> tuple[str | None, bool | None]:
    """(commit, dirty) of the git checkout swapbench runs from, or (None, None) when it is installed otherwise."""
    source = Path(__file__).resolve().parents[2]
    if not (source / ".git").exists():
        return None, None
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=source, capture_output=True, text=True, check=True, timeout=10
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=source,
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None, None
    return commit, bool(status.strip())


def device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    if device.type == "cpu":
        return _cpu_model() or platform.processor() or platform.machine()
    return device.type


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def platform_string() -> str:
    return f"{platform.system()} {platform.release()} {platform.machine()}; python {sys.version.split()[0]}"
