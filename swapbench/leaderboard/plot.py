"""The plot of the page: the role sensitivity of the first role configuration against symmetry, one point per row
with both figures, coloured by positional-encoding family, as inline SVG. The paper's reported rows have no role
sensitivity (the paper did not report it), so they have no point. Each point is an SVG group with id
pt-<family>-<n>, which the page's filter dims; its label is pt-<family>-<n>-label."""

from __future__ import annotations

import io

import matplotlib
from matplotlib.figure import Figure

from .table import Board, role_key

FAMILY_COLOURS = {"absolute": "#1f77b4", "relative": "#ff7f0e", "rotary": "#2ca02c", "alibi": "#d62728",
                  "none": "#9467bd", "unknown": "#7f7f7f"}


def plot_svg(board: Board) -> str:
    key = role_key(board.plotted) if board.plotted else None
    points = [(i, row) for i, row in enumerate(board.rows)
              if key and row.values["symmetry"] is not None and row.values.get(key) is not None]
    # A fixed hash salt and no date make the SVG the same on every rebuild.
    with matplotlib.rc_context({"svg.hashsalt": "swapbench-leaderboard", "svg.fonttype": "none",
                                "font.size": 9}):
        figure = Figure(figsize=(6.8, 4.4))
        ax = figure.add_subplot()
        seen = set()
        xs = [row.values["symmetry"] for _, row in points]
        xmid = (min(xs) + max(xs)) / 2 if xs else 0.5
        for i, row in points:
            x, y = row.values["symmetry"], 100 * row.values[key]
            colour = FAMILY_COLOURS.get(row.family, "#000000")
            legend = (row.family, bool(row.reported))
            label = None
            if legend not in seen:
                label = f"{row.family}{' (reported in the paper)' if row.reported else ''}"
                seen.add(legend)
            if row.reported:
                dot = ax.scatter([x], [y], s=52, marker="D", facecolor="white", edgecolor=colour, linewidth=1.6,
                                 zorder=3, label=label)
            else:
                dot = ax.scatter([x], [y], s=46, color=colour, edgecolor="white", linewidth=0.8, zorder=4,
                                 label=label)
            dot.set_gid(f"pt-{row.family}-{i}")
            dot.set_urls([f"#row-{i}"])
            right = x > xmid  # labels of the right-hand points go to their left, inside the axes
            text = f"{row.label} ‡" if row.reported else row.label
            note = ax.annotate(text, (x, y), xytext=(-6 if right else 6, 4), textcoords="offset points",
                               ha="right" if right else "left", fontsize=7.5,
                               color="#777777" if row.reported else "#333333")
            note.set_gid(f"pt-{row.family}-{i}-label")
        ax.axhline(0, color="#999999", linewidth=0.8, zorder=1)
        ax.set_xlabel("symmetry of the positional attention (1 = left and right alike)")
        ax.set_ylabel(f"role sensitivity {board.plotted_name} (points)")
        ax.grid(True, color="#e5e5e5", zorder=0)
        if points:
            pad = max(0.02, (max(xs) - min(xs)) * 0.1)
            ax.set_xlim(min(xs) - pad, max(xs) + pad)
            ys = [0.0] + [100 * row.values[key] for _, row in points]  # the zero line always shows
            pad = max(2.0, (max(ys) - min(ys)) * 0.12)
            ax.set_ylim(min(ys) - pad, max(ys) + pad)
            ax.legend(title="positional encoding", loc="best", frameon=False, fontsize=7.5)
        else:
            ax.text(0.5, 0.5, f"no model has both a symmetry and a role sensitivity {board.plotted_name}",
                    ha="center", transform=ax.transAxes)
        figure.tight_layout()
        out = io.StringIO()
        figure.savefig(out, format="svg", metadata={"Date": None})
    svg = out.getvalue()
    return svg[svg.index("<svg"):]  # inline: no XML declaration or DOCTYPE
