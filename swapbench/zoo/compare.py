"""Paired comparisons of a zoo run: the difference in one figure between two encodings (or two set-ups of one
encoding), with an interval and a p-value that resample the test pairs and the seeds together.

The zoo's tables give each figure an interval over seeds alone: three models, Student's t. A difference between
two encodings varies with the seeds drawn and with the test pairs drawn, and every zoo model scored the same rows,
so one bootstrap draws both:

- pairs: the clusters of pairs that share a premise, with replacement; one draw for both sides, which scored the
  same rows;
- seeds: with replacement, within each side (the seeds of each side are models of their own);

and a resample's difference is the mean over the drawn seeds of side a of the figure on the drawn pairs, minus the
same for side b. The interval is the percentile interval of those differences; the p-value is the two-sided
bootstrap p-value of no difference, twice the smaller share of resamples on either side of 0, counted as
(1 + resamples there) / (1 + resamples) so that it is never 0.

That needs each pair's outcome: a zoo run reads them from the predictions files in its --work and keeps them in
zoo.json (SeedRun.outcomes, a character a pair; ZooSummary.clusters), which `zoo report` reads again. Where they are
missing (a zoo.json written before they were kept, as the committed one), a side's pairs are resampled from the
counts its results file holds (pairs changed, pairs lost and gained, pairs predicted
non-entailment): a multinomial draw over those outcomes, which is what resampling the pairs gives one model, but
drawn for each model apart and unclustered, since the counts say neither which pairs nor which premises gave them.
`paired` records which draw a comparison had.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import Field

from ..core.strict import Strict

Figure = Literal["changed", "delta", "non_entailment"]
RESAMPLES = 4000
LEVEL = 0.95
METHOD = ("bootstrap of the difference a - b of the mean over seeds: test pairs resampled by premise cluster, one "
          "draw for both sides, and seeds resampled within each side; percentile interval, two-sided bootstrap "
          "p-value of no difference. Where zoo.json keeps no pair outcomes (paired false), each model's pairs are "
          "resampled from the counts of its results file, apart and unclustered")
# What a figure is of one pair: the prediction changed; correct on the perturbed minus on the original pair; the
# perturbed pair predicted non-entailment.
FIGURE_WORDS = {"changed": "predictions changed", "delta": "Δ accuracy",
                "non_entailment": "swaps predicted non-entailment"}


class Side(Strict):
    setup: str
    encoding: str


class Comparison(Strict):
    figure: Figure = Field(description="changed: share of predictions a perturbation changes; delta: Δ accuracy; "
                                       "non_entailment: share of perturbed pairs predicted non-entailment")
    configuration: str
    a: Side
    b: Side
    difference: float = Field(description="mean over a's seeds minus mean over b's seeds, a fraction")
    low: float = Field(description="lower bound of the 95% bootstrap interval of the difference")
    high: float
    p_value: float = Field(ge=0, le=1, description="two-sided bootstrap p-value of no difference")
    paired: bool = Field(description="true when the pairs were drawn once for both sides (every results file had "
                                     "its predictions file); false: drawn from each file's counts, apart")
    resamples: int

    @property
    def distinguishable(self) -> bool:
        """The interval excludes 0."""
        return self.low > 0 or self.high < 0


@dataclass(frozen=True)
class Outcomes:
    """One model's outcome on each pair of a configuration for one figure: per pair (`values`, and the cluster of
    each pair in the same order), or only how many pairs had each outcome (`levels` and `counts`)."""

    levels: np.ndarray
    counts: np.ndarray
    values: np.ndarray | None = None
    clusters: tuple[int, ...] | None = None

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    @property
    def value(self) -> float:
        return float(self.levels @ self.counts) / self.n


# A pair's outcome as one hexadecimal digit, so that zoo.json keeps every pair of every seed (a character a pair)
# and the comparisons need no predictions file: the sum of these bits.
CORRECT_ORIGINAL, CORRECT_PERTURBED, CHANGED, NON_ENTAILMENT = 1, 2, 4, 8


def pair_outcomes(rows) -> tuple[dict[str, str], dict[str, list[int]]]:
    """Each configuration's prediction rows (schema PredictionRow), in pair_id order, as a string of outcome digits,
    and the cluster of each of those pairs, numbered by first appearance."""
    by_configuration: dict[str, list] = {}
    for row in rows:
        by_configuration.setdefault(row.configuration, []).append(row)
    codes, clusters = {}, {}
    for name, mine in by_configuration.items():
        mine = sorted(mine, key=lambda r: r.pair_id)
        codes[name] = "".join(format(CORRECT_ORIGINAL * (r.prediction_original == r.gold_original)
                                     + CORRECT_PERTURBED * (r.prediction_perturbed == r.gold)
                                     + CHANGED * (r.prediction_original != r.prediction_perturbed)
                                     + NON_ENTAILMENT * (r.prediction_perturbed != "entailment"), "x") for r in mine)
        numbers: dict[str, int] = {}
        clusters[name] = [numbers.setdefault(r.cluster, len(numbers)) for r in mine]
    return codes, clusters


def from_code(code: str, clusters: Sequence[int], figure: Figure) -> Outcomes:
    """The outcomes of one figure from a configuration's outcome digits (pair_outcomes)."""
    digits = np.array([int(c, 16) for c in code], dtype=np.int64)
    if figure == "changed":
        values = (digits & CHANGED) > 0
    elif figure == "delta":
        values = ((digits & CORRECT_PERTURBED) > 0).astype(int) - ((digits & CORRECT_ORIGINAL) > 0)
    else:
        values = (digits & NON_ENTAILMENT) > 0
    values = values.astype(float)
    levels, counts = np.unique(values, return_counts=True)
    return Outcomes(levels=levels, counts=counts, values=values, clusters=tuple(clusters))


def from_rows(rows, figure: Figure) -> Outcomes:
    """The outcomes of one configuration's prediction rows."""
    codes, clusters = pair_outcomes(rows)
    [name] = codes
    return from_code(codes[name], clusters[name], figure)


def from_counts(n: int, counted: dict[float, int]) -> Outcomes:
    """Outcomes known by their counts: `counted` maps a pair's value to how many pairs had it, the rest are 0."""
    rest = n - sum(counted.values())
    if rest < 0:
        raise ValueError(f"{sum(counted.values())} pairs counted of {n}")
    levels = np.array([*counted, 0.0])
    return Outcomes(levels=levels, counts=np.array([*counted.values(), rest]))


def comparison_rng(a: Side, b: Side, figure: str, configuration: str) -> np.random.Generator:
    """A generator per comparison, so that each depends on neither the order nor the others computed."""
    name = "\x00".join([a.setup, a.encoding, b.setup, b.encoding, figure, configuration])
    return np.random.default_rng(int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little"))


def compare(a: Sequence[Outcomes], b: Sequence[Outcomes], rng: np.random.Generator,
            resamples: int = RESAMPLES, level: float = LEVEL) -> dict:
    """The difference of the means over seeds, a - b, its bootstrap interval and p-value (module docstring); the
    fields of a Comparison but its names."""
    runs = [*a, *b]
    paired = all(o.values is not None for o in runs) and len({o.clusters for o in runs}) == 1
    if paired:
        _, cluster = np.unique(np.asarray(runs[0].clusters), return_inverse=True)
        k = int(cluster.max()) + 1
        weights = rng.multinomial(k, np.full(k, 1 / k), size=resamples)[:, cluster].astype(float)
        drawn = [weights @ o.values / weights.sum(axis=1) for o in runs]
    else:
        drawn = [rng.multinomial(o.n, o.counts / o.n, size=resamples) @ o.levels / o.n for o in runs]
    sides = [np.stack(drawn[:len(a)], axis=1), np.stack(drawn[len(a):], axis=1)]
    means = []
    for side in sides:  # seeds with replacement, within the side
        seeds = rng.integers(side.shape[1], size=side.shape)
        means.append(np.take_along_axis(side, seeds, axis=1).mean(axis=1))
    differences = means[0] - means[1]
    alpha = (1 - level) / 2
    low, high = np.quantile(differences, [alpha, 1 - alpha])
    below, above = int(np.sum(differences <= 0)), int(np.sum(differences >= 0))
    p_value = min(1.0, 2 * (1 + min(below, above)) / (1 + resamples))
    difference = float(np.mean([o.value for o in a]) - np.mean([o.value for o in b]))
    return dict(difference=difference, low=float(low), high=float(high), p_value=p_value, paired=paired,
                resamples=resamples)


def outcomes_of(results, run, clusters: dict[str, list[int]] | None) -> dict[tuple[str, str], Outcomes]:
    """Every figure's outcomes of one seed's results file (schema EvalResults) by (figure, configuration): from the
    outcome digits its zoo.json run keeps (`run`: a SeedRun) and the zoo's `clusters`, when both are there; else
    from the counts of the results file and the run's share of predictions changed. A role configuration (one with
    a non-entailment rate) gets the non-entailment share where the others get Δ: its Δ mixes in the gold label's
    change."""
    out = {}
    for name, r in results.results.items():
        role = r.non_entailment_rate is not None
        for figure in ("changed", "non_entailment" if role else "delta"):
            if run.outcomes and clusters and name in run.outcomes and name in clusters:
                out[figure, name] = from_code(run.outcomes[name], clusters[name], figure)
            elif figure == "changed" and name in run.changed:
                out[figure, name] = from_counts(r.n, {1.0: round(run.changed[name] * r.n)})
            elif figure == "delta":
                out[figure, name] = from_counts(r.n, {1.0: r.mcnemar.perturbed_only, -1.0: r.mcnemar.original_only})
            elif figure == "non_entailment":
                out[figure, name] = from_counts(r.n, {1.0: round(r.non_entailment_rate * r.n)})
    return out


REFERENCES = ("none", "learned_absolute")  # every encoding is compared with these, within its set-up
ROLE_SWAPS = "+role-swaps"


def planned(encodings: dict[str, list[str]]) -> list[tuple[Side, Side]]:
    """The comparisons the zoo's claims rest on, as (a, b): every encoding against each of REFERENCES in its
    set-up (each pair of encodings once), and every encoding trained with role swaps against itself without."""
    plan = []
    for setup, names in encodings.items():
        done = set()
        for reference in REFERENCES:
            if reference not in names:
                continue
            for name in names:
                if name != reference and frozenset((name, reference)) not in done:
                    done.add(frozenset((name, reference)))
                    plan.append((Side(setup=setup, encoding=name), Side(setup=setup, encoding=reference)))
        base = setup.removesuffix(ROLE_SWAPS)
        if setup.endswith(ROLE_SWAPS) and base in encodings:
            plan += [(Side(setup=setup, encoding=name), Side(setup=base, encoding=name))
                     for name in names if name in encodings[base]]
    return plan


def comparisons(outcomes: dict[tuple[str, str], list[dict[tuple[str, str], Outcomes]]],
                resamples: int = RESAMPLES) -> list[Comparison]:
    """Every planned comparison of every figure both sides have; `outcomes[(setup, encoding)]` holds one
    outcomes_of per seed."""
    encodings: dict[str, list[str]] = {}
    for setup, name in outcomes:
        encodings.setdefault(setup, []).append(name)
    found = []
    for a, b in planned(encodings):
        runs_a, runs_b = outcomes[a.setup, a.encoding], outcomes[b.setup, b.encoding]
        keys = [key for key in runs_a[0] if all(key in run for run in [*runs_a, *runs_b])]
        for figure, configuration in keys:
            fields = compare([run[figure, configuration] for run in runs_a],
                             [run[figure, configuration] for run in runs_b],
                             comparison_rng(a, b, figure, configuration), resamples)
            found.append(Comparison(figure=figure, configuration=configuration, a=a, b=b, **fields))
    return found
