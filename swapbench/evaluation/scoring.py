"""Running sentence pairs through a classifier fast: tokenize once, sort by length, pad each batch only to its own
longest pair (in numpy, not through tokenizer.pad), and halve the batch size when the device runs out of memory
(in_batches, which also serves prompted scoring). Eval hands predict each distinct pair once, every configuration's
together (results.distinct_pairs), so unlu's permutations batch with their originals, which share their length.

Predictions come back in the order of the input pairs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..core.errors import SwapbenchError
from ..models.loading import input_device

# Starting batch sizes of the automatic choice. On an idle 2-core CPU, 32 to 128 pairs ran MiniLM within 5% of
# each other (scripts/bench_eval.py); 64 keeps SNLI's padding under 5%. On a GPU the back-off finds what fits.
DEFAULT_BATCH = {"cpu": 64, "cuda": 512, "mps": 128}


@dataclass
class Scored:
    predictions: np.ndarray  # index of the model output with the highest logit, one per input pair, input order
    logits: np.ndarray  # (pairs, outputs) float32, input order: what the predictions are read off
    cut: np.ndarray  # bool, per input pair: longer than max_length, cut
    batch_size: int  # the batch size in use at the end (after any back-off)
    truncated: int  # pairs longer than max_length, cut
    seconds: float
    tokens: int  # real tokens run
    padded_tokens: int  # tokens run, padding included


# How a premise and its hypothesis become one text for a tokenizer with no pair template of its own (GPT-2's, Qwen's
# and Llama's add nothing between the two, so the model would read "...the park.A man runs." as one sentence). A
# line break is a boundary every byte-level and SentencePiece vocabulary spells, and that no SNLI sentence holds.
PAIR_TEMPLATE = "{premise}\n{hypothesis}"


def pair_template(tokenizer) -> str | None:
    """PAIR_TEMPLATE when `tokenizer` joins a pair as its two texts tokenized apart and put end to end (no
    separator, no special token between them: decoders' tokenizers); None when it has a pair template of its own
    ([CLS] a [SEP] b [SEP], <s> a </s></s> b </s>: encoders'), which is then what the model reads."""
    first, second = "A man sleeps.", "A dog runs."
    joined = tokenizer(first, second)["input_ids"]
    return PAIR_TEMPLATE if joined == tokenizer(first)["input_ids"] + tokenizer(second)["input_ids"] else None


def tokenize(
    tokenizer, premises: Sequence[str], hypotheses: Sequence[str], hypothesis_only: bool = False, **kwargs
) -> dict:
    """What the model receives, in training and scoring alike: each premise and hypothesis as one input (the
    tokenizer's own pair template, else the two joined by PAIR_TEMPLATE), or with `hypothesis_only` the
    hypothesis alone, so that the premise never reaches a hypothesis-only model."""
    if hypothesis_only:
        return tokenizer(list(hypotheses), **kwargs)
    template = pair_template(tokenizer)
    if template is not None:
        return tokenizer([template.format(premise=p, hypothesis=h) for p, h in zip(premises, hypotheses)], **kwargs)
    return tokenizer(list(premises), list(hypotheses), **kwargs)


def encode(
    tokenizer, pairs: Sequence[tuple[str, str]], max_length: int, hypothesis_only: bool = False
) -> tuple[dict[str, list], list[int]]:
    """Token ids of every pair, unpadded, and the positions of the pairs max_length cut."""
    encoded = dict(tokenize(tokenizer, [p for p, _ in pairs], [h for _, h in pairs], hypothesis_only))
    long = [i for i, ids in enumerate(encoded["input_ids"]) if len(ids) > max_length]
    if long:  # re-encode only those, with the tokenizer's own truncation strategy
        cut = tokenize(
            tokenizer,
            [pairs[i][0] for i in long],
            [pairs[i][1] for i in long],
            hypothesis_only,
            truncation=True,
            max_length=max_length,
        )
        for key in encoded:
            for j, i in enumerate(long):
                encoded[key][i] = cut[key][j]
    return encoded, long


def in_batches(
    count: int, size: int, device: torch.device, run: Callable[[np.ndarray, int], None], stretch: int = 1
) -> int:
    """Call `run(index, size)` on consecutive slices of range(count), `size` items at a time (`size` x `stretch`
    where `run` cuts its slice into forwards of at most `size` itself); on out-of-memory, halve the size and go on
    from the first slice not done. Returns the batch size in use at the end.

    accelerate tells out-of-memory errors from others (should_reduce_batch_size), and its cache is emptied after
    one. Its find_executable_batch_size is not used: it empties the cache, with a gc.collect(), on every call,
    0.13 s that a call scoring a few hundred pairs on a CPU spends mostly there."""
    from accelerate.utils.memory import clear_device_cache, should_reduce_batch_size

    done = 0
    while done < count:
        index = np.arange(done, min(done + size * stretch, count))
        try:
            run(index, size)
        except Exception as err:
            # Python's MemoryError (padding, numpy) is the host running out, as torch's CPU allocator's is.
            if not (isinstance(err, MemoryError) or should_reduce_batch_size(err)):
                raise
            size //= 2
            if not size:
                raise out_of_memory(device, done, count, "even one pair at a time") from err
            clear_device_cache(garbage_collection=True)
            continue
        done += len(index)
    return size


def out_of_memory(device: torch.device, done: int, count: int, how: str) -> SwapbenchError:
    """What to do when scoring runs out of memory: the scores cache keeps what was scored (it commits when
    scoring stops on an error), so a run with less to hold at once goes on from there."""
    return SwapbenchError(
        f"out of memory on {device} scoring {count:,} pairs ({how}; {done:,} were scored, and the "
        "scores cache keeps them): give a smaller --eval-batch-size, or score fewer pairs at a "
        "time (--limit), or free memory, and run it again"
    )


def predict(
    model: torch.nn.Module,
    tokenizer,
    pairs: Sequence[tuple[str, str]],
    *,
    max_length: int = 128,
    batch_size: int | None = None,
    progress: Callable[[int], None] | None = None,
    on_batch: Callable[[np.ndarray, np.ndarray, np.ndarray], None] | None = None,
    hypothesis_only: bool = False,
) -> Scored:
    """Argmax output index of `model` on each (premise, hypothesis) pair, read off its logits as float32 (with
    `hypothesis_only`, on the hypothesis alone). `on_batch(positions, logits, cut)` is called after each batch with
    the positions of its pairs."""
    started = time.perf_counter()
    device = input_device(model)
    try:
        encoded, long = encode(tokenizer, pairs, max_length, hypothesis_only) if pairs else ({"input_ids": []}, [])
    except MemoryError as err:
        raise out_of_memory(device, 0, len(pairs), "tokenizing them all at once") from err
    cut = np.zeros(len(pairs), dtype=bool)
    cut[long] = True
    lengths = np.asarray([len(ids) for ids in encoded["input_ids"]], dtype=np.int64)
    order = np.argsort(-lengths, kind="stable")  # longest first: a batch too big for memory fails early
    logits_out = np.zeros((len(pairs), 0), dtype=np.float32)  # as wide as the model's outputs, once it has run
    padded = 0

    def run(positions: np.ndarray, size: int) -> None:
        nonlocal padded, logits_out
        index = order[positions]
        batch = pad_batch(tokenizer, encoded, index)
        logits = model(**{k: v.to(device, non_blocking=True) for k, v in batch.items()}).logits.float().cpu().numpy()
        if not logits_out.shape[1]:
            logits_out = np.zeros((len(pairs), logits.shape[1]), dtype=np.float32)
        padded += batch["input_ids"].numel()
        logits_out[index] = logits
        if on_batch:
            on_batch(index, logits, cut[index])
        if progress:
            progress(len(index))

    with torch.inference_mode():
        size = in_batches(len(order), batch_size or default_batch(device), device, run)
    predictions = logits_out.argmax(axis=1) if len(pairs) else np.zeros(0, dtype=np.int64)
    return Scored(
        predictions=predictions,
        logits=logits_out,
        cut=cut,
        batch_size=size,
        truncated=len(long),
        seconds=time.perf_counter() - started,
        tokens=int(lengths.sum()),
        padded_tokens=padded,
    )


# The tokenizer outputs pad_batch pads itself; any other is left to tokenizer.pad.
PADDED_HERE = frozenset({"input_ids", "attention_mask", "token_type_ids"})


def pad_batch(tokenizer, encoded: dict[str, list], index: np.ndarray) -> dict[str, torch.Tensor]:
    """The rows `index` of `encoded`, padded to the longest of them as tokenizer.pad pads them, written straight
    into one numpy array per output: tokenizer.pad builds Python lists of lists first, which cost as much as a
    small model's forward pass in bf16. Outputs pad_batch does not know are left to tokenizer.pad."""
    if not PADDED_HERE.issuperset(encoded):
        return tokenizer.pad({key: [values[i] for i in index] for key, values in encoded.items()}, return_tensors="pt")
    fills = {"input_ids": tokenizer.pad_token_id, "token_type_ids": tokenizer.pad_token_type_id, "attention_mask": 0}
    rows = [encoded["input_ids"][i] for i in index]
    width = max(map(len, rows))
    left = tokenizer.padding_side == "left"
    batch = {}
    for key, values in encoded.items():
        array = np.full((len(index), width), fills[key], dtype=np.int64)
        for row, i in enumerate(index):
            sequence = values[i]
            if left:
                array[row, width - len(sequence) :] = sequence
            else:
                array[row, : len(sequence)] = sequence
        batch[key] = torch.from_numpy(array)
    return batch


def default_batch(device: torch.device) -> int:
    return DEFAULT_BATCH.get(device.type, 128)
