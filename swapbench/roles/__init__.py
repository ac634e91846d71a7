"""Semantic-role labelers for the role swap, each registered in `swapbench.core.registry.LABELERS` where it is defined.

- `spacy`: roles from spaCy's dependency parse; needs only the text.
- `tree`: roles read off the source's Penn Treebank trees (SNLI 1.0 ships them).
- `agree`: the frames that both find; the most precise, see docs/shuffle-sr.md (role labelers).
- `auto`, the default: `agree` where a sentence has a tree, `spacy` where it has none.
- `frames:FILE`: precomputed frames in AllenNLP's SRL output format.
"""

from __future__ import annotations

from pathlib import Path

from ..core.errors import SwapbenchError
from ..core.registry import LABELERS

# isort: off
from . import spacy_roles, tree_roles, agreed_roles, frames  # noqa: F401  (their registrations, in this order)

# isort: on
from .base import Frame, RoleLabeler, RoleParse, Sentence, Span


def check_labeler(spec: str) -> None:
    """Refuse an unknown --srl, or one naming a file (frames:FILE) that is not there."""
    _, match = LABELERS.lookup(spec)
    if match is not None and "file" in match.groupdict() and not Path(match["file"]).is_file():
        raise SwapbenchError(f"--srl {spec}: no such frames file")


def make_labeler(spec: str, spacy_model: str | None = None) -> RoleLabeler:
    check_labeler(spec)
    return LABELERS.make(spec, spec, spacy_model=spacy_model)


__all__ = ["LABELERS", "Frame", "check_labeler", "RoleLabeler", "RoleParse", "Sentence", "Span", "make_labeler"]
