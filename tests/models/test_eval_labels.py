"""Mapping model outputs to NLI labels by name, and the --label-map option."""

from __future__ import annotations

import pytest

from swapbench.models.label_map import LabelMapError, from_config, from_option

ROBERTA_LARGE_MNLI = {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}


def test_contradiction_first_model_is_mapped_by_name():
    labels = from_config(ROBERTA_LARGE_MNLI)
    assert labels.names == ("contradiction", "neutral", "entailment")
    assert labels.view == "3-way"


def test_entailment_first_model_with_aliases_and_string_keys():
    labels = from_config({"0": "Entails", "1": "neither", "2": "contradictory"})
    assert labels.names == ("entailment", "neutral", "contradiction")


def test_two_label_model_gets_the_binary_view():
    labels = from_config({0: "entailment", 1: "not_entailment"})
    assert labels.view == "binary"
    assert labels.names == ("entailment", "non-entailment")
    assert [labels.to_view(g) for g in ("entailment", "neutral", "contradiction")] == [
        "entailment",
        "non-entailment",
        "non-entailment",
    ]


@pytest.mark.parametrize(
    "id2label",
    [
        {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"},
        {0: "entailment", 1: "entailment", 2: "neutral"},  # a label twice
        {0: "entailment", 1: "neutral", 2: "contradiction", 3: "other"},
        {0: "entailment", 1: "contradiction"},  # two labels, but not entailment vs non-entailment
    ],
)
def test_unmappable_labels_are_refused_with_the_way_out(id2label):
    with pytest.raises(LabelMapError, match="--label-map"):
        from_config(id2label)


def test_label_map_option_by_index_and_by_name():
    default = {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}
    by_index = from_option("0=contradiction, 1=neutral, 2=entailment", default, 3)
    by_name = from_option("LABEL_2=entailment,LABEL_0=contradiction,LABEL_1=neutral", default, 3)
    assert by_index.names == by_name.names == ("contradiction", "neutral", "entailment")
    assert by_index.source == "--label-map"


@pytest.mark.parametrize(
    "text, message",
    [
        ("0=entailment,1=neutral", "names no NLI label for output 2"),  # output 2 left out
        ("0=entailment,1=neutral,5=contradiction", "no output '5'"),
        ("0=entailment,1=neutral,2=maybe", "not an NLI label"),
        ("0:entailment", "not OUTPUT=LABEL"),
    ],
)
def test_bad_label_maps_are_refused(text, message):
    with pytest.raises(LabelMapError, match=message):
        from_option(text, {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, 3)
