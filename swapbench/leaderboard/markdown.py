"""leaderboard/README.md (the table and how its numbers were made) and leaderboard/leaderboard.csv, whose `seeds`
and `*_seed_sd` columns say over how many fine-tunings a row's figures are a mean, and how far they spread, and whose
`locality_slope_*` columns (once some row has them) give each shuffle's locality slope, its interval and verdict."""

from __future__ import annotations

import csv
import io

from ..core.display import csv_cell
from ..results.schema import LOCALITY_NULL, LOCALITY_SLOPE_SCALE
from . import RESULTS_DIR
from .reference import Reference
from .table import (
    VIEWS,
    Board,
    by_view,
    cell_text,
    delta_key,
    exact_pair_key,
    gradient_key,
    interval_text,
    locality_key,
    non_entailment_key,
    original_key,
    pair_key,
    quartet_key,
    role_key,
    role_p_key,
    variant_note,
)
from .templating import render_markdown

# The reference's shuffle scope, as the README's Δ shuffle-N says which constituents were shuffled.
SCOPES = {"one": "one", "all": "every"}


def render_readme(board: Board, reference: Reference) -> str:
    """README.md from templates/README.md.j2, where every value is escaped as a literal Markdown cell."""
    return render_markdown(
        "README.md.j2",
        board=board,
        reference=reference,
        results_dir=RESULTS_DIR,
        views=by_view(board.rows),
        view_titles={view: title[0].upper() + title[1:] for view, title in VIEWS.items()},
        cell_text=cell_text,
        interval_text=interval_text,
        scope=SCOPES.get(reference.shuffle_scope, "a"),
        sides=[(c, variant_note(c)) for c in board.relabelled if variant_note(c)],
        permuted=sorted({c.config for c in board.columns if c.key.startswith("omega_max:")}),
        sloped=[c.config for c in board.columns if c.kind == "slope"],
        slope_scale=LOCALITY_SLOPE_SCALE,
        slope_null=LOCALITY_NULL,
    )


def has_locality(board: Board, config: str) -> bool:
    """Whether the board shows a locality slope for `config`: once some row's results hold one (a board whose files
    all predate it keeps its columns, byte for byte)."""
    return any(column.key == locality_key(config) for column in board.columns)


def csv_columns(board: Board) -> list[str]:
    keys = {column.key for column in board.columns}
    names = [
        "model",
        "revision",
        "results_file",
        "reported",
        "positional_encoding",
        "architecture",
        "mode",
        "num_parameters",
        "fine_tuned",
        "seeds",
        "training_data",
        "label_view",
        "symmetry_paper",
        "degree_symmetry",
        "locality_paper",
        "relative_locality",
        "accuracy_original",
    ]
    for c in board.shuffles:
        slug = c.replace("-", "_")
        names += [f"delta_{slug}", f"delta_{slug}_low", f"delta_{slug}_high", f"delta_{slug}_seed_sd", f"n_{slug}"]
    for c in board.shuffles:
        if has_locality(board, c):
            slug = c.replace("-", "_")
            names += [
                f"locality_slope_{slug}",
                f"locality_slope_{slug}_low",
                f"locality_slope_{slug}_high",
                f"locality_gradient_{slug}",
            ]
    for c in board.relabelled:
        slug = c.replace("-", "_")
        if quartet_key(c) in keys:
            names += [
                f"quartet_accuracy_{slug}",
                f"quartet_accuracy_{slug}_low",
                f"quartet_accuracy_{slug}_high",
                f"pair_accuracy_{slug}",
                f"pair_accuracy_{slug}_low",
                f"pair_accuracy_{slug}_high",
                f"quartets_{slug}",
                f"pair_accuracy_exact_null_{slug}",
                f"pair_accuracy_exact_null_{slug}_low",
                f"pair_accuracy_exact_null_{slug}_high",
                f"quartets_exact_null_{slug}",
            ]
        names += [
            f"role_sensitivity_{slug}",
            f"role_sensitivity_{slug}_low",
            f"role_sensitivity_{slug}_high",
            f"role_sensitivity_{slug}_seed_sd",
            f"role_sensitivity_{slug}_p",
            f"accuracy_original_{slug}",
            f"delta_{slug}",
            f"delta_{slug}_low",
            f"delta_{slug}_high",
            f"delta_{slug}_seed_sd",
            f"n_{slug}",
            f"non_entailment_rate_{slug}",
        ]
    return names


def render_csv(board: Board) -> str:
    """leaderboard.csv: figures as numbers, every text cell through csv_cell (no formula, no control character)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(csv_columns(board))
    keys = {column.key for column in board.columns}
    for row in board.rows:
        v = row.values

        def delta(config: str, row=row, v=v) -> list:
            low, high, n = row.intervals.get(delta_key(config), (None, None, None))
            return [v.get(delta_key(config)), low, high, row.spreads.get(delta_key(config)), n]

        cells = [
            row.label,
            row.extra["revision"] or "",
            f"{RESULTS_DIR}/{row.file}" if row.file else "",
            row.reported or "",
            v["family"],
            v.get("architecture") or "",
            v.get("mode") or "",
            row.extra["num_parameters"],
            None if row.extra["fine_tuned"] is None else str(row.extra["fine_tuned"]).lower(),
            None if row.reported else row.seeds,
            row.extra["training_detail"],
            row.extra["label_view"],
            v["symmetry"],
            v["degree_symmetry"],
            v["locality"],
            v["relative_locality"],
            v["original"],
        ]
        for c in board.shuffles:
            cells += delta(c)
        for c in board.shuffles:
            if has_locality(board, c):
                low, high, _ = row.intervals.get(locality_key(c), (None, None, None))
                gradient = v.get(gradient_key(c))
                cells += [v.get(locality_key(c)), low, high, None if gradient is None else str(gradient).lower()]
        for c in board.relabelled:
            if quartet_key(c) in keys:
                q_low, q_high, quartets = row.intervals.get(quartet_key(c), (None, None, None))
                p_low, p_high, _ = row.intervals.get(pair_key(c), (None, None, None))
                cells += [v.get(quartet_key(c)), q_low, q_high, v.get(pair_key(c)), p_low, p_high, quartets]
                cells += [v.get(exact_pair_key(c)), *row.intervals.get(exact_pair_key(c), (None, None, None))]
            low, high, _ = row.intervals.get(role_key(c), (None, None, None))
            cells += [
                v.get(role_key(c)),
                low,
                high,
                row.spreads.get(role_key(c)),
                v.get(role_p_key(c)),
                v.get(original_key(c)),
                *delta(c),
                v.get(non_entailment_key(c)),
            ]
        writer.writerow([csv_cell(cell) for cell in cells])
    return out.getvalue()


__all__ = ["render_csv", "render_readme"]
