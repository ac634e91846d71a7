"""leaderboard/index.html: one self-contained page (inline CSS, JS and SVG; no network) that opens from disk.

The table is listed by model name and sorts by any column (click its header; missing values always sort last),
filters by positional-encoding family; each model links to its results file and opens its details (every
configuration and slice of its results file); the paper's reported rows are marked; the plot shows the role
sensitivity of the first role configuration against degree symmetry for every row that has both.
"""

from __future__ import annotations

from functools import partial

from ..core.text import percent, plus_minus, tag_sort_key
from ..results.schema import ConfigurationResult
from . import RESULTS_DIR
from .plot import plot_svg
from .reference import Reference
from .store import model_label
from .table import VIEWS, Board, Column, by_view, cell_text, interval_text, show, weights_text
from .templating import render_html_template

SLICES_NOTE = ("Slices are exploratory: a results file holds many, and read one by one some cross any threshold by "
               "chance. Each p-value is shown with its value adjusted (Holm) over every test of its "
               "configuration's slices; read a slice by the adjusted one.")


def _percent(value: float | None) -> str:
    return "" if value is None else percent(value)


def _p(p_value: float | None) -> str:
    return "" if p_value is None else f"{p_value:.3g}"


def _distance(figures: ConfigurationResult) -> str:
    """The mean distance the configuration's shuffles move words per row; empty where not recorded."""
    return "" if figures.displacement is None else f"{figures.displacement.distance.mean:.2f}"


def _role_names(variance) -> list[str]:
    """The configurations of a multi-seed row with a role sensitivity, whose spread the seeds table shows."""
    return [name for name, spread in variance.spread.items() if spread.role_sensitivity is not None]


def _sorted_slices(figures: ConfigurationResult) -> list:
    """A configuration's slices in natural tag order (words:9 before words:10)."""
    return sorted((figures.slices or {}).items(), key=lambda item: tag_sort_key(item[0]))


def render_html(board: Board, reference: Reference) -> str:
    """index.html from templates/index.html.j2 (autoescaped): one table per label view, whose row ids run over
    the whole board (the plot links to them) and ranks within it; then every row's details (each configuration
    and slice of its results file; for a multi-seed row, each fine-tuning's figures)."""
    groups, start = [], 0
    for view, view_rows in (by_view(board.rows) or {"3-way": []}).items():  # make_board put each view together
        groups.append((view, view_rows, start))
        start += len(view_rows)
    return render_html_template(
        "index.html.j2", board=board, reference=reference, groups=groups, results_dir=RESULTS_DIR,
        any_details=any(row.results is not None for row in board.rows),
        view_titles={view: title[0].upper() + title[1:] for view, title in VIEWS.items()},
        families=sorted({row.family for row in board.rows}), fingerprint=reference.fingerprint_of(
            reference.configurations), plot=plot_svg(board), slices_note=SLICES_NOTE,
        cell_text=cell_text, interval_text=interval_text, show=show, repr=repr, percent=_percent, p=_p,
        points=partial(show, Column("d", "", "delta")), plus_minus=plus_minus, distance=_distance,
        model_label=model_label, weights_text=weights_text, role_names=_role_names, sorted_slices=_sorted_slices)
