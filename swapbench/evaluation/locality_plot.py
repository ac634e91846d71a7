"""The locality curve of a results file as a figure: for every configuration whose rows record a distance, the share
of predictions changed and Δ accuracy per distance bin (locality.py), each line labelled with its slope, interval and
verdict, so that a reader sees the curve a gradient claim rests on and the test that backs it or not."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from ..core.display import plot_text
from ..results.schema import LOCALITY_NULL, LOCALITY_SLOPE_SCALE, EvalResults
from .locality import bin_edges
from .report import bin_label, gradient_words, slope_points


def _label(name: str, found) -> str:
    if found.slope is None:
        return f"{plot_text(name)}: no slope (one distance), {gradient_words(found.gradient)}"
    ci = found.slope_ci
    return (f"{plot_text(name)}: slope {slope_points(found.slope)} pp / {LOCALITY_SLOPE_SCALE} positions "
            f"[{slope_points(ci.low)}, {slope_points(ci.high)}], {gradient_words(found.gradient)}")


def plot_locality(results: EvalResults, path: Path, title: str | None = None) -> Path:
    """Two panels over the distance bins: share changed (%) and Δ accuracy (pp), one line per configuration with a
    locality curve. ValueError when no configuration has one."""
    found = {name: r.locality for name, r in results.results.items() if r.locality is not None}
    if not found:
        raise ValueError("no configuration of these results records a distance: there is no locality curve")
    edges = bin_edges()
    figure = Figure(figsize=(11, 4.8), layout="constrained")
    changed, delta = figure.subplots(1, 2, sharex=True)
    for name, curve in found.items():
        x = [edges.index((b.distance_min, b.distance_max)) for b in curve.bins]
        label = _label(name, curve)
        changed.plot(x, [100 * b.changed for b in curve.bins], marker="o", label=label)
        delta.plot(x, [100 * b.delta for b in curve.bins], marker="o", label=label)
    labels = [bin_label(low, high) for low, high in edges]
    for axes, what in ((changed, "predictions changed (%)"), (delta, "Δ accuracy (pp)")):
        axes.set_xticks(range(len(edges)), labels)
        axes.set_xlabel("distance: positions travelled by the premise's tokens")
        axes.set_ylabel(what)
        axes.grid(alpha=0.3)
    delta.axhline(0, color="grey", linewidth=0.8)
    changed.legend(fontsize=7, loc="upper left")
    heading = f"{plot_text(title or results.model.name_or_path)}: locality as a curve"
    figure.suptitle(f"{heading}\nnull: {LOCALITY_NULL}; an interval covering 0 is no gradient", fontsize=10)
    figure.savefig(path, dpi=120, metadata={"Title": heading})
    return path
