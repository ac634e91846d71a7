"""Writing the results file and its predictions file, and printing the table."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from pathlib import Path

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..files import replace_files
from .schema import EvalResults, PredictionRow, PredictionsFile


def default_output(model: str, data: str, started: datetime) -> Path:
    """results/<model>/results_<data>_<UTC time>.json, after lm-evaluation-harness's layout."""
    def slug(text: str) -> str:
        name = Path(text).name if Path(text).exists() else text.replace("/", "__")
        return re.sub(r"[^A-Za-z0-9_.-]+", "_", name) or "model"

    return Path("results") / slug(model) / f"results_{slug(data)}_{started.strftime('%Y%m%dT%H%M%SZ')}.json"


def predictions_path(results_path: Path) -> Path:
    return results_path.with_name(results_path.stem + ".predictions.jsonl")


def render_predictions(rows: list[PredictionRow], results_path: Path) -> tuple[str, PredictionsFile]:
    """The predictions file's text, and its entry in the results file."""
    text = "".join(row.model_dump_json() + "\n" for row in rows)
    return text, PredictionsFile(path=predictions_path(results_path).name,
                                 sha256=hashlib.sha256(text.encode()).hexdigest(), rows=len(rows))


def write_results(results: EvalResults, predictions: str, path: Path) -> None:
    """The results file and, beside it, its predictions file; neither is replaced when one cannot be written
    (OSError)."""
    replace_files({predictions_path(path): predictions, path: results.model_dump_json(indent=2) + "\n"})


def read_predictions(path: Path) -> list[PredictionRow]:
    return [PredictionRow.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def results_table(results: EvalResults) -> Table:
    model = results.model
    pe = model.positional_encoding
    title = (f"{model.name_or_path}{' (fine-tuned here)' if model.fine_tuned else ''} · positions: {pe.family} "
             f"({pe.kind})")
    if model.probe:
        title += f" · locality {model.probe.locality:.3f}, symmetry {model.probe.symmetry:.3f}"
    caption = (f"{results.dataset.path} [{results.dataset.split}], {model.label_view} labels. orig, pert: accuracy "
               "(%) on the original and perturbed pairs; Δ = pert - orig (points), its paired-bootstrap 95% CI and "
               "exact McNemar p; non-ent: perturbed pairs predicted non-entailment (%)")
    table = Table(title=escape(title), caption=escape(caption), box=box.SIMPLE_HEAD)
    show_rate = any(r.non_entailment_rate is not None for r in results.results.values())
    table.add_column("config", no_wrap=True)
    for header in ("n", "orig", "pert", "Δ", "95% CI", "p") + (("non-ent",) * show_rate):
        table.add_column(header, justify="right", no_wrap=True)
    for name, r in results.results.items():
        cells = [name, str(r.n), f"{100 * r.accuracy_original:.1f}", f"{100 * r.accuracy_perturbed:.1f}",
                 f"{100 * r.delta:+.1f}", f"[{100 * r.delta_ci.low:+.1f}, {100 * r.delta_ci.high:+.1f}]",
                 f"{r.mcnemar.p_value:.2g}"]
        if show_rate:
            cells.append("" if r.non_entailment_rate is None else f"{100 * r.non_entailment_rate:.1f}")
        table.add_row(*cells)
    return table


def print_table(results: EvalResults, console: Console | None = None) -> None:
    console = console or Console()
    if not console.is_terminal:  # a log file: rich would squeeze the table into 80 columns
        console.width = max(console.width, 120)
    console.print(results_table(results))
