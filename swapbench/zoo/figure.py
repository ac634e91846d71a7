"""The zoo figure: the primary metric, the share of pairs whose prediction changes under each perturbation, per
encoding, one panel per configuration; one bar per set-up (mean over seeds) with its 95% interval over seeds and a
dot per seed. A bar with a seed whose model `swapbench eval` found at chance is hatched, and the bar of an encoding
not shown to read the premise (no premise-blind control beaten) is hollow; when every model is at chance the figure
says so in place of the panels: their bars, all near 0 on a 0-0.05 axis, would read as a model that no perturbation
moves rather than as one that learnt nothing."""

from __future__ import annotations

from pathlib import Path

import numpy as np

FIGURE_FILE = "zoo_order_sensitivity.png"


def _panel(axes, summary, configuration: str, colours) -> None:
    from matplotlib.colors import to_rgba

    setups = summary.setups
    encodings = [e.encoding for e in summary.of(setups[0])]
    x = np.arange(len(encodings))
    width = 0.8 / len(setups)
    for k, setup in enumerate(setups):
        rows = {e.encoding: e for e in summary.of(setup)}
        offset = x - 0.4 + width * (k + 0.5)
        spreads = [rows[name].changed.get(configuration) if name in rows else None for name in encodings]
        means = [100 * s.mean if s else 0.0 for s in spreads]
        low = [100 * (s.mean - s.low) if s and s.low is not None else 0.0 for s in spreads]
        high = [100 * (s.high - s.mean) if s and s.high is not None else 0.0 for s in spreads]
        chance = ["//" if name in rows and rows[name].at_chance else None for name in encodings]
        # An encoding not shown to read the premise is drawn hollow: its bar is no finding about its positions.
        hollow = [name in rows and not summary.reads_premise(setup, name) for name in encodings]
        axes.bar(
            offset,
            means,
            width,
            yerr=[low, high],
            capsize=2,
            label=setup,
            color=[(0, 0, 0, 0) if h else to_rgba(colours(k), 0.85) for h in hollow],  # alpha= would fill "none"
            hatch=chance,
            edgecolor=[colours(k) if h else "white" if hatch else "none" for h, hatch in zip(hollow, chance)],
            linewidth=[1.2 if h else 0 for h in hollow],
        )
        for position, s in zip(offset, spreads):
            if s:
                axes.scatter([position] * len(s.values), [100 * v for v in s.values], s=5, color="black", zorder=3)
    axes.set_xticks(x, encodings, rotation=30, ha="right")
    axes.set_ylabel("% predictions changed")
    axes.set_ylim(bottom=0)
    axes.set_title(
        configuration + (" (gold label changes too)" if configuration in summary.relabelled else ""), fontsize=10
    )
    axes.grid(axis="y", alpha=0.3)


def plot_sensitivity(summary, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    degenerate, models = summary.at_chance()
    if models and degenerate == models:
        return _all_at_chance(summary, path, plt)
    configurations = [c for c in summary.configurations if any(c in e.changed for e in summary.encodings)]
    # Constrained layout makes room for the suptitle above the first panel and the legend below the last, so
    # neither covers a bar.
    figure, axes = plt.subplots(
        len(configurations),
        1,
        figsize=(max(9.0, 0.9 * len(summary.of(summary.setups[0]))), 2.6 * len(configurations) + 1.4),
        squeeze=False,
        layout="constrained",
    )
    colours = plt.get_cmap("tab10")
    for axis, configuration in zip(axes[:, 0], configurations):
        _panel(axis, summary, configuration, colours)
    from matplotlib.patches import Patch

    _, labels = axes[0, 0].get_legend_handles_labels()
    handles = [Patch(facecolor=colours(k), alpha=0.85) for k in range(len(labels))]  # the first bar may be hollow
    if degenerate:
        handles.append(Patch(facecolor="lightgrey", hatch="//", edgecolor="white"))
        labels.append(f"hatched: a seed at chance ({degenerate} of {models} models)")
    unread, encoders = summary.not_reading()
    if unread:
        handles.append(Patch(facecolor="none", edgecolor="grey", linewidth=1.2))
        labels.append(f"hollow: not shown to read the premise ({unread} of {encoders}): descriptive only")
    figure.legend(
        handles,
        labels,
        loc="outside lower center",
        ncols=min(len(labels), 4),
        fontsize=9,
        title="set-up",
        title_fontsize=9,
    )
    seeds = ", ".join(map(str, summary.seeds))
    verdict = ": no encoding shown to read the premise" if unread and unread == encoders else ""
    figure.suptitle(
        f"Positional-encoding zoo: order sensitivity on {summary.split}{verdict}\n(mean over seeds {seeds}; "
        "whiskers: 95% interval over seeds, cut to [0, 100]; dots: seeds)",
        fontsize=11,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def _all_at_chance(summary, path: Path, plt) -> Path:
    """The figure of a zoo whose every model is at chance: what happened, and no bars."""
    _, models = summary.at_chance()
    figure = plt.figure(figsize=(9.0, 3.2))
    figure.text(
        0.5,
        0.5,
        f"Every model of this zoo run is at chance ({models} of {models}, by swapbench eval's "
        f"check on {summary.split}):\nno order sensitivity is drawn, since a model that learnt "
        "nothing shows no order sensitivity worth reading.\n"
        "Train longer or on more pairs (see zoo.json's recipe), then run the zoo again.",
        ha="center",
        va="center",
        wrap=True,
        fontsize=10,
    )
    figure.suptitle(
        f"Positional-encoding zoo: order sensitivity on {summary.split}: every model at chance", fontsize=11
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
