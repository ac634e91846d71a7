"""Where results go and how they are written and read: the results file and, beside it, its predictions file
(one line per scored pair), named after lm-evaluation-harness's layout.

The two are one unit. The results file records its predictions' sha256 (results.predictions), and they are
written under a lock on their folder, predictions first and the results file last, with a journal beside them
(the earlier predictions kept as `.NAME.previous`, or `.NAME.created` when there were none) until both are in
place. A writer killed between the two renames leaves the journal; whoever takes the lock next (a writer, or a
reader through verified_predictions) rolls the pair back to what it was, as sqlite rolls back a hot journal. So a
reader that finds a results file finds its own predictions beside it, and read_predictions checks that they are.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
from datetime import datetime
from pathlib import Path

from ..core.errors import SwapbenchError
from ..core.files import folder_lock, staging_path, stale_staging
from ..core.jsonl import dumps_lines, read_text, read_values
from ..core.text import exists, public_command, public_path, slug
from .schema import EvalResults, PredictionRow, PredictionsFile

# Names a folder of weights often has that say nothing of the model (a package's `model/`, a run's `best/`): such
# a folder's results are named after the folder that holds it (the bundled MiniLM's after its package).
GENERIC_FOLDERS = frozenset({"model", "models", "weights", "pretrained", "final", "best", "output", "outputs"})


def model_slug(model: str, revision: str | None = None) -> str:
    """The folder name of a model's results: a local folder's own name (never hidden: no leading dot), or its
    parent's when its own is generic (GENERIC_FOLDERS), a Hub id as owner__name@revision. A long name is cut to a
    readable start and a hash of the whole (core.text.slug); the results file records the whole name."""
    if exists(model):
        folder = Path(model).resolve()
        if folder.name.lower() in GENERIC_FOLDERS and folder.parent.name:
            folder = folder.parent
        return slug(folder.name.lstrip("."))
    return slug(model.replace("/", "__") + (f"@{revision[:12]}" if revision else ""))


def default_output(model: str, data: str, started: datetime, revision: str | None = None) -> Path:
    """results/<model>/results_<data>_<UTC time>_<token>.json, after lm-evaluation-harness's layout; <model>
    identifies the model (model_slug). The time is to the microsecond and the token random, so that two runs
    started together (other --configs, say) never share a name; eval creates it exclusively all the same."""
    return (
        Path("results")
        / model_slug(model, revision)
        / f"results_{slug(data)}_{started.strftime('%Y%m%dT%H%M%S_%fZ')}_{secrets.token_hex(3)}.json"
    )


def public_results(results: EvalResults) -> EvalResults:
    """`results` as the results file records them: every model, source and file named as a published file names
    a path (core.text.public_path: inside the working folder from there, outside it by its last parts, a Hub id as
    it is), and the command line likewise. Nothing reads these paths back: the board checks fingerprints, and a
    rebuild or a cached fine-tuning is found by its cache key."""
    model, dataset, variance = results.model, results.dataset, results.seed_variance

    def data(info):
        return info and info.model_copy(update={"source": public_path(info.source)})

    def training(trained):
        return trained and trained.model_copy(
            update={
                "base_model": public_path(trained.base_model),
                "checkpoint": public_path(trained.checkpoint),
                "train": data(trained.train),
                "validation": data(trained.validation),
            }
        )

    tuning = training(model.fine_tuning)
    if variance is not None:
        runs = [run.model_copy(update={"fine_tuning": training(run.fine_tuning)}) for run in variance.runs]
        variance = variance.model_copy(update={"runs": runs})
    prompt = model.prompt and model.prompt.model_copy(
        update={
            "template_source": public_path(model.prompt.template_source),
            "example_source": data(model.prompt.example_source),
        }
    )
    build = dataset.build
    if build is not None and build.sr_selection is not None:
        build = build.model_copy(
            update={
                "sr_selection": build.sr_selection.model_copy(update={"path": public_path(build.sr_selection.path)})
            }
        )
    return results.model_copy(
        update={
            "model": model.model_copy(
                update={"name_or_path": public_path(model.name_or_path), "fine_tuning": tuning, "prompt": prompt}
            ),
            "dataset": dataset.model_copy(
                update={
                    "path": public_path(dataset.path),
                    "build": build,
                    "source": dataset.source and public_path(dataset.source),
                }
            ),
            "provenance": results.provenance.model_copy(update={"command": public_command(results.provenance.command)}),
            "seed_variance": variance,
        }
    )


def predictions_path(results_path: Path) -> Path:
    return results_path.with_name(results_path.stem + ".predictions.jsonl")


def render_predictions(rows: list[PredictionRow], results_path: Path) -> tuple[str, PredictionsFile]:
    """The predictions file's text, and its entry in the results file; a multi-seed run's rows carry their seed."""
    text = dumps_lines((row.model_dump(mode="json") for row in rows), compact=True)
    return text, PredictionsFile(
        path=predictions_path(results_path).name, sha256=hashlib.sha256(text.encode()).hexdigest(), rows=len(rows)
    )


def write_results(results: EvalResults, predictions: str, path: Path, *, exclusive: bool = False) -> None:
    """The results file and, beside it, its predictions file, as one unit (the module's docstring): neither is
    replaced when one cannot be written (OSError), and a writer killed at any step leaves the earlier pair or
    the new one. `exclusive`: refuse (FileExistsError) to replace a pair that is there, for a name eval chose
    itself, which another run may have taken."""
    target = predictions_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with folder_lock(path.parent):
        _roll_back(path)
        if exclusive and (path.exists() or target.exists()):
            raise FileExistsError(errno.EEXIST, "another run wrote it meanwhile", str(path))
        staged = []
        try:
            for data, final in (
                (predictions.encode("utf-8"), target),
                ((results.model_dump_json(indent=2) + "\n").encode("utf-8"), path),
            ):
                staging = staging_path(final)
                with open(staging, "xb") as stream:
                    staged.append(staging)
                    stream.write(data)
            previous, created = _journal(path)
            if target.exists():
                os.link(target, previous)  # the earlier predictions, kept until the results file is in place
            else:
                created.touch(exist_ok=False)
            os.replace(staged[0], target)
            os.replace(staged[1], path)  # the commit: from here on the new pair is whole
            previous.unlink(missing_ok=True)
            created.unlink(missing_ok=True)
        finally:
            for staging in staged:
                with contextlib.suppress(FileNotFoundError):
                    staging.unlink()


def _journal(path: Path) -> tuple[Path, Path]:
    """The journal of the pair at `path`: the earlier predictions (a hard link), or the mark that there were none."""
    target = predictions_path(path)
    return target.with_name(f".{target.name}.previous"), target.with_name(f".{target.name}.created")


def _recorded_sha256(path: Path) -> str | None:
    """The predictions' sha256 that the results file at `path` records; None when it is absent or unreadable."""
    try:
        return json.loads(path.read_bytes())["predictions"]["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _roll_back(path: Path) -> None:
    """Finish what a writer killed while writing the pair at `path` left (call it holding the folder's lock): when
    its results file is in place with its predictions, drop the journal; else put the earlier predictions back
    (or take away the new ones, where there were none), so the earlier pair is whole again. Its staging files go."""
    previous, created = _journal(path)
    target = predictions_path(path)
    if previous.exists() or created.exists():
        recorded = _recorded_sha256(path)
        if recorded is None or recorded != _sha256(target):
            if previous.exists():
                os.replace(previous, target)
            else:
                target.unlink(missing_ok=True)
        previous.unlink(missing_ok=True)
        created.unlink(missing_ok=True)
    for staging in (*stale_staging(path), *stale_staging(target)):
        staging.unlink(missing_ok=True)


def read_predictions(path: Path, expected: PredictionsFile | None = None) -> list[PredictionRow]:
    """The rows of the predictions file at `path`; with `expected` (the results file's record of them), checked
    to be those predictions: their sha256 and row count, else a SwapbenchError naming the file. The rows are
    read from the very bytes that were checked."""
    if expected is None:
        text = read_text(path)
    else:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise SwapbenchError(
                f"{path} is missing: the results file beside it records {expected.rows} "
                "predictions there. Run eval again to write both"
            ) from None
        except OSError as err:
            raise SwapbenchError(f"cannot read {path}: {err.strerror}") from err
        digest = hashlib.sha256(data).hexdigest()
        if digest != expected.sha256:
            raise SwapbenchError(
                f"{path} is not the predictions its results file records: its sha256 is {digest}, "
                f"the results file says {expected.sha256} (it was replaced, edited or cut short). "
                "Run eval again to write both"
            )
        text = data.decode("utf-8", errors="replace")  # (a file with that sha256 is the UTF-8 eval wrote)
    rows = parse_predictions(text, path)
    if expected is not None and len(rows) != expected.rows:
        raise SwapbenchError(f"{path} holds {len(rows)} predictions, its results file records {expected.rows}")
    return rows


def parse_predictions(text: str, path: Path) -> list[PredictionRow]:
    """The rows of a predictions file's text; SwapbenchError naming `path` and the line of one that is not a row."""
    return [row for _, row in read_values(text, path, loads=PredictionRow.model_validate_json, type=None)]


def verified_predictions(results_path: Path, expected: PredictionsFile | None = None) -> list[PredictionRow]:
    """The predictions beside the results file at `results_path`, checked against what it records (or against
    `expected`, results already read), read under the folder's lock so that no writer is half-way through; a
    pair that a killed writer left half-written is rolled back first."""
    with folder_lock(results_path.parent, shared=True):
        if not _left_by_a_killed_writer(results_path):
            return _read_checked(results_path, expected)
    with folder_lock(results_path.parent):  # a killed writer's journal: roll it back, which takes the lock whole
        try:
            _roll_back(results_path)
        except OSError as err:
            raise SwapbenchError(
                f"{results_path}: a writer was killed while writing it and its predictions, and "
                f"the earlier pair cannot be put back ({err.strerror}); run eval again"
            ) from err
        return _read_checked(results_path, expected)


def _left_by_a_killed_writer(path: Path) -> bool:
    """Whether the pair at `path` has a journal or staging files: under the folder's lock no writer is at work,
    so a dead one left them."""
    return any(p.exists() for p in _journal(path)) or bool(stale_staging(path) or stale_staging(predictions_path(path)))


def _read_checked(results_path: Path, expected: PredictionsFile | None) -> list[PredictionRow]:
    if expected is None:
        try:
            expected = EvalResults.model_validate_json(results_path.read_bytes()).predictions
        except (OSError, ValueError) as err:
            raise SwapbenchError(f"{results_path} does not read as a results file: {err}") from err
    return read_predictions(predictions_path(results_path), expected)
