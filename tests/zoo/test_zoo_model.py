"""The zoo encoder as a transformers model: Auto-class round trips, attention weights for the probe, padding,
the permutation equivariance of `none`, and parameter counts."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import AutoConfig, AutoModel, AutoModelForSequenceClassification, BertTokenizer
from word_tokenizer import bert_tokenizer

from swapbench.probing import attenuated_matrix, degree_symmetry, locality, probe_model, relative_locality, symmetry
from swapbench.zoo import encoding_names
from swapbench.zoo.encodings.alibi import alibi_slopes
from swapbench.zoo.modeling import ZooConfig, ZooForSequenceClassification, ZooModel, count_parameters

TINY = dict(
    vocab_size=40,
    hidden_size=16,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=32,
    max_position_embeddings=24,
    num_labels=3,
)


def tiny_model(encoding: str, seed: int = 0, **overrides) -> ZooForSequenceClassification:
    """Random weights from a seeded generator state that does not leak; initializer_range 0.5 so that every part
    of the model visibly moves the logits."""
    config = ZooConfig(position_encoding=encoding, **{**TINY, "initializer_range": 0.5, **overrides})
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = ZooForSequenceClassification(config)
    return model.eval()


def batch(seed: int = 0, length: int = 12, size: int = 3) -> torch.Tensor:
    return torch.randint(5, TINY["vocab_size"], (size, length), generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("encoding", encoding_names())
def test_checkpoint_round_trips_through_the_auto_classes(encoding, tmp_path):
    model = tiny_model(encoding)
    model.save_pretrained(tmp_path)
    assert type(AutoConfig.from_pretrained(tmp_path)) is ZooConfig
    loaded = AutoModelForSequenceClassification.from_pretrained(tmp_path).eval()
    assert type(loaded) is ZooForSequenceClassification
    assert loaded.config.position_encoding == encoding
    ids = batch()
    with torch.no_grad():
        assert torch.equal(loaded(ids).logits, model(ids).logits)
        bare = AutoModel.from_pretrained(tmp_path, attn_implementation="eager").eval()  # what the probe loads
        assert type(bare) is ZooModel
        assert torch.equal(bare(ids).pooler_output, model.zoo(ids).pooler_output)


@pytest.mark.parametrize("encoding", encoding_names())
def test_attention_weights_are_returned_and_padding_is_ignored(encoding):
    model = tiny_model(encoding)
    ids = batch(length=9)
    padded = torch.cat([ids, torch.zeros(3, 4, dtype=torch.long)], dim=1)
    mask = torch.cat([torch.ones(3, 9, dtype=torch.long), torch.zeros(3, 4, dtype=torch.long)], dim=1)
    with torch.no_grad():
        plain = model(ids, output_attentions=True)
        with_padding = model(padded, attention_mask=mask, output_attentions=True)
    assert len(plain.attentions) == 2
    assert plain.attentions[0].shape == (3, 2, 9, 9)
    assert torch.allclose(plain.attentions[1].sum(dim=-1), torch.ones(3, 2, 9), atol=1e-6)
    assert torch.all(with_padding.attentions[0][..., 9:] == 0)  # padding keys get exactly no weight
    assert torch.allclose(with_padding.logits, plain.logits, atol=1e-5)
    assert model(ids).attentions is None  # only on request


def shuffled_premise(ids: torch.Tensor, premise_end: int, seed: int) -> torch.Tensor:
    """The same tokens with positions 1 .. premise_end - 1 (the premise after [CLS]) permuted."""
    order = torch.randperm(premise_end - 1, generator=torch.Generator().manual_seed(seed)) + 1
    shuffled = ids.clone()
    shuffled[:, 1:premise_end] = ids[:, order]
    return shuffled


def test_without_positions_a_shuffled_premise_gives_the_same_logits():
    ids, types = batch(seed=1, length=14), torch.tensor([[0] * 9 + [1] * 5] * 3)
    shuffled = shuffled_premise(ids, 8, seed=2)
    assert not torch.equal(shuffled, ids)
    outputs = {}
    with torch.no_grad():
        for encoding in ("none", "learned_absolute", "rope", "attenuated"):
            model = tiny_model(encoding)
            outputs[encoding] = (model(ids, token_type_ids=types).logits, model(shuffled, token_type_ids=types).logits)
    assert torch.allclose(*outputs["none"], atol=1e-5)
    for encoding in ("learned_absolute", "rope", "attenuated"):  # the check can fail: positions change the logits
        original, perturbed = outputs[encoding]
        assert (original - perturbed).abs().max() > 1e-3, encoding


def word_tokenizer() -> BertTokenizer:
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [f"word{c}" for c in "abcdefghij"]
    return bert_tokenizer(words)


def test_the_probe_reads_the_attenuated_matrix_off_the_encoder():
    # Identical words carry no content differences and no input positions, so every layer's attention is the
    # softmax of the positional term alone: equation 8's matrix.
    model = tiny_model(
        "attenuated", attenuated_learnable=False, attenuated_locality=0.5, attenuated_symmetry=2.0, vocab_size=15
    )
    result = probe_model(model, word_tokenizer(), n_words=4, length=16, seed=0, progress=False)
    expected = attenuated_matrix(16, locality=0.5, symmetry=2.0)
    np.testing.assert_allclose(result.matrix_array(), expected, atol=1e-5)
    assert result.locality == pytest.approx(locality(expected), abs=1e-5)
    assert result.symmetry == pytest.approx(symmetry(expected), abs=1e-4)
    assert result.degree_symmetry == pytest.approx(degree_symmetry(expected), abs=1e-4)
    assert result.relative_locality == pytest.approx(relative_locality(expected), abs=1e-5)


def test_the_probe_reads_alibi_off_the_encoder():
    model = tiny_model("alibi", num_attention_heads=4, vocab_size=15)
    result = probe_model(model, word_tokenizer(), n_words=3, length=10, seed=0, progress=False)
    distance = np.abs(np.arange(10)[:, None] - np.arange(10)[None, :])
    heads = [np.exp(-m * distance) / np.exp(-m * distance).sum(axis=1, keepdims=True) for m in alibi_slopes(4)]
    np.testing.assert_allclose(result.matrix_array(), np.mean(heads, axis=0), atol=1e-5)
    matrix = result.matrix_array()
    for i, d in ((3, 1), (4, 3), (5, 4)):  # each row decays alike to the left and to the right
        assert matrix[i, i - d] == pytest.approx(matrix[i, i + d], abs=1e-6)


def test_parameter_counts_differ_only_by_the_encodings_own():
    hidden, heads, layers, positions, head_size = 16, 2, 2, 24, 8
    own = {
        "none": 0,
        "sinusoidal": 0,
        "rope": 0,
        "alibi": 0,
        "learned_absolute": positions * hidden,
        "t5_bias": 32 * heads,  # one scalar per bucket and head, shared by the layers
        "shaw": layers * (2 * 16 + 1) * head_size,  # per layer, 2k + 1 relative keys of the head size
        "huang_m4": layers * (2 * 16 + 1) * head_size,
        "tisa": layers * heads * 5 * 3,  # per layer and head, S = 5 kernels of 3 parameters
        # p, its norm, U^Q, U^K, theta_1, theta_2
        "tupe": positions * hidden + 2 * hidden + 2 * (hidden * hidden + hidden) + 2 * heads,
        "attenuated": 2,
    }  # learnable w and s
    base = count_parameters(tiny_model("none"))["total"]
    for encoding in encoding_names():
        counts = count_parameters(tiny_model(encoding))
        assert counts["positional"] == own[encoding], encoding
        assert counts["total"] == base + own[encoding], encoding
        assert counts["non_embedding"] == counts["total"] - TINY["vocab_size"] * hidden
    assert count_parameters(tiny_model("attenuated", attenuated_learnable=False))["positional"] == 0


def test_params_command_lists_every_encoding(capsys):
    from swapbench.commands.main import main

    assert main(["zoo", "params", "--hidden", "32", "--heads", "4", "--layers", "1", "--vocab-size", "100"]) == 0
    out = capsys.readouterr().out
    for encoding in encoding_names():
        assert encoding in out
