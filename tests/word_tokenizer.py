"""A WordPiece BertTokenizer made from a list of tokens, the same way on transformers 4 and 5 (transformers 5
takes the vocabulary as a dict, transformers 4 only as a file: a vocabulary file is read by both)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from transformers import BertTokenizer


def bert_tokenizer(tokens, **options) -> BertTokenizer:
    """`tokens` in id order (a list, or a dict token -> id)."""
    ordered = sorted(tokens, key=tokens.get) if isinstance(tokens, dict) else list(tokens)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "vocab.txt"
        path.write_text("".join(f"{token}\n" for token in ordered), encoding="utf-8")
        return BertTokenizer(str(path), **options)
