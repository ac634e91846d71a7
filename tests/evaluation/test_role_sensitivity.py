"""Role sensitivity, the headline of a role configuration: 0 for a model blind to roles whatever its label prior and
its Δ, 100 for one that flips every swap, with its clustered interval and its test of role blindness; shown in the
results file, the terminal table and the API's DataFrames (the board's columns: tests/leaderboard)."""

from __future__ import annotations

import itertools
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
from swapbench.core.errors import SwapbenchError
from swapbench.core.registry import VARIANTS
from swapbench.core.text import points
from swapbench.dataset.pipeline import build, build_options
from swapbench.evaluation.figures import configuration_result
from swapbench.evaluation.stats import bootstrap_delta_ci, clustered_mcnemar, role_figures
from swapbench.results.files import read_predictions
from swapbench.results.schema import EvalResults, PredictionRow
from swapbench.variants import make_variant

SOURCE = FIXTURES / "snli_roles.jsonl"
NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


# ---- the statistics ----------------------------------------------------------------------------------------------


def test_a_model_that_flips_every_swap_scores_one_with_a_degenerate_interval_and_a_tiny_p_value():
    clusters = [f"c{i // 2}" for i in range(40)]  # 20 premises of two pairs each
    figures = role_figures(np.zeros(40, bool), np.ones(40, bool), clusters)
    assert figures.delta == 1.0 and (figures.perturbed_only, figures.original_only) == (40, 0)
    assert bootstrap_delta_ci(figures, np.random.default_rng(0), 500) == (1.0, 1.0)
    assert clustered_mcnemar(figures) == pytest.approx(2 / 2**20, rel=1e-12)  # 20 clusters, all one sign


def test_a_role_blind_model_scores_zero_with_p_one_whatever_its_prior():
    for prior in (0.0, 0.3, 1.0):  # share of pairs answered non-entailment, before and after the swap alike
        answers = np.arange(30) < prior * 30
        figures = role_figures(answers, answers, [f"c{i // 3}" for i in range(30)])
        assert figures.delta == 0.0 and clustered_mcnemar(figures) == 1.0
        assert bootstrap_delta_ci(figures, np.random.default_rng(0), 200) == (0.0, 0.0)


def rows(
    original: list[str], perturbed: list[str], clusters: list[str], gold: str = "contradiction"
) -> list[PredictionRow]:
    return [
        PredictionRow(
            pair_id=f"p{i}",
            configuration="roles",
            gold=gold,
            gold_original="entailment",
            prediction_original=o,
            prediction_perturbed=p,
            cluster=c,
            tags=[f"side:{i % 2}"],
        )
        for i, (o, p, c) in enumerate(zip(original, perturbed, clusters))
    ]


def test_the_figures_of_a_role_configuration_equal_an_enumeration_of_the_role_blind_null():
    """Mixed answers in both label views: role sensitivity is the mean of d, its p-value the share of all sign
    flips of the per-cluster sums of d at least as far from 0, computed here independently of swapbench."""
    original = ["entailment", "neutral", "entailment", "contradiction", "entailment", "entailment", "neutral"]
    perturbed = ["contradiction", "neutral", "neutral", "entailment", "entailment", "contradiction", "neutral"]
    clusters = ["a", "a", "b", "b", "c", "d", "e"]
    result = configuration_result(
        rows(original, perturbed, clusters), label_view="3-way", non_entailment_view=True, seed=0, resamples=300
    )
    d = [(p != "entailment") - (o != "entailment") for o, p in zip(original, perturbed)]
    sums = {}
    for c, value in zip(clusters, d):
        sums[c] = sums.get(c, 0) + value
    flips = list(itertools.product((-1, 1), repeat=len(sums)))
    expected_p = sum(abs(sum(e * s for e, s in zip(signs, sums.values()))) >= abs(sum(d)) for signs in flips) / len(
        flips
    )
    role = result.role_sensitivity
    assert role.value == pytest.approx(sum(d) / len(d), abs=1e-12)
    assert role.non_entailment_original == pytest.approx(3 / 7)
    assert role.non_entailment_perturbed == pytest.approx(5 / 7)
    assert (role.test.became_non_entailment, role.test.became_entailment) == (3, 1)
    assert role.test.p_value == pytest.approx(expected_p, rel=1e-12)
    assert "role-blind" in role.test.method and role.ci.low <= role.value <= role.ci.high
    assert result.non_entailment_rate == role.non_entailment_perturbed
    # Δ counts the label prior in: the swaps' gold is contradiction, the originals' entailment.
    assert result.delta == pytest.approx(2 / 7 - 4 / 7)
    assert all(s.role_sensitivity is not None for s in result.slices.values())

    # A model that flips every swap scores 1 (the board's 100 points), in the 3-way and the binary view.
    for view, answer, gold in (
        ("3-way", "contradiction", "contradiction"),
        ("binary", "non-entailment", "non-entailment"),
    ):
        flipped = configuration_result(
            rows(["entailment"] * 7, [answer] * 7, clusters, gold),
            label_view=view,
            non_entailment_view=True,
            seed=0,
            resamples=300,
        )
        assert flipped.role_sensitivity.value == 1.0 and flipped.delta == 0.0
        assert (flipped.role_sensitivity.ci.low, flipped.role_sensitivity.ci.high) == (1.0, 1.0)

    # A configuration that swaps no roles has none.
    plain = configuration_result(
        rows(original, perturbed, clusters, "entailment"),
        label_view="3-way",
        non_entailment_view=False,
        seed=0,
        resamples=300,
    )
    assert plain.role_sensitivity is None and all(s.role_sensitivity is None for s in plain.slices.values())


# ---- an order-blind model, end to end ----------------------------------------------------------------------------


def role_variants() -> list[str]:
    """Every registered configuration that swaps roles: those whose rows carry a binary label."""
    return [
        name for name in VARIANTS.names() if name in VARIANTS and "binary_label" in make_variant(name).extra_features
    ]


@pytest.fixture(scope="module")
def role_data(tmp_path_factory) -> dict:
    """The hand-written role fixture built once per role configuration that has rows on it."""
    built = {}
    for name in role_variants():
        out = tmp_path_factory.mktemp("roles") / name
        try:
            build(build_options(source=str(SOURCE), out=out, variants=[name], use_cache=False))
        except SwapbenchError as err:  # a configuration with no row on these six pairs (shuffle-sr-validated)
            assert "would have no rows" in str(err)
            continue
        built[name] = out
    assert "shuffle-sr" in built
    return built


def fixture_words() -> list[str]:
    text = " ".join(" ".join((row["sentence1"], row["sentence2"])) for row in map(json.loads, SOURCE.open()))
    return sorted(set(re.findall(r"[a-z]+", text.lower())))


@pytest.fixture(scope="module")
def order_blind(tmp_path_factory):
    """A random BERT whose position table is zero, with an uncased word-level tokenizer that knows every word of the
    fixture: its [CLS] output depends on the multiset of (word, segment) and on nothing else."""
    folder = tmp_path_factory.mktemp("models") / "order-blind"
    tokenizer = bert_tokenizer(SPECIALS + fixture_words() + list(".,"), do_lower_case=True, model_max_length=160)
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
        torch.manual_seed(7)  # its answers: entailment on two pairs, neutral on one (a Δ of -67 points)
        model = AutoModelForSequenceClassification.from_config(config)
    with torch.no_grad():
        model.bert.embeddings.position_embeddings.weight.zero_()
    model.save_pretrained(folder)
    return folder, tokenizer


def test_an_order_blind_model_is_role_blind_on_every_role_configuration_whatever_its_delta(
    role_data, order_blind, tmp_path, capsys
):
    folder, tokenizer = order_blind
    deltas = []
    for name, data in role_data.items():
        output = tmp_path / f"{name}.json"
        assert (
            main(
                [
                    "eval",
                    str(folder),
                    "--data",
                    str(data),
                    "--output",
                    str(output),
                    "--no-probe",
                    "--no-progress",
                    "--bootstrap",
                    "500",
                    "--slices",
                ]
            )
            == 0
        )
        results = EvalResults.model_validate_json(output.read_text(encoding="utf-8"))
        figures = results.results[name]
        predictions = read_predictions(tmp_path / results.predictions.path)
        for row, (premise, hypothesis), (o_premise, o_hypothesis) in zip(predictions, *pairs_of(data, name)):
            # The precondition: each swap is a pure permutation of its sentence's tokens (no pronoun case).
            assert sorted(tokenizer.tokenize(premise)) == sorted(tokenizer.tokenize(o_premise)), row.pair_id
            assert sorted(tokenizer.tokenize(hypothesis)) == sorted(tokenizer.tokenize(o_hypothesis)), row.pair_id
            assert row.prediction_perturbed == row.prediction_original, row.pair_id

        role = figures.role_sensitivity
        assert role.value == 0.0 and role.test.p_value == 1.0 and (role.ci.low, role.ci.high) == (0.0, 0.0)
        assert role.non_entailment_original == role.non_entailment_perturbed
        assert all(s.role_sensitivity.value == 0.0 for s in figures.slices.values())
        # ... whatever its Δ: the gold label changed with the swap, its answers did not.
        non_entailment = role.non_entailment_original
        contradiction = sum(r.prediction_perturbed == "contradiction" for r in predictions) / len(predictions)
        assert figures.delta == pytest.approx(contradiction - (1 - non_entailment), abs=1e-12)
        deltas.append(figures.delta)

        # The terminal's role table gives it beside Δ; the API's DataFrames hold it.
        out = capsys.readouterr().out
        line = next(line for line in out[out.index("Role sensitivity") :].splitlines() if line.strip().startswith(name))
        # config, n, clusters, non-entailment before and after, role, its interval (two words), p, Δ
        cells = line.split()
        assert (cells[5], cells[6:8], cells[8], cells[9]) == ("0.0", ["[0.0,", "0.0]"], "1", points(figures.delta))
        assert "role-blind" in " ".join(out.split())
        frame = Evaluated(results, output).configurations.set_index("configuration")
        assert frame.loc[name, "role_sensitivity"] == 0.0 and frame.loc[name, "role_sensitivity_p_value"] == 1.0
        slices = Evaluated(results, output).slices
        assert (slices[slices.configuration == name].role_sensitivity == 0.0).all()
    assert any(deltas)  # the label prior shows in Δ, not in role sensitivity


def pairs_of(data, name: str):
    import datasets

    table = datasets.load_dataset(str(data), name, split="test")
    return (
        list(zip(table["premise"], table["hypothesis"])),
        list(zip(table["original_premise"], table["original_hypothesis"])),
    )


def test_the_role_tables_fit_a_terminal():
    import io
    from types import SimpleNamespace

    from rich.console import Console

    from swapbench.evaluation.report import role_table, slices_tables

    labels = ["entailment", "neutral", "contradiction"]
    answers = [
        PredictionRow(
            pair_id=f"p{i}",
            configuration="a-long-role-configuration",
            gold="contradiction",
            gold_original="entailment",
            prediction_original=labels[i % 3],
            prediction_perturbed=labels[(i + (i % 7 == 0)) % 3],
            cluster=f"c{i // 3}",
            tags=["construction:participial-modifier", "side:hypothesis"],
        )
        for i in range(1200)
    ]
    result = configuration_result(answers, label_view="3-way", non_entailment_view=True, seed=0, resamples=200)
    results = SimpleNamespace(
        results={"a-long-role-configuration": result}, seed_variance=None, role_free_controls=None
    )
    console = Console(width=80, record=True, file=io.StringIO(), color_system=None)
    for table in [role_table(results), *slices_tables(results)]:
        console.print(table)
    text = console.export_text()
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    assert "…" not in text  # nothing cut short
    assert text.count(points(result.role_sensitivity.value)) >= 1 and "role pp" in text and "Δ pp" in text
    # a role configuration's slices: Δ's test and role sensitivity's test, one family of 4 tests
    tests = [t for s in result.slices.values() for t in (s.mcnemar, s.role_sensitivity.test)]
    assert len(tests) == 4 and all(t.p_adjusted >= t.p_value for t in tests) and "p adj" in text
