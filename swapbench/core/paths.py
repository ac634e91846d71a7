"""Where swapbench keeps what it can compute again (parses, fine-tuned checkpoints), and the committed hand
decisions and measurements of a checkout (data/annotations/)."""

from __future__ import annotations

import os
from pathlib import Path

# Hand decisions and measurements of the reference build, committed with the code: pair IDs and figures, no text.
ANNOTATIONS = Path(__file__).resolve().parents[2] / "data" / "annotations"


def default_cache_dir() -> Path:
    """$SWAPBENCH_CACHE_DIR, else $XDG_CACHE_HOME/swapbench, else ~/.cache/swapbench."""
    root = os.environ.get("SWAPBENCH_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "swapbench"
    )
    return Path(root)
