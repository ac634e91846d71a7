"""Prompted scoring's choices: label-balanced shots, length-normalised verbalizer scores, calibration, several
templates with their spread; and how a pair becomes one input for a decoder classifier (its join, in scoring and in
the fine-tuning's cache key) while an encoder keeps its tokenizer's own pair template."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from decoder_models import save_decoder
from eval_models import save_tokenizer, write_training_file
from transformers import AutoModelForCausalLM, AutoTokenizer

from swapbench.commands.main import main
from swapbench.core.errors import SwapbenchError
from swapbench.core.labels import LABEL_NAMES
from swapbench.evaluation.finetune import cache_key, training_pair_template
from swapbench.evaluation.prompting import (
    CONTENT_FREE,
    Encoded,
    PromptSpec,
    calibrate,
    draw_shots,
    encode_prompts,
    parse_verbalizers,
    prompt_specs,
    reference_prompts,
    render,
    score_naive,
    score_prompts,
    shots_text,
    token_counts,
    verbalizer_scores,
)
from swapbench.evaluation.scoring import PAIR_TEMPLATE, pair_template, tokenize
from swapbench.evaluation.templates import PromptTemplate, answer_cue
from swapbench.models.loading import prepare_tokenizer
from swapbench.results.schema import REFERENCE_RECIPE, EvalResults, TrainingData
from swapbench.sources import Pair


def pool(size: int = 30) -> list[Pair]:
    return [Pair(f"t{i}", f"Premise {i}.", "A man runs.", LABEL_NAMES[i % 3], None, None, "x", i) for i in range(size)]


def shots(k: int, seed: int) -> list[Pair]:
    return draw_shots(pool(), k, seed, frozenset(), frozenset(), lambda t: t, "pool")[0]


def test_shots_hold_every_label_at_k_3_over_20_seeds_and_the_remainder_is_drawn():
    for seed in range(20):
        assert sorted(p.label for p in shots(3, seed)) == sorted(LABEL_NAMES)
        counts = Counter(p.label for p in shots(5, seed))
        assert sorted(counts.values()) == [1, 2, 2] and set(counts) == set(LABEL_NAMES)
        assert len({p.label for p in shots(2, seed)}) == 2
        assert shots(7, seed) == shots(7, seed)  # the seed decides
    # the label left over at k = 4 varies with the seed, and the order is not in blocks of a label
    assert (
        len({next(label for label, n in Counter(p.label for p in shots(4, s)).items() if n == 2) for s in range(20)})
        == 3
    )
    assert len({tuple(p.label for p in shots(3, s)) for s in range(20)}) > 1


def test_a_pool_short_of_a_label_is_refused_naming_it():
    only_entailment = [p for p in pool() if p.label == "entailment"]
    with pytest.raises(SwapbenchError, match="neutral"):
        draw_shots(only_entailment, 3, 0, frozenset(), frozenset(), lambda t: t, "pool")


def test_shots_and_queries_are_rendered_alike_with_white_space_squashed():
    spec = PromptSpec("{premise} | {hypothesis}", parse_verbalizers(None))
    example = Pair("t1", "A  man\tsits  .", "A man  sits", "entailment", None, None, "x", 1)
    assert shots_text(spec, [example]) == render(spec, example.premise, example.hypothesis) + " True\n\n"
    assert render(spec, "A  man\tsits  .", "A man  sits") == "A man sits . | A man sits."


def test_mean_per_token_changes_the_choice_of_a_verbalizer_of_two_tokens():
    encoded = Encoded(prefixes=[[1]], continuations=[[[5], [6, 7], [8]]], truncated=0)
    loglik = np.array([[-2.0, -3.0, -2.5]])  # the two-token verbalizer (neutral) loses on its sum only
    counts = token_counts(encoded)
    assert verbalizer_scores(loglik, counts, "sum").argmax() == 0
    np.testing.assert_allclose(verbalizer_scores(loglik, counts, "mean"), [[-2.0, -1.5, -2.5]])
    assert verbalizer_scores(loglik, counts, "mean").argmax() == 1


def test_mean_per_token_on_a_decoder_is_the_naive_loop_divided_by_the_token_counts(tmp_path):
    folder = save_decoder(tmp_path / "gpt2", "gpt2")
    tokenizer = prepare_tokenizer(AutoTokenizer.from_pretrained(folder))
    model = AutoModelForCausalLM.from_pretrained(folder).eval()
    spec = PromptSpec(
        "{premise}\nQuestion: {hypothesis}\nAnswer:",
        parse_verbalizers("entailment=Yes,neutral=Not sure,contradiction=No"),
        normalization="mean",
    )
    pairs = [("A man runs in the park.", "A man runs"), ("A dog sleeps.", "A dog plays")]
    encoded = encode_prompts(tokenizer, [render(spec, p, h) for p, h in pairs], spec, None)
    lengths = [len(c) for c in encoded.continuations[0]]
    assert lengths[1] > lengths[0]  # "Not sure" has more tokens than "Yes"
    mean = verbalizer_scores(
        score_prompts(model, tokenizer, encoded, batch_size=2).loglik, token_counts(encoded), "mean"
    )
    naive = score_naive(model, tokenizer, encoded).loglik
    np.testing.assert_allclose(
        mean, naive / np.array([[len(c) for c in cs] for cs in encoded.continuations]), atol=1e-4
    )


def test_contextual_calibration_and_pmi_change_the_prediction_in_a_constructed_case():
    scores = np.log(np.array([[0.5, 0.4, 0.1]]))  # entailment, uncalibrated
    prior = np.log(np.array([[0.8, 0.1, 0.1], [0.6, 0.3, 0.1]]))  # the prompt alone leans to entailment
    calibrated = calibrate(scores, prior, "contextual")
    assert scores.argmax() == 0 and calibrated.argmax() == 1
    # Zhao et al.: p(y|x) / mean p_cf(y), renormalised
    expected = np.array([0.5 / 0.7, 0.4 / 0.2, 0.1 / 0.1])
    np.testing.assert_allclose(np.exp(calibrated[0]) / np.exp(calibrated).sum(), expected / expected.sum())
    cue = np.log(np.array([[0.9, 0.05, 0.05]]))
    assert calibrate(scores, cue, "pmi").argmax() == 1
    np.testing.assert_allclose(calibrate(scores, cue, "pmi"), scores - cue)


def test_calibration_inputs_are_the_template_without_the_pair():
    spec = prompt_specs(["based-on"], None, None, 0, 0, "mean")[0]
    contextual = reference_prompts(spec, "EX\n\n", "contextual")
    assert len(contextual) == len(CONTENT_FREE) and all(p.startswith("EX\n\n") for p in contextual)
    assert 'N/A Based on the previous passage, is it true that "N/A."?' in contextual[0]
    assert reference_prompts(spec, "EX\n\n", "pmi") == ["EX\n\nYes, no, or maybe?"]
    assert answer_cue(PromptTemplate('{premise} Is it so that "{hypothesis}"? Yes or no?')) == "Yes or no?"
    with pytest.raises(SwapbenchError, match="answer cue"):
        reference_prompts(PromptSpec("{premise} {hypothesis}", parse_verbalizers(None), cue=""), "", "pmi")


def test_templates_come_from_the_registry_with_their_own_verbalizers():
    mnli, based = prompt_specs(["mnli", "based-on"], None, None, 0, 0, "mean")
    assert (mnli.name, mnli.verbalizers["neutral"]) == ("mnli", " Neither")
    assert (based.name, based.verbalizers["neutral"]) == ("based-on", " Maybe")
    assert (
        prompt_specs(["based-on"], None, "entailment=A,neutral=B,contradiction=C", 0, 0, "sum")[0].verbalizers[
            "neutral"
        ]
        == " B"
    )
    with pytest.raises(SwapbenchError, match="unknown prompt template"):
        prompt_specs(["nope"], None, None, 0, 0, "mean")


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    return save_decoder(tmp_path_factory.mktemp("lm") / "gpt2", "gpt2")


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3"])


def run_eval(model, data, output, *extra):
    rc = main(
        [
            "eval",
            str(model),
            "--data",
            str(data),
            "--output",
            str(output),
            "--no-progress",
            "--bootstrap",
            "200",
            "--no-probe",
            "--mode",
            "prompt",
            *extra,
        ]
    )
    return EvalResults.model_validate_json(output.read_text()) if rc == 0 else None


def test_two_templates_give_two_accuracies_and_a_spread_the_first_the_headline(gpt2, dataset, tmp_path, capsys):
    cache = ["--cache-dir", str(tmp_path / "c")]
    both = run_eval(gpt2, dataset, tmp_path / "both.json", "--templates", "mnli,based-on", *cache)
    printed = capsys.readouterr().out
    prompt = both.model.prompt
    assert [t.name for t in prompt.templates] == ["mnli", "based-on"] and prompt.headline_template == "mnli"
    first, second = (t.results["shuffle-3"] for t in prompt.templates)
    assert (first.accuracy_original, first.delta) == (
        both.results["shuffle-3"].accuracy_original,
        both.results["shuffle-3"].delta,
    )
    spread = prompt.spread["shuffle-3"].accuracy_original
    assert spread.low == min(first.accuracy_original, second.accuracy_original)
    assert spread.high == max(first.accuracy_original, second.accuracy_original)
    assert spread.std == pytest.approx(abs(first.accuracy_original - second.accuracy_original) / np.sqrt(2))
    assert "Templates" in printed and "based-on" in printed and "spread" in printed
    alone = run_eval(gpt2, dataset, tmp_path / "alone.json", *cache)
    assert alone.model.prompt.reused and alone.model.prompt.templates is None  # the headline's scores, cached
    assert alone.results["shuffle-3"] == both.results["shuffle-3"]
    assert (alone.model.prompt.score_normalization, alone.model.prompt.calibration) == ("mean", "none")


def test_calibration_is_recorded_and_scored_without_the_pair(gpt2, dataset, tmp_path):
    train = write_training_file(tmp_path / "snli" / "snli_1.0_train.jsonl", "train")
    results = run_eval(
        gpt2,
        dataset,
        tmp_path / "c.json",
        "--calibration",
        "contextual",
        "--shots",
        "3",
        "--train-source",
        str(train),
        "--verbalizer-score",
        "sum",
    )
    prompt = results.model.prompt
    assert (prompt.calibration, prompt.calibration_inputs, prompt.score_normalization) == (
        "contextual",
        list(CONTENT_FREE),
        "sum",
    )
    assert "balanced by label" in prompt.shot_draw and len(prompt.examples) == 3
    pmi = run_eval(gpt2, dataset, tmp_path / "p.json", "--calibration", "pmi", "--templates", "justified")
    assert (pmi.model.prompt.calibration, pmi.model.prompt.calibration_inputs) == ("pmi", ["Yes, no, or maybe?"])


def test_a_template_file_and_named_templates_are_refused_together(gpt2, dataset, tmp_path, capsys):
    template = tmp_path / "t.txt"
    template.write_text("{premise} {hypothesis}")
    assert run_eval(gpt2, dataset, tmp_path / "x.json", "--template", str(template), "--templates", "mnli") is None
    assert "give one of them" in capsys.readouterr().err


def test_a_gpt2_pair_is_joined_by_the_declared_template_and_a_bert_pair_keeps_its_own(gpt2, tmp_path):
    gpt2_tokenizer = AutoTokenizer.from_pretrained(gpt2)
    bert_tokenizer = save_tokenizer(tmp_path / "bert")
    assert pair_template(gpt2_tokenizer) == PAIR_TEMPLATE and pair_template(bert_tokenizer) is None
    premise, hypothesis = "A man runs in the park.", "A man runs."
    joined = tokenize(gpt2_tokenizer, [premise], [hypothesis])["input_ids"][0]
    assert joined == gpt2_tokenizer(f"{premise}\n{hypothesis}")["input_ids"]
    assert joined != gpt2_tokenizer(premise, hypothesis)["input_ids"]  # what it was: the two end to end
    bert = tokenize(bert_tokenizer, [premise], [hypothesis])["input_ids"][0]
    assert bert == bert_tokenizer(premise, hypothesis)["input_ids"]
    assert bert.count(bert_tokenizer.sep_token_id) == 2


def test_a_llama_like_tokenizer_that_starts_each_text_with_bos_has_no_pair_template_either(gpt2):
    from tokenizers.processors import TemplateProcessing

    tokenizer = AutoTokenizer.from_pretrained(gpt2)
    bos = (tokenizer.bos_token, tokenizer.bos_token_id)
    tokenizer.backend_tokenizer.post_processor = TemplateProcessing(  # LlamaTokenizerFast's: bos $A (bos $B)
        single=f"{bos[0]} $A", pair=f"{bos[0]} $A {bos[0]} $B", special_tokens=[bos]
    )
    assert tokenizer("A dog.")["input_ids"][0] == bos[1]
    assert pair_template(tokenizer) == PAIR_TEMPLATE


def test_the_join_keys_a_decoders_fine_tuning_and_leaves_an_encoders_key_as_it_was(gpt2, tmp_path):
    from eval_models import save_base

    train = TrainingData(source="snli", split="train", fingerprint="a" * 64, n=10, limit=None, held_out=False)
    val = TrainingData(source="snli", split="validation", fingerprint="b" * 64, n=5, limit=None, held_out=False)
    encoder = training_pair_template(str(save_base(tmp_path / "minilm-like")), None)
    decoder = training_pair_template(str(save_decoder(tmp_path / "gpt2-base", "gpt2", head="base")), None)
    assert (encoder, decoder) == (None, PAIR_TEMPLATE)
    # the recipe as it was then (random batches, the single-tensor AdamW, float32)
    then = REFERENCE_RECIPE.model_copy(
        update={"optimizer": "adamw_torch", "batch_order": "random", "precision": "float32"}
    )
    key = cache_key("sentence-transformers/all-MiniLM-L6-v2", "c" * 40, then, train, val, joined_by=encoder)
    # the key this encoder's checkpoint had before pairs were ever joined: its cached fine-tuning is still found
    assert key == "ccb5c7a993a47b14e3c91b7afd0a076d9be1b7919cfc1a8c77c21041eedb2289"
    assert cache_key("gpt2", "c" * 40, REFERENCE_RECIPE, train, val, joined_by=decoder) != cache_key(
        "gpt2", "c" * 40, REFERENCE_RECIPE, train, val
    )
