"""Every figure the board shows of a results file, recomputed from the file's predictions.

A results file could say anything: a delta, an interval, a health verdict. Its predictions file holds what the model
answered for every pair, and eval computes each figure from those rows alone (evaluation/figures.py, health.py,
seeds.py), so the board runs the same functions on the same rows and refuses a file whose figures differ. The
settings the figures were computed with are read from the file itself: the bootstrap's seed
(provenance.seeds.bootstrap), its resamples and level (each configuration's delta_ci), the label view, the families
its slices' p-values were adjusted in (holm_families), and which
configurations are role configurations (those with a non_entailment_rate); with other settings the figures would
differ, so a lie there shows too. NOT_RECOMPUTED names what the predictions cannot give, and why. A figure added
to the results later (a configuration's locality) is compared where the file holds it: a file written before it
was recorded lacks it, which is no disagreement.

Nothing here loads torch: the board recomputes on any machine.
"""

from __future__ import annotations

from ..evaluation.figures import configuration_result, role_free_controls
from ..evaluation.health import model_health
from ..evaluation.seeds import SeedScores, combined_health, seed_variance
from ..results.schema import TOLERANCE, EvalResults, FineTuningInfo, ModelHealth, PredictionRow
from .validate import Problem, is_number

# What the board shows that the predictions cannot give, by dotted key (* for any name or index), and why.
NOT_RECOMPUTED = {
    "model.probe": "the probe measures the model's attention on repeated-word sequences, not its answers to pairs",
    "model.fine_tuning": "the fine-tuning's validation accuracy and training loss were measured on the training "
    "and validation pairs, which the predictions file does not hold",
    "seed_variance.runs.*.fine_tuning": "each seed's fine-tuning, as model.fine_tuning",
    "seed_variance.validation_accuracy": "the spread of the seeds' validation accuracy (each seed's fine_tuning); "
    "checked against those records only",
    "health.min_train_loss": "the lowest training loss of model.fine_tuning.history; checked against that history only",
    "health.majority_rate": "the majority class of the whole split: recomputed from the predictions of a full run "
    "only (dataset.limit null; the board takes no other)",
    "health.majority_from": "words saying which configurations the majority rate was counted over, taken as they are",
    "seed_variance.runs.*.health.majority_from": "as health.majority_from",
    "model.prompt.templates": "the figures of templates other than the headline one: the predictions file holds the "
    "headline template's answers only",
    "model.prompt.spread": "the spread over those templates, as model.prompt.templates",
    "provenance.scoring": "how the pairs were run (distinct pairs, truncation, batch size, dtype agreement); of it "
    "only pairs, 2 per prediction row, is recomputed",
    "provenance.timings": "wall times of the run",
}

# Health figures that depend on the whole split's majority class: not recomputed from the rows of a --limit run.
MAJORITY_FIGURES = ("majority_rate", "p_value", "at_chance", "reasons")


def recompute_problems(results: EvalResults, rows: list[PredictionRow]) -> list[Problem]:
    """Each figure of `results` that its prediction rows do not give, within TOLERANCE, by its dotted key; empty
    when every figure recomputes."""
    problems = []
    if len(rows) != results.predictions.rows:
        problems.append(Problem("predictions.rows", difference(results.predictions.rows, len(rows))))
    if 2 * len(rows) != results.provenance.scoring.pairs:
        problems.append(
            Problem("provenance.scoring.pairs", difference(results.provenance.scoring.pairs, 2 * len(rows)))
        )
    by_configuration: dict[str, list[PredictionRow]] = {}
    for row in rows:
        by_configuration.setdefault(row.configuration, []).append(row)
    problems += [
        Problem("predictions", f"rows of configuration {name!r}, which the results do not report")
        for name in by_configuration
        if name not in results.results
    ]
    roles = {name for name, result in results.results.items() if result.non_entailment_rate is not None}
    seed = results.provenance.seeds.bootstrap
    readable = True
    for name, result in results.results.items():
        where = f"results.{name}"
        if name not in by_configuration:
            problems.append(Problem(where, "the predictions hold no row of this configuration"))
            readable = False
            continue
        try:
            again = configuration_result(
                by_configuration[name],
                label_view=results.model.label_view,
                non_entailment_view=name in roles,
                seed=seed,
                resamples=result.delta_ci.resamples,
                level=result.delta_ci.level,
                k_curve=bool(result.permutation_acceptance and result.permutation_acceptance.k_curve),
                # a file says per-metric or nothing (its one family); any other word
                # is recomputed per metric, and so shown as differing
                holm_families=None if result.holm_families is None else "per-metric",
            )
        except ValueError as err:  # seeds' rows that are not the same pairs, a figure out of its range
            problems.append(Problem(where, f"its predictions give no figures: {err}"))
            readable = False
            continue
        recomputed = again.model_dump()
        if result.locality is None:  # written before the locality curve was recorded: absent, not contradicted
            recomputed.pop("locality", None)
        problems += differences(where, result.model_dump(), recomputed)
    if readable and results.role_free_controls is not None:  # absent from files written before it
        first = next(iter(results.results.values())).delta_ci
        again = role_free_controls(by_configuration, roles, seed=seed, resamples=first.resamples, level=first.level)
        problems += differences(
            "role_free_controls",
            [c.model_dump() for c in results.role_free_controls],
            [c.model_dump() for c in again or []],
        )
    if readable:  # the health and the seeds' figures need every configuration's rows
        try:
            problems += health_problems(results, by_configuration, roles)
        except ValueError as err:
            problems.append(Problem("health", f"its predictions give no health figures: {err}"))
    return problems


def health_problems(results: EvalResults, rows: dict[str, list[PredictionRow]], roles: set[str]) -> list[Problem]:
    """The health block (and, of a multi-seed run, each seed's health and figures and their spread) recomputed."""
    variance = results.seed_variance
    runs = [(None, results.model.fine_tuning)] if variance is None else [(r.seed, r.fine_tuning) for r in variance.runs]
    seeds = list(dict.fromkeys(row.seed for config_rows in rows.values() for row in config_rows))
    if variance is not None and seeds != [s for s, _ in runs]:  # named at each run, in the rows' order of seeds
        listed = f"the predictions hold rows of seeds {seeds}, in that order"
        return [
            Problem(f"seed_variance.runs.{index}.seed", f"file says {seed}, but {listed}")
            for index, (seed, _) in enumerate(runs)
            if index >= len(seeds) or seed != seeds[index]
        ] or [Problem("predictions", f"{listed}; seed_variance lists {[s for s, _ in runs]}")]
    scores = []
    for index, (run_seed, tuning) in enumerate(runs):
        mine = {
            name: [row for row in config_rows if variance is None or row.seed == run_seed]
            for name, config_rows in rows.items()
        }
        told = results.health if variance is None else variance.runs[index].health
        scores.append(SeedScores(run_seed, tuning, mine, run_health(results, mine, tuning, roles, told)))
    if variance is None:
        return health_differences("health", results, results.health, scores[0].health)
    problems = [
        p
        for index, run in enumerate(scores)
        for p in health_differences(
            f"seed_variance.runs.{index}.health", results, variance.runs[index].health, run.health
        )
    ]
    problems += health_differences("health", results, results.health, combined_health(scores))
    resamples = next(iter(results.results.values())).delta_ci.resamples
    again = seed_variance(scores, roles, seed=results.provenance.seeds.bootstrap, resamples=resamples)
    each_health = {"runs": {"__all__": {"health"}}}  # compared above
    return problems + differences(
        "seed_variance", variance.model_dump(exclude=each_health), again.model_dump(exclude=each_health)
    )


def run_health(
    results: EvalResults,
    rows: dict[str, list[PredictionRow]],
    tuning: FineTuningInfo | None,
    roles: set[str],
    told: ModelHealth,
) -> ModelHealth:
    """model_health of one fine-tuning's rows, as eval computes it. The whole split's originals are the rows of the
    configurations that keep the source's labels: every row of a full run (a --limit run's differ, and
    health_differences leaves out what depends on them)."""
    keeping = [name for name in results.results if name not in roles]
    split_gold = {row.pair_id: row.gold_original for name in keeping for row in rows.get(name, [])}
    return model_health(
        (row for config_rows in rows.values() for row in config_rows),
        tuning,
        len(results.model.label_names),
        split_gold=split_gold,
        split_from=told.majority_from or "",
        label_keeping=keeping,
    )


def health_differences(where: str, results: EvalResults, told: ModelHealth, again: ModelHealth) -> list[Problem]:
    told_figures, again_figures = (block.model_dump(exclude={"majority_from"}) for block in (told, again))
    if results.dataset.limit is not None:
        for key in MAJORITY_FIGURES:
            told_figures.pop(key), again_figures.pop(key)
    return differences(where, told_figures, again_figures)


def differences(where: str, told, again) -> list[Problem]:
    """Where `told` (a file's figures, as dumped) and `again` (recomputed) differ: numbers by more than TOLERANCE,
    anything else at all; each by its dotted key."""
    if isinstance(told, dict) and isinstance(again, dict):
        return [
            p
            for key in [*told, *(k for k in again if k not in told)]
            for p in differences(f"{where}.{key}", told.get(key), again.get(key))
        ]
    if isinstance(told, list) and isinstance(again, list) and len(told) == len(again):
        return [p for i, (a, b) in enumerate(zip(told, again)) for p in differences(f"{where}.{i}", a, b)]
    same = abs(told - again) <= TOLERANCE if is_number(told) and is_number(again) else told == again
    return [] if same else [Problem(where, difference(told, again))]


def difference(told, again) -> str:
    return f"file says {shown(told, again)}, its predictions give {shown(again, told)}"


def shown(value, other) -> str:
    """A figure with the fewest digits that tell it from `other` (at most 17): -0.004 against -0.010."""
    if not (is_number(value) and is_number(other)) or isinstance(value, int) and isinstance(other, int):
        return repr(value)
    for digits in range(3, 18):
        if f"{value:.{digits}g}" != f"{other:.{digits}g}":
            return f"{value:.{digits}g}"
    return repr(value)
