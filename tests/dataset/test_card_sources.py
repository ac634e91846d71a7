"""The dataset card takes its licence, citation and homepage from the declaration of the source the build read,
for every registered source: a card that said SNLI's licence of a MultiNLI build would misstate the rows' terms."""

from __future__ import annotations

import datasets
import pytest
import yaml

from swapbench.core.registry import SOURCES
from swapbench.dataset.card import licence_text, render_card
from swapbench.results.build_record import BUILD_INFO, BuildInfo
from swapbench.sources import source_named

NAMES = [entry.name for entry in SOURCES]


@pytest.fixture(scope="module")
def build(build_fixture_dataset):
    """A real build of the hand-written pairs, its record and features; each test renders it as another source's."""
    folder = build_fixture_dataset(["shuffle-3"])
    info = BuildInfo.model_validate_json((folder / BUILD_INFO).read_text())
    features = {c.name: datasets.load_dataset(str(folder), c.name, split=info.split).features for c in info.configs}
    return info, features


def section(card: str, title: str) -> str:
    return card.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("name", NAMES)
def test_card_names_the_licence_citation_and_homepage_of_its_source(build, name):
    info, features = build
    source = source_named(name)
    card = str(render_card(info.model_copy(update={"source_name": name}), features))
    assert yaml.safe_load(card.split("---")[1])["license"] == source.license
    licence = section(card, "License")
    assert f"`{source.license}`" in licence and source.homepage in licence
    assert source.license_note[1:].rstrip(".") in licence
    assert licence.strip() == licence_text(source)
    if source.license != "cc-by-sa-4.0":
        assert "CC BY-SA 4.0" not in licence
    citation = section(card, "Citation")
    assert source.citation in citation and "chen-etal-2023-locality" in citation
    assert f"[{source.short_name}]({source.homepage})" in card


def test_multinli_card_states_multinli_terms_not_snli_terms(build):
    info, features = build
    licence = section(str(render_card(info.model_copy(update={"source_name": "multinli"}), features)), "License")
    assert "CC BY-SA 4.0" not in licence and "Open American National Corpus" in licence
    assert "https://cims.nyu.edu/~sbowman/multinli/" in licence
    snli = section(str(render_card(info.model_copy(update={"source_name": "snli"}), features)), "License")
    assert "CC BY-SA 4.0 (`cc-by-sa-4.0`)" in snli and "nlp.stanford.edu/projects/snli" in snli
