"""Shared by the role-swap tests: one loaded spaCy pipeline, hand-written trees, pairs built from sentences."""

from __future__ import annotations

import functools
import json
from pathlib import Path

from swapbench.sources import Pair

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@functools.lru_cache(maxsize=1)
def english():
    from swapbench.parsing.spacy_parser import load_english

    return load_english()


@functools.lru_cache(maxsize=1)
def gold_rows() -> tuple[dict, ...]:
    lines = (FIXTURES / "roles_gold.jsonl").read_text(encoding="utf-8").splitlines()
    return tuple(json.loads(line) for line in lines if line.strip())


def tree_of(text: str) -> str | None:
    """The hand-written PTB tree of a sentence of roles_gold.jsonl."""
    return next((row["tree"] for row in gold_rows() if row["text"] == text), None)


def pair(
    premise: str,
    hypothesis: str = "Something happens.",
    label: str = "entailment",
    pair_id: str = "t#1",
    trees: bool = False,
) -> Pair:
    return Pair(
        pair_id=pair_id,
        premise=premise,
        hypothesis=hypothesis,
        label=label,
        premise_parse=tree_of(premise) if trees else None,
        hypothesis_parse=tree_of(hypothesis) if trees else None,
        path="test",
        line=1,
    )
