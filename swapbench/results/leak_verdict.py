"""The rule that says whether a role configuration leaks through its hypotheses alone (results/hypothesis_only.py
holds the file's schema): kept apart from the schema, which `swapbench leak --help` need not import."""

from __future__ import annotations

from typing import Literal

from ..core.paths import ANNOTATIONS

# Where the committed measurement of the reference build lies (data/annotations/README.md describes it).
LEAKS = ANNOTATIONS / "hypothesis-only.json"

# Within this distance of 0 (5 points), a separation is too small to call a leak: a configuration leaks when the
# whole interval lies beyond it, and sits near chance when the whole interval lies within it.
MARGIN = 0.05

Verdict = Literal["leaks", "near chance", "undecided"]


def verdict(low: float, high: float, margin: float = MARGIN) -> Verdict:
    """What an interval of the leak says: beyond the margin on one side, within it, or neither."""
    if low > margin or high < -margin:
        return "leaks"
    if -margin <= low and high <= margin:
        return "near chance"
    return "undecided"


def check_verdict(stated: Verdict, low: float, high: float) -> None:
    """For the schema's validators: a stated verdict must be the one its interval gives."""
    if stated != verdict(low, high):
        raise ValueError(f"verdict {stated!r} does not follow from the interval")
