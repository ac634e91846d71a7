"""The locality curve of a results file as a figure: for every configuration whose rows record a distance, the share
of predictions changed and Δ accuracy per distance bin (locality.py), each line labelled with its slope, interval and
verdict, so that a reader sees the curve a gradient claim rests on and the test that backs it or not."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from ..core.display import plot_text
from ..results.schema import LOCALITY_NULL, LOCALITY_SLOPE_SCALE, MIN_SLICE_PAIRS, EvalResults
from .locality import bin_edges
from .report import bin_label, gradient_words, slope_points


def _label(name: str, found) -> str:
    if found.slope is None:
        return f"{plot_text(name)}: no slope (one distance), {gradient_words(found.gradient)}"
    ci = found.slope_ci
    return (
        f"{plot_text(name)}: slope {slope_points(found.slope)} pp / {LOCALITY_SLOPE_SCALE} positions "
        f"[{slope_points(ci.low)}, {slope_points(ci.high)}], {gradient_words(found.gradient)}"
    )


def plot_locality(results: EvalResults, path: Path, title: str | None = None) -> Path:
    """Two panels over the distance bins: share changed (%) and Δ accuracy (pp), one line per configuration with a
    locality curve, a bin of fewer than MIN_SLICE_PAIRS rows drawn hollow (too small to read, as a slice is).
    ValueError when no configuration has one."""
    found = {name: r.locality for name, r in results.results.items() if r.locality is not None}
    if not found:
        raise ValueError("no configuration of these results records a distance: there is no locality curve")
    edges = bin_edges()
    figure = Figure(figsize=(11, 4.8), layout="constrained")
    changed, delta = figure.subplots(1, 2, sharex=True)
    for name, curve in found.items():
        x = [edges.index((b.distance_min, b.distance_max)) for b in curve.bins]
        small = [b.rows < MIN_SLICE_PAIRS for b in curve.bins]
        for axes, values in (
            (changed, [100 * b.changed for b in curve.bins]),
            (delta, [100 * b.delta for b in curve.bins]),
        ):
            (line,) = axes.plot(x, values, label=_label(name, curve))
            # a bin too small to read (as a slice is) is drawn hollow
            axes.scatter(
                [i for i, s in zip(x, small) if not s],
                [v for v, s in zip(values, small) if not s],
                color=line.get_color(),
                zorder=3,
            )
            axes.scatter(
                [i for i, s in zip(x, small) if s],
                [v for v, s in zip(values, small) if s],
                facecolors="white",
                edgecolors=line.get_color(),
                zorder=3,
            )
    labels = [bin_label(low, high) for low, high in edges]
    for axes, what in ((changed, "predictions changed (%)"), (delta, "Δ accuracy (pp)")):
        axes.set_xticks(range(len(edges)), labels)
        axes.set_xlabel("distance: positions travelled by the premise's tokens")
        axes.set_ylabel(what)
        axes.grid(alpha=0.3)
    delta.axhline(0, color="grey", linewidth=0.8)
    changed.legend(fontsize=7, loc="best")
    heading = f"{plot_text(title or results.model.name_or_path)}: locality as a curve"
    figure.suptitle(
        f"{heading}\nnull: {LOCALITY_NULL}; an interval covering 0 is no gradient; hollow: a bin of "
        f"fewer than {MIN_SLICE_PAIRS} rows",
        fontsize=10,
    )
    figure.savefig(path, dpi=120, metadata={"Title": heading})
    return path
