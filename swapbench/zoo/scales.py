"""How strong each encoding's position signal starts against the words', at initialisation: the check that zoo
models start on equal terms, where only the encoding differs.

Two ratios, from the encoder as built (random weights, BERT's initialisation), on random tokens:
- input: mean norm of the vectors added to the input embeddings over mean norm of the word embeddings
  (absolute encodings only; BERT's learned positions give 1.0);
- logits: the standard deviation of what positions change in the first layer's attention logits (the logits with
  the encoding minus the same layer's logits without any position information) over the standard deviation of
  the latter (0 for `none`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..core.registry import ENCODINGS

TOKENS, BATCH = 64, 8


@dataclass(frozen=True)
class Ratios:
    input: float | None
    logits: float


def initial_scales(architecture, *, max_length: int = 128, seed: int = 0, vocab_size: int = 30522) -> dict[str, Ratios]:
    from .encodings.base import LayerScores
    from .modeling import ZooModel
    from .train import zoo_config

    found = {}
    for name in ENCODINGS.names():
        config = zoo_config(name, architecture, max_length=max_length, vocab_size=vocab_size)
        torch.manual_seed(seed)
        model = ZooModel(config).eval()
        length = min(TOKENS, max_length)
        ids = torch.randint(1000, vocab_size, (BATCH, length), generator=torch.Generator().manual_seed(seed))
        types = torch.zeros_like(ids)
        with torch.no_grad():
            vectors = model.positions.input_embeddings(length, ids.device, torch.float32)
            words = model.embeddings.word_embeddings.weight[1000:].norm(dim=-1).mean()
            input_ratio = None if vectors is None else float(vectors.norm(dim=-1).mean() / words)
            attention = model.layers[0].attention
            bare = model.embeddings(ids, types, None)
            placed = model.embeddings(ids, types, vectors)
            q0, k0 = attention.split_heads(attention.query(bare)), attention.split_heads(attention.key(bare))
            q1, k1 = attention.split_heads(attention.query(placed)), attention.split_heads(attention.key(placed))
            content = LayerScores.forward(attention.scores, q0, k0, None)
            full = attention.scores(q1, k1, model.positions.shared_bias(length, ids.device, torch.float32))
            found[name] = Ratios(input_ratio, float((full - content).std() / content.std()))
    return found
