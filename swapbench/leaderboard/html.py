"""leaderboard/index.html: one self-contained page (inline CSS, JS and SVG; no network) that opens from disk.

The table is listed by model name and sorts by any column (click its header; missing values always sort last),
filters by positional-encoding family; each model links to its results file and opens its details (every
configuration and slice of its results file); the paper's reported rows are marked; the plot shows the role
sensitivity of the first role configuration against degree symmetry for every row that has both.

The page fits a screen: the table scrolls inside its own box, the full width of the window, with the model column
held at its left edge (sticky) so that every row keeps its name among the Δ columns. Its columns come in groups a
reader folds (a checkbox each, which CSS alone obeys): the headline columns first and shown (every configuration's
Δ, every role configuration's role sensitivity), the rest folded (UNLU's acceptance figures, the role
configurations' other figures, the probe, the run). The order is the page's own; README.md and leaderboard.csv keep
the board's (table.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from ..core.text import percent, plus_minus, tag_sort_key
from ..results.schema import ConfigurationResult
from . import RESULTS_DIR
from .plot import plot_svg
from .reference import Reference
from .store import model_label
from .table import (
    PROBE_COLUMNS,
    VIEWS,
    Board,
    Column,
    by_view,
    cell_text,
    delta_key,
    exact_pair_key,
    interval_text,
    pair_key,
    quartet_key,
    role_key,
    show,
    weights_text,
)
from .templating import render_html_template

SLICES_NOTE = (
    "Slices are exploratory: a results file holds many, and read one by one some cross any threshold by "
    "chance. Each p-value is shown with its value adjusted (Holm) over the tests of its configuration's "
    "slices: one family per metric (Δ, role sensitivity) in a file that records holm_families, one "
    "family of every test in a file written before; read a slice by the adjusted one."
)


@dataclass(frozen=True)
class ColumnGroup:
    key: str  # the class of its cells (g-KEY) and the id of its checkbox (show-KEY)
    title: str  # the checkbox's label
    shown: bool  # unfolded when the page opens
    columns: tuple[Column, ...]


def column_groups(board: Board) -> tuple[list[Column], list[ColumnGroup]]:
    """(the columns always shown: the model, its architecture and mode where some row has them, its positional
    encoding and Original; the groups a reader folds, in
    the page's order, each with its columns in the board's order). Every column of the board is in exactly one."""
    fixed_keys = ("model", "architecture", "mode", "family", "original")
    roles = set(board.relabelled)
    own: dict[str, list[Column]] = {
        key: [] for key in ("shuffles", "roles", "permutations", "role-figures", "probe", "run")
    }
    for column in board.columns:
        if column.key in fixed_keys:
            continue
        if column.key in PROBE_KEYS:
            own["probe"].append(column)
        elif column.config is None:
            own["run"].append(column)
        elif column.config in roles:
            headline = column.key in (
                role_key(column.config),
                quartet_key(column.config),
                pair_key(column.config),
                exact_pair_key(column.config),
            )
            own["roles" if headline else "role-figures"].append(column)
        elif column.key == delta_key(column.config):
            own["shuffles"].append(column)
        else:
            own["permutations"].append(column)
    titles = {key: title for key, title, _ in GROUPS}
    if any(column.key == quartet_key(column.config) for column in own["roles"]):
        titles["roles"] = "quartet and pair accuracy, role sensitivity"
    groups = [ColumnGroup(key, titles[key], shown, tuple(own[key])) for key, _, shown in GROUPS if own[key]]
    return [c for key in fixed_keys for c in board.columns if c.key == key], groups


# (key, title, shown when the page opens), in the page's order: the headline figures first.
GROUPS = (
    ("shuffles", "Δ of every word-order configuration", True),
    ("roles", "role sensitivity", True),
    ("permutations", "permutation acceptance (UNLU)", False),
    ("role-figures", "role configurations' Original, Δ and non-entailment", False),
    ("probe", "probe (symmetry, locality)", False),
    ("run", "the run (training data, how its figures were made)", False),
)
PROBE_KEYS = {column.key for column in PROBE_COLUMNS} | {"probe"}


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
    fixed, folds = column_groups(board)
    return render_html_template(
        "index.html.j2",
        board=board,
        fixed=fixed,
        folds=folds,
        reference=reference,
        groups=groups,
        results_dir=RESULTS_DIR,
        any_details=any(row.results is not None for row in board.rows),
        view_titles={view: title[0].upper() + title[1:] for view, title in VIEWS.items()},
        families=sorted({row.family for row in board.rows}),
        fingerprint=reference.fingerprint_of(reference.configurations),
        plot=plot_svg(board),
        slices_note=SLICES_NOTE,
        cell_text=cell_text,
        interval_text=interval_text,
        show=show,
        repr=repr,
        percent=_percent,
        p=_p,
        points=partial(show, Column("d", "", "delta")),
        plus_minus=plus_minus,
        distance=_distance,
        model_label=model_label,
        weights_text=weights_text,
        role_names=_role_names,
        sorted_slices=_sorted_slices,
    )
