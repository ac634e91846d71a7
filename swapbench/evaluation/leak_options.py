"""The options of `swapbench leak` (evaluation/leak.py and evaluation/plausibility.py measure), apart from what they
run, so that `--help` and argument errors import neither the results schema nor numpy."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import model_validator

from ..core.command_options import CommandOptions, option
from ..models.gguf import split_gguf_path


class LeakOptions(CommandOptions):
    """`swapbench leak [RESULTS] [--plausibility MODEL [--data DIR]] [--output FILE]`."""

    results: Path | None = option(
        None,
        positional=True,
        metavar="RESULTS",
        help="results file of `swapbench eval MODEL --hypothesis-only`; its predictions "
        "file beside it (may be left out with --plausibility, --data and --output: "
        "the plausibility baseline alone)",
    )
    plausibility: str | None = option(
        None,
        metavar="MODEL",
        help="also score each role configuration's hypotheses alone with this causal "
        "language model (Hub id, folder, or .gguf file): it predicts entailment "
        "for the more probable of each row's two hypotheses",
    )
    gguf_file: str | None = option(
        None,
        metavar="NAME",
        help="the GGUF file in --plausibility's folder or Hub repository (a .gguf path names both at once)",
    )
    plausibility_score: Literal["sum", "mean"] = option(
        "sum",
        help="the plausibility baseline's headline score of a hypothesis: sum, its total log-probability; "
        "mean, per token (both are recorded)",
    )
    data: str | None = option(
        None,
        metavar="DIR",
        help="the benchmark whose hypotheses --plausibility scores (default: the one RESULTS scored)",
    )
    output: Path | None = option(
        None,
        help="the file written (default, in a checkout of swapbench and with "
        "RESULTS: data/annotations/hypothesis-only.json, the one the dataset "
        "card reads)",
    )

    @model_validator(mode="after")
    def _what_to_measure(self):
        if self.results is None and self.plausibility is None:
            raise ValueError("give RESULTS (a hypothesis-only eval), --plausibility MODEL, or both")
        if self.results is None and (self.data is None or self.output is None):
            raise ValueError("the plausibility baseline alone (no RESULTS) needs --data DIR and --output FILE")
        if self.plausibility is None and (self.data is not None or self.gguf_file is not None):
            raise ValueError("--data and --gguf-file are read by --plausibility only")
        if self.plausibility is not None:
            self.plausibility, self.gguf_file = split_gguf_path(self.plausibility, self.gguf_file)
        return self
