"""The scorer: length-sorted dynamic batches give the predictions of one-pair-at-a-time inference, in input
order; out-of-memory errors halve the batch; truncation is counted; shared pairs are scored once."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from eval_models import WORDS, save_classifier
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from swapbench.evaluation.data import Benchmark, Configuration
from swapbench.evaluation.results import distinct_pairs
from swapbench.evaluation.scoring import predict


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    folder = save_classifier(tmp_path_factory.mktemp("tiny"), {0: "entailment", 1: "neutral", 2: "contradiction"})
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    return model, AutoTokenizer.from_pretrained(folder)


def random_pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    rng = np.random.default_rng(seed)
    sentence = lambda: " ".join(rng.choice(WORDS, size=int(rng.integers(1, 25)))) + "."  # noqa: E731
    return [(sentence(), sentence()) for _ in range(n)]


def one_by_one(model, tokenizer, pairs, max_length=128) -> np.ndarray:
    with torch.inference_mode():
        return np.array(
            [
                int(
                    model(
                        **tokenizer(p, h, truncation=True, max_length=max_length, return_tensors="pt")
                    ).logits.argmax()
                )
                for p, h in pairs
            ]
        )


def test_batched_predictions_equal_unbatched_ones_in_input_order(tiny):
    model, tokenizer = tiny
    pairs = random_pairs(40)
    scored = predict(model, tokenizer, pairs, batch_size=6)
    assert scored.predictions.tolist() == one_by_one(model, tokenizer, pairs).tolist()
    assert len(set(scored.predictions.tolist())) > 1  # a constant model would prove nothing
    assert scored.batch_size == 6
    assert scored.tokens <= scored.padded_tokens < 1.2 * scored.tokens  # sorting keeps padding low


def test_long_pairs_are_truncated_and_counted(tiny):
    model, tokenizer = tiny
    pairs = random_pairs(12, seed=3)
    lengths = [len(tokenizer(p, h)["input_ids"]) for p, h in pairs]
    scored = predict(model, tokenizer, pairs, max_length=16, batch_size=5)
    assert scored.truncated == sum(n > 16 for n in lengths) > 0
    assert scored.predictions.tolist() == one_by_one(model, tokenizer, pairs, max_length=16).tolist()


class RunsOutOfMemoryAbove(torch.nn.Module):
    """The real model, behind a device that holds at most `limit` pairs at once."""

    def __init__(self, model, limit: int):
        super().__init__()
        self.model, self.limit, self.refused = model, limit, []

    def forward(self, **batch):
        size = batch["input_ids"].shape[0]
        if size > self.limit:
            self.refused.append(size)
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return self.model(**batch)


def test_out_of_memory_halves_the_batch_and_keeps_every_prediction(tiny):
    model, tokenizer = tiny
    pairs = random_pairs(30, seed=5)
    limited = RunsOutOfMemoryAbove(model, limit=5)
    scored = predict(limited, tokenizer, pairs, batch_size=20)
    assert limited.refused == [20, 10]
    assert scored.batch_size == 5
    assert scored.predictions.tolist() == one_by_one(model, tokenizer, pairs).tolist()


def test_the_collector_runs_only_after_an_out_of_memory_error(tiny, monkeypatch):
    # accelerate's find_executable_batch_size ran gc.collect() on every call: 0.13 s, most of a small call's time
    import gc

    collected = []
    collect = gc.collect
    monkeypatch.setattr(gc, "collect", lambda *args: collected.append(1) or collect(*args))
    model, tokenizer = tiny
    pairs = random_pairs(30, seed=6)
    predict(model, tokenizer, pairs, batch_size=8)
    assert collected == []
    predict(RunsOutOfMemoryAbove(model, limit=5), tokenizer, pairs, batch_size=20)
    assert collected == [1, 1]  # once after each of the two refusals (20, then 10)


def test_other_runtime_errors_are_not_mistaken_for_out_of_memory(tiny):
    model, tokenizer = tiny

    class Broken(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, **batch):
            raise RuntimeError("shape mismatch")

    with pytest.raises(RuntimeError, match="shape mismatch"):
        predict(Broken(), tokenizer, random_pairs(3), batch_size=4)


def test_originals_shared_by_configurations_are_scored_once():
    def config(name, originals, perturbed):
        n = len(originals)
        return Configuration(
            name=name,
            pair_ids=[str(i) for i in range(n)],
            originals=originals,
            perturbed=perturbed,
            gold=["neutral"] * n,
            gold_original=["neutral"] * n,
            tags=[[] for _ in range(n)],
            non_entailment_view=False,
            rows=n,
            fingerprint="",
            verified=False,
        )

    shared = [("a b c", "h1"), ("d e f", "h2")]
    benchmark = Benchmark(
        path="x",
        revision=None,
        split="test",
        build_info=None,
        limit=None,
        configurations=[
            config("shuffle-3", shared, [("b a c", "h1"), ("e d f", "h2")]),
            config("shuffle-random", shared, [("c b a", "h1"), ("e d f", "h2")]),
        ],
    )
    assert distinct_pairs(benchmark) == [*shared, ("b a c", "h1"), ("e d f", "h2"), ("c b a", "h1")]
