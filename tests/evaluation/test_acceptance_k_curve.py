"""UNLU's figures at a declared K: the K-curve of a run's permutations equals UNLU's formulas applied to the first K′
of each pair's permutations, at every K′; each point records its K′ and the pairs P^c and P^f average over; and the
terminal, the API and the results file carry them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from rich.console import Console

from swapbench.api import Evaluated
from swapbench.evaluation.acceptance import acceptance_curve, pair_outcomes, permutation_acceptance
from swapbench.evaluation.figures import configuration_result
from swapbench.evaluation.report import acceptance_table, k_curve_tables
from swapbench.results.schema import PermutationAcceptance, PredictionRow

LABELS = ("entailment", "neutral", "contradiction")


def unlu_reference(rows: list[PredictionRow]) -> dict:
    """UNLU's figures written after its code (facebookresearch/UNLU codes/random_eval.py compute_rand_acc and
    codes/word_randomization.py print_stats), over a frame of per-pair records: `exists` when the gold label is
    among the permutations' predictions, `cor_mean` the share of them that give it (0 otherwise),
    `is_correct_gt_random` when cor_mean > 1/3, `pred_mode` orig_correct or flipped from the original prediction;
    Max Accuracy is the share of `exists`, Correct > Random Percentage that of is_correct_gt_random, and
    {mode}_cor_mean the mean cor_mean over the pairs of that mode with `exists`."""
    records = []
    frame = pd.DataFrame(
        [
            {
                "seed": r.seed,
                "pair_id": r.pair_id,
                "permutation": r.permutation,
                "gold": r.gold,
                "prediction_original": r.prediction_original,
                "prediction_perturbed": r.prediction_perturbed,
            }
            for r in rows
        ]
    )
    for (_, pair_id), group in frame.groupby(["seed", "pair_id"], dropna=False):
        gold = group.gold.iloc[0]
        rand_labels = list(group.sort_values("permutation").prediction_perturbed)
        exists = gold in rand_labels
        cor_mean = rand_labels.count(gold) / len(rand_labels) if exists else 0
        records.append(
            {
                "uid": pair_id,
                "exists": exists,
                "cor_mean": cor_mean,
                "is_correct_gt_random": cor_mean > (1 / 3),
                "pred_mode": "orig_correct" if group.prediction_original.iloc[0] == gold else "flipped",
            }
        )
    out = pd.DataFrame(records)
    figures = {
        "omega_max": len(out[out.exists]) / len(out),
        "omega_rand": len(out[out.is_correct_gt_random]) / len(out),
    }
    for mode, name in (("orig_correct", "p_c"), ("flipped", "p_f")):
        chosen = out[(out.pred_mode == mode) & out.exists]
        figures[name] = chosen.cor_mean.mean() if len(chosen) else None  # pandas: NaN; UNLU printed nan
        figures[f"{name}_pairs"] = len(chosen)
    return figures


def random_rows(pairs: int, k: int, seed: int = 0) -> list[PredictionRow]:
    """Predictions of `pairs` pairs under k permutations each, drawn so that some pairs have few correct
    permutations (the pairs P^c and P^f condition on change with K′), in clusters of three pairs."""
    rng = np.random.default_rng(seed)
    rows = []
    for p in range(pairs):
        gold = LABELS[p % 3]
        rate = rng.choice([0.02, 0.1, 0.3, 0.6, 0.9])
        original = gold if rng.random() < 0.7 else LABELS[(p + 1) % 3]
        for k_index in range(k):
            right = rng.random() < rate
            rows.append(
                PredictionRow(
                    pair_id=f"p{p}",
                    configuration="unlu",
                    gold=gold,
                    gold_original=gold,
                    prediction_original=original,
                    prediction_perturbed=gold if right else LABELS[(p + 1 + k_index % 2) % 3],
                    cluster=f"c{p // 3}",
                    tags=[],
                    permutation=k_index,
                )
            )
    rng.shuffle(rows)  # a predictions file's rows need not come permutation by permutation
    return rows


@pytest.fixture(scope="module")
def rows():
    return random_rows(pairs=120, k=10)


def test_the_k_curve_equals_unlus_formulas_on_the_first_k_permutations_at_each_k(rows):
    curve = acceptance_curve(pair_outcomes(rows))
    assert [point.permutations for point in curve] == list(range(2, 11))
    for point in curve:
        first = [r for r in rows if r.permutation < point.permutations]
        reference = unlu_reference(first)
        assert point.omega_max == pytest.approx(reference["omega_max"], abs=1e-12)
        assert point.omega_rand == pytest.approx(reference["omega_rand"], abs=1e-12)
        assert point.p_c == pytest.approx(reference["p_c"], abs=1e-12)
        assert point.p_f == pytest.approx(reference["p_f"], abs=1e-12)
        assert (point.p_c_pairs, point.p_f_pairs) == (reference["p_c_pairs"], reference["p_f_pairs"])
    # The fixture is one where K moves the figures: the pairs conditioned on grow, and Ω_max with them.
    assert curve[0].p_f_pairs < curve[-1].p_f_pairs and curve[0].omega_max < curve[-1].omega_max


def test_the_last_point_is_the_full_figures_and_each_records_its_k_and_counts(rows):
    found = permutation_acceptance(rows, np.random.default_rng(0), resamples=100, k_curve=True)
    last = found.k_curve[-1]
    assert found.permutations == last.permutations == 10
    assert (last.omega_max, last.omega_rand) == (found.omega_max.value, found.omega_rand.value)
    assert (last.p_c, last.p_f) == (pytest.approx(found.p_c.value), pytest.approx(found.p_f.value))
    assert (last.p_c_pairs, last.p_f_pairs) == (found.p_c_pairs, found.p_f_pairs)
    reference = unlu_reference(rows)
    assert (found.p_c_pairs, found.p_f_pairs) == (reference["p_c_pairs"], reference["p_f_pairs"])
    # Without the option the curve is neither computed nor written: results files without it stay as they are.
    plain = permutation_acceptance(rows, np.random.default_rng(0), resamples=100)
    assert plain.k_curve == [] and "k_curve" not in plain.model_dump()
    assert plain.model_dump() == {k: v for k, v in found.model_dump().items() if k != "k_curve"}


def test_a_curve_that_skips_a_k_is_refused(rows):
    data = permutation_acceptance(rows, np.random.default_rng(0), resamples=50, k_curve=True).model_dump()
    data["k_curve"] = data["k_curve"][1:]
    with pytest.raises(ValueError, match="K′ = 2 to K"):
        PermutationAcceptance.model_validate(data)


def test_the_terminal_and_the_api_show_k_and_the_conditioning_counts(rows, tmp_path):
    from swapbench.results.schema import EvalResults

    result = configuration_result(
        rows, label_view="3-way", non_entailment_view=False, seed=0, resamples=100, k_curve=True
    )
    acceptance = result.permutation_acceptance
    results = EvalResults.model_construct(results={"unlu": result})
    console = Console(width=200, record=True)
    console.print(acceptance_table(results))
    for table in k_curve_tables(results):
        console.print(table)
    text = " ".join(console.export_text().split())
    assert f" 10 {acceptance.pairs} " in text  # K beside the pairs
    assert f"] {acceptance.p_c_pairs} " in text and f"] {acceptance.p_f_pairs}" in text
    assert "K-curve: unlu" in text
    # UNLU's K = 100 figures are not set beside figures at K = 10; beside a configuration at K = 100 they are.
    assert "98.8" not in text and "RoBERTa" not in text
    at_100 = result.model_copy(update={"permutation_acceptance": acceptance.model_copy(update={"permutations": 100})})
    console = Console(width=200, record=True)
    console.print(acceptance_table(EvalResults.model_construct(results={"unlu": at_100})))
    assert "RoBERTa-large 87.6 / 98.8" in " ".join(console.export_text().split())

    frame = Evaluated(results, tmp_path / "r.json").configurations.set_index("configuration")
    assert frame.loc["unlu", ["permutations", "p_c_pairs", "p_f_pairs"]].tolist() == [
        10,
        acceptance.p_c_pairs,
        acceptance.p_f_pairs,
    ]
    curve = Evaluated(results, tmp_path / "r.json").k_curve
    assert curve.permutations.tolist() == list(range(2, 11))
    assert curve.p_f.tolist() == [pytest.approx(p.p_f) for p in acceptance.k_curve]
