"""The offset plot of a deep decoder (issue 45, item 9): one colour per layer, however many, and nothing drawn over
the panels to say which is which (a colour bar and a legend outside them)."""

from __future__ import annotations

import torch
from eval_models import save_tokenizer
from matplotlib.colorbar import Colorbar
from transformers import LlamaConfig, LlamaForCausalLM

from swapbench.probing import plots
from swapbench.probing.run import probe_model

LAYERS = 30


def tiny_decoder(folder):
    tokenizer = save_tokenizer(folder)
    torch.manual_seed(0)
    config = LlamaConfig(
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=LAYERS,
        num_attention_heads=2,
        num_key_value_heads=2,
        vocab_size=len(tokenizer),
        max_position_embeddings=64,
    )
    return LlamaForCausalLM(config).eval(), tokenizer


def test_a_30_layer_decoder_gets_30_colours_and_no_legend_over_its_panels(tmp_path, monkeypatch):
    model, tokenizer = tiny_decoder(tmp_path / "tokenizer")
    result = probe_model(model, tokenizer, n_words=2, length=8, progress=False)
    assert len(result.per_layer) == LAYERS and result.causal
    drawn = {}
    monkeypatch.setattr(plots.Figure, "savefig", lambda figure, *a, **k: drawn.setdefault("figure", figure))
    plots.plot_offsets(result, tmp_path / "offsets.png")
    figure = drawn["figure"]
    every, rest = figure.axes[:2]
    for panel in (every, rest):
        assert panel.get_legend() is None  # nothing over the curves
        layer_lines = [line for line in panel.lines if line.get_label().startswith("layer ")]
        assert len(layer_lines) == LAYERS
        assert len({line.get_color() for line in layer_lines}) == LAYERS  # one colour each
    [legend] = figure.legends
    assert [text.get_text() for text in legend.get_texts()] == ["all layers"]
    bars = [axes for axes in figure.axes[2:] if isinstance(getattr(axes, "_colorbar", None), Colorbar)]
    assert len(bars) == 1 and "layer" in bars[0].get_ylabel()
