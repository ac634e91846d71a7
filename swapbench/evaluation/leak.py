"""How well the hypotheses alone tell a role swap from its original: figures per role configuration, computed from
the predictions file of a `swapbench eval --hypothesis-only` run (results/hypothesis_only.py says what they mean).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import ValidationError

from ..core.command_options import CommandOptions, option
from ..core.errors import SwapbenchError
from ..results.files import predictions_path, read_predictions
from ..results.hypothesis_only import LEAKS, MARGIN, ConfigurationLeak, HypothesisOnlyLeaks, verdict
from ..results.schema import ConfidenceInterval, EvalResults, PredictionRow
from .results import bootstrap_rng
from .stats import CI_METHOD, bootstrap_delta_ci, clustered_mcnemar, paired_figures


class LeakOptions(CommandOptions):
    """`swapbench leak RESULTS [--output FILE]`."""

    results: Path = option(positional=True, metavar="RESULTS",
                           help="results file of `swapbench eval MODEL --hypothesis-only`; its predictions file "
                                "beside it")
    output: Path = option(LEAKS, help="the file written (default: data/annotations/hypothesis-only.json, the one "
                                      "the dataset card reads)")
    seed: int = option(0, ge=0, help="seed of the bootstrap")
    bootstrap: int = option(10_000, ge=1, help="bootstrap resamples")


def configuration_leak(rows: list[PredictionRow], fingerprint: str, *, seed: int, resamples: int,
                       level: float = 0.95) -> ConfigurationLeak:
    """The leak of one role configuration from its prediction rows: a pair counts +1 when only its swap is
    predicted non-entailment, -1 when only its original is; the interval and the test are clustered by premise."""
    figures = paired_figures([r.prediction_original != "entailment" for r in rows],
                             [r.prediction_perturbed != "entailment" for r in rows], [r.cluster for r in rows])
    low, high = bootstrap_delta_ci(figures, bootstrap_rng(seed, rows[0].configuration), resamples, level)
    return ConfigurationLeak(
        fingerprint=fingerprint, n=figures.n, clusters=figures.clusters,
        swapped_non_entailment=figures.accuracy_perturbed, original_non_entailment=figures.accuracy_original,
        leak=figures.delta,
        leak_ci=ConfidenceInterval(low=low, high=high, level=level, method=CI_METHOD, resamples=resamples),
        p_value=clustered_mcnemar(figures), verdict=verdict(low, high))


def read_hypothesis_only(path: Path) -> tuple[EvalResults, list[PredictionRow], str]:
    """A hypothesis-only run's results, its prediction rows (checked against the sha256 the results record) and
    the results file's sha256; refused, naming the file, when it is anything else."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise SwapbenchError(f"cannot read {path}: {err.strerror}") from err
    try:
        results = EvalResults.model_validate_json(data)
    except ValidationError as err:
        first = err.errors()[0]
        raise SwapbenchError(f"{path}: not a results file of this swapbench ({'.'.join(map(str, first['loc']))}: "
                             f"{first['msg']})") from err
    if not results.model.hypothesis_only:
        raise SwapbenchError(f"{path}: the model saw whole pairs (model.hypothesis_only is false). Score a model "
                             "with `swapbench eval MODEL --hypothesis-only` and give its results file")
    if results.dataset.limit is not None:
        raise SwapbenchError(f"{path}: scored with --limit {results.dataset.limit}: the figures would describe the "
                             "first rows only; score every row")
    predictions = predictions_path(path)
    try:
        text = predictions.read_bytes()
    except OSError as err:
        raise SwapbenchError(f"cannot read the predictions file {predictions}: {err.strerror}") from err
    if hashlib.sha256(text).hexdigest() != results.predictions.sha256:
        raise SwapbenchError(f"{predictions} is not the predictions file {path.name} records (its sha256 differs)")
    return results, read_predictions(predictions), hashlib.sha256(data).hexdigest()


def measure_leaks(path: Path, command: list[str], *, seed: int = 0, resamples: int = 10_000) -> HypothesisOnlyLeaks:
    """The leak of every role configuration (one whose swaps are labelled in the binary view) that the
    hypothesis-only results file at `path` scored."""
    results, rows, sha256 = read_hypothesis_only(path)
    roles = [name for name, result in results.results.items() if result.non_entailment_rate is not None]
    if not roles:
        raise SwapbenchError(f"{path}: no role configuration was scored (one whose swaps are labelled non-entailment "
                             f"in the binary view): score one with --configs")
    fingerprints = {c.name: c.fingerprint for c in results.dataset.configurations}
    by_config: dict[str, list[PredictionRow]] = {}
    for row in rows:
        by_config.setdefault(row.configuration, []).append(row)
    tuning = results.model.fine_tuning  # present: the schema requires it of a hypothesis-only model
    return HypothesisOnlyLeaks(
        model=tuning.base_model, base_revision=tuning.base_revision, recipe=tuning.recipe, train=tuning.train,
        validation=tuning.validation, validation_accuracy=tuning.best_validation_accuracy,
        dataset=results.dataset.path, dataset_fingerprint=results.dataset.fingerprint, results_sha256=sha256,
        eval_command=results.provenance.command, command=command, margin=MARGIN,
        configurations={name: configuration_leak(by_config[name], fingerprints[name], seed=seed,
                                                 resamples=resamples) for name in roles})
