"""UNLU's permutation acceptance: Omega_max, Omega_rand, P^c and P^f as UNLU's code computes them, on hand-made
predictions whose figures are worked out by hand; and end to end, an order-blind model accepts every permutation
exactly as it accepts the original."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import torch
from eval_models import SMALL, SPECIALS
from roles_helpers import FIXTURES
from transformers import AutoModelForSequenceClassification, BertConfig
from word_tokenizer import bert_tokenizer

from swapbench.api import Evaluated
from swapbench.commands.main import main
from swapbench.evaluation.acceptance import pair_outcomes, permutation_acceptance
from swapbench.evaluation.figures import configuration_result
from swapbench.leaderboard.recompute import recompute_problems
from swapbench.leaderboard.store import Stored
from swapbench.leaderboard.table import acceptance_key, make_columns, make_row
from swapbench.results.files import read_predictions
from swapbench.results.schema import EvalResults, PermutationAcceptance, PredictionRow

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


def rows_of(pairs: dict[str, tuple[str, bool, list[bool]]]) -> list[PredictionRow]:
    """pair id -> (cluster, original right?, each permutation right?); gold is entailment throughout."""
    rows = []
    for pair_id, (cluster, original, permutations) in pairs.items():
        for k, right in enumerate(permutations):
            rows.append(
                PredictionRow(
                    pair_id=pair_id,
                    configuration="unlu",
                    gold="entailment",
                    gold_original="entailment",
                    prediction_original="entailment" if original else "neutral",
                    prediction_perturbed="entailment" if right else "contradiction",
                    cluster=cluster,
                    tags=[],
                    permutation=k,
                )
            )
    return rows


# Worked by hand, K = 3:
#   A: original right, 2 of 3 permutations right: share 2/3, some right, more than a third
#   B: original right, 1 of 3: share 1/3 exactly, some right, NOT more than a third (a tie is not counted)
#   C: original wrong, none right: counts in neither P^c nor P^f
#   D: original wrong, 3 of 3: share 1
#   E: original right, none right: left out of P^c (UNLU averages over pairs with some correct permutation)
HAND = {
    "A": ("a", True, [True, True, False]),
    "B": ("b", True, [False, True, False]),
    "C": ("c", False, [False, False, False]),
    "D": ("c", False, [True, True, True]),
    "E": ("d", True, [False, False, False]),
}


def test_the_four_metrics_of_hand_made_predictions():
    found = permutation_acceptance(rows_of(HAND), np.random.default_rng(0), resamples=200)
    assert (found.permutations, found.pairs, found.clusters) == (3, 5, 4)
    assert found.accuracy.value == pytest.approx(3 / 5)
    assert found.omega_max.value == pytest.approx(3 / 5)  # A, B, D
    assert found.omega_rand.value == pytest.approx(2 / 5)  # A, D: B's 1/3 is a tie, not more than a third
    assert found.p_c.value == pytest.approx((2 / 3 + 1 / 3) / 2)  # A, B; not E (no correct permutation)
    assert found.p_f.value == pytest.approx(1.0)  # D; not C
    assert (found.p_c_pairs, found.p_f_pairs) == (2, 1)
    for figure in (found.omega_max, found.omega_rand, found.p_c, found.p_f):
        assert figure.ci.low <= figure.value <= figure.ci.high


def test_p_f_is_undefined_when_no_wrong_original_has_a_correct_permutation():
    pairs = {"A": ("a", True, [True, False]), "B": ("b", False, [False, False])}
    found = permutation_acceptance(rows_of(pairs), np.random.default_rng(0), resamples=100)
    assert found.p_f is None and found.p_f_pairs == 0
    assert found.p_c.value == 0.5
    assert found.omega_max.value == 0.5 and found.omega_rand.value == 0.5  # 1/2 > 1/3


def test_pairs_that_all_agree_get_a_degenerate_interval():
    pairs = {name: (name, True, [True] * 4) for name in "ABCDEFGH"}
    found = permutation_acceptance(rows_of(pairs), np.random.default_rng(0), resamples=100)
    assert (found.omega_max.ci.low, found.omega_max.ci.high) == (1.0, 1.0)
    assert found.p_c.value == 1.0 and (found.p_c.ci.low, found.p_c.ci.high) == (1.0, 1.0)


def test_clusters_are_resampled_whole():
    """Ten pairs in two clusters, all right in one and all wrong in the other: resampling pairs would give a
    narrow interval, resampling the two clusters one that reaches both ends."""
    pairs = {f"r{i}": ("right", True, [True, True]) for i in range(5)}
    pairs |= {f"w{i}": ("wrong", True, [False, False]) for i in range(5)}
    found = permutation_acceptance(rows_of(pairs), np.random.default_rng(0), resamples=2000)
    assert found.clusters == 2
    assert (found.omega_max.ci.low, found.omega_max.ci.high) == (0.0, 1.0)


def test_broken_predictions_are_refused():
    rows = rows_of({"A": ("a", True, [True, True]), "B": ("b", True, [True, True, False])})
    with pytest.raises(ValueError, match="different numbers of permutations"):
        pair_outcomes(rows)
    rows = rows_of({"A": ("a", True, [True, True])})
    rows[1] = rows[1].model_copy(update={"permutation": 0})
    with pytest.raises(ValueError, match="permutations 0 to 1 once"):
        pair_outcomes(rows)


def test_the_schema_checks_the_figures_against_each_other():
    found = permutation_acceptance(rows_of(HAND), np.random.default_rng(0), resamples=100)
    data = found.model_dump()
    data["p_f_pairs"] = 2  # omega_max no longer counts the pairs P^c and P^f average over
    with pytest.raises(ValueError, match="omega_max disagrees"):
        PermutationAcceptance.model_validate(data)


def test_a_configuration_of_permutations_carries_its_acceptance_and_the_others_none():
    rows = rows_of(HAND)
    result = configuration_result(rows, label_view="3-way", non_entailment_view=False, seed=0, resamples=100)
    assert result.permutation_acceptance.omega_rand.value == pytest.approx(0.4)
    assert result.n == 15  # every permutation is a row of Δ, paired with its original
    plain = [r.model_copy(update={"permutation": None}) for r in rows[:3]]
    assert (
        configuration_result(
            plain, label_view="3-way", non_entailment_view=False, seed=0, resamples=100
        ).permutation_acceptance
        is None
    )


# ---- an order-blind model, end to end ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def order_blind(tmp_path_factory):
    """A random BERT whose position table is zero, with an uncased word-level tokenizer that knows every word of the
    fixture: its output depends on the multiset of (word, segment) alone, so no permutation of a sentence's words
    changes what it says."""
    text = " ".join(
        " ".join((row["sentence1"], row["sentence2"]))
        for row in map(json.loads, (FIXTURES / "snli_1.0_test.jsonl").open())
    )
    words = sorted(set(re.findall(r"[a-z]+", text.lower())))
    folder = tmp_path_factory.mktemp("models") / "order-blind"
    tokenizer = bert_tokenizer(SPECIALS + words + list(".,'\"-"), do_lower_case=True, model_max_length=160)
    tokenizer.save_pretrained(folder)
    config = BertConfig(
        vocab_size=len(tokenizer),
        num_labels=3,
        id2label=NLI,
        label2id={v: k for k, v in NLI.items()},
        pad_token_id=0,
        **SMALL,
    )
    with torch.random.fork_rng():
        torch.manual_seed(3)
        model = AutoModelForSequenceClassification.from_config(config)
    with torch.no_grad():
        model.bert.embeddings.position_embeddings.weight.zero_()
    model.save_pretrained(folder)
    return folder


def test_an_order_blind_model_accepts_every_permutation_as_it_accepts_the_original(order_blind, tmp_path, capsys):
    data, output = tmp_path / "data", tmp_path / "results.json"
    assert (
        main(
            [
                "build",
                "--source",
                str(FIXTURES),
                "--out",
                str(data),
                "--no-cache",
                "--variants",
                "unlu",
                "--unlu-permutations",
                "3",
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "eval",
                str(order_blind),
                "--data",
                str(data),
                "--output",
                str(output),
                "--no-probe",
                "--no-progress",
                "--bootstrap",
                "200",
                "--k-curve",
            ]
        )
        == 0
    )
    results = EvalResults.model_validate_json(output.read_text(encoding="utf-8"))
    figures = results.results["unlu"]
    predictions = read_predictions(tmp_path / results.predictions.path)
    assert {(r.pair_id, r.permutation) for r in predictions} == {(r.pair_id, k) for r in predictions for k in range(3)}
    assert all(r.prediction_perturbed == r.prediction_original for r in predictions)
    acceptance = figures.permutation_acceptance
    assert figures.delta == 0.0 and acceptance.permutations == 3
    # Every permutation right or every one wrong: accepted exactly where the original is right.
    assert acceptance.omega_max.value == acceptance.omega_rand.value == acceptance.accuracy.value
    assert acceptance.p_f is None and (acceptance.p_c is None or acceptance.p_c.value == 1.0)
    out = " ".join(capsys.readouterr().out.split())
    assert "Permutation acceptance" in out and "Ω_max" in out
    # --k-curve: K′ = 2 and 3, the last the figures themselves, in the file, the terminal and the API; and the
    # board recomputes the curve from the predictions as it does every figure.
    assert [p.permutations for p in acceptance.k_curve] == [2, 3]
    assert acceptance.k_curve[-1].omega_max == acceptance.omega_max.value
    assert "K-curve: unlu" in out
    assert Evaluated(results, output).k_curve.permutations.tolist() == [2, 3]
    assert recompute_problems(results, predictions) == []
    told = results.model_copy(deep=True)
    told.results["unlu"].permutation_acceptance.k_curve[0].omega_rand += 0.25
    assert [p.where for p in recompute_problems(told, predictions)] == [
        "results.unlu.permutation_acceptance.k_curve.0.omega_rand"
    ]

    frame = Evaluated(results, output).configurations.set_index("configuration")
    assert frame.loc["unlu", "omega_max"] == acceptance.omega_max.value
    # The board gives the four figures their columns, in percent with their intervals.
    row = make_row(Stored(path=output, results=results, migrated=[]), "unlu")
    columns = make_columns(["unlu"], [], [row])
    assert [c.key for c in columns if c.key.startswith(("omega", "p_"))] == [
        acceptance_key(k, "unlu") for k in ("omega_max", "omega_rand", "p_c", "p_f")
    ]
    assert row.values[acceptance_key("omega_max", "unlu")] == acceptance.omega_max.value
