"""A run over several fine-tuning seeds (`eval --seeds`): each seed's figures, their spread over the seeds, and the
health of the run as a whole.

The means over the seeds, and their intervals that resample seeds and pairs together, are what
figures.configuration_result makes of every seed's rows pooled (figures.py says how), so that a multi-seed file's
`results` have the shape of a one-seed file's and every reader of those reads them unchanged; what this module adds
is the results file's seed_variance block.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..results.schema import (
    ACCEPTANCE_FIGURES,
    ConfigurationSeedSpread,
    FineTuningInfo,
    ModelHealth,
    PermutationAcceptance,
    PredictionRow,
    QuartetResult,
    RunSpread,
    SeedFigures,
    SeedResult,
    SeedVariance,
)
from .acceptance import permutation_acceptance
from .figures import ACCEPTANCE, ROLE, bootstrap_rng, paired_result, quartet_result, role_sensitivity


@dataclass
class SeedScores:
    """One fine-tuning's predictions, as the predictions file holds them (each row carrying its seed)."""

    seed: int
    fine_tuning: FineTuningInfo | None  # None: a classifier scored as it is (one seed then)
    rows: dict[str, list[PredictionRow]]  # per configuration
    health: ModelHealth


def with_seed(rows: dict[str, list[PredictionRow]], seed: int) -> dict[str, list[PredictionRow]]:
    return {name: [row.model_copy(update={"seed": seed}) for row in config_rows] for name, config_rows in rows.items()}


def pooled(runs: list[SeedScores]) -> dict[str, list[PredictionRow]]:
    """Every seed's rows of each configuration, seed after seed: what the means and their intervals are made of."""
    return {name: [row for run in runs for row in run.rows[name]] for name in runs[0].rows}


def seed_figures(
    rows: list[PredictionRow], *, role: bool, seed: int, resamples: int, level: float = 0.95
) -> SeedFigures:
    """One seed's figures of one configuration, its intervals drawn as a one-seed run's (the same generators), so
    that they are the figures its own run would report; `role`: a role configuration's role sensitivity too."""
    configuration = rows[0].configuration
    fields = paired_result(rows, bootstrap_rng(seed, configuration), resamples, level)
    sensitivity = (
        role_sensitivity(rows, bootstrap_rng(seed, configuration, figure=ROLE), resamples, level) if role else None
    )
    acceptance = (
        permutation_acceptance(rows, bootstrap_rng(seed, configuration, figure=ACCEPTANCE), resamples, level)
        if rows[0].permutation is not None
        else None
    )
    return SeedFigures(
        accuracy_original=fields["accuracy_original"],
        accuracy_perturbed=fields["accuracy_perturbed"],
        delta=fields["delta"],
        delta_ci=fields["delta_ci"],
        p_value=fields["mcnemar"].p_value,
        role_sensitivity=sensitivity.value if sensitivity else None,
        role_sensitivity_ci=sensitivity.ci if sensitivity else None,
        permutation_acceptance=acceptance,
        quartets=quartet_result(rows, seed=seed, resamples=resamples, level=level),
    )


def seed_variance(runs: list[SeedScores], roles: set[str], *, seed: int, resamples: int) -> SeedVariance:
    """The seed_variance block of the results: every seed's figures and their spread. `roles` names the role
    configurations; `seed` is the bootstrap's."""
    records = [
        SeedResult(
            seed=run.seed,
            fine_tuning=run.fine_tuning,
            health=run.health,
            results={
                name: seed_figures(rows, role=name in roles, seed=seed, resamples=resamples)
                for name, rows in run.rows.items()
            },
        )
        for run in runs
    ]
    spread = {}
    for name in records[0].results:
        each = [record.results[name] for record in records]
        spread[name] = ConfigurationSeedSpread(
            accuracy_original=RunSpread.of([f.accuracy_original for f in each]),
            accuracy_perturbed=RunSpread.of([f.accuracy_perturbed for f in each]),
            delta=RunSpread.of([f.delta for f in each]),
            role_sensitivity=RunSpread.of([f.role_sensitivity for f in each]) if name in roles else None,
            permutation_acceptance=acceptance_spread([f.permutation_acceptance for f in each]),
            **quartet_spread([f.quartets for f in each]),
        )
    return SeedVariance(
        runs=records,
        spread=spread,
        validation_accuracy=RunSpread.of([run.fine_tuning.best_validation_accuracy for run in runs]),
    )


def quartet_spread(found: list[QuartetResult | None]) -> dict[str, RunSpread]:
    """Quartet and pair accuracy over the seeds, on a quartet configuration; nothing elsewhere."""
    if found[0] is None:
        return {}
    return {
        figure: RunSpread.of([getattr(q, figure) for q in found]) for figure in ("quartet_accuracy", "pair_accuracy")
    }


def acceptance_spread(found: list[PermutationAcceptance | None]) -> dict[str, RunSpread | None] | None:
    """Each figure of permutation acceptance over the seeds; a figure undefined for some seed is null."""
    if found[0] is None:
        return None
    spread = {}
    for figure in ACCEPTANCE_FIGURES:
        values = [getattr(acceptance, figure) for acceptance in found]
        spread[figure] = None if None in values else RunSpread.of([value.value for value in values])
    return spread


def combined_health(runs: list[SeedScores]) -> ModelHealth:
    """The run's health: the first fine-tuning's figures, and a verdict over them all, at chance when one is (a
    degenerate fine-tuning weighs in every mean), each reason naming its seed."""
    reasons = [f"seed {run.seed}: {reason}" for run in runs for reason in run.health.reasons]
    return runs[0].health.model_copy(update={"at_chance": bool(reasons), "reasons": reasons})
