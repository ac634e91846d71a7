"""Decoder-only models, whose causal attention and prompted scoring encoders do not have: family detection,
padding, prompted scoring against the naive loop, few-shot draws kept off the scored pairs, the cache keyed by the
prompt, the probe under a causal mask, and the CLI."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from decoder_models import LABELS, decoder_config, save_decoder
from eval_models import write_training_file
from transformers import AutoModel, AutoModelForCausalLM, AutoModelForSequenceClassification, AutoTokenizer

from swapbench.commands.main import main
from swapbench.core.errors import SwapbenchError
from swapbench.core.text import public_path
from swapbench.evaluation.prompting import (
    DEFAULT_TEMPLATE,
    PromptSpec,
    draw_shots,
    encode_prompts,
    model_max_tokens,
    parse_verbalizers,
    render,
    score_naive,
    score_prompts,
)
from swapbench.evaluation.scoring import predict, tokenize
from swapbench.models.loading import prepare_tokenizer
from swapbench.models.positional import architecture_kind, read_positional_encoding
from swapbench.probing import probe_model, relative_locality
from swapbench.probing.metrics import CAUSAL_NOTE
from swapbench.results.schema import EvalResults
from swapbench.sources import Pair

PAIRS = [
    ("A man runs in the park.", "A man runs"),
    ("A dog sleeps.", "Some people eat outside."),
    ("The girl reads a book in the city while two boys play music.", "A girl reads."),
    ("Two children walk near the beach.", "A child sits"),
    ("A woman sings.", "A woman sings in the street."),
] * 3


@pytest.mark.parametrize(
    "kind, family, kind_of",
    [
        ("gpt2", "absolute", "learned"),
        ("llama", "rotary", "rope"),
        ("bloom", "alibi", "alibi"),
        ("nope", "none", "none"),
    ],
)
def test_decoder_families_and_architecture(kind, family, kind_of):
    config = decoder_config(kind, 100)
    info = read_positional_encoding(config)
    assert (info.family, info.kind) == (family, kind_of)
    assert architecture_kind(config) == "decoder"


def test_encoders_stay_encoders():
    from transformers import BertConfig, T5Config

    assert architecture_kind(BertConfig()) == "encoder"
    assert architecture_kind(T5Config()) == "encoder-decoder"


def test_a_family_registered_from_outside_is_read(monkeypatch):
    from transformers import PretrainedConfig

    from swapbench.core.registry import FAMILIES
    from swapbench.models.positional import Family

    FAMILIES.add("toy-decoder", Family(lambda r: r.info("alibi", "toy", ("slopes",)), architecture="decoder"))
    try:
        config = PretrainedConfig(slopes=[1, 2])
        config.model_type = "toy-decoder"
        info = read_positional_encoding(config)
        assert (info.family, info.kind, info.evidence["slopes"]) == ("alibi", "toy", [1, 2])
        assert architecture_kind(config) == "decoder"
    finally:
        FAMILIES.remove("toy-decoder")


@pytest.mark.parametrize("kind", ["gpt2", "llama", "bloom"])
def test_classifier_padding_gives_the_unpadded_predictions(kind, tmp_path):
    """The tokenizer pads on the left and has no pad token: swapbench pads on the right with end-of-text, and the
    head reads the last real token, so batches predict what single pairs do."""
    folder = save_decoder(tmp_path / kind, kind, head="cls", padding_side="left")
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    assert tokenizer.pad_token is None and tokenizer.padding_side == "left"
    prepare_tokenizer(tokenizer, model.config)
    assert tokenizer.padding_side == "right" and model.config.pad_token_id == tokenizer.eos_token_id
    scored = predict(model, tokenizer, PAIRS, batch_size=4)
    with torch.inference_mode():
        alone = [int(model(**tokenize(tokenizer, [p], [h], return_tensors="pt")).logits.argmax()) for p, h in PAIRS]
    assert scored.predictions.tolist() == alone


@pytest.fixture(scope="module")
def lms(tmp_path_factory):
    root = tmp_path_factory.mktemp("lms")
    return {kind: save_decoder(root / kind, kind) for kind in ("gpt2", "llama", "bloom", "nope")}


@pytest.mark.parametrize("kind", ["gpt2", "llama", "bloom", "nope"])
@pytest.mark.parametrize("verbalizers", [None, "entailment=Yes,neutral=Not sure,contradiction=No"])
def test_prompted_scoring_equals_the_naive_per_verbalizer_loop(lms, kind, verbalizers, capfd):
    tokenizer = prepare_tokenizer(AutoTokenizer.from_pretrained(lms[kind]))
    model = AutoModelForCausalLM.from_pretrained(lms[kind]).eval()
    spec = PromptSpec(DEFAULT_TEMPLATE, parse_verbalizers(verbalizers))
    encoded = encode_prompts(tokenizer, [render(spec, p, h) for p, h in PAIRS], spec, model_max_tokens(model))
    if verbalizers:
        assert max(len(c) for c in encoded.continuations[0]) > 1  # the cache path is exercised
    capfd.readouterr()
    with warnings.catch_warnings():
        # the cache goes back to the model under the name the installed transformers takes, without a deprecation
        warnings.simplefilter("error", FutureWarning)
        warnings.simplefilter("error", DeprecationWarning)
        fast = score_prompts(model, tokenizer, encoded, batch_size=4)
    assert "past_key_values" not in capfd.readouterr().err
    naive = score_naive(model, tokenizer, encoded, batch_size=5)
    np.testing.assert_allclose(fast.loglik, naive.loglik, atol=1e-4)
    assert fast.predictions.tolist() == naive.predictions.tolist()
    assert fast.forwards < naive.forwards


def test_prompted_scoring_backs_off_on_out_of_memory(lms):
    tokenizer = prepare_tokenizer(AutoTokenizer.from_pretrained(lms["gpt2"]))
    model = AutoModelForCausalLM.from_pretrained(lms["gpt2"]).eval()
    spec = PromptSpec(DEFAULT_TEMPLATE, parse_verbalizers(None))
    # distinct prompts (the scorer scores a repeated one once); the base model runs them (prompting.split_head)
    encoded = encode_prompts(tokenizer, [render(spec, p, f"{h} {i}") for i, (p, h) in enumerate(PAIRS)], spec, None)
    forward, refused = model.transformer.forward, []

    def limited(*args, **kwargs):
        if kwargs["input_ids"].shape[0] > 3:
            refused.append(kwargs["input_ids"].shape[0])
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return forward(*args, **kwargs)

    model.transformer.forward = limited
    reported = []
    scored = score_prompts(
        model, tokenizer, encoded, batch_size=12, on_batch=lambda index, loglik, cut: reported.extend(index.tolist())
    )
    # refused at 12 and at 6 prompts a forward (a CPU's forwards end early where padding would grow), then 3 fit
    assert len(refused) == 2 and min(refused) > 3 and scored.batch_size == 3
    assert sorted(reported) == list(range(len(PAIRS)))  # every prompt reported once, none again after a retry
    model.transformer.forward = forward
    assert scored.predictions.tolist() == score_naive(model, tokenizer, encoded).predictions.tolist()


def pair(i: int, premise: str) -> Pair:
    return Pair(f"p{i}", premise, "A man runs.", ("entailment", "neutral", "contradiction")[i % 3], None, None, "x", i)


def test_few_shot_examples_never_come_from_the_scored_pairs():
    pool = [pair(i, f"Premise {i}.") for i in range(20)]
    scored_premises = frozenset(f"Premise {i}." for i in range(10))
    drawn, set_apart = draw_shots(
        pool, 5, seed=3, scored_ids=frozenset(), scored_premises=scored_premises, premise_key=lambda t: t, where="pool"
    )
    assert set_apart == 10 and len(drawn) == 5
    assert all(p.premise not in scored_premises for p in drawn)
    again, _ = draw_shots(
        pool, 5, seed=3, scored_ids=frozenset(), scored_premises=scored_premises, premise_key=lambda t: t, where="pool"
    )
    assert again == drawn  # the seed decides
    with pytest.raises(SwapbenchError, match="shares 1 pairIDs with the scored data"):
        draw_shots(
            pool,
            2,
            seed=0,
            scored_ids=frozenset({"p4"}),
            scored_premises=frozenset(),
            premise_key=lambda t: t,
            where="pool",
        )


def test_probe_under_a_causal_mask_has_null_symmetry_and_a_left_decay(lms):
    model = AutoModel.from_pretrained(lms["llama"], attn_implementation="eager")
    tokenizer = AutoTokenizer.from_pretrained(lms["llama"])
    result = probe_model(model, tokenizer, n_words=4, length=12, progress=False)
    assert result.causal and result.symmetry is None and "causal" in result.symmetry_note
    assert all(layer.symmetry is None for layer in result.per_layer)
    assert 0 < result.locality <= 1 and result.left_decay is not None
    # Neither symmetry is a number, and locality is measured against uniform attention under the causal mask.
    assert result.degree_symmetry is None and result.degree_symmetry_note == CAUSAL_NOTE
    assert all(layer.degree_symmetry is None for layer in result.per_layer)
    assert result.relative_locality == pytest.approx(relative_locality(result.matrix_array(), causal=True))
    assert np.all(np.triu(result.matrix_array(), 1) == 0)


def test_encoder_probe_keeps_its_symmetry(tmp_path):
    from eval_models import save_classifier

    folder = save_classifier(tmp_path / "bert", LABELS)
    result = probe_model(
        AutoModel.from_pretrained(folder, attn_implementation="eager"),
        AutoTokenizer.from_pretrained(folder),
        n_words=4,
        length=12,
        progress=False,
    )
    assert not result.causal and result.symmetry is not None and result.left_decay is not None


def test_probe_cli_writes_the_offset_profile_for_a_decoder(lms, tmp_path):
    out = tmp_path / "probe"
    assert main(["probe", str(lms["gpt2"]), "--out", str(out), "--words", "4", "--length", "12"]) == 0
    import json

    data = json.loads((out / "probe.json").read_text())
    assert data["symmetry"] is None and data["causal"] is True
    assert {p.name for p in out.iterdir()} >= {
        "positional_attention.png",
        "positional_attention_layers.png",
        "positional_attention_offsets.png",
    }


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
            *extra,
        ]
    )
    return EvalResults.model_validate_json(output.read_text()) if rc == 0 else None


def test_cli_prompted_few_shot_end_to_end_and_cache_keyed_by_template(lms, dataset, tmp_path, capsys):
    train = write_training_file(tmp_path / "snli" / "snli_1.0_train.jsonl", "train")
    common = [
        "--mode",
        "prompt",
        "--shots",
        "2",
        "--train-source",
        str(train),
        "--cache-dir",
        str(tmp_path / "c"),
        "--probe-words",
        "4",
        "--probe-length",
        "12",
    ]
    first = run_eval(lms["gpt2"], dataset, tmp_path / "a.json", *common)
    model = first.model
    assert (model.architecture_kind, model.mode, model.prompt.shots, model.prompt.reused) == (
        "decoder",
        "prompted",
        2,
        False,
    )
    assert model.prompt.template == DEFAULT_TEMPLATE and model.prompt.verbalizers["neutral"] == " Neither"
    assert len(model.prompt.examples) == 2 and all(e.startswith("train") for e in model.prompt.examples)
    assert model.prompt.example_source.split == "train"
    assert model.probe.symmetry is None and model.probe.causal
    assert model.positional_encoding.family == "absolute"

    again = run_eval(lms["gpt2"], dataset, tmp_path / "b.json", *common)
    assert again.model.prompt.reused and again.model.prompt.cache_key == model.prompt.cache_key
    assert again.results["shuffle-3"].accuracy_original == first.results["shuffle-3"].accuracy_original

    template = tmp_path / "template.txt"
    template.write_text("Premise: {premise}\nHypothesis: {hypothesis}\nTrue, False or Neither? Answer:\n")
    other = run_eval(lms["gpt2"], dataset, tmp_path / "c.json", *common, "--template", str(template))
    assert not other.model.prompt.reused and other.model.prompt.cache_key != model.prompt.cache_key
    assert other.model.prompt.template_source == public_path(template)
    assert other.model.prompt.headline_template == "template.txt"  # its name, not a path of this machine


def test_cli_refuses_the_scored_split_as_the_few_shot_pool(lms, dataset, tmp_path, capsys):
    from pathlib import Path

    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    assert (
        run_eval(
            lms["gpt2"],
            dataset,
            tmp_path / "a.json",
            "--mode",
            "prompt",
            "--shots",
            "1",
            "--train-source",
            str(fixtures),
            "--train-split",
            "test",
            "--no-probe",
        )
        is None
    )
    assert "shares" in " ".join(capsys.readouterr().err.split())


def test_cli_refuses_prompting_an_encoder_and_a_bad_template(lms, dataset, tmp_path, capsys):
    from eval_models import save_classifier

    bert = save_classifier(tmp_path / "bert", LABELS)
    assert run_eval(bert, dataset, tmp_path / "a.json", "--mode", "prompt", "--no-probe") is None
    assert "decoder-only" in " ".join(capsys.readouterr().err.split())
    bad = tmp_path / "bad.txt"
    bad.write_text("{premise} and {context}")
    assert (
        run_eval(lms["gpt2"], dataset, tmp_path / "b.json", "--mode", "prompt", "--no-probe", "--template", str(bad))
        is None
    )
    assert "{context}" in " ".join(capsys.readouterr().err.split())


def test_cli_fine_tunes_a_decoder_with_a_head_on_its_last_token(dataset, tmp_path):
    base = save_decoder(tmp_path / "gpt2-base", "gpt2", head="base", padding_side="left")
    train = write_training_file(tmp_path / "snli" / "snli_1.0_train.jsonl", "train")
    results = run_eval(
        base,
        dataset,
        tmp_path / "r.json",
        "--train-source",
        str(train),
        "--val-holdout",
        "8",
        "--epochs",
        "1",
        "--train-batch-size",
        "8",
        "--cache-dir",
        str(tmp_path / "cache"),
        "--no-probe",
    )
    model = results.model
    assert (model.architecture_kind, model.mode, model.fine_tuned) == ("decoder", "fine-tuned", True)
    assert model.architecture == "GPT2ForSequenceClassification"
    assert model.pair_template == "{premise}\n{hypothesis}"  # GPT-2's tokenizer puts nothing between the two


def test_the_schema_allows_a_null_symmetry_only_under_a_causal_mask_with_its_reason():
    from pydantic import ValidationError

    from swapbench.results.schema import ProbeInfo, ProbeSettings

    settings = ProbeSettings(n_words=4, length=12, seed=0, add_special_tokens=False)
    ProbeInfo(locality=0.4, symmetry=None, per_layer=[], settings=settings, causal=True, symmetry_note="causal")
    for wrong in (
        dict(symmetry=None, causal=True),
        dict(symmetry=0.5, causal=True, symmetry_note="x"),
        dict(symmetry=None, causal=False, symmetry_note="x"),
    ):
        with pytest.raises(ValidationError):
            ProbeInfo(locality=0.4, per_layer=[], settings=settings, **wrong)


def test_probe_and_eval_name_a_local_model_by_the_same_revision(lms):
    from transformers import AutoConfig

    from swapbench.models.loading import model_revision
    from swapbench.probing.loading import load_model
    from swapbench.probing.loading import model_revision as probe_revision

    model, _ = load_model(str(lms["gpt2"]))
    revision = model_revision(str(lms["gpt2"]), AutoConfig.from_pretrained(lms["gpt2"]))
    assert revision.startswith("sha256:") and probe_revision(str(lms["gpt2"]), model) == revision


def test_the_other_decoder_families_by_config():
    from transformers import GPTNeoXConfig, MistralConfig, MptConfig, OPTConfig, Qwen2Config

    expected = [
        (Qwen2Config(), "rotary"),
        (MistralConfig(), "rotary"),
        (GPTNeoXConfig(), "rotary"),
        (OPTConfig(), "absolute"),
        (MptConfig(), "alibi"),
    ]
    for config, family in expected:
        assert (read_positional_encoding(config).family, architecture_kind(config)) == (family, "decoder")
    no_alibi = MptConfig(attn_config={"alibi": False})
    from swapbench.models.positional import unimplemented_positional_encoding

    assert "always adds ALiBi" in unimplemented_positional_encoding(no_alibi)


def test_cli_prompts_are_cut_to_max_length_when_it_is_given(lms, dataset, tmp_path, capsys):
    whole = run_eval(
        lms["gpt2"], dataset, tmp_path / "a.json", "--mode", "prompt", "--no-probe", "--cache-dir", str(tmp_path / "c")
    )
    assert (
        whole.provenance.scoring.max_length == model_max_tokens(AutoModelForCausalLM.from_pretrained(lms["gpt2"]))
        and whole.provenance.scoring.truncated == 0
    )
    capsys.readouterr()
    cut = run_eval(
        lms["gpt2"],
        dataset,
        tmp_path / "b.json",
        "--mode",
        "prompt",
        "--no-probe",
        "--max-length",
        "12",
        "--cache-dir",
        str(tmp_path / "c"),
    )
    assert cut.provenance.scoring.max_length == 12 and cut.provenance.scoring.truncated > 0
    assert cut.model.prompt.cache_key != whole.model.prompt.cache_key  # other prompts, other scores
    said = " ".join(capsys.readouterr().err.split())
    assert "are longer than --max-length 12 tokens and were cut from the left" in said
