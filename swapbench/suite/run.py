"""Running a suite: every model at every seed scored by `swapbench eval` (evaluation.pipeline.evaluate) into a
results file of its own under OUT/results/, then the summary.

Resumable: a run's results file is named by its key, the sha256 of the model's revision (its Hub commit, or the
sha256 of a local folder's files), the data's fingerprint and the run's eval options; a file that is there, reads
as a results file and records that revision and fingerprint, and whose predictions file beside it has the sha256
and the number of rows it records, is the run done, and is not scored again. Anything less (a predictions file
cut short, overwritten, or missing) is said, naming the file and what is wrong, and the run scored again. A suite
killed midway and started again scores what is left.

One run's failure is reported and the suite goes on; the command's exit code says that a run failed. Under
`torchrun` or `accelerate launch` each run's pairs are sharded over the processes, and the main process writes.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from rich.console import Console
from rich.markup import escape

from ..core.errors import SwapbenchError
from ..core.progress import progress_bar
from ..core.text import slug
from ..evaluation.options import EvalOptions
from ..results.schema import EvalResults
from .declaration import Run

RESULTS = "results"
logger = logging.getLogger(__name__)


@dataclass
class Outcome:
    """What became of one run."""

    run: Run
    status: Literal["scored", "reused", "failed"]
    path: Path | None = None  # its results file
    results: EvalResults | None = None
    error: str | None = None


def run_suite(runs: list[Run], out: Path, console: Console, progress: bool = True) -> list[Outcome]:
    """Score every run not done yet, in order; the outcome of each (on the helper processes of a launch, only
    those they could tell: they write nothing). What it does is logged; `console` draws the progress bars."""
    from ..evaluation.pipeline import HelperProcess

    fingerprints: dict[tuple, str] = {}
    outcomes = []
    with progress_bar(enabled=progress, console=console) as bar:
        task = bar.add_task("suite", total=len(runs))
        for number, run in enumerate(runs, 1):
            where = f"model {number} of {len(runs)}: {run.label}"
            bar.update(task, description=escape(where))
            logger.info(where[0].upper() + where[1:])
            try:
                outcomes.append(run_one(run, out / RESULTS, console, fingerprints))
            except HelperProcess:
                pass  # the main process reports and writes
            except Exception as err:  # noqa: BLE001  (one run's failure, whatever it is, is that run's)
                why = str(err) if isinstance(err, SwapbenchError) else f"{type(err).__name__}: {err}"
                logger.error(f"failed: {run.label}: {why}")
                outcomes.append(Outcome(run, "failed", error=why))
            bar.advance(task)
    return outcomes


def run_one(run: Run, folder: Path, console: Console, fingerprints: dict[tuple, str]) -> Outcome:
    """One run: its results read back when they are there for this key, else scored."""
    from ..evaluation.pipeline import evaluate

    options = run.options
    revision, fingerprint = model_revision(options), data_fingerprint(options, fingerprints)
    key = run_key(options, revision, fingerprint)
    path = folder / f"{slug(options.gguf_file or options.model)}-seed{options.seed}-{key[:12]}.json"
    done = finished(path, revision, fingerprint)
    if done is not None:
        logger.info(f"Done before: {path}")
        return Outcome(run, "reused", path, done)
    evaluation = evaluate(options.model_copy(update={"output": path}), console=console)
    return Outcome(run, "scored", evaluation.path, evaluation.results)


def model_revision(options: EvalOptions) -> str | None:
    """The model's revision as its results file records it: the Hub commit, or the sha256 of a local folder's
    files (of a GGUF file alone)."""
    from ..models.loading import load_config
    from ..models.loading import model_revision as revision_of

    config = load_config(options.model, options.revision, options.trust_remote_code, options.gguf_file)
    return revision_of(options.model, config, options.revision, options.gguf_file)


def data_fingerprint(options: EvalOptions, known: dict[tuple, str]) -> str:
    """The fingerprint of the data the run scores (its configurations, split and --limit), read once per suite."""
    from ..evaluation.data import open_benchmark
    from ..evaluation.scored_data import dataset_info

    choice = (options.data, options.data_revision, tuple(options.configs or ()), options.split, options.limit)
    if choice not in known:
        known[choice] = dataset_info(
            open_benchmark(
                options.data,
                configs=options.configs,
                split=options.split,
                revision=options.data_revision,
                limit=options.limit,
            )
        ).fingerprint
    return known[choice]


def run_key(options: EvalOptions, revision: str | None, fingerprint: str) -> str:
    """sha256 of what makes a run's results: the model's revision, the data's fingerprint and the eval options
    (all but where the results go and how progress shows)."""
    settings = options.model_dump(mode="json", exclude={"output", "progress", "command"})
    whole = {"revision": revision, "data": fingerprint, "options": settings}
    return hashlib.sha256(json.dumps(whole, sort_keys=True).encode()).hexdigest()


def finished(path: Path, revision: str | None, fingerprint: str) -> EvalResults | None:
    """The results at `path` when they are this run's (that model revision, those data) with the predictions file
    they record; None otherwise (a warning logged when a file is there but does not qualify)."""
    from pydantic import ValidationError

    if not path.is_file():
        return None
    try:
        results = EvalResults.model_validate_json(path.read_bytes())
    except (OSError, ValidationError) as err:
        logger.warning(f"{path} does not read as a results file ({type(err).__name__}); the run is scored again")
        return None
    if results.model.revision != revision or results.dataset.fingerprint != fingerprint:
        logger.warning(f"{path} is not this run's (another model revision or other data); the run is scored again")
        return None
    from ..results.files import verified_predictions

    try:  # every figure is recomputed from them: a file cut short (a killed copy) or overwritten is no run done
        verified_predictions(path, results.predictions)
    except SwapbenchError as err:
        logger.warning(f"{err}; the run is scored again")
        return None
    return results
