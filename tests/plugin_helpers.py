"""The toy source a test plugin declares, one definition for the plugin tests and the help-text tests."""

from __future__ import annotations


def toy_source_module(help: str) -> str:
    """A plugin module's text that declares ToyNLI (the hand-written SNLI-format fixtures) and registers it with
    `help` as its listing."""
    return f"""
from swapbench.core.registry import SOURCES
from swapbench.sources import Source

TOYNLI = Source(name="toynli", short_name="ToyNLI", pretty_name="A toy NLI corpus", citation="@misc{{toynli}}",
                license="cc-by-4.0", homepage="https://example.org/toynli", release="ToyNLI 1",
                dir_env="TOYNLI_DIR", file_prefix="snli_1.0_", splits={{"test": "test"}},
                pair_ids="the release's pairID", has_trees=True)
SOURCES.add(TOYNLI.name, TOYNLI, help={help!r})
"""
