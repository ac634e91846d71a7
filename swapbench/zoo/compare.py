"""Paired comparisons of a zoo run: the difference in one figure between two encodings (or two set-ups of one
encoding, or an encoding and its premise-blind control), with an interval and a p-value that resample the test
pairs and the seeds together, from each pair's outcome.

The zoo's tables give each figure an interval over seeds alone: three models, Student's t. A difference between
two encodings varies with the seeds drawn and with the test pairs drawn, and every zoo model scored the same rows,
so one bootstrap draws both:

- pairs: the clusters of pairs that share a premise, with replacement; one draw for both sides, which scored the
  same rows, so that two sides with the same predictions differ by exactly 0 in every resample;
- seeds: with replacement, within each side (the seeds of each side are models of their own);

and a resample's difference is the mean over the drawn seeds of side a of the figure on the drawn pairs, minus the
same for side b. The interval is the percentile interval of those differences; the p-value is the two-sided
bootstrap p-value of no difference, twice the smaller share of resamples on either side of 0 (one-sided, the share
at or below 0, for a test that a is greater), counted as (1 + resamples there) / (1 + resamples) so that it is
never 0.

That needs each pair's outcome: a zoo run reads them from the predictions files in its --work and keeps them in
zoo.json (SeedRun.outcomes, a character a pair; ZooSummary.clusters), which `zoo report` reads again. A zoo.json
written before they were kept (as the committed one of 2026-11) has no comparison: counts cannot say which pairs,
or which premises, gave them, and pairs drawn from counts for each model apart are neither paired nor clustered.

Only what the report's tables show is compared, and each table is one family: its p-values are Holm-adjusted over
the table's tests (swapbench.evaluation.stats.holm), and the report names them so. The premise-blind controls are
one family too: each encoding against the same encoding trained and scored on the hypotheses alone, accuracy on the
originals, one-sided. An encoding that does not beat its control there (Holm-adjusted p at or above ALPHA), or has
no control, is not shown to read the premise, and the report interprets none of its figures.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import Field

from ..core.strict import Strict
from ..evaluation.stats import holm

Figure = Literal["changed", "delta", "non_entailment", "accuracy"]
RESAMPLES = 4000
LEVEL = 0.95
ALPHA = 0.05  # a premise test's Holm-adjusted p-value must fall below it
METHOD = (
    "bootstrap of the difference a - b of the mean over seeds: test pairs resampled by premise cluster from "
    "the pairs' outcomes, one draw for both sides, and seeds resampled within each side; percentile interval, "
    "bootstrap p-value of no difference (two-sided; one-sided for the premise-blind controls), Holm-adjusted "
    "within each report table's family"
)
# What a figure is of one pair: the prediction changed; correct on the perturbed minus on the original pair; the
# perturbed pair predicted non-entailment; correct on the original pair.
FIGURE_WORDS = {
    "changed": "predictions changed",
    "delta": "Δ accuracy",
    "non_entailment": "swaps predicted non-entailment",
    "accuracy": "accuracy on the originals",
}
PREMISE_FAMILY = "premise-blind controls"
ROLE_TRAINING_FAMILY = "role-swap training"


def references_family(setup: str) -> str:
    """The family of a set-up's table of comparisons against the references."""
    return f"{setup}: against the references"


class Side(Strict):
    setup: str
    encoding: str
    hypothesis_only: bool = Field(
        False, description="the encoding's premise-blind control: trained and scored on the hypotheses alone"
    )


class Comparison(Strict):
    figure: Figure = Field(
        description="changed: share of predictions a perturbation changes; delta: Δ accuracy; "
        "non_entailment: share of perturbed pairs predicted non-entailment; "
        "accuracy: accuracy on the original pairs"
    )
    configuration: str
    a: Side
    b: Side
    difference: float = Field(description="mean over a's seeds minus mean over b's seeds, a fraction")
    low: float = Field(description="lower bound of the 95% bootstrap interval of the difference")
    high: float
    p_value: float = Field(ge=0, le=1, description="bootstrap p-value of no difference, unadjusted")
    alternative: Literal["two-sided", "greater"] = Field(
        "two-sided", description="greater: one-sided, the alternative that a exceeds b (the premise-blind controls)"
    )
    family: str | None = Field(
        None, description="the report table whose tests are adjusted together; null in summaries made before families"
    )
    p_holm: float | None = Field(
        None, ge=0, le=1, description="p_value Holm-adjusted over the family; null in summaries made before families"
    )
    paired: bool = Field(
        description="true when the pairs were drawn once for both sides from their outcomes (every "
        "comparison made now); false only in summaries made before, which drew each "
        "model's pairs from its counts, apart"
    )
    resamples: int

    @property
    def distinguishable(self) -> bool:
        """The interval excludes 0."""
        return self.low > 0 or self.high < 0


@dataclass(frozen=True)
class Outcomes:
    """One model's outcome on each pair of a configuration for one figure, and the cluster of each pair in the same
    order."""

    values: np.ndarray
    clusters: tuple[int, ...]

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def value(self) -> float:
        return float(np.mean(self.values))


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
        codes[name] = "".join(
            format(
                CORRECT_ORIGINAL * (r.prediction_original == r.gold_original)
                + CORRECT_PERTURBED * (r.prediction_perturbed == r.gold)
                + CHANGED * (r.prediction_original != r.prediction_perturbed)
                + NON_ENTAILMENT * (r.prediction_perturbed != "entailment"),
                "x",
            )
            for r in mine
        )
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
    elif figure == "accuracy":
        values = (digits & CORRECT_ORIGINAL) > 0
    else:
        values = (digits & NON_ENTAILMENT) > 0
    return Outcomes(values=values.astype(float), clusters=tuple(clusters))


def from_rows(rows, figure: Figure) -> Outcomes:
    """The outcomes of one configuration's prediction rows."""
    codes, clusters = pair_outcomes(rows)
    [name] = codes
    return from_code(codes[name], clusters[name], figure)


def comparison_rng(a: Side, b: Side, figure: str, configuration: str) -> np.random.Generator:
    """A generator per comparison, so that each depends on neither the order nor the others computed."""
    name = "\x00".join(
        [a.setup, a.encoding, b.setup, b.encoding, figure, configuration]
        + ["hypothesis-only"] * (a.hypothesis_only + 2 * b.hypothesis_only)
    )
    return np.random.default_rng(int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little"))


def compare(
    a: Sequence[Outcomes],
    b: Sequence[Outcomes],
    rng: np.random.Generator,
    resamples: int = RESAMPLES,
    level: float = LEVEL,
    alternative: str = "two-sided",
) -> dict:
    """The difference of the means over seeds, a - b, its bootstrap interval and p-value (module docstring); the
    fields of a Comparison but its names. Every model must have scored the same pairs, in the same clusters."""
    runs = [*a, *b]
    if len({o.clusters for o in runs}) != 1:
        raise ValueError("the models scored different pairs: a paired comparison needs the same rows")
    _, cluster = np.unique(np.asarray(runs[0].clusters), return_inverse=True)
    k = int(cluster.max()) + 1
    # one draw of the premises for every model of both sides
    weights = rng.multinomial(k, np.full(k, 1 / k), size=resamples)[:, cluster].astype(float)
    drawn = [weights @ o.values / weights.sum(axis=1) for o in runs]
    sides = [np.stack(drawn[: len(a)], axis=1), np.stack(drawn[len(a) :], axis=1)]
    means = []
    for side in sides:  # seeds with replacement, within the side
        seeds = rng.integers(side.shape[1], size=side.shape)
        means.append(np.take_along_axis(side, seeds, axis=1).mean(axis=1))
    differences = means[0] - means[1]
    alpha = (1 - level) / 2
    low, high = np.quantile(differences, [alpha, 1 - alpha])
    below, above = int(np.sum(differences <= 0)), int(np.sum(differences >= 0))
    if alternative == "greater":
        p_value = (1 + below) / (1 + resamples)
    else:
        p_value = min(1.0, 2 * (1 + min(below, above)) / (1 + resamples))
    difference = float(np.mean([o.value for o in a]) - np.mean([o.value for o in b]))
    return {
        "difference": difference,
        "low": float(low),
        "high": float(high),
        "p_value": p_value,
        "paired": True,
        "resamples": resamples,
        "alternative": alternative,
    }


def outcomes_of(results, run, clusters: dict[str, list[int]] | None) -> dict[tuple[str, str], Outcomes]:
    """Every figure's outcomes of one seed's results file (schema EvalResults) by (figure, configuration), from the
    outcome digits its zoo.json run keeps (`run`: a SeedRun) and the zoo's `clusters`; empty where either is
    missing. A role configuration (one with a non-entailment rate) gets the non-entailment share where the others
    get Δ: its Δ mixes in the gold label's change."""
    out = {}
    if not run.outcomes or not clusters:
        return out
    for name, r in results.results.items():
        if name not in run.outcomes or name not in clusters:
            continue
        role = r.non_entailment_rate is not None
        for figure in ("changed", "accuracy", "non_entailment" if role else "delta"):
            out[figure, name] = from_code(run.outcomes[name], clusters[name], figure)
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
            plan += [
                (Side(setup=setup, encoding=name), Side(setup=base, encoding=name))
                for name in names
                if name in encodings[base]
            ]
    return plan


def tabled(a: Side, b: Side, shuffle: str, role: str | None) -> tuple[str, list[tuple[str, str]]]:
    """The family of a planned comparison and its (figure, configuration) cells, as the report's tables show
    them: against a reference, predictions changed on the shuffle and on the first role configuration and Δ on
    the shuffle; role-swap training, the non-entailment share and predictions changed on that role
    configuration."""
    if a.setup == b.setup:
        return references_family(a.setup), [("changed", shuffle)] + ([("changed", role)] if role else []) + [
            ("delta", shuffle)
        ]
    return ROLE_TRAINING_FAMILY, [("non_entailment", role), ("changed", role)] if role else []


def adjusted(found: list[Comparison]) -> list[Comparison]:
    """The comparisons with p_holm: Holm over each family."""
    families: dict[str, list[int]] = {}
    for i, c in enumerate(found):
        families.setdefault(c.family, []).append(i)
    out = list(found)
    for members in families.values():
        for i, p in zip(members, holm([found[i].p_value for i in members])):
            out[i] = found[i].model_copy(update={"p_holm": p})
    return out


def comparisons(
    outcomes: dict[tuple[str, str], list[dict[tuple[str, str], Outcomes]]],
    shuffle: str,
    role: str | None,
    controls: dict[tuple[str, str], list[dict[tuple[str, str], Outcomes]]] | None = None,
    resamples: int = RESAMPLES,
) -> list[Comparison]:
    """The report's comparisons, Holm-adjusted within each family: every planned comparison on the cells its table
    shows (`outcomes[(setup, encoding)]` holds one outcomes_of per seed; `shuffle` is the configuration of the
    accuracy and the shuffle columns, `role` the first role configuration), then each encoding against its
    premise-blind control (`controls`, the same keys) on accuracy on the shuffle's originals, one-sided. A
    comparison is made only where every seed of both sides has the pairs' outcomes."""

    def made(
        a: Side, b: Side, runs_a, runs_b, figure: str, configuration: str, family: str, alternative: str = "two-sided"
    ) -> None:
        key = figure, configuration
        if runs_a and runs_b and all(key in run for run in [*runs_a, *runs_b]):
            fields = compare(
                [run[key] for run in runs_a],
                [run[key] for run in runs_b],
                comparison_rng(a, b, figure, configuration),
                resamples,
                alternative=alternative,
            )
            found.append(Comparison(figure=figure, configuration=configuration, a=a, b=b, family=family, **fields))

    encodings: dict[str, list[str]] = {}
    for setup, name in outcomes:
        encodings.setdefault(setup, []).append(name)
    found: list[Comparison] = []
    for a, b in planned(encodings):
        family, cells = tabled(a, b, shuffle, role)
        for figure, configuration in cells:
            made(a, b, outcomes[a.setup, a.encoding], outcomes[b.setup, b.encoding], figure, configuration, family)
    for (setup, name), runs in outcomes.items():
        control = Side(setup=setup, encoding=name, hypothesis_only=True)
        made(
            Side(setup=setup, encoding=name),
            control,
            runs,
            (controls or {}).get((setup, name)),
            "accuracy",
            shuffle,
            PREMISE_FAMILY,
            alternative="greater",
        )
    return adjusted(found)


def premise_test(found: Sequence[Comparison], setup: str, encoding: str) -> Comparison | None:
    """The encoding's test against its premise-blind control among `found`, if one was made."""
    return next(
        (c for c in found if c.family == PREMISE_FAMILY and (c.a.setup, c.a.encoding) == (setup, encoding)), None
    )


def reads_premise(found: Sequence[Comparison], setup: str, encoding: str) -> bool:
    """Whether the encoding is shown to read the premise: its accuracy beats its premise-blind control's
    (one-sided, Holm-adjusted over every control of the run, below ALPHA). False without a control."""
    test = premise_test(found, setup, encoding)
    return test is not None and test.p_holm is not None and test.p_holm < ALPHA
