"""Where swapbench keeps what it can compute again: parses, fine-tuned checkpoints."""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    """$SWAPBENCH_CACHE_DIR, else $XDG_CACHE_HOME/swapbench, else ~/.cache/swapbench."""
    root = os.environ.get("SWAPBENCH_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "swapbench")
    return Path(root)
