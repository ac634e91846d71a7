"""The zoo figure: the primary metric, the share of pairs whose prediction changes under each perturbation, per
encoding, one panel per configuration; one bar per set-up (mean over seeds) with its 95% interval over seeds and a
dot per seed."""

from __future__ import annotations

from pathlib import Path

import numpy as np

FIGURE_FILE = "zoo_order_sensitivity.png"


def _panel(axes, summary, configuration: str, colours) -> None:
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
        axes.bar(offset, means, width, yerr=[low, high], capsize=2, label=setup, color=colours(k), alpha=0.85)
        for position, s in zip(offset, spreads):
            if s:
                axes.scatter([position] * len(s.values), [100 * v for v in s.values], s=5, color="black", zorder=3)
    axes.set_xticks(x, encodings, rotation=30, ha="right")
    axes.set_ylabel("% predictions changed")
    axes.set_ylim(bottom=0)
    axes.set_title(configuration + (" (gold label changes too)" if configuration in summary.relabelled else ""),
                   fontsize=10)
    axes.grid(axis="y", alpha=0.3)


def plot_sensitivity(summary, path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    configurations = [c for c in summary.configurations
                      if any(c in e.changed for e in summary.encodings)]
    # Constrained layout makes room for the suptitle above the first panel and the legend below the last, so
    # neither covers a bar.
    figure, axes = plt.subplots(len(configurations), 1, figsize=(max(9.0, 0.9 * len(summary.of(summary.setups[0]))),
                                                                  2.6 * len(configurations) + 1.4),
                                squeeze=False, layout="constrained")
    colours = plt.get_cmap("tab10")
    for axis, configuration in zip(axes[:, 0], configurations):
        _panel(axis, summary, configuration, colours)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 4), fontsize=9,
                  title="set-up", title_fontsize=9)
    seeds = ", ".join(map(str, summary.seeds))
    figure.suptitle(f"Positional-encoding zoo: order sensitivity on {summary.split}\n(mean over seeds {seeds}; "
                    "whiskers: 95% interval over seeds, cut to [0, 100]; dots: seeds)", fontsize=11)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
