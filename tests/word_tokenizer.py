"""A WordPiece BertTokenizer made from a list of tokens, the same way on transformers 4 and 5 (transformers 5
takes the vocabulary as a dict, transformers 4 only as a file: a vocabulary file is read by both). It is the
tokenizers-backed ("fast") one on both, as AutoTokenizer loads it."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from transformers import BertTokenizerFast

from swapbench.core.compat import TRANSFORMERS_MAJOR


def bert_tokenizer(tokens, **options) -> BertTokenizerFast:
    """`tokens` in id order (a list, or a dict token -> id)."""
    ordered = sorted(tokens, key=tokens.get) if isinstance(tokens, dict) else list(tokens)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "vocab.txt"
        path.write_text("".join(f"{token}\n" for token in ordered), encoding="utf-8")
        return BertTokenizerFast(str(path), **options)  # transformers 5: the same class as BertTokenizer


# SentencePiece and byte-level tokenizers built from an in-memory vocabulary (DebertaV2Tokenizer(vocab=...),
# RobertaTokenizer(vocab=..., merges=...)) exist in transformers 5 only; transformers 4 wants trained model files.
in_memory_vocabularies = pytest.mark.skipif(
    TRANSFORMERS_MAJOR < 5,
    reason="builds a SentencePiece or byte-level tokenizer from an in-memory vocabulary, which only transformers 5 can",
)
