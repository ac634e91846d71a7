"""Figures of positional attention: heatmaps of the matrix averaged over layers and of each layer, and the mean
weight against the offset i - j (the 1-D view of locality and symmetry). A causal model's matrices are zero right
of the diagonal; the heatmaps leave those cells blank, and its offset profile stops at 0.

Most models park much of each row's weight on the first position (an attention sink): in the offset profile that
one key makes the largest offsets, which only the rows far from it reach, look like long-range attention. The
profile is therefore drawn twice, with every position and with position 0 left out."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure

from .metrics import offset_profile
from .result import ProbeResult

QUERY_LABEL = "attending position i (query)"
KEY_LABEL = "attended position j (key)"
# A log scale: one position (often the first) can take most of its row's weight while the band near the
# diagonal, which locality and symmetry describe, is two orders of magnitude fainter.
DYNAMIC_RANGE = 1e3


def _norm(*matrices: np.ndarray) -> LogNorm:
    vmax = max(float(m.max()) for m in matrices)
    positive = [float(m[m > 0].min()) for m in matrices if np.any(m > 0)]
    vmin = max(min(positive, default=vmax / DYNAMIC_RANGE), vmax / DYNAMIC_RANGE)
    return LogNorm(vmin=vmin, vmax=vmax, clip=True)


def short_name(model: str | None) -> str:
    """A model's name for a figure: a Hub id as given, a folder (or a path already cut to "…/a/b") by its last
    two parts."""
    name = model or "model"
    path = Path(name)
    if path.is_absolute() or name.startswith("…/") or path.exists():
        name = "/".join(path.parts[-2:])
    return name


def _title(result: ProbeResult, name: str | None) -> str:
    return f"{name or short_name(result.model)}: positional attention"


def _ticks(axes, n: int) -> None:
    """Ticks at quarters, none at the far edge, where neighbouring panels' labels would run together."""
    ticks = list(range(0, n, max(1, n // 4)))
    axes.set_xticks(ticks)
    axes.set_yticks(ticks)


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _figures(result: ProbeResult) -> str:
    return (
        f"locality (paper) {result.locality:.1%}, relative {_figure(result.relative_locality)}; symmetry (paper) "
        f"{_figure(result.symmetry)}, degree {_figure(result.degree_symmetry)}"
    )


def plot_average(result: ProbeResult, path: Path, name: str | None = None) -> Path:
    """One heatmap of the matrix averaged over layers, heads and words; `name` titles it (default: the model's
    name or folder)."""
    matrix = result.matrix_array()
    figure = Figure(figsize=(7, 6), layout="constrained")
    axes = figure.add_subplot()
    image = axes.imshow(matrix, cmap="viridis", norm=_norm(matrix), interpolation="nearest")
    _ticks(axes, len(matrix))
    axes.set_xlabel(KEY_LABEL)
    axes.set_ylabel(QUERY_LABEL)
    axes.set_title(
        f"{_title(result, name)}\n{_figures(result)}\n"
        f"({len(result.words)} words x {result.length}, seed {result.seed})",
        fontsize=10,
    )
    figure.colorbar(image, ax=axes, label="mean attention weight (log scale)")
    figure.savefig(path, dpi=150, metadata={"Title": _title(result, name)})
    return path


def plot_layers(result: ProbeResult, path: Path, name: str | None = None) -> Path:
    """A grid with one heatmap per layer, on a shared colour scale."""
    layers = result.layer_arrays()
    count = len(layers)
    columns = math.ceil(math.sqrt(count))
    rows = math.ceil(count / columns)
    figure = Figure(figsize=(3.2 * columns + 1, 3.2 * rows + 0.6), layout="constrained")
    grid = figure.subplots(rows, columns, squeeze=False, sharex=True, sharey=True)
    norm = _norm(*layers)
    image = None
    for index, axes in enumerate(grid.flat):
        if index >= count:
            axes.set_axis_off()
            continue
        metrics = result.per_layer[index]
        image = axes.imshow(layers[index], cmap="viridis", norm=norm, interpolation="nearest")
        _ticks(axes, result.positions)
        axes.set_title(
            f"layer {metrics.layer}: loc (paper) {metrics.locality:.1%}, "
            f"rel {_figure(metrics.relative_locality)}\nsym (paper) {_figure(metrics.symmetry)}, "
            f"degree {_figure(metrics.degree_symmetry)}",
            fontsize=9,
        )
        if index % columns == 0:
            axes.set_ylabel("query i")
        if index // columns == rows - 1 or index + columns >= count:
            axes.set_xlabel("key j")
    figure.suptitle(f"{_title(result, name)}, per layer")
    figure.colorbar(image, ax=grid, label="mean attention weight (log scale)", shrink=0.8)
    figure.savefig(path, dpi=120, metadata={"Title": f"{_title(result, name)}, per layer"})
    return path


def layer_colours(layers: int):
    """One colour per layer, from first (dark) to last (light) on a sequential map, and the colour bar's scale: a
    cycle of 10 colours would give a 30-layer decoder three layers per colour."""
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import BoundaryNorm

    cmap = colormaps["viridis"].resampled(max(layers, 1))
    scale = ScalarMappable(norm=BoundaryNorm(np.arange(0.5, layers + 1), cmap.N), cmap=cmap)
    return [cmap(k) for k in range(layers)], scale


def _profiles(axes, result: ProbeResult, start: int, colours):
    """The offset profile of positions start.. (as queries and keys), per layer (thin, in its layer's colour) and
    over layers (thick): the line of the latter."""
    for metrics, layer, colour in zip(result.per_layer, result.layer_arrays(), colours):
        offsets, means = offset_profile(layer, start)
        shown = means > 0
        axes.plot(offsets[shown], means[shown], linewidth=0.8, alpha=0.7, color=colour, label=f"layer {metrics.layer}")
    offsets, means = offset_profile(result.matrix_array(), start)
    shown = means > 0
    [average] = axes.plot(offsets[shown], means[shown], color="black", linewidth=2, label="all layers")
    axes.axvline(0, color="grey", linewidth=0.5)
    axes.set_yscale("log")
    axes.set_xlabel("offset i - j (positive: attended position left of the attending one)")
    return average


# Position 0 is called a sink when it takes this many times the share an even spread would give it.
SINK_FACTOR = 2.0


def sink_share(matrix: np.ndarray) -> float:
    """The share of each row's weight that goes to position 0, averaged over the rows after it."""
    return float(matrix[1:, 0].mean()) if len(matrix) > 1 else 0.0


def even_share(positions: int, causal: bool) -> float:
    """sink_share of attention spread evenly over the keys each row sees (all of them, or those up to itself)."""
    if positions < 2:
        return 0.0
    seen = np.arange(2, positions + 1) if causal else np.full(positions - 1, positions)
    return float(np.mean(1.0 / seen))


def plot_offsets(result: ProbeResult, path: Path, name: str | None = None) -> Path:
    """Mean attention weight against the offset i - j (positive: left of the attending position), averaged over
    layers (thick) and per layer (thin), on a log scale: with every position, and beside it without position 0,
    the attention sink, whose weight otherwise reads as attention at the largest offsets."""
    figure = Figure(figsize=(13, 4.8), layout="constrained")
    every, rest = figure.subplots(1, 2, sharey=True)
    colours, scale = layer_colours(len(result.per_layer))
    average = _profiles(every, result, 0, colours)
    _profiles(rest, result, 1, colours)
    matrix = result.matrix_array()
    share, even = sink_share(matrix), even_share(len(matrix), result.causal)
    sink = share > SINK_FACTOR * even
    if sink:
        every.set_title(
            f"every position: position 0, an attention sink, takes {share:.0%} of a row's weight "
            f"({share / even:.0f}x an even share),\nwhich the rows far from it show at the largest "
            "offsets",
            fontsize=9,
        )
    else:
        every.set_title(
            f"every position: position 0 takes {share:.0%} of a row's weight, near an even share "
            f"({even:.0%}): no attention sink",
            fontsize=9,
        )
    rest.set_title("position 0 left out, as query and key", fontsize=9)
    farthest = float(matrix[-1, 0])  # the largest offset has one pair: the last row's weight on position 0
    if sink and len(matrix) > 2 and farthest > 0:
        every.annotate(
            "position 0\n(attention sink)",
            xy=(len(matrix) - 1, farthest),
            xytext=(0.7, 0.88),
            textcoords="axes fraction",
            fontsize=8,
            arrowprops={"arrowstyle": "->", "color": "grey"},
        )
    every.set_ylabel("mean attention weight (log scale)")
    decay = f", left decay w {result.left_decay:.3g}" if result.left_decay is not None else ""
    figure.suptitle(
        f"{_title(result, name)} by offset\n{_figures(result)}{decay}{' (causal)' if result.causal else ''}",
        fontsize=10,
    )
    # Outside the panels, so that no curve hides under it: the layers by a colour bar, the average by a legend.
    bar = figure.colorbar(scale, ax=[every, rest], label="layer (thin lines)", pad=0.01, aspect=30)
    bar.set_ticks(
        sorted({1, len(colours), *range(5, len(colours) + 1, 5)}) if len(colours) > 10 else range(1, len(colours) + 1)
    )
    figure.legend(handles=[average], loc="outside lower center", fontsize=8, frameon=False)
    figure.savefig(path, dpi=150, metadata={"Title": f"{_title(result, name)} by offset"})
    return path
