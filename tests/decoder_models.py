"""Tiny random decoder-only models (GPT-2, Llama, BLOOM, a NoPE GPT-NeoX) for the tests, saved with a small
byte-level BPE tokenizer trained here, which has no pad token, as GPT-2's has none.

Weights are drawn inside torch.random.fork_rng, so the tests' seeds do not leak into global state.
"""

from __future__ import annotations

from pathlib import Path

import torch
from eval_models import SUBJECTS, VERBS, WORDS
from transformers import (
    AutoModel,
    AutoModelForCausalLM,
    AutoModelForSequenceClassification,
    BloomConfig,
    GPT2Config,
    GPTNeoXConfig,
    LlamaConfig,
    PreTrainedTokenizerFast,
)

END = "<|endoftext|>"
PROMPT_WORDS = "Question Answer True False Neither Not sure Yes No Maybe".split()
LABELS = {0: "entailment", 1: "neutral", 2: "contradiction"}


def train_tokenizer(folder: Path, padding_side: str = "right") -> PreTrainedTokenizerFast:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    corpus = [
        " ".join(WORDS),
        " ".join(PROMPT_WORDS),
        *(f"A {s} {v} in the park." for s in SUBJECTS for v in VERBS),
        "Question: True, False or Neither?\nAnswer: True\n\n",
    ]
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=[END], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    backend.train_from_iterator(corpus * 3, trainer)
    # The inputs GPT-2's and BLOOM's tokenizers give (transformers 4's generic default adds token_type_ids).
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=backend,
        bos_token=END,
        eos_token=END,
        padding_side=padding_side,
        model_max_length=256,
        model_input_names=["input_ids", "attention_mask"],
    )
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(folder)
    return tokenizer


def decoder_config(kind: str, vocab_size: int):
    common = dict(vocab_size=vocab_size, bos_token_id=0, eos_token_id=0)
    if kind == "gpt2":
        return GPT2Config(n_embd=32, n_layer=2, n_head=2, n_positions=256, initializer_range=0.3, **common)
    if kind == "llama":
        return LlamaConfig(
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=2,
            num_key_value_heads=2,
            max_position_embeddings=256,
            initializer_range=0.3,
            **common,
        )
    if kind == "bloom":
        return BloomConfig(hidden_size=32, n_layer=2, n_head=2, initializer_range=0.3, **common)
    if kind == "nope":  # GPT-NeoX rotating no dimension: no position information at all
        return GPTNeoXConfig(
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=2,
            rotary_pct=0.0,
            max_position_embeddings=256,
            initializer_range=0.3,
            **common,
        )
    raise ValueError(kind)


def save_decoder(
    folder: Path, kind: str = "gpt2", head: str = "lm", seed: int = 0, padding_side: str = "right"
) -> Path:
    """A random decoder: with its language-modelling head ("lm"), a 3-way classification head ("cls") or none
    ("base")."""
    tokenizer = train_tokenizer(folder, padding_side)
    config = decoder_config(kind, len(tokenizer))
    if head == "cls":
        config.num_labels, config.id2label = 3, dict(LABELS)
        config.label2id = {v: k for k, v in LABELS.items()}
    auto = {"lm": AutoModelForCausalLM, "cls": AutoModelForSequenceClassification, "base": AutoModel}[head]
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = auto.from_config(config)
    model.save_pretrained(folder)
    return folder
