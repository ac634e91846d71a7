"""The prompted scorer's fast paths against its plain ones, on tiny random decoders built here: the output layer
run only where a verbalizer token is read (split_head), the few-shot examples that every prompt shares run once
and their key-value cache copied to each batch; and the dequantized-weights cache of a GGUF checkpoint, refused
and made again when it is corrupted, read back on the next load."""

from __future__ import annotations

import contextlib
import logging
import weakref

import numpy as np
import pytest
import torch
from decoder_models import decoder_config, train_tokenizer

from swapbench.core.compat import reorder_cache, returned_cache, takes_cache_as
from swapbench.evaluation import packing, prompting
from swapbench.evaluation.packing import pack, reads_packed_rows, row_length
from swapbench.evaluation.prompting import (
    PromptSpec,
    _structure_copy,
    encode_prompts,
    padding_chunks,
    padding_share,
    prompt_groups,
    render,
    score_naive,
    score_prompts,
    shared_start,
    shots_text,
    split_head,
)
from swapbench.models.loading import prepare_tokenizer
from swapbench.sources import Pair

# Written for these tests.
PAIRS = [
    ("A dog runs in the park.", "An animal is outside."),
    ("A woman reads a long book on the train.", "Nobody is reading."),
    ("Two children play chess.", "The children are siblings."),
    ("A man cooks dinner.", "A man is cooking."),
    ("The old car is red.", "The car is blue and new and very fast."),
    ("Birds sing.", "Some birds are singing loudly in the morning."),
    ("A dog runs in the park.", "A cat sleeps."),  # a premise shared three times: run once per batch
    ("A dog runs in the park.", "The dog is fast."),
]
SHOTS = [
    Pair(
        pair_id=f"shot{i}", premise=p, hypothesis=h, label=label, premise_parse="", hypothesis_parse="", path="", line=i
    )
    for i, (p, h, label) in enumerate(
        [
            ("A cat sleeps.", "An animal rests.", "entailment"),
            ("A boy swims.", "The boy is dry.", "contradiction"),
            ("A girl sings.", "The girl is happy.", "neutral"),
        ]
    )
]
# One verbalizer of one token, two of several: both the first-token and the later-token reads are exercised.
VERBALIZERS = {"entailment": " True", "neutral": " Not sure", "contradiction": " Maybe not"}


@pytest.fixture(scope="module", params=["llama", "gpt2"])
def decoder(request, tmp_path_factory):
    from transformers import AutoModelForCausalLM

    tokenizer = train_tokenizer(tmp_path_factory.mktemp(request.param))
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = AutoModelForCausalLM.from_config(decoder_config(request.param, len(tokenizer))).eval()
    prepare_tokenizer(tokenizer, model.config)
    return model, tokenizer


def encoded(tokenizer, shots: int):
    spec = PromptSpec("{premise}\nQuestion: {hypothesis} True, False or Neither?\nAnswer:", VERBALIZERS, shots=shots)
    prefix = shots_text(spec, SHOTS[:shots])
    return encode_prompts(tokenizer, [prefix + render(spec, p, h) for p, h in PAIRS], spec, 256)


@pytest.mark.parametrize("shots", [0, 3])
def test_the_split_head_and_the_shared_examples_score_as_the_plain_path_and_the_naive_loop(decoder, shots):
    model, tokenizer = decoder
    prompts = encoded(tokenizer, shots)
    assert split_head(model) is not None
    assert any(len(c) > 1 for cs in prompts.continuations for c in cs)  # later tokens are read too
    assert (shared_start(prompts.prefixes) > 0) == (shots > 0)
    fast = score_prompts(model, tokenizer, prompts, batch_size=4)
    with tokens_run(model) as ungrouped_ran:
        ungrouped = score_prompts(model, tokenizer, prompts, batch_size=4, group=False)
    with tokens_run(model) as plain_ran:
        plain = score_prompts(model, tokenizer, prompts, batch_size=4, fast=False)
    naive = score_naive(model, tokenizer, prompts, batch_size=5)
    np.testing.assert_allclose(fast.loglik, plain.loglik, atol=1e-5, rtol=0)
    np.testing.assert_allclose(fast.loglik, naive.loglik, atol=1e-5, rtol=0)
    np.testing.assert_allclose(ungrouped.loglik, plain.loglik, atol=1e-5, rtol=0)
    assert np.array_equal(fast.predictions, plain.predictions) and np.array_equal(fast.predictions, naive.predictions)
    # the shared examples run once for the run, not once per prompt
    shared = shared_start(prompts.prefixes)
    assert ungrouped_ran["real"] == plain_ran["real"] - shared * (len(PAIRS) - 1)
    # the three prompts of one premise and another: the premise runs once, in a pass of its own
    one_premise = [i for i, (p, _) in enumerate(PAIRS) if p == PAIRS[0][0]] + [3]
    subset = prompts.__class__(
        [prompts.prefixes[i] for i in one_premise], [prompts.continuations[i] for i in one_premise], 0
    )
    held = prompt_groups(subset.prefixes, shared_start(subset.prefixes))[2]
    assert held[:3].tolist() == [held[0]] * 3 and held[0] > 0 and held[3] == 0
    with tokens_run(model) as grouped_ran:
        grouped = score_prompts(model, tokenizer, subset, batch_size=4)
    with tokens_run(model) as alone_ran:
        score_prompts(model, tokenizer, subset, batch_size=4, group=False)
    # a premise's prompts are packed in a row, where the model reads packed rows (transformers 4's GPT-2 does not)
    packs = reads_packed_rows(split_head(model)[0], prompts.prefixes[0], tokenizer.pad_token_id)
    assert packs or model.config.model_type != "llama"
    assert grouped_ran["real"] == alone_ran["real"] - (2 * held[0] if packs else 0)
    np.testing.assert_allclose(grouped.loglik, naive.loglik[one_premise], atol=1e-5, rtol=0)
    with tokens_run(model) as split_ran, pytest.MonkeyPatch.context() as patch:
        patch.setattr(prompting, "ROW_PROMPTS", 2)  # the premise's three prompts in two rows: it runs twice
        split = score_prompts(model, tokenizer, subset, batch_size=4)
    assert split_ran["real"] == grouped_ran["real"] + (held[0] if packs else 0)
    np.testing.assert_allclose(split.loglik, grouped.loglik, atol=1e-5, rtol=0)
    repeated = prompts.__class__(prompts.prefixes * 2, prompts.continuations * 2, 0)  # each prompt twice
    twice = score_prompts(model, tokenizer, repeated, batch_size=4)
    assert twice.forwards == fast.forwards and np.array_equal(twice.loglik, np.concatenate([fast.loglik] * 2))


@contextlib.contextmanager
def tokens_run(model):
    """What the base model runs inside the block: its tokens, real (not padding) and padded, and each forward's
    (rows, padded tokens, real tokens). A packed forward's 4-D mask is read for its real tokens: padding, at the
    end of a row, sees only itself; every real token after a row's first sees more than itself."""
    ran = {"real": 0, "padded": 0, "forwards": []}

    def count(module, args, kwargs):
        ids = kwargs["input_ids"] if kwargs.get("input_ids") is not None else args[0]  # GPT-2 is given it by place
        mask = kwargs.get("attention_mask")
        if mask is None:
            real = ids.numel()
        elif mask.dim() == 4:
            sees_more = (mask[:, 0] == 0).sum(-1) > 1  # (rows, width)
            places = torch.arange(1, ids.shape[1] + 1)
            real = int(torch.where(sees_more, places, 1).amax(dim=1).sum())
        else:
            real = int(mask[:, -ids.shape[1] :].sum())
        ran["real"], ran["padded"] = ran["real"] + real, ran["padded"] + ids.numel()
        ran["forwards"].append((ids.shape[0], ids.numel(), real))

    handle = split_head(model)[0].register_forward_pre_hook(count, with_kwargs=True)
    try:
        yield ran
    finally:
        handle.remove()


def test_on_a_cpu_each_forward_of_the_split_path_pads_at_most_an_eighth_of_its_tokens(decoder):
    model, tokenizer = decoder
    prompts = encoded(tokenizer, 0)
    one_token = prompts.__class__(prompts.prefixes, [[c[:1] for c in cs] for cs in prompts.continuations], 0)
    with tokens_run(model) as ran:
        fast = score_prompts(model, tokenizer, one_token, batch_size=4)
    plain = score_prompts(model, tokenizer, one_token, batch_size=4, fast=False)
    np.testing.assert_allclose(fast.loglik, plain.loglik, atol=1e-5, rtol=0)
    assert padding_share(torch.device("cpu")) == 1 / 8
    assert all(rows <= 4 and padded - real <= padded / 8 for rows, padded, real in ran["forwards"])
    _, group_of, held = prompt_groups(prompts.prefixes, 0)
    once = sum(int(held[group_of == g][0]) * (int((group_of == g).sum()) - 1) for g in set(group_of.tolist()))
    assert once > 0
    if not reads_packed_rows(split_head(model)[0], prompts.prefixes[0], tokenizer.pad_token_id):
        once = 0  # each prompt runs whole (transformers 4's GPT-2)
    assert ran["real"] == fast.tokens == sum(len(p) for p in prompts.prefixes) - once  # a shared premise runs once


def test_a_structure_copy_of_a_cache_is_reordered_and_read_while_the_cache_stays_as_it_was(decoder):
    model, _ = decoder
    base, keyword = split_head(model)[0], takes_cache_as(split_head(model)[0])
    ids, next_ids = torch.tensor([[5, 6, 7], [8, 9, 10]]), torch.tensor([[11], [12]])
    with torch.inference_mode():
        whole = base(input_ids=torch.cat([ids, next_ids], dim=1))[0][:, -1]
        cache = returned_cache(base(input_ids=ids, use_cache=True))
        picked = reorder_cache(model, _structure_copy(cache), torch.tensor([1, 1, 0]))
        from_copy = base(input_ids=next_ids[[1, 1, 0]], use_cache=True, **{keyword: picked})[0][:, -1]
        from_cache = base(input_ids=next_ids, use_cache=True, **{keyword: cache})[0][:, -1]  # read after the copy
    torch.testing.assert_close(from_copy, whole[[1, 1, 0]], atol=1e-5, rtol=0)
    torch.testing.assert_close(from_cache, whole, atol=1e-5, rtol=0)


def test_padding_chunks_end_where_padding_would_pass_its_share_or_the_batch_is_full():
    assert padding_chunks([10, 10, 9, 5, 5, 4], cap=4, share=1 / 8) == [slice(0, 3), slice(3, 6)]
    assert padding_chunks([5] * 10, cap=4, share=1 / 8) == [slice(0, 4), slice(4, 8), slice(8, 10)]
    assert padding_chunks([10, 1, 1], cap=4, share=1.0) == [slice(0, 3)]  # a GPU's: full batches
    assert padding_chunks([], cap=4, share=1 / 8) == []
    # rows of several prompts: at most `cap` prompts a forward
    assert padding_chunks([10, 10, 9, 9], cap=4, share=1 / 8, counts=[3, 1, 1, 2]) == [slice(0, 2), slice(2, 4)]


def test_a_packed_row_sees_its_start_its_prompt_and_its_verbalizer_and_nothing_else():
    # start [1, 2]; prompt A [3, 4] with verbalizers [7] and [8, 9]; prompt B [5]; a shorter row [6]; 1 past token
    rows = [([1, 2], [([3, 4], [[7], [8, 9]]), ([5], [[7], [7]])]), ([], [([6], [[7], [7]])])]
    assert [row_length(r) for r in rows] == [6, 1]
    packed = pack(rows, past=1, pad_id=0, dtype=torch.float32, device="cpu")
    assert packed.ids.tolist() == [[1, 2, 3, 4, 8, 5], [6, 0, 0, 0, 0, 0]]
    # positions as alone (after the past token): B follows the start, not A; the verbalizer's 8 follows A
    assert packed.positions[0].tolist() == [1, 2, 3, 4, 5, 3]
    sees = (packed.mask[:, 0] == 0).int()
    assert sees[0].tolist() == [
        [1, 1, 0, 0, 0, 0, 0],  # the start
        [1, 1, 1, 0, 0, 0, 0],
        [1, 1, 1, 1, 0, 0, 0],  # A
        [1, 1, 1, 1, 1, 0, 0],
        [1, 1, 1, 1, 1, 1, 0],  # 8: past, start, A, itself
        [1, 1, 1, 0, 0, 0, 1],  # B: past, start, itself
    ]
    assert sees[1, 0].tolist() == [1, 1, 0, 0, 0, 0, 0] and sees[1, 1:, 0].sum() == 0  # padding: only itself
    assert all(sees[1, k, k + 1] == 1 for k in range(1, 6))
    assert packed.first.tolist() == [[0, 3], [0, 5], [1, 0]] and packed.real == 7
    assert packed.later.tolist() == [[0, 1, 0, 4, 9]]  # prompt A, label 1: at 8's place, 9 is read


def test_a_model_that_cannot_read_packed_rows_is_found_out_and_scored_whole(decoder, monkeypatch, caplog):
    from transformers import AutoModelForCausalLM

    model, tokenizer = decoder
    prompts = encoded(tokenizer, 3)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        bloom = AutoModelForCausalLM.from_config(decoder_config("bloom", len(tokenizer))).eval()
    with caplog.at_level(logging.INFO, logger="swapbench.evaluation.packing"):
        assert not reads_packed_rows(bloom.base_model, prompts.prefixes[0], tokenizer.pad_token_id)  # ALiBi
    assert "runs whole" in caplog.text
    # a mask that lets the second prompt see the first's tokens is found out
    packing_pack = packing.pack

    def leaky(*args, **kwargs):
        packed = packing_pack(*args, **kwargs)
        packed.mask[:, :, -1, :] = 0
        return packed

    with monkeypatch.context() as patch:
        patch.setattr(packing, "_READS_PACKED", weakref.WeakKeyDictionary())
        packs = reads_packed_rows(split_head(model)[0], prompts.prefixes[0], tokenizer.pad_token_id)
        assert packs or model.config.model_type != "llama"  # transformers 4's GPT-2 refuses a 4-D mask
        patch.setattr(packing, "_READS_PACKED", weakref.WeakKeyDictionary())
        patch.setattr(packing, "pack", leaky)
        assert not reads_packed_rows(split_head(model)[0], prompts.prefixes[0], tokenizer.pad_token_id)
    monkeypatch.setattr(prompting, "reads_packed_rows", lambda *args: False)
    with tokens_run(model) as ran:
        whole = score_prompts(model, tokenizer, prompts, batch_size=4)
    plain = score_prompts(model, tokenizer, prompts, batch_size=4, fast=False)
    np.testing.assert_allclose(whole.loglik, plain.loglik, atol=1e-5, rtol=0)
    shared = shared_start(prompts.prefixes)
    assert (
        ran["real"]
        == whole.tokens
        == shared
        + sum(len(p) - shared + sum(len(c) - 1 for c in cs) for p, cs in zip(prompts.prefixes, prompts.continuations))
    )


def test_prompts_of_one_premise_are_grouped_each_keeping_a_token_of_its_own():
    prefixes = [[9, 1, 2, 3, 4, 5, 6], [9, 7, 7, 7, 7, 8], [9, 1, 2, 3, 4, 5, 7, 7], [9, 1, 2, 3, 4, 5], [9, 3]]
    order, group_of, group_start = prompt_groups(prefixes, shared=1)
    assert sorted(order.tolist()) == [0, 1, 2, 3, 4]
    assert group_of[0] == group_of[2] == group_of[3] and len({group_of[0], group_of[1], group_of[4]}) == 3
    assert group_start.tolist() == [4, 0, 4, 4, 0]  # [9] shared by all, then 1 2 3 4; prompt 3 keeps its 5
    members = [i for i in order.tolist() if group_of[i] == group_of[0]]
    assert order.tolist().index(members[0]) + 2 == order.tolist().index(members[-1])  # adjacent


def test_a_model_whose_logits_are_not_its_head_on_its_base_takes_the_plain_path(decoder):
    model, _ = decoder
    config = model.config
    config.logit_scale = 0.5  # as Cohere's: the logits are scaled after the output layer
    try:
        assert split_head(model) is None
    finally:
        del config.logit_scale
    assert split_head(model) is not None


def test_shared_start_leaves_every_prompt_its_last_token_and_ignores_a_short_one():
    assert shared_start([[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 7]]) == 5
    assert shared_start([[1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6]]) == 4
    assert shared_start([[1, 2, 3, 9], [1, 2, 3, 8]]) == 0  # 3 tokens: not worth a pass of its own
    assert shared_start([[1, 2, 3, 4, 5]]) == 0


# ---- the dequantized-weights cache of a GGUF checkpoint ----------------------------------------------------------


def dense_load(folder, name, calls):
    """load_dense of a stand-in GGUF file (any bytes: the cache is keyed by its sha256), whose dequantization
    is a tiny Llama drawn from a seed, counted in `calls`."""
    from transformers import AutoModelForCausalLM

    from swapbench.models.gguf import load_dense

    def dequantize():
        calls.append("dequantized")
        with torch.random.fork_rng():
            torch.manual_seed(0)
            return AutoModelForCausalLM.from_config(decoder_config("llama", 64)), {"missing_keys": []}

    return load_dense(
        AutoModelForCausalLM,
        str(folder),
        name,
        None,
        torch.float32,
        dequantize,
        lambda cached: AutoModelForCausalLM.from_pretrained(cached, output_loading_info=True),
    )


def test_a_second_load_reads_the_cache_and_a_corrupted_cache_is_made_again(tmp_path, caplog):
    from swapbench.models.gguf import WEIGHTS, dense_cache_folder

    (tmp_path / "tiny.gguf").write_bytes(b"GGUF stand-in")
    calls = []
    caplog.set_level(logging.INFO, logger="swapbench.models.gguf")
    first, _ = dense_load(tmp_path, "tiny.gguf", calls)
    second, info = dense_load(tmp_path, "tiny.gguf", calls)
    assert calls == ["dequantized"] and not info["missing_keys"]
    assert "from the cache" in caplog.records[-1].getMessage()
    assert all(torch.equal(a, b) for a, b in zip(first.state_dict().values(), second.state_dict().values()))

    from transformers import AutoModelForCausalLM

    weights = dense_cache_folder(tmp_path / "tiny.gguf", torch.float32, AutoModelForCausalLM.__name__) / WEIGHTS
    data = bytearray(weights.read_bytes())
    data[-5] ^= 0xFF  # one weight's byte changed: still a readable safetensors file, with a wrong value
    weights.write_bytes(bytes(data))
    caplog.clear()
    third, _ = dense_load(tmp_path, "tiny.gguf", calls)
    assert calls == ["dequantized", "dequantized"]  # refused, not served: made again
    assert any("does not match its sha256" in r.getMessage() for r in caplog.records)
    assert all(torch.equal(a, b) for a, b in zip(first.state_dict().values(), third.state_dict().values()))
    _, _ = dense_load(tmp_path, "tiny.gguf", calls)
    assert calls == ["dequantized", "dequantized"]


def test_another_file_or_dtype_is_another_cache(tmp_path):
    from swapbench.models.gguf import dense_cache_folder

    (tmp_path / "a.gguf").write_bytes(b"one")
    (tmp_path / "b.gguf").write_bytes(b"two")
    folders = {
        dense_cache_folder(tmp_path / name, dtype, "AutoModelForCausalLM")
        for name in ("a.gguf", "b.gguf")
        for dtype in (torch.float32, torch.bfloat16)
    }
    assert len(folders) == 4
