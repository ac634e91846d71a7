"""Role-swap training pairs: the training split's own entailment pairs with one verb's agent and patient
exchanged by swapbench's role swapper (the `shuffle-sr` variant), labelled as the benchmark labels them
(contradiction, non-entailment in the binary view), added to the training data.

They are made from the training pairs alone, after those were separated from the scored data, and the record
says so by fingerprint: the fingerprint of the pairs the swaps were made from is that of the training pairs, it is
not the scored dataset's, and no swap shares a pairID or a premise (before or after the swap) with a scored pair.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, ConfigDict, Field

from ..core.errors import SwapbenchError
from ..evaluation.finetune import describe
from ..evaluation.scored_data import ScoredPairs
from ..sources import Pair
from ..variants import make_variant
from ..variants.randomness import example_rng

SWAP_SUFFIX = ":role-swap"
LABELER = "auto"  # the build's default: the source's trees where present, spaCy where not, as the scored shuffle-sr


class RoleSwapRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    n: int = Field(description="role-swapped pairs added to the training data")
    entailment_pairs: int = Field(description="entailment pairs of the training data they were made from")
    labeler: str = Field(description="the role labeler (`swapbench build --srl`)")
    label: str = Field(description="the label the swapped pairs were given")
    source_fingerprint: str = Field(
        description="fingerprint of the pairs the swaps were made from: the training pairs' (train.fingerprint)"
    )
    fingerprint: str = Field(description="fingerprint of the swapped pairs")
    scored_dataset: str | None = Field(description="fingerprint of the scored dataset they were checked against")
    shared_pair_ids: int = Field(description="swaps whose source pairID is scored (always 0: refused otherwise)")
    shared_premises: int = Field(
        description="swaps whose premise, before or after the swap, is a scored premise (always 0: refused otherwise)"
    )


_MADE: dict[tuple[str, str], tuple[list[Pair], int]] = {}  # one run trains many encoders on the same pairs


def role_swaps(train: list[Pair], scored: ScoredPairs | None) -> tuple[list[Pair], RoleSwapRecord]:
    """The swapped pairs of `train`'s entailment pairs, and the record of where they came from."""
    source = describe(train, "", "", None, held_out=False).fingerprint
    if scored is not None and source == scored.dataset:
        raise SwapbenchError("role swaps: the training pairs are the scored dataset itself")
    key = (source, LABELER)
    if key not in _MADE:
        variant = make_variant("shuffle-sr", srl=LABELER)
        variant.prepare(train)
        swaps = []
        for pair in train:
            perturbed = variant.apply(pair, None, example_rng(0, pair.pair_id, variant.name))
            if perturbed is not None:
                swaps.append(
                    replace(
                        pair,
                        pair_id=pair.pair_id + SWAP_SUFFIX,
                        premise=perturbed.premise,
                        hypothesis=perturbed.hypothesis,
                        label=perturbed.label,
                        premise_parse=None,
                        hypothesis_parse=None,
                    )
                )
        _MADE[key] = swaps, sum(p.label == "entailment" for p in train)
    swaps, entailment = _MADE[key]
    if not swaps:
        raise SwapbenchError(
            f"role swaps: none of the {entailment} entailment training pairs has a verb whose agent "
            "and patient could be swapped"
        )
    ids = premises = 0
    if scored is not None:
        ids = sum(s.pair_id.removesuffix(SWAP_SUFFIX) in scored.pair_ids for s in swaps)
        originals = {p.pair_id: p for p in train}
        premises = sum(
            scored.holds_premise(s.premise)
            or scored.holds_premise(originals[s.pair_id.removesuffix(SWAP_SUFFIX)].premise)
            for s in swaps
        )
        if ids or premises:
            raise SwapbenchError(
                f"role swaps: {ids} swapped pairs share a pairID and {premises} a premise with the "
                f"scored data ({scored.path}); they must come from the training split alone"
            )
    record = RoleSwapRecord(
        n=len(swaps),
        entailment_pairs=entailment,
        labeler=LABELER,
        label=swaps[0].label,
        source_fingerprint=source,
        fingerprint=describe(swaps, "", "", None, held_out=False).fingerprint,
        scored_dataset=scored.dataset if scored else None,
        shared_pair_ids=ids,
        shared_premises=premises,
    )
    return swaps, record
