"""Where results go and how they are written and read: the results file and, beside it, its predictions file
(one line per scored pair), named after lm-evaluation-harness's layout."""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path

from ..core.files import replace_files
from ..core.jsonl import dumps_lines, read_text, read_values
from ..core.text import slug
from .schema import EvalResults, PredictionRow, PredictionsFile

MAX_SLUG = 80  # characters of a local path kept in a folder name


def path_slug(path: Path) -> str:
    """A local folder's path as one folder name: relative to the working folder when inside it, its parts joined
    by "__"; a path too long keeps its last parts and a short hash of the whole."""
    resolved = path.resolve()
    try:
        shown = resolved.relative_to(Path.cwd().resolve())
    except ValueError:
        shown = resolved
    name = slug("__".join(part for part in shown.parts if part not in ("/", "")))
    if len(name) <= MAX_SLUG:
        return name
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:8]
    return f"{slug('__'.join(resolved.parts[-3:]))[-(MAX_SLUG - 9):]}-{digest}"


def model_slug(model: str, revision: str | None = None) -> str:
    """The folder name of a model's results: its Hub id (owner__name) and revision, or its local path."""
    if Path(model).exists():
        return path_slug(Path(model))
    return slug(model.replace("/", "__") + (f"@{revision[:12]}" if revision else ""))


def default_output(model: str, data: str, started: datetime, revision: str | None = None) -> Path:
    """results/<model>/results_<data>_<UTC time>.json, after lm-evaluation-harness's layout; <model> identifies
    the model (model_slug)."""
    data_name = Path(data).name if Path(data).exists() else data.replace("/", "__")
    return (Path("results") / model_slug(model, revision)
            / f"results_{slug(data_name)}_{started.strftime('%Y%m%dT%H%M%SZ')}.json")


def predictions_path(results_path: Path) -> Path:
    return results_path.with_name(results_path.stem + ".predictions.jsonl")


def render_predictions(rows: list[PredictionRow], results_path: Path) -> tuple[str, PredictionsFile]:
    """The predictions file's text, and its entry in the results file."""
    text = dumps_lines((row.model_dump(mode="json") for row in rows), compact=True)
    return text, PredictionsFile(path=predictions_path(results_path).name,
                                 sha256=hashlib.sha256(text.encode()).hexdigest(), rows=len(rows))


def write_results(results: EvalResults, predictions: str, path: Path) -> None:
    """The results file and, beside it, its predictions file; neither is replaced when one cannot be written
    (OSError)."""
    replace_files({predictions_path(path): predictions, path: results.model_dump_json(indent=2) + "\n"})


def read_predictions(path: Path) -> list[PredictionRow]:
    return [row for _, row in read_values(read_text(path), path, loads=PredictionRow.model_validate_json, type=None)]
