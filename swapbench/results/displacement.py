"""How far a shuffle moves words: the one definition of a row's displacement, and its summary over rows.

With a row's permutation p (token k of the perturbed premise is token p[k] of the original), two figures:

- distance: sum_k |k - p[k]|, the token positions travelled by all the premise's tokens together. Swapping two
  neighbours gives 2, reversing three words 4, a shuffle of n words about (n² - 1) / 3.
- moved: the number of tokens k with p[k] != k, those that left their position, however far.

Punctuation never moves, so it adds to neither. The locality gradient is a gradient of distance; moved is kept
beside it because the two disagree when a configuration shuffles many short spans (moved grows with the number of
spans, distance with their length too). The build records the summary of each configuration in build_info.json and
its card, and eval the summary of the rows it scored in the results file, so the gradient (shuffle-3 < shuffle-4 <
shuffle-5 < shuffle-random) is measured, not assumed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain

import numpy as np
from pydantic import Field

from ..core.strict import Strict

DISTANCE = "sum over the premise's tokens of |new position - old position|"
MOVED = "tokens of the premise whose position changed"
# The quantiles recorded, numpy's default (linear) method: with the mean, the shape of the distribution.
QUANTILES = {"p10": 0.10, "p25": 0.25, "median": 0.50, "p75": 0.75, "p90": 0.90}


def measure_rows(permutations: Sequence[Sequence[int]]) -> list[tuple[int, int] | None]:
    """Each row's (distance, moved), or None for a row that records no permutation (a role swap, which does not
    reorder the premise's tokens one for one). The rows' positions are measured together, in numpy: a build
    measures some hundred thousand rows."""
    lengths = np.fromiter(map(len, permutations), dtype=np.int64, count=len(permutations))
    sources = np.fromiter(chain.from_iterable(permutations), dtype=np.int64, count=int(lengths.sum()))
    starts = np.cumsum(lengths) - lengths
    offsets = np.abs(sources - (np.arange(len(sources)) - np.repeat(starts, lengths)))  # |k - permutation[k]|
    kept = lengths > 0
    distances = np.add.reduceat(offsets, starts[kept])  # the rows with a permutation, each from its start
    moves = np.add.reduceat((offsets > 0).astype(np.int64), starts[kept])
    figures = iter(zip(distances.tolist(), moves.tolist()))
    return [next(figures) if keep else None for keep in kept.tolist()]


def measured(permutation: Sequence[int]) -> tuple[int, int] | None:
    """One row's (distance, moved) (measure_rows)."""
    return measure_rows([permutation])[0]


def distance(permutation: Sequence[int]) -> int:
    """sum_k |k - permutation[k]|: 0 for the identity."""
    return measured(permutation)[0] if len(permutation) else 0


def moved(permutation: Sequence[int]) -> int:
    """How many k have permutation[k] != k."""
    return measured(permutation)[1] if len(permutation) else 0


class Spread(Strict):
    """The distribution of one figure over rows."""

    mean: float = Field(ge=0, description="mean over the rows")
    min: int = Field(ge=0, description="smallest value of a row")
    p10: float = Field(ge=0, description="10th percentile (numpy's linear quantile)")
    p25: float = Field(ge=0, description="25th percentile")
    median: float = Field(ge=0, description="median")
    p75: float = Field(ge=0, description="75th percentile")
    p90: float = Field(ge=0, description="90th percentile")
    max: int = Field(ge=0, description="largest value of a row")


class Displacement(Strict):
    """How far a configuration's shuffles move words, over its rows that reorder the premise
    (swapbench.results.displacement)."""

    rows: int = Field(ge=1, description="rows measured: those with a permutation of the premise's tokens")
    distance: Spread = Field(description=f"per row, the {DISTANCE}")
    moved: Spread = Field(description=f"per row, the {MOVED}")


def _spread(values: np.ndarray) -> Spread:
    quantiles = np.quantile(values, list(QUANTILES.values()))
    return Spread(
        mean=round(float(values.mean()), 4),
        min=int(values.min()),
        max=int(values.max()),
        **{name: round(float(q), 4) for name, q in zip(QUANTILES, quantiles)},
    )


def summarize(rows: Iterable[tuple[int, int] | None]) -> Displacement | None:
    """The summary of rows' (distance, moved) (measured()), rows without them left out; None when none has them."""
    figures = np.array([row for row in rows if row is not None], dtype=float).reshape(-1, 2)
    if not len(figures):
        return None
    return Displacement(rows=len(figures), distance=_spread(figures[:, 0]), moved=_spread(figures[:, 1]))
