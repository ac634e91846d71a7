"""Print the symmetry sweep as a Markdown table: the attenuated matrix (length 128, w = 0.001) over s, with the
largest left/right gap as a share of the top weight, the paper's symmetry and swapbench's degree_symmetry.

    python scripts/symmetry_sweep.py
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run as `python scripts/symmetry_sweep.py` from anywhere
    sys.path.insert(0, str(REPO))

from swapbench.probing.sweep import SWEEP_LENGTH, SWEEP_W, symmetry_sweep  # noqa: E402


def sweep_table() -> str:
    lines = [
        f"Attenuated matrix, length {SWEEP_LENGTH}, w = {SWEEP_W:g}",
        "",
        "| s | largest left/right gap (share of the top weight) | symmetry (paper) | degree_symmetry |",
        "|---|---|---|---|",
    ]
    for row in symmetry_sweep():
        degree = "null" if row.degree_symmetry is None else f"{row.degree_symmetry:.6f}"
        lines.append(f"| {row.s:g} | {row.largest_gap:.3g} | {row.paper_symmetry:.3f} | {degree} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(sweep_table())
