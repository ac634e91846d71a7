"""Each configuration's figures from its prediction rows alone, so that anyone holding the predictions file
recomputes the same numbers: `swapbench eval` writes them, and the board recomputes them (leaderboard/recompute.py).
Nothing here needs torch, so that the board never loads it.

The rows of a run over several fine-tuning seeds (`eval --seeds`) carry their seed, each seed's rows holding the
same pairs in the same order: their figures are the means over the seeds, their interval the two-level bootstrap
of stats.seed_bootstrap_ci, and their test's counts are summed over the seeds (stats says why).
"""

from __future__ import annotations

import hashlib

import numpy as np

from ..results.displacement import summarize
from ..results.schema import (
    MIN_SLICE_CLUSTERS,
    MIN_SLICE_PAIRS,
    ConfidenceInterval,
    ConfigurationResult,
    McNemar,
    PredictionRow,
    QuartetResult,
    RoleFreeControl,
    RoleSensitivity,
    RoleTest,
    SliceResult,
    slice_families,
)
from .acceptance import permutation_acceptance
from .locality import locality
from .quartets import is_quartet_row, quartet_figures, quartets_from_rows
from .stats import (
    CI_METHOD,
    ROLE_TEST_METHOD,
    SEED_CI_METHOD,
    SEEDS_POOLED,
    TEST_METHOD,
    PairedFigures,
    bootstrap_delta_ci,
    clustered_mcnemar,
    holm,
    paired_figures,
    role_figures,
    seed_bootstrap_ci,
)


def cluster_key(original_premise: str) -> str:
    """Pairs that share a premise share its text and parse (SNLI has about three pairs per premise), so their outcomes
    are correlated even though each pair is shuffled with its own seed: one cluster."""
    return hashlib.sha256(original_premise.encode()).hexdigest()[:16]


ROLE = "role-sensitivity"  # the role-sensitivity interval draws from a generator of its own
ACCEPTANCE = "permutation-acceptance"  # and so do those of permutation acceptance
QUARTETS = "quartets"  # and so do those of pair and quartet accuracy
LOCALITY = "locality"  # and the locality slope's
ROLE_FREE = "role-free-control"  # and so do those of the role-free controls

# The configurations whose word order changes with no role swapped, by the name the build gives them: their
# entailment pairs are the role-free control of every role figure (role_free_controls).
ROLE_FREE_CONFIGURATIONS = ("shuffle-random", "unlu")


def bootstrap_rng(
    seed: int, configuration: str, tag: str | None = None, figure: str | None = None
) -> np.random.Generator:
    """A generator per configuration (and slice, and figure other than Δ), so that each interval depends on
    neither the order nor the other configurations and figures computed."""
    name = configuration if tag is None else f"{configuration}\x00{tag}"
    name = name if figure is None else f"{name}\x00{figure}"
    word = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little")
    return np.random.default_rng([seed, word])


def seed_blocks(rows: list[PredictionRow]) -> list[list[int]]:
    """The positions of each fine-tuning seed's rows, seeds in the order they first appear: one block for the rows
    of a one-seed run. ValueError when the seeds' rows are not the same pairs in the same order."""
    blocks: dict[int | None, list[int]] = {}
    for i, row in enumerate(rows):
        blocks.setdefault(row.seed, []).append(i)
    found = list(blocks.values())
    pairs = [(rows[i].configuration, rows[i].pair_id) for i in found[0]]
    if any([(rows[i].configuration, rows[i].pair_id) for i in block] != pairs for block in found[1:]):
        raise ValueError("the seeds' prediction rows do not hold the same pairs in the same order")
    return found


def interval(
    figures: PairedFigures,
    rows: list[PredictionRow],
    a: list[bool],
    b: list[bool],
    rng: np.random.Generator,
    resamples: int,
    level: float,
) -> ConfidenceInterval:
    """The interval of the paired figure of indicators `a` and `b` over `rows`: over clusters, and over seeds too
    when the rows hold several."""
    blocks = seed_blocks(rows)
    if len(blocks) == 1:
        low, high = bootstrap_delta_ci(figures, rng, resamples, level)
        return ConfidenceInterval(low=low, high=high, level=level, method=CI_METHOD, resamples=resamples)
    d = (np.asarray(b, dtype=np.int64) - np.asarray(a, dtype=np.int64))[np.array(blocks)]
    low, high = seed_bootstrap_ci(d, [rows[i].cluster for i in blocks[0]], rng, resamples, level)
    return ConfidenceInterval(low=low, high=high, level=level, method=SEED_CI_METHOD, resamples=resamples)


def paired_result(rows: list[PredictionRow], rng: np.random.Generator, resamples: int, level: float) -> dict:
    """The fields of a PairedResult over `rows`: figures, clustered interval, clustered test."""
    a = [r.prediction_original == r.gold_original for r in rows]
    b = [r.prediction_perturbed == r.gold for r in rows]
    figures = paired_figures(a, b, [r.cluster for r in rows])
    seeds = len(seed_blocks(rows))
    return dict(
        n=figures.n // seeds,
        seeds=seeds,
        clusters=figures.clusters,
        accuracy_original=figures.accuracy_original,
        accuracy_perturbed=figures.accuracy_perturbed,
        delta=figures.delta,
        delta_ci=interval(figures, rows, a, b, rng, resamples, level),
        mcnemar=McNemar(
            original_only=figures.original_only,
            perturbed_only=figures.perturbed_only,
            p_value=clustered_mcnemar(figures),
            method=TEST_METHOD + SEEDS_POOLED * (seeds > 1),
        ),
    )


def role_sensitivity(
    rows: list[PredictionRow], rng: np.random.Generator, resamples: int, level: float
) -> RoleSensitivity:
    """Role sensitivity over `rows` of a role configuration, its clustered interval and its test of role
    blindness (evaluation.stats)."""
    a = [r.prediction_original != "entailment" for r in rows]
    b = [r.prediction_perturbed != "entailment" for r in rows]
    figures = role_figures(a, b, [r.cluster for r in rows])
    return RoleSensitivity(
        value=figures.delta,
        non_entailment_original=figures.accuracy_original,
        non_entailment_perturbed=figures.accuracy_perturbed,
        ci=interval(figures, rows, a, b, rng, resamples, level),
        test=RoleTest(
            became_non_entailment=figures.perturbed_only,
            became_entailment=figures.original_only,
            p_value=clustered_mcnemar(figures),
            method=ROLE_TEST_METHOD + SEEDS_POOLED * (len(seed_blocks(rows)) > 1),
        ),
    )


def slice_results(
    rows: list[PredictionRow], *, seed: int, resamples: int, level: float, role: bool = False
) -> dict[str, SliceResult]:
    """The figures of every slice tag of the rows, in tag order; a row counts under each of its tags."""
    by_tag: dict[str, list[PredictionRow]] = {}
    for row in rows:
        for tag in row.tags:
            by_tag.setdefault(tag, []).append(row)
    slices = {}
    for tag in sorted(by_tag):
        fields = paired_result(by_tag[tag], bootstrap_rng(seed, rows[0].configuration, tag), resamples, level)
        if role:
            fields["role_sensitivity"] = role_sensitivity(
                by_tag[tag], bootstrap_rng(seed, rows[0].configuration, tag, ROLE), resamples, level
            )
        small = fields["n"] < MIN_SLICE_PAIRS or fields["clusters"] < MIN_SLICE_CLUSTERS
        slices[tag] = SliceResult(**fields, small=small)
    return slices


def configuration_result(
    rows: list[PredictionRow],
    *,
    label_view: str,
    non_entailment_view: bool,
    seed: int,
    resamples: int,
    level: float = 0.95,
    k_curve: bool = False,
    holm_families: str | None = "per-metric",
) -> ConfigurationResult:
    """The figures of one configuration and of its slices from its prediction rows; the bootstraps draw from
    bootstrap_rng. A role configuration (`non_entailment_view`: its swaps are all non-entailment) also gets its
    non-entailment rate and its role sensitivity, and so do its slices; a quartet configuration (its rows tagged
    with their cell) its pair and quartet accuracy (quartets.py); a configuration whose rows record a distance its
    locality curve and slope (locality.py). `holm_families` groups the slices' tests for Holm
    (ConfigurationResult.holm_families): one family per metric, as eval writes; None, the single family of files
    written before, which the board recomputes those with."""
    non_entailment, role = None, None
    one_seed = [rows[i] for i in seed_blocks(rows)[0]]  # each seed's rows move the same words
    if non_entailment_view:
        role = role_sensitivity(rows, bootstrap_rng(seed, rows[0].configuration, figure=ROLE), resamples, level)
        non_entailment = role.non_entailment_perturbed
    return with_adjusted_slices(
        ConfigurationResult(
            **paired_result(rows, bootstrap_rng(seed, rows[0].configuration), resamples, level),
            role_sensitivity=role,
            label_view=label_view,
            non_entailment_rate=non_entailment,
            holm_families=holm_families,
            slices=slice_results(rows, seed=seed, resamples=resamples, level=level, role=non_entailment_view),
            displacement=summarize(None if r.distance is None else (r.distance, r.moved) for r in one_seed),
            permutation_acceptance=permutation_acceptance(
                rows, bootstrap_rng(seed, rows[0].configuration, figure=ACCEPTANCE), resamples, level, k_curve
            )
            if rows[0].permutation is not None
            else None,
            quartets=quartet_result(rows, seed=seed, resamples=resamples, level=level),
            locality=locality(rows, bootstrap_rng(seed, rows[0].configuration, figure=LOCALITY), resamples, level),
        )
    )


def role_free_controls(
    rows: dict[str, list[PredictionRow]], roles: set[str], *, seed: int, resamples: int, level: float = 0.95
) -> list[RoleFreeControl] | None:
    """The role score (role_sensitivity: share predicted non-entailment after minus before) on the entailment
    pairs of each ROLE_FREE_CONFIGURATIONS configuration among `rows`: pairs whose order changed with no role
    swapped, so a role figure above it is more than reordering gives. None when no configuration of `roles` was
    scored, or none of those configurations (or none of their pairs is entailment)."""
    if not roles & set(rows):
        return None
    controls = []
    for name in ROLE_FREE_CONFIGURATIONS:
        entailment = [r for r in rows.get(name, []) if r.gold_original == "entailment"]
        if entailment:
            score = role_sensitivity(entailment, bootstrap_rng(seed, name, figure=ROLE_FREE), resamples, level)
            controls.append(
                RoleFreeControl(
                    **score.model_dump(), configuration=name, n=len(entailment) // len(seed_blocks(entailment))
                )
            )
    return controls or None


def quartet_result(rows: list[PredictionRow], *, seed: int, resamples: int, level: float) -> QuartetResult | None:
    """Pair and quartet accuracy of a quartet configuration's rows; None for another configuration's, and where
    no quartet is whole (eval --limit cut every one in half)."""
    if not is_quartet_row(rows[0]):
        return None
    quartets = quartets_from_rows(rows)
    if not quartets:
        return None
    return quartet_figures(quartets, bootstrap_rng(seed, rows[0].configuration, figure=QUARTETS), resamples, level)


def with_adjusted_slices(result: ConfigurationResult) -> ConfigurationResult:
    """The configuration with every slice test's p_adjusted set: Holm within each of its families
    (schema.slice_families: one per metric, or the one of every test in files written before; stats.holm says
    why Holm). The tests are pydantic models owned by this result, so they are set in place."""
    for tests in slice_families(result):
        for test, adjusted in zip(tests, holm([t.p_value for t in tests])):
            test.p_adjusted = adjusted
    return ConfigurationResult.model_validate(result.model_dump())
