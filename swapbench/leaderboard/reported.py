"""Rows reported in a paper and not re-run here: the reference paper's Table 3, read from BOARD/reported.json.

The file holds the figures as the paper prints them (percent), the citation, and how the paper's data differ from
the board's. Its rows are shown apart (marked, never in a mean: the board has none) and plotted with the board's.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.errors import SwapbenchError

REPORTED_FILE = "reported.json"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RelabelledFigures(Strict):
    original: float = Field(ge=0, le=100, description="accuracy on the originals of the swapped pairs, percent")
    delta: float = Field(ge=-100, le=100, description="Δ accuracy once swapped, points")


class ReportedRow(Strict):
    model: str
    family: str = Field(description="positional-encoding family, as swapbench eval reports it")
    kind: str
    symmetry: float = Field(ge=0, le=100, description="percent, as printed")
    locality: float = Field(ge=0, le=100, description="percent, as printed")
    original: float = Field(ge=0, le=100, description="accuracy on the original pairs, percent")
    delta: dict[str, float] = Field(description="Δ accuracy per word-order configuration, points")
    relabelled: dict[str, RelabelledFigures] = Field(
        default_factory=dict,
        description="configurations that change the gold label, each under the name of the "
        "board's configuration built as the paper built it: the paper's "
        "shuffle-sr, swapped premise first, is shuffle-sr-premise",
    )


class PaperData(Strict):
    """How the paper built the data its rows were scored on, in the terms of the board's build: a column whose
    data differ from the paper's says how in its header."""

    shuffle_scope: str = Field(
        description="the --shuffle-scope of the paper's shuffle-N sets: 'one' phrase shuffled per premise"
    )
    rows: dict[str, str] = Field(
        default_factory=dict,
        description="the rows of each configuration as the paper "
        "describes them (about 5,000, 300 hand-picked), by the board's configuration name",
    )


class Reported(Strict):
    citation: str
    short: str = Field(description="the citation as a row names it, e.g. 'Chen et al. (2023)'")
    note: str = Field(description="what marks each row, e.g. 'reported by Chen et al. (2023), not re-run'")
    construction: str = Field(description="how the paper's data differ from the board's")
    label_view: str = "3-way"
    original_from: str = Field(description="the configuration whose Original column the paper's accuracy fills")
    paper: PaperData | None = Field(default=None, description="how the paper built its data, setting by setting")
    rows: list[ReportedRow]


def load_reported(board: Path) -> Reported | None:
    path = Path(board) / REPORTED_FILE
    if not path.is_file():
        return None
    try:
        return Reported.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError) as err:
        raise SwapbenchError(f"{path} is not a valid reported-rows file: {err}") from err
