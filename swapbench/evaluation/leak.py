"""How well the hypotheses alone tell a role swap from its original: figures per role configuration, computed from
the results file of a `swapbench eval --hypothesis-only` run, and beside them, or alone, the plausibility baseline
of a language model (evaluation/plausibility.py); results/hypothesis_only.py says what they mean.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import ValidationError

from ..core.errors import SwapbenchError
from ..core.text import public_path
from ..results.hypothesis_only import MARGIN, ConfigurationLeak, HypothesisOnlyLeaks, PlausibilityBaseline, verdict
from ..results.schema import ConfigurationResult, EvalResults
from .leak_options import LeakOptions


def configuration_leak(result: ConfigurationResult, fingerprint: str) -> ConfigurationLeak:
    """The leak of one role configuration: the hypothesis-only model's role sensitivity, which eval computed from
    the paired predictions (a pair counts +1 when only its swap is predicted non-entailment, -1 when only its
    original is; the interval and the test are clustered by premise)."""
    role = result.role_sensitivity
    return ConfigurationLeak(
        fingerprint=fingerprint,
        n=result.n,
        clusters=result.clusters,
        swapped_non_entailment=role.non_entailment_perturbed,
        original_non_entailment=role.non_entailment_original,
        leak=role.value,
        leak_ci=role.ci,
        p_value=role.test.p_value,
        verdict=verdict(role.ci.low, role.ci.high),
    )


def read_hypothesis_only(path: Path) -> tuple[EvalResults, str]:
    """A hypothesis-only run's results and the results file's sha256; refused, naming the file, when it is
    anything else."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise SwapbenchError(f"cannot read {path}: {err.strerror}") from err
    try:
        results = EvalResults.model_validate_json(data)
    except ValidationError as err:
        first = err.errors()[0]
        raise SwapbenchError(
            f"{path}: not a results file of this swapbench ({'.'.join(map(str, first['loc']))}: {first['msg']})"
        ) from err
    if not results.model.hypothesis_only:
        raise SwapbenchError(
            f"{path}: the model saw whole pairs (model.hypothesis_only is false). Score a model "
            "with `swapbench eval MODEL --hypothesis-only` and give its results file"
        )
    if results.health.at_chance:
        raise SwapbenchError(
            f"{path}: the model is at chance ({'; '.join(results.health.reasons)}): a model that "
            "learned nothing separates nothing, and its leak would read as none"
        )
    if results.dataset.limit is not None:
        raise SwapbenchError(
            f"{path}: scored with --limit {results.dataset.limit}: the figures would describe the "
            "first rows only; score every row"
        )
    return results, hashlib.sha256(data).hexdigest()


def measure_leaks(path: Path, command: list[str]) -> HypothesisOnlyLeaks:
    """The leak of every role configuration (one whose swaps are labelled in the binary view) that the
    hypothesis-only results file at `path` scored."""
    results, sha256 = read_hypothesis_only(path)
    roles = [name for name, result in results.results.items() if result.non_entailment_rate is not None]
    if not roles:
        raise SwapbenchError(
            f"{path}: no role configuration was scored (one whose swaps are labelled non-entailment "
            f"in the binary view): score one with --configs"
        )
    fingerprints = {c.name: c.fingerprint for c in results.dataset.configurations}
    tuning = results.model.fine_tuning  # present: the schema requires it of a hypothesis-only model
    return HypothesisOnlyLeaks(
        model=tuning.base_model,
        base_revision=tuning.base_revision,
        recipe=tuning.recipe,
        train=tuning.train,
        validation=tuning.validation,
        validation_accuracy=tuning.best_validation_accuracy,
        dataset=results.dataset.path,
        dataset_fingerprint=results.dataset.fingerprint,
        results_sha256=sha256,
        eval_command=results.provenance.command,
        command=command,
        margin=MARGIN,
        configurations={name: configuration_leak(results.results[name], fingerprints[name]) for name in roles},
    )


def plausibility_baseline(options: LeakOptions, data: str, command: list[str]) -> PlausibilityBaseline:
    """The plausibility baseline of --plausibility on every role configuration of `data`, its paths made public."""
    from .plausibility import measure_plausibility

    baseline = measure_plausibility(
        data, options.plausibility, gguf_file=options.gguf_file, headline=options.plausibility_score, command=command
    )
    return baseline.model_copy(update={"model": public_path(baseline.model), "dataset": public_path(data)})


def measure(options: LeakOptions, command: list[str]) -> HypothesisOnlyLeaks | PlausibilityBaseline:
    """What `swapbench leak` records: the hypothesis-only figures of RESULTS, with the plausibility baseline beside
    them when --plausibility names a model (on --data, by default the benchmark RESULTS scored); or, without
    RESULTS, the baseline alone."""
    if options.results is None:
        return plausibility_baseline(options, options.data, command)
    leaks = measure_leaks(options.results, command)
    if options.plausibility is None:
        return leaks
    if options.data is None and leaks.dataset.startswith("…"):
        raise SwapbenchError(
            f"{options.results} names its benchmark as {leaks.dataset}, a path shortened for "
            "publishing: give the benchmark's folder with --data"
        )
    baseline = plausibility_baseline(options, options.data or leaks.dataset, command)
    return HypothesisOnlyLeaks.model_validate({**leaks.model_dump(), "plausibility": baseline.model_dump()})
