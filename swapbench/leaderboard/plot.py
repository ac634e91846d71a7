"""The plot of the page: the role sensitivity of the first role configuration against degree symmetry, one point per
row with both figures, coloured by positional-encoding family, as inline SVG. The x axis is swapbench's degree
symmetry, not the paper's symmetry: the paper's is nearly an on/off switch (any asymmetry at all scores about
0.43), which gives no axis to read a trend along. Rows with a role sensitivity but no degree symmetry (probed
before it was recorded, under a causal mask, or too flat) are named in a note under the axes instead. The paper's
reported rows have neither figure, so they have no point. Each point is an SVG group with id pt-<family>-<n>, which
the page's filter dims; its label is pt-<family>-<n>-label. The key (legend) is framed and drawn right of the
axes, where no point can be: inside them, unframed, its marker read as one more point. Every text drawn goes through
plot_text, so that a name is shown as written, never read as mathtext."""

from __future__ import annotations

import io

import matplotlib
from matplotlib.figure import Figure

from ..core.display import plot_text
from .table import Board, role_key

FAMILY_COLOURS = {
    "absolute": "#1f77b4",
    "relative": "#ff7f0e",
    "rotary": "#2ca02c",
    "alibi": "#d62728",
    "none": "#9467bd",
    "unknown": "#7f7f7f",
}


X_KEY = "degree_symmetry"
AXES_ID, LEGEND_ID = "plot-axes", "plot-legend"  # the SVG ids of the axes' area and of the key, outside it
SKIPPED_NOTE = (
    "not plotted, no degree symmetry (probed before it was recorded, under a causal mask, or attention too flat): "
)


def skipped_note(labels: list[str]) -> str:
    return plot_text(SKIPPED_NOTE + ", ".join(labels))


def plot_svg(board: Board) -> str:
    key = role_key(board.plotted) if board.plotted else None
    sensitive = [(i, row) for i, row in enumerate(board.rows) if key and row.values.get(key) is not None]
    points = [(i, row) for i, row in sensitive if row.values.get(X_KEY) is not None]
    skipped = [row.label for _, row in sensitive if row.values.get(X_KEY) is None]
    # A fixed hash salt and no date make the SVG the same on every rebuild.
    with matplotlib.rc_context({"svg.hashsalt": "swapbench-leaderboard", "svg.fonttype": "none", "font.size": 9}):
        figure = Figure(figsize=(8.2, 4.4))  # the axes as before, and the key beside them
        ax = figure.add_subplot()
        ax.patch.set_gid(AXES_ID)
        seen = set()
        xs = [row.values[X_KEY] for _, row in points]
        xmid = (min(xs) + max(xs)) / 2 if xs else 0.5
        for i, row in points:
            x, y = row.values[X_KEY], 100 * row.values[key]
            colour = FAMILY_COLOURS.get(row.family, "#000000")
            legend = (row.family, bool(row.reported))
            label = None
            if legend not in seen:
                label = plot_text(f"{row.family}{' (reported in the paper)' if row.reported else ''}")
                seen.add(legend)
            if row.reported:
                dot = ax.scatter(
                    [x],
                    [y],
                    s=52,
                    marker="D",
                    facecolor="white",
                    edgecolor=colour,
                    linewidth=1.6,
                    zorder=3,
                    label=label,
                )
            else:
                dot = ax.scatter([x], [y], s=46, color=colour, edgecolor="white", linewidth=0.8, zorder=4, label=label)
            dot.set_gid(f"pt-{row.family}-{i}")
            dot.set_urls([f"#row-{i}"])
            right = x > xmid  # labels of the right-hand points go to their left, inside the axes
            text = plot_text(f"{row.label} ‡" if row.reported else row.label)
            note = ax.annotate(
                text,
                (x, y),
                xytext=(-6 if right else 6, 4),
                textcoords="offset points",
                ha="right" if right else "left",
                fontsize=7.5,
                color="#777777" if row.reported else "#333333",
            )
            note.set_gid(f"pt-{row.family}-{i}-label")
        ax.axhline(0, color="#999999", linewidth=0.8, zorder=1)
        ax.set_xlabel(
            "degree symmetry of the positional attention (swapbench's, not the paper's; 1 = left and right alike)"
        )
        ax.set_ylabel(plot_text(f"role sensitivity {board.plotted_name} (points)"))
        ax.grid(True, color="#e5e5e5", zorder=0)
        if points:
            pad = max(0.02, (max(xs) - min(xs)) * 0.1)
            ax.set_xlim(min(xs) - pad, max(xs) + pad)
            ys = [0.0] + [100 * row.values[key] for _, row in points]  # the zero line always shows
            pad = max(2.0, (max(ys) - min(ys)) * 0.12)
            ax.set_ylim(min(ys) - pad, max(ys) + pad)
            # Framed and right of the axes: a marker of the key is never read as one more point.
            key_box = ax.legend(
                title="positional encoding",
                loc="upper left",
                bbox_to_anchor=(1.02, 1.0),
                borderaxespad=0,
                frameon=True,
                fancybox=False,
                edgecolor="#999999",
                framealpha=1,
                fontsize=7.5,
            )
            key_box.set_gid(LEGEND_ID)
        else:
            ax.text(
                0.5,
                0.5,
                plot_text(f"no model has both a degree symmetry and a role sensitivity {board.plotted_name}"),
                ha="center",
                transform=ax.transAxes,
            )
        if skipped:
            figure.text(0.01, 0.01, skipped_note(skipped), fontsize=7, color="#555555", wrap=True)
        figure.tight_layout(rect=(0, 0.05 if skipped else 0, 1, 1))  # room for the note under the axes
        out = io.StringIO()
        figure.savefig(out, format="svg", metadata={"Date": None})
    svg = out.getvalue()
    return svg[svg.index("<svg") :]  # inline: no XML declaration or DOCTYPE
