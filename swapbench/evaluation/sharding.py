"""Scoring spread over the processes of `torchrun` or `accelerate launch`: each process scores a disjoint,
contiguous shard of the pairs left to score, and every process gets all of them back, in order. The main process
alone then computes the figures and writes the one results file (pipeline.evaluate).

The work is accelerate's: PartialState joins the processes (gloo on CPU, NCCL on GPUs, from the launcher's
environment), split_between_processes cuts the shards, gather_object brings them together. A pair's outputs do
not depend on the process that scored it, so the predictions are those of a single process.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np


def world_size() -> int:
    """Processes started by the launcher (1 without one)."""
    return int(os.environ.get("WORLD_SIZE", "1"))


def is_main() -> bool:
    """Whether this is the process that reports and writes (rank 0; the only one without a launcher)."""
    return int(os.environ.get("RANK", "0")) == 0


def processes():
    """accelerate's PartialState of this launch, the process group set up by the first call; None in a single
    process. On a machine without CUDA the group runs over gloo."""
    if world_size() == 1:
        return None
    import torch
    from accelerate import PartialState

    return PartialState(cpu=not torch.cuda.is_available())


def wait_for_everyone() -> None:
    """A barrier across the processes; nothing in a single process."""
    state = processes()
    if state is not None:
        state.wait_for_everyone()


# A run over pairs: given them and a callback for each batch (positions among them, outputs, whether each was
# cut), returns all their outputs and cuts (score_cache.ScoreMissing).
Score = Callable[[list, Callable[[np.ndarray, np.ndarray, np.ndarray], None]], tuple[np.ndarray, np.ndarray]]


def score_sharded(
    pairs: list[tuple[str, str]],
    score: Score,
    on_batch: Callable[[np.ndarray, np.ndarray, np.ndarray], None],
    progress: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """The outputs and cuts of every pair, and how many of them this process scored: all, by `score`, in a single
    process; across processes, each scores its shard (`on_batch` hears of its own batches, as positions among all
    `pairs`) and all are gathered. `progress` hears of the other shards' pairs once they arrive. Every process must
    call it with the same pairs."""
    from accelerate.utils import gather_object

    state = processes()
    if state is None:
        return *score(pairs, on_batch), len(pairs)
    # Every process has read the scores cache (score_cache.cached_outputs) before any writes to it, so that all
    # agree on which pairs are left.
    state.wait_for_everyone()
    with state.split_between_processes(list(range(len(pairs)))) as mine:
        start = mine[0] if mine else len(pairs)
        values, cut = score(
            [pairs[i] for i in mine], lambda index, outputs, batch_cut: on_batch(index + start, outputs, batch_cut)
        )
    shards = sorted(gather_object([(start, values, cut)]), key=lambda shard: shard[0])
    if progress:
        progress(len(pairs) - len(mine))
    shards = [shard for shard in shards if len(shard[2])]  # (a process left without pairs returns no outputs)
    return np.concatenate([s[1] for s in shards]), np.concatenate([s[2] for s in shards]), len(mine)
