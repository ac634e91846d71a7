"""A run in a dtype other than float32 records how many labels of a fixed sample of its distinct pairs a float32
copy of the model agrees with (provenance.scoring.dtype_agreement); a float32 run records null."""

from __future__ import annotations

import logging
import random
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from decoder_models import save_decoder
from eval_models import save_classifier
from pydantic import ValidationError
from transformers import AutoModelForCausalLM, AutoModelForSequenceClassification, AutoTokenizer

from swapbench.commands.main import main
from swapbench.core.compat import dtype_argument
from swapbench.evaluation.agreement import SAMPLE, NotMeasured, dtype_agreement, float32_copy, sample_positions
from swapbench.evaluation.data import open_benchmark
from swapbench.evaluation.results import distinct_pairs
from swapbench.evaluation.scoring import predict
from swapbench.results.schema import DtypeAgreement, EvalResults

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", "shuffle-random"])


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return {"bert": save_classifier(root / "bert", NLI), "gpt2": save_decoder(root / "gpt2", "gpt2")}


def run_eval(model, data, output, *extra) -> EvalResults:
    assert (
        main(
            [
                "eval",
                str(model),
                "--data",
                str(data),
                "--output",
                str(output),
                "--no-progress",
                "--no-probe",
                "--bootstrap",
                "100",
                *extra,
            ]
        )
        == 0
    )
    return EvalResults.model_validate_json(output.read_text())


def test_a_bfloat16_run_on_the_cpu_records_its_agreement_with_float32(models, dataset, tmp_path, capsys):
    results = run_eval(models["bert"], dataset, tmp_path / "bf16.json", "--device", "cpu", "--dtype", "bfloat16")
    agreement = results.provenance.scoring.dtype_agreement
    pairs = distinct_pairs(open_benchmark(dataset))
    assert len(pairs) < SAMPLE and agreement.pairs == len(pairs) == results.provenance.scoring.unique_pairs
    assert (agreement.dtype, agreement.reference_dtype, agreement.not_measured) == ("bfloat16", "float32", None)
    # the same count from the model loaded in each dtype by transformers itself
    tokenizer = AutoTokenizer.from_pretrained(models["bert"])
    loaded = [
        AutoModelForSequenceClassification.from_pretrained(models["bert"], **dtype_argument(dtype)).eval()
        for dtype in (torch.bfloat16, torch.float32)
    ]
    labels = [predict(model, tokenizer, pairs).predictions for model in loaded]
    assert agreement.agreeing == int((labels[0] == labels[1]).sum())
    assert agreement.fraction == agreement.agreeing / agreement.pairs
    assert (
        f"bfloat16 against float32: {agreement.agreeing} of {agreement.pairs} sampled distinct pairs get the same label"
    ) in capsys.readouterr().err
    assert results.provenance.dtype == "bfloat16"


def test_a_float32_run_records_null(models, dataset, tmp_path, capsys):
    results = run_eval(models["bert"], dataset, tmp_path / "fp32.json", "--device", "cpu", "--dtype", "float32")
    assert results.provenance.scoring.dtype_agreement is None
    assert "against float32" not in capsys.readouterr().err


def test_a_prompted_bfloat16_run_records_its_agreement_too(models, dataset, tmp_path):
    results = run_eval(
        models["gpt2"],
        dataset,
        tmp_path / "prompt.json",
        "--mode",
        "prompt",
        "--device",
        "cpu",
        "--dtype",
        "bfloat16",
        "--calibration",
        "contextual",
    )
    agreement = results.provenance.scoring.dtype_agreement
    assert agreement.pairs == results.provenance.scoring.unique_pairs and agreement.not_measured is None
    assert 0 <= agreement.agreeing <= agreement.pairs


def test_the_sample_is_fixed_by_the_pairs_themselves():
    pairs = [(f"premise {i}", f"hypothesis {i}") for i in range(1200)]
    chosen = sample_positions(pairs)
    assert len(chosen) == SAMPLE and chosen == sorted(chosen)
    shuffled = random.Random(0).sample(pairs, len(pairs))
    assert {shuffled[i] for i in sample_positions(shuffled)} == {pairs[i] for i in chosen}
    assert sample_positions(pairs[:30]) == list(range(30))


def test_the_float32_copy_leaves_the_model_as_it_was(models):
    model = AutoModelForCausalLM.from_pretrained(models["gpt2"], **dtype_argument(torch.bfloat16)).eval()
    before = {name: tensor.clone() for name, tensor in model.state_dict().items()}
    with float32_copy(model) as copy:
        assert {p.dtype for p in copy.parameters()} == {torch.float32}
        assert copy.lm_head.weight is copy.transformer.wte.weight  # tied weights stay tied
        assert not copy.training
    assert {p.dtype for p in model.parameters()} == {torch.bfloat16}
    after = model.state_dict()
    assert all(torch.equal(before[name], after[name]) for name in before)


def run_of(dtype) -> SimpleNamespace:
    return SimpleNamespace(dtype=dtype)


class Reference:
    def __init__(self, labels=None, error=None):
        self.labels, self.error, self.asked = labels, error, []

    def reference_predictions(self, run, prepared, pairs):
        self.asked.append(pairs)
        if self.error:
            raise self.error
        return self.labels


def test_the_counts_are_of_the_sampled_pairs():
    pairs = [(f"p{i}", f"h{i}") for i in range(SAMPLE + 100)]
    ours = np.arange(len(pairs)) % 3
    positions = sample_positions(pairs)
    theirs = ours[positions].copy()
    theirs[:7] = (theirs[:7] + 1) % 3
    scorer = Reference(theirs)
    agreement = dtype_agreement(scorer, run_of(torch.bfloat16), None, pairs, ours)
    assert scorer.asked == [[pairs[i] for i in positions]]
    assert (agreement.pairs, agreement.agreeing, agreement.fraction) == (SAMPLE, SAMPLE - 7, (SAMPLE - 7) / SAMPLE)
    assert dtype_agreement(Reference(), run_of(torch.float32), None, pairs, ours) is None


@pytest.mark.parametrize(
    "error, why",
    [
        (NotMeasured("the model is spread over devices"), "the model is spread over devices"),
        (
            RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB"),
            "the float32 copy of the model ran out of memory",
        ),
    ],
)
def test_what_cannot_be_measured_is_recorded_null_with_why(error, why, caplog):
    caplog.set_level(logging.INFO, logger="swapbench")
    agreement = dtype_agreement(Reference(error=error), run_of(torch.float16), None, [("p", "h")], [0])
    assert (agreement.dtype, agreement.pairs, agreement.agreeing, agreement.fraction) == ("float16", None, None, None)
    assert agreement.not_measured.startswith(why)
    assert "float16 not compared with float32" in caplog.text


def test_other_errors_are_not_hidden():
    with pytest.raises(ValueError):
        dtype_agreement(Reference(error=ValueError("a bug")), run_of(torch.bfloat16), None, [("p", "h")], [0])


def test_the_schema_refuses_counts_that_do_not_add_up():
    good = dict(dtype="bfloat16", sample="all", pairs=10, agreeing=9, fraction=0.9)
    DtypeAgreement(**good)
    for change in ({"agreeing": 11, "fraction": 1.1}, {"fraction": 0.8}, {"agreeing": None}, {"not_measured": "why"}):
        with pytest.raises(ValidationError):
            DtypeAgreement(**{**good, **change})
    DtypeAgreement(dtype="float16", sample="all", pairs=None, agreeing=None, fraction=None, not_measured="why")


def test_no_copy_is_made_of_a_model_spread_over_devices(models):
    model = AutoModelForSequenceClassification.from_pretrained(models["bert"]).eval()
    model.hf_device_map = {"": "cpu"}
    with pytest.raises(NotMeasured, match="--device-map"):
        with float32_copy(model):
            pass
