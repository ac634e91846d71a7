"""Scoring's fast paths give what the plain path gives: the scorer's own padding and length-sorted batches over
eval's distinct pairs, each run once, predict in float32 exactly what one pair at a time through the model predicts;
--dtype auto picks bfloat16 only where the device runs it fast (models.precision.fast_bfloat16), records its
agreement with float32, and scores in float32 when the agreement falls short; --dtype float32 stays float32."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from eval_models import save_classifier
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from swapbench.commands.main import main
from swapbench.evaluation import agreement
from swapbench.evaluation.scoring import pad_batch, predict
from swapbench.models.loading import choose_dtype
from swapbench.models.precision import fast_bfloat16
from swapbench.results.schema import EvalResults

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
CPU = torch.device("cpu")

PAIRS = [
    ("A man plays a red guitar in the park.", "A man plays music."),
    ("Two dogs run on the beach near the water.", "The dogs sleep."),
    ("A woman reads a book while her child plays with a ball outside.", "A woman reads."),
    ("The girl sings.", "A girl sings happy music in the city street with three people."),
    ("Some people sit on the grass.", "People sit outside."),
    ("A boy eats.", "A boy eats."),
    ("The tall man walks slowly to his car.", "A man walks to a car."),
    ("A group of people walk in the city.", "The group is inside."),
]


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    folder = save_classifier(tmp_path_factory.mktemp("bert") / "bert", NLI)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    return folder, model, AutoTokenizer.from_pretrained(folder)


def one_at_a_time(model, tokenizer, pairs) -> np.ndarray:
    """The plain path: each pair alone through the model, no padding, no batching."""
    with torch.inference_mode():
        return np.stack([model(**tokenizer(p, h, return_tensors="pt")).logits[0].float().numpy() for p, h in pairs])


@pytest.mark.parametrize("batch_size", [1, 3, 64])
def test_the_fast_path_predicts_what_one_pair_at_a_time_predicts_in_float32(bert, batch_size):
    _, model, tokenizer = bert
    plain = one_at_a_time(model, tokenizer, PAIRS)
    scored = predict(model, tokenizer, PAIRS, batch_size=batch_size)
    assert scored.predictions.tolist() == plain.argmax(axis=1).tolist()
    np.testing.assert_allclose(scored.logits, plain, atol=1e-5)
    assert len(set(scored.predictions.tolist())) > 1  # the model tells pairs apart: the comparison means something


@pytest.mark.parametrize("side", ["right", "left"])
def test_the_scorers_padding_is_the_tokenizers(bert, side):
    _, _, tokenizer = bert
    tokenizer = AutoTokenizer.from_pretrained(bert[0], padding_side=side)
    encoded = dict(tokenizer([p for p, _ in PAIRS], [h for _, h in PAIRS]))
    index = np.array([3, 0, 5])
    theirs = tokenizer.pad({key: [values[i] for i in index] for key, values in encoded.items()}, return_tensors="pt")
    ours = pad_batch(tokenizer, encoded, index)
    assert set(ours) == set(theirs) == {"input_ids", "token_type_ids", "attention_mask"}
    for key in ours:
        assert torch.equal(ours[key], theirs[key]), key


def test_eval_runs_each_distinct_pair_once_every_configuration_together(bert, dataset):
    from swapbench.evaluation.data import open_benchmark
    from swapbench.evaluation.results import distinct_pairs

    benchmark = open_benchmark(str(dataset))
    rows = sum(len(c.originals) + len(c.perturbed) for c in benchmark.configurations)
    pairs = distinct_pairs(benchmark)
    assert len(pairs) == len(set(pairs)) < rows  # the originals recur across configurations: scored once
    _, model, tokenizer = bert
    calls = []
    hook = model.register_forward_pre_hook(
        lambda _, args, kwargs: calls.append(len(kwargs["input_ids"])), with_kwargs=True
    )
    try:
        scored = predict(model, tokenizer, pairs, batch_size=4)
    finally:
        hook.remove()
    assert sum(calls) == len(pairs) and len(calls) == -(-len(pairs) // 4)  # one length-sorted pass
    assert scored.predictions.tolist() == one_at_a_time(model, tokenizer, pairs).argmax(axis=1).tolist()


def test_auto_is_bfloat16_only_where_the_device_runs_it_fast():
    assert choose_dtype(CPU, "auto") == (torch.bfloat16 if fast_bfloat16(CPU) else torch.float32)
    assert choose_dtype(CPU, "float32") == torch.float32
    assert choose_dtype(CPU, "bfloat16") == torch.bfloat16


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", "shuffle-random"])


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
                "--device",
                "cpu",
                *extra,
            ]
        )
        == 0
    )
    return EvalResults.model_validate_json(output.read_text())


def test_auto_records_the_dtype_it_scored_in_and_its_agreement(bert, dataset, tmp_path):
    results = run_eval(bert[0], dataset, tmp_path / "auto.json")
    measured = results.provenance.scoring.dtype_agreement
    if not fast_bfloat16(CPU):
        assert results.provenance.dtype == "float32" and measured is None
        return
    assert measured.dtype == "bfloat16" and measured.pairs == results.provenance.scoring.unique_pairs
    kept = measured.fraction >= agreement.THRESHOLD
    assert results.provenance.dtype == ("bfloat16" if kept else "float32")


def test_float32_stays_one_option_away(bert, dataset, tmp_path):
    exact = run_eval(bert[0], dataset, tmp_path / "fp32.json", "--dtype", "float32")
    assert exact.provenance.dtype == "float32" and exact.provenance.scoring.dtype_agreement is None


@pytest.mark.skipif(
    not fast_bfloat16(CPU), reason="auto is float32 on this CPU: it has no bf16 matrix instructions (AMX, AVX512-BF16)"
)
def test_auto_scores_in_float32_when_the_agreement_falls_short(bert, dataset, tmp_path, monkeypatch, capsys):
    exact = run_eval(bert[0], dataset, tmp_path / "fp32.json", "--dtype", "float32")
    monkeypatch.setattr(agreement, "THRESHOLD", 1.01)  # no agreement is enough
    results = run_eval(bert[0], dataset, tmp_path / "auto.json")
    assert "scoring in float32" in capsys.readouterr().err
    assert results.provenance.dtype == "float32"
    assert results.provenance.scoring.dtype_agreement.dtype == "bfloat16"  # what was tried, and how it agreed
    assert results.results == exact.results  # the figures are float32's, not read off the bf16 scores cache
