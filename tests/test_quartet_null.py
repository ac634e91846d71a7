"""scripts/quartet_null.py: role quartets split by whether a tokenizer reads the exchanged sentences as
permutations of the originals' tokens (where an order-blind model's 0.5 and 0 are exact), each part scored."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from swapbench.results.schema import PredictionRow
from tests.word_tokenizer import bert_tokenizer

REPO = Path(__file__).resolve().parent.parent
WORDS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "A", "a", "An", "an", "man", "boy", "adult", "pushes", "lifts", "."]


def load_script():
    spec = importlib.util.spec_from_file_location("quartet_null", REPO / "scripts" / "quartet_null.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


quartet_null = load_script()

# Two quartets of our own: the first exchanges words alone; the second's exchange also moves an article's
# capital ("An adult" / "an adult"), so a cased tokenizer does not read it as a permutation.
BUILD = [
    {
        "pair_id": "q-push",
        "tags": ["cell:P'H"],
        "original_premise": "A man pushes a boy .",
        "original_hypothesis": "A man pushes a boy .",
        "premise": "A boy pushes a man .",
        "hypothesis": "A man pushes a boy .",
    },
    {
        "pair_id": "q-push",
        "tags": ["cell:PH'"],
        "original_premise": "A boy pushes a man .",
        "original_hypothesis": "A boy pushes a man .",
        "premise": "A man pushes a boy .",
        "hypothesis": "A boy pushes a man .",
    },
    {
        "pair_id": "q-lift",
        "tags": ["cell:P'H"],
        "original_premise": "An adult lifts a boy .",
        "original_hypothesis": "An adult lifts a boy .",
        "premise": "A boy lifts an adult .",
        "hypothesis": "An adult lifts a boy .",
    },
    {
        "pair_id": "q-lift",
        "tags": ["cell:PH'"],
        "original_premise": "A boy lifts an adult .",
        "original_hypothesis": "A boy lifts an adult .",
        "premise": "An adult lifts a boy .",
        "hypothesis": "A boy lifts an adult .",
    },
]


def row(pair_id: str, cell: str, original: str, perturbed: str) -> PredictionRow:
    return PredictionRow(
        pair_id=pair_id,
        configuration="role-quartets",
        gold="contradiction",
        gold_original="entailment",
        prediction_original=original,
        prediction_perturbed=perturbed,
        cluster=pair_id,
        tags=[f"cell:{cell}"],
    )


# q-push answered right on all four pairs; q-lift answered entailment on all four (two right).
PREDICTIONS = [
    row("q-push", "P'H", "entailment", "contradiction"),
    row("q-push", "PH'", "entailment", "neutral"),
    row("q-lift", "P'H", "entailment", "entailment"),
    row("q-lift", "PH'", "entailment", "entailment"),
]


def test_a_case_change_makes_the_null_inexact_for_a_cased_tokenizer_only():
    sentences = quartet_null.sentences_of_quartets(BUILD)
    assert sentences["q-lift"] == (
        "An adult lifts a boy .",
        "An adult lifts a boy .",
        "A boy lifts an adult .",
        "A boy lifts an adult .",
    )
    cased = bert_tokenizer(WORDS, do_lower_case=False)
    uncased = bert_tokenizer([w for w in WORDS if w not in ("A", "An")], do_lower_case=True)
    assert quartet_null.exact_null(sentences["q-push"], cased)
    assert not quartet_null.exact_null(sentences["q-lift"], cased)
    assert quartet_null.exact_null(sentences["q-lift"], uncased)


def test_each_part_is_scored_on_its_own_quartets():
    sentences = quartet_null.sentences_of_quartets(BUILD)
    figures = quartet_null.split_figures(PREDICTIONS, sentences, bert_tokenizer(WORDS, do_lower_case=False))
    assert (figures["all"].quartets, figures["all"].pair_accuracy, figures["all"].quartet_accuracy) == (2, 0.75, 0.5)
    exact, rest = figures["exact null"], figures["not exact"]
    assert (exact.quartets, exact.pair_accuracy, exact.quartet_accuracy) == (1, 1.0, 1.0)
    assert (rest.quartets, rest.pair_accuracy, rest.quartet_accuracy) == (1, 0.5, 0.0)


def test_a_quartet_missing_from_the_build_is_an_error():
    sentences = quartet_null.sentences_of_quartets(BUILD[:2])
    with pytest.raises(SystemExit, match="1 quartets of the predictions are not in the build"):
        quartet_null.split_figures(PREDICTIONS, sentences, bert_tokenizer(WORDS))
