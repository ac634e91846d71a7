"""Semantic-role labelers for the role swap.

- `spacy`: roles from spaCy's dependency parse; needs only the text.
- `tree`: roles read off the source's Penn Treebank trees (SNLI 1.0 ships them).
- `agree`: the frames that both find; the most precise, see README (shuffle-sr).
- `auto`, the default: `agree` where a sentence has a tree, `spacy` where it has none.
- `frames:FILE`: precomputed frames in AllenNLP's SRL output format.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import SwapbenchError
from .base import Frame, RoleLabeler, RoleParse, Sentence, Span

LABELERS = ("auto", "spacy", "tree", "agree", "frames:FILE")


def check_labeler(spec: str) -> None:
    """Refuse an unknown --srl, or frames:FILE naming no file."""
    if spec in ("auto", "spacy", "tree", "agree"):
        return
    if not (spec.startswith("frames:") and spec[len("frames:"):]):
        raise SwapbenchError(f"--srl: unknown role labeler {spec!r}: expected one of {', '.join(LABELERS)}")
    if not Path(spec[len("frames:"):]).is_file():
        raise SwapbenchError(f"--srl {spec}: no such frames file")


def make_labeler(spec: str, spacy_model: str | None = None) -> RoleLabeler:
    check_labeler(spec)
    if spec == "spacy":
        from .spacy_roles import SpacyRoles

        return SpacyRoles(spacy_model)
    if spec == "tree":
        from .tree_roles import TreeRoles

        return TreeRoles()
    if spec in ("auto", "agree"):
        from .agreement import AgreedRoles
        from .spacy_roles import SpacyRoles
        from .tree_roles import TreeRoles

        return AgreedRoles(SpacyRoles(spacy_model), TreeRoles(), alone_when_missing=spec == "auto")
    from .frames import FramesRoles

    return FramesRoles(Path(spec[len("frames:"):]), spacy_model=spacy_model)


__all__ = ["LABELERS", "Frame", "check_labeler", "RoleLabeler", "RoleParse", "Sentence", "Span", "make_labeler"]
