"""Prompts that begin alike packed into one row of a forward pass: the start they share (a premise, under a template
that puts it first) once, then each prompt's own tokens, then each verbalizer's tokens after its first, every part
with the positions it would have alone and an attention mask that lets it see only what it would see alone (its
row's common start, its prompt, itself). A row of a premise's three prompts runs its premise once, and a forward of
such rows pads only to its longest row, not to its longest prompt once per prompt.

The mask is a 4-D additive one (0 where a token may look, the dtype's minimum where not), which transformers' own
attention code reads as given. A model that ignores it or its position ids (ALiBi models such as BLOOM build their
bias from a 2-D mask; flash-attention kernels take no custom mask) would score packed rows wrong, so
`reads_packed_rows` tries each model once, a packed row against the same prompts run alone, before it is packed.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

logger = logging.getLogger(__name__)

# A row: its common start, then per prompt (its own tokens, its verbalizers' tokens per label).
Row = tuple[Sequence[int], Sequence[tuple[Sequence[int], Sequence[Sequence[int]]]]]


@dataclass
class Packed:
    ids: torch.Tensor  # (rows, width)
    positions: torch.Tensor  # (rows, width): each token's position in its prompt, `past` included
    mask: torch.Tensor  # (rows, 1, width, past + width), additive, in the model's dtype
    first: torch.Tensor  # (prompts, 2): row and place of each prompt's last token (read for verbalizers' first)
    later: torch.Tensor  # (reads, 5): prompt, label, row, place, target token, for verbalizers' later tokens
    real: int  # tokens that are not padding


def row_length(row: Row) -> int:
    common, prompts = row
    return len(common) + sum(len(own) + sum(len(c) - 1 for c in conts) for own, conts in prompts)


def pack(rows: Sequence[Row], past: int, pad_id: int, dtype: torch.dtype, device) -> Packed:
    """`rows` as one forward's inputs after `past` tokens that every row reads (a key-value cache of them); the
    prompts numbered in order across rows. A padding token sees only itself."""
    width = max(row_length(r) for r in rows)
    ids = np.full((len(rows), width), pad_id, dtype=np.int64)
    positions = np.zeros((len(rows), width), dtype=np.int64)
    allow = np.zeros((len(rows), width, past + width), dtype=bool)
    first, later, prompt, real = [], [], 0, 0

    def place(b: int, at: int, tokens: Sequence[int], start: int, sees: list[tuple[int, int]]) -> None:
        """`tokens` at places at.. of row b, positions start.., each seeing the `sees` spans, the past and the
        tokens before it in `tokens`."""
        k = len(tokens)
        ids[b, at : at + k] = tokens
        positions[b, at : at + k] = past + start + np.arange(k)
        allow[b, at : at + k, :past] = True
        for begin, end in sees:
            allow[b, at : at + k, past + begin : past + end] = True
        allow[b, at : at + k, past + at : past + at + k] = np.tri(k, dtype=bool)

    for b, (common, prompts) in enumerate(rows):
        s = len(common)
        place(b, 0, common, 0, [])
        at = s
        for own, conts in prompts:
            k = len(own)
            place(b, at, own, s, [(0, s)])
            first.append((b, at + k - 1))
            own_at, at = at, at + k
            for label, cont in enumerate(conts):
                tail = cont[:-1]
                if not tail:
                    continue
                place(b, at, tail, s + k, [(0, s), (own_at, own_at + k)])
                later += [(prompt, label, b, at + j, cont[j + 1]) for j in range(len(tail))]
                at += len(tail)
            prompt += 1
        real += at
        allow[b, np.arange(at, width), past + np.arange(at, width)] = True
    mask = torch.zeros(allow.shape, dtype=dtype).masked_fill_(torch.from_numpy(~allow), torch.finfo(dtype).min)
    return Packed(
        ids=torch.from_numpy(ids).to(device),
        positions=torch.from_numpy(positions).to(device),
        mask=mask[:, None].to(device),
        first=torch.tensor(first, dtype=torch.long, device=device),
        later=torch.tensor(later, dtype=torch.long, device=device).reshape(-1, 5),
        real=real,
    )


# Per base model: {(dtype, device, attention implementation): whether it reads packed rows as the prompts alone}.
_READS_PACKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def reads_packed_rows(base, tokens: Sequence[int], pad_id: int) -> bool:
    """Whether `base` (a model taking position_ids) gives a packed row's prompts the last hidden states it gives
    them alone: tried once per model, dtype, device and attention implementation on a row of one start and two
    prompts made of `tokens` (any real prompt's)."""
    dtype, device = base.dtype, next(base.parameters()).device  # the mask's dtype is the one the model computes in
    key = (dtype, device, getattr(base.config, "_attn_implementation", None))
    known = _READS_PACKED.setdefault(base, {})
    if key not in known:
        tokens = list(tokens) * (7 // max(len(tokens), 1) + 1)
        start, one, two = tokens[:3], tokens[3:5], tokens[6:4:-1]
        try:
            with torch.inference_mode():
                alone = base(input_ids=torch.tensor([start + one, start + two], device=device))[0][:, -1]
                packed = pack([(start, [(one, []), (two, [])])], 0, pad_id, dtype, device)
                out = base(input_ids=packed.ids, attention_mask=packed.mask, position_ids=packed.positions)[0]
                rows = out[packed.first[:, 0], packed.first[:, 1]]
            # the states' relative distance: SmolLM2's is 1e-6 in float32 and 0 in bf16 on a CPU, and 0.36 when the
            # second prompt is let see the first's tokens (a largest entry, scale-free, would hide that in bf16)
            distance = (rows.float() - alone.float()).norm(dim=-1) / alone.float().norm(dim=-1).clamp_min(1e-12)
            known[key] = bool(distance.max() <= (1e-3 if dtype == torch.float32 else 5e-2))
        except (TypeError, ValueError, RuntimeError) as err:  # a model whose attention refuses a 4-D mask
            logger.debug("%s does not take a packed row: %s", type(base).__name__, err)
            known[key] = False
        if not known[key]:
            logger.info(
                "%s (%s) does not read packed prompts as it reads them alone: each prompt runs whole",
                type(base).__name__,
                key[2],
            )
    return known[key]
