"""Where results go and how they are written and read: the results file and, beside it, its predictions file
(one line per scored pair), named after lm-evaluation-harness's layout."""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path

from ..core.files import replace_files
from ..core.jsonl import dumps_lines, read_text, read_values
from ..core.text import public_command, public_path, slug
from .schema import EvalResults, PredictionRow, PredictionsFile

def model_slug(model: str, revision: str | None = None) -> str:
    """The folder name of a model's results: a local folder's own name (never hidden: no leading dot), a Hub id as
    owner__name@revision."""
    if Path(model).exists():
        return slug(Path(model).resolve().name.lstrip("."))
    return slug(model.replace("/", "__") + (f"@{revision[:12]}" if revision else ""))


def default_output(model: str, data: str, started: datetime, revision: str | None = None) -> Path:
    """results/<model>/results_<data>_<UTC time>.json, after lm-evaluation-harness's layout; <model> identifies
    the model (model_slug)."""
    return (Path("results") / model_slug(model, revision)
            / f"results_{slug(data)}_{started.strftime('%Y%m%dT%H%M%SZ')}.json")


def public_results(results: EvalResults) -> EvalResults:
    """`results` as the results file records them: every model, source and file named as a published file names
    a path (core.text.public_path: inside the working folder from there, outside it by its last parts, a Hub id as
    it is), and the command line likewise. Nothing reads these paths back: the board checks fingerprints, and a
    rebuild or a cached fine-tuning is found by its cache key."""
    model, dataset, variance = results.model, results.dataset, results.seed_variance

    def data(info):
        return info and info.model_copy(update={"source": public_path(info.source)})

    def training(trained):
        return trained and trained.model_copy(update={
            "base_model": public_path(trained.base_model), "checkpoint": public_path(trained.checkpoint),
            "train": data(trained.train), "validation": data(trained.validation)})

    tuning = training(model.fine_tuning)
    if variance is not None:
        runs = [run.model_copy(update={"fine_tuning": training(run.fine_tuning)}) for run in variance.runs]
        variance = variance.model_copy(update={"runs": runs})
    prompt = model.prompt and model.prompt.model_copy(update={
        "template_source": public_path(model.prompt.template_source),
        "example_source": data(model.prompt.example_source)})
    build = dataset.build
    if build is not None and build.sr_selection is not None:
        build = build.model_copy(update={"sr_selection": build.sr_selection.model_copy(
            update={"path": public_path(build.sr_selection.path)})})
    return results.model_copy(update={
        "model": model.model_copy(update={"name_or_path": public_path(model.name_or_path), "fine_tuning": tuning,
                                          "prompt": prompt}),
        "dataset": dataset.model_copy(update={"path": public_path(dataset.path), "build": build,
                                              "source": dataset.source and public_path(dataset.source)}),
        "provenance": results.provenance.model_copy(update={"command": public_command(results.provenance.command)}),
        "seed_variance": variance})


def predictions_path(results_path: Path) -> Path:
    return results_path.with_name(results_path.stem + ".predictions.jsonl")


def render_predictions(rows: list[PredictionRow], results_path: Path) -> tuple[str, PredictionsFile]:
    """The predictions file's text, and its entry in the results file; a multi-seed run's rows carry their seed."""
    text = dumps_lines((row.model_dump(mode="json") for row in rows), compact=True)
    return text, PredictionsFile(path=predictions_path(results_path).name,
                                 sha256=hashlib.sha256(text.encode()).hexdigest(), rows=len(rows))


def write_results(results: EvalResults, predictions: str, path: Path) -> None:
    """The results file and, beside it, its predictions file; neither is replaced when one cannot be written
    (OSError)."""
    replace_files({predictions_path(path): predictions, path: results.model_dump_json(indent=2) + "\n"})


def read_predictions(path: Path) -> list[PredictionRow]:
    return [row for _, row in read_values(read_text(path), path, loads=PredictionRow.model_validate_json, type=None)]
