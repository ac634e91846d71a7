"""Pair and quartet accuracy of a quartet configuration (role-quartets), from its prediction rows alone.

A quartet is four pairs from one relation: (P, H) and (P′, H′) entailment, (P, H′) and (P′, H) non-entailment, ′
exchanging agent and patient by a permutation of words (variants/role_quartets.py says how they are made). Every
hypothesis and every premise is entailed in one pair of the quartet and not in another, so:

- pair accuracy (the share of the four pairs answered right in the binary view) is exactly 0.5 for any model that
  ignores the premise (a function of the hypothesis alone is right on one of (P, H), (P′, H) and one of (P′, H′),
  (P, H′)) and for any model blind to word order (the four pairs are permutations of one another's words, so it
  answers them alike: two right);
- quartet accuracy (the share of quartets whose four pairs are all right) is exactly 0 for both.

Those chance levels are written beside the figures (CHANCE). Each figure has a percentile bootstrap interval over
clusters of quartets sharing a source premise P, as every other interval of eval is clustered (stats.py): the
same machinery, the figure being the mean of an indicator (stats.paired_figures with the indicator as the
"perturbed" correctness and nothing as the "original"), and over several fine-tuning seeds its two-level bootstrap
(stats.seed_bootstrap_ci). The accuracy of each cell is given too; (P′, H) is the reference paper's Shuffle-SR cell.

How the rows hold a quartet: two rows with the same pair_id, tagged `cell:P'H` (original (P, H), perturbed (P′, H))
and `cell:PH'` (original (P′, H′), perturbed (P, H′)). A quartet with one row only (cut by `eval --limit`) is left
out. Nothing here needs torch, so that the board can recompute the figures from a predictions file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

# CELLS: the four pairs of a quartet, the two entailed ones first; CHANCE: what any premise-blind or word-order-blind
# model scores. The results file's schema defines both, beside the figures it holds.
from ..results.schema import QUARTET_CELLS as CELLS
from ..results.schema import QUARTET_CHANCE as CHANCE
from ..results.schema import ConfidenceInterval, ExactNullFigures, PredictionRow, QuartetResult
from .stats import bootstrap_delta_ci, paired_figures, seed_bootstrap_ci

ENTAILMENT = "entailment"
GOLD = (True, True, False, False)  # whether each cell is entailed
# Each row's tag, and the cells its original and its perturbed pair are
ROW_CELLS = {"cell:P'H": ("PH", "P'H"), "cell:PH'": ("P'H'", "PH'")}
PRIMED_ORIGINAL = "cell:PH'"  # the row whose original premise is P′, its perturbed premise the source's P
CI_METHOD = "percentile bootstrap over clusters of quartets sharing a source premise (a quartet's four pairs together)"
SEED_CI_METHOD = (
    "two-level percentile bootstrap over fine-tuning seeds and clusters of quartets sharing a source "
    "premise: the mean over the drawn seeds of the figure on the drawn clusters"
)


@dataclass(frozen=True)
class QuartetPrediction:
    """A model's answers on the four pairs of one quartet, in CELLS order."""

    pair_id: str
    cluster: str  # the source premise P's cluster
    predicted: tuple[str, str, str, str]
    seed: int | None = None
    exact: bool | None = None  # whether the model's tokenizer makes its order-blind null exact; None: not measured

    @property
    def correct(self) -> tuple[bool, bool, bool, bool]:
        """Each cell answered right in the binary view (any label but entailment is non-entailment)."""
        return tuple((label == ENTAILMENT) == gold for label, gold in zip(self.predicted, GOLD))


def is_quartet_row(row: PredictionRow) -> bool:
    """Whether the row is one of a quartet configuration's (tagged with its cell)."""
    return is_quartet_tags(row.tags)


def is_quartet_tags(tags: Sequence[str]) -> bool:
    """Whether a row with these tags is one of a quartet configuration's (tagged with its cell)."""
    return any(tag in ROW_CELLS for tag in tags)


def source_premise(tags: list[str], original_premise: str, perturbed_premise: str) -> str:
    """The premise P of the relation a row comes from: its original premise, but in the row tagged cell:PH′,
    whose original pair is (P′, H′) and its perturbed pair (P, H′). Eval clusters by it, so that the four pairs
    of a quartet, and every quartet of one premise, fall in one cluster for every figure (Δ, role sensitivity,
    pair and quartet accuracy), as the pairs sharing a premise of any other configuration do."""
    return perturbed_premise if PRIMED_ORIGINAL in tags else original_premise


def quartets_from_rows(rows: Iterable[PredictionRow]) -> list[QuartetPrediction]:
    """The quartets of a quartet configuration's prediction rows: its two rows per pair_id (and seed) put together,
    in the order their first row comes; a quartet missing a row is left out. ValueError on a row without a cell
    tag, or on two rows of one cell for one quartet."""
    found: dict[tuple[int | None, str], dict[str, str]] = {}
    clusters: dict[tuple[int | None, str], str] = {}
    exact: dict[tuple[int | None, str], bool | None] = {}
    for row in rows:
        cell = [t for t in row.tags if t in ROW_CELLS]
        if len(cell) != 1:
            raise ValueError(
                f"row {row.pair_id} of {row.configuration} has no cell tag ({', '.join(ROW_CELLS)}): "
                "not a quartet configuration's row"
            )
        original, perturbed = ROW_CELLS[cell[0]]
        answers = found.setdefault((row.seed, row.pair_id), {})
        if original in answers:
            raise ValueError(f"two rows of {row.pair_id} hold the cell {cell[0]}")
        answers[original], answers[perturbed] = row.prediction_original, row.prediction_perturbed
        if exact.setdefault((row.seed, row.pair_id), row.exact_null) != row.exact_null:
            raise ValueError(f"the two rows of {row.pair_id} disagree on exact_null")
        if original == "PH":  # the row whose original premise is the source's P
            clusters[(row.seed, row.pair_id)] = row.cluster
    return [
        QuartetPrediction(
            pair_id, clusters[(seed, pair_id)], tuple(answers[c] for c in CELLS), seed, exact[(seed, pair_id)]
        )
        for (seed, pair_id), answers in found.items()
        if len(answers) == len(CELLS)
    ]


def quartet_figures(
    quartets: Sequence[QuartetPrediction], rng: np.random.Generator, resamples: int = 10_000, level: float = 0.95
) -> QuartetResult:
    """Pair and quartet accuracy with their intervals clustered by premise, and each cell's accuracy. Over several
    seeds every seed must hold the same quartets in the same order, and the figures are means over the seeds."""
    if not quartets:
        raise ValueError("no whole quartet to score")
    blocks: dict[int | None, list[QuartetPrediction]] = {}
    for q in quartets:
        blocks.setdefault(q.seed, []).append(q)
    seeds = list(blocks.values())
    first = seeds[0]
    if any([q.pair_id for q in block] != [q.pair_id for q in first] for block in seeds[1:]):
        raise ValueError("the seeds' quartets are not the same quartets in the same order")
    correct = np.array([[q.correct for q in block] for block in seeds], dtype=np.int64)  # seeds x quartets x 4
    clusters = [q.cluster for q in first]
    pair_accuracy, pair_ci, quartet_accuracy, quartet_ci = _accuracies(correct, clusters, rng, resamples, level)
    return QuartetResult(
        quartets=len(first),
        clusters=len(set(clusters)),
        seeds=len(seeds),
        pair_accuracy=pair_accuracy,
        pair_accuracy_ci=pair_ci,
        quartet_accuracy=quartet_accuracy,
        quartet_accuracy_ci=quartet_ci,
        cells={cell: float(correct[:, :, k].mean()) for k, cell in enumerate(CELLS)},
        chance=dict(CHANCE),
        exact_null=_exact_null(first, correct, clusters, rng, resamples, level),
    )


def _accuracies(
    correct: np.ndarray, clusters: list[str], rng: np.random.Generator, resamples: int, level: float
) -> tuple[float, ConfidenceInterval, float, ConfidenceInterval]:
    """Pair accuracy and quartet accuracy, each with its clustered interval, of `correct` (seeds x quartets x 4)."""
    whole = correct.all(axis=2).astype(np.int64)  # seeds x quartets
    pairs = correct.reshape(len(correct), -1)  # seeds x (quartets * 4), each quartet's four cells together
    pair_clusters = [c for c in clusters for _ in CELLS]
    return (
        float(pairs.mean()),
        _mean_interval(pairs, pair_clusters, rng, resamples, level),
        float(whole.mean()),
        _mean_interval(whole, clusters, rng, resamples, level),
    )


def _exact_null(
    first: Sequence[QuartetPrediction],
    correct: np.ndarray,
    clusters: list[str],
    rng: np.random.Generator,
    resamples: int,
    level: float,
) -> ExactNullFigures | None:
    """The figures on the quartets whose null is exact for the model, when the rows say which (drawn after the
    headline's from the same generator, so that the headline's intervals are those of a file without them)."""
    if any(q.exact is None for q in first):
        return None
    keep = [k for k, q in enumerate(first) if q.exact]
    if not keep:
        return ExactNullFigures(quartets=0, of=len(first))
    pair_accuracy, pair_ci, quartet_accuracy, quartet_ci = _accuracies(
        correct[:, keep], [clusters[k] for k in keep], rng, resamples, level
    )
    return ExactNullFigures(
        quartets=len(keep),
        of=len(first),
        pair_accuracy=pair_accuracy,
        pair_accuracy_ci=pair_ci,
        quartet_accuracy=quartet_accuracy,
        quartet_accuracy_ci=quartet_ci,
    )


def exact_null_quartets(
    rows: Iterable[tuple[str, tuple[str, str], tuple[str, str], Sequence[str]]], tokenize: Callable[[str], list[int]]
) -> set[str]:
    """The pair_ids of the quartets whose order-blind null is exact under `tokenize` (text -> token ids): P′ and H′
    hold the same ids as P and H, in another order. `rows` are a quartet configuration's rows as (pair_id,
    original pair, perturbed pair, tags); a row's cell tag says which of P, P′, H, H′ its two pairs hold."""
    sentences: dict[str, dict[str, str]] = {}
    for pair_id, original, perturbed, tags in rows:
        cell = next((t for t in tags if t in ROW_CELLS), None)
        if cell is None:
            continue
        texts = sentences.setdefault(pair_id, {})
        for name, (premise, hypothesis) in zip(ROW_CELLS[cell], (original, perturbed)):
            premise_name, hypothesis_name = ("P'", name[2:]) if name.startswith("P'") else ("P", name[1:])
            texts[premise_name], texts[hypothesis_name] = premise, hypothesis

    def bag(text: str) -> list[int]:
        return sorted(tokenize(text))

    return {
        pair_id
        for pair_id, texts in sentences.items()
        if len(texts) == 4 and bag(texts["P"]) == bag(texts["P'"]) and bag(texts["H"]) == bag(texts["H'"])
    }


def _mean_interval(
    indicators: np.ndarray, clusters: Sequence[str], rng: np.random.Generator, resamples: int, level: float
) -> ConfidenceInterval:
    """The clustered interval of the mean of 0/1 `indicators` (seeds x items): stats' interval of a paired figure
    whose original side is all 0, so that its Δ is the mean."""
    if len(indicators) == 1:
        figures = paired_figures(np.zeros(indicators.shape[1], dtype=bool), indicators[0].astype(bool), clusters)
        low, high = bootstrap_delta_ci(figures, rng, resamples, level)
        method = CI_METHOD
    else:
        low, high = seed_bootstrap_ci(indicators, clusters, rng, resamples, level)
        method = SEED_CI_METHOD
    return ConfidenceInterval(low=max(0.0, low), high=min(1.0, high), level=level, method=method, resamples=resamples)
