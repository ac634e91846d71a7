"""End to end: the zoo encoder without positions is permutation-equivariant, so `swapbench eval` must report
Δ = 0 on every shuffle. This checks the whole benchmark (build, tokenization, batching, scoring, figures), not
just the model.

The premise and original_premise of a row are the same words joined by single spaces, in another order. The
WordPiece tokenizer splits each word into the same pieces wherever the word stands, so both premises give the
same multiset of tokens; a model without positions sees a multiset, and its logits agree up to the order of float
summation: predictions are compared exactly, logits with a tolerance.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer, BertTokenizer
from word_tokenizer import bert_tokenizer

from swapbench.commands.main import main
from swapbench.core.labels import LABEL_NAMES
from swapbench.results.schema import EvalResults
from swapbench.zoo.modeling import ZooConfig, ZooForSequenceClassification

SHUFFLES = ("shuffle-3", "shuffle-4", "shuffle-5", "shuffle-random")
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def fixture_words(fixtures: Path) -> list[str]:
    """Every word of the fixture's sentences, lower-cased and split at punctuation as BERT's pre-tokenizer does."""
    words = set()
    for line in (fixtures / "snli_1.0_test.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        for sentence in (row["sentence1"], row["sentence2"]):
            words.update(re.findall(r"\w+|[^\w\s]", sentence.lower()))
    return sorted(words)


def save_tokenizer(fixtures: Path, folder: Path) -> BertTokenizer:
    """A WordPiece vocabulary written here: words of 7 letters or more only as two pieces (e.g. chil ##dren), so
    that shuffled words carry their pieces along."""
    vocabulary = list(SPECIALS)
    for word in fixture_words(fixtures):
        pieces = [word[:4], "##" + word[4:]] if len(word) >= 7 else [word]
        vocabulary += [p for p in pieces if p not in vocabulary]
    tokenizer = bert_tokenizer(vocabulary, do_lower_case=True)
    assert tokenizer.tokenize("children") == ["chil", "##dren"]
    tokenizer.save_pretrained(folder)
    return tokenizer


def save_model(encoding: str, tokenizer, folder: Path, seed: int = 0) -> Path:
    id2label = dict(enumerate(LABEL_NAMES))
    # initializer_range 0.5: random weights large enough that the predictions vary from pair to pair.
    config = ZooConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
        position_encoding=encoding,
        initializer_range=0.5,
        num_labels=3,
        id2label=id2label,
        label2id={name: i for i, name in id2label.items()},
    )
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = ZooForSequenceClassification(config)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def benchmark(tmp_path_factory) -> Path:
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    out = tmp_path_factory.mktemp("zoo-invariance") / "data"
    assert (
        main(["build", "--source", str(fixtures), "--out", str(out), "--no-cache", "--variants", ",".join(SHUFFLES)])
        == 0
    )
    return out


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    root = tmp_path_factory.mktemp("zoo-models")
    tokenizer = save_tokenizer(fixtures, root / "tokenizer")
    return {encoding: save_model(encoding, tokenizer, root / encoding) for encoding in ("none", "learned_absolute")}


def rows(benchmark: Path):
    for config in SHUFFLES:
        for row in datasets.load_dataset(str(benchmark), config, split="test"):
            yield config, row


def logits(folder: Path, pairs: list[tuple[str, str]]) -> torch.Tensor:
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    with torch.no_grad():
        return torch.cat([model(**tokenizer(p, h, return_tensors="pt")).logits for p, h in pairs])


def test_shuffled_premises_hold_the_same_word_pieces(benchmark, models):
    tokenizer = AutoTokenizer.from_pretrained(models["none"])
    shuffled = 0
    for _, row in rows(benchmark):
        original, perturbed = tokenizer.tokenize(row["original_premise"]), tokenizer.tokenize(row["premise"])
        assert sorted(original) == sorted(perturbed)
        shuffled += original != perturbed
    assert shuffled >= 10


def test_without_positions_the_logits_do_not_change_and_with_them_they_do(benchmark, models):
    data = list(rows(benchmark))
    originals = [(r["original_premise"], r["original_hypothesis"]) for _, r in data]
    perturbed = [(r["premise"], r["hypothesis"]) for _, r in data]
    none_original, none_perturbed = logits(models["none"], originals), logits(models["none"], perturbed)
    torch.testing.assert_close(none_perturbed, none_original, atol=1e-5, rtol=1e-5)
    assert len(set(none_original.argmax(-1).tolist())) > 1  # the predictions vary: Δ = 0 is not a constant model
    # The same check fails for an encoder that sees positions: it would catch a broken `none`.
    learned_original, learned_perturbed = (
        logits(models["learned_absolute"], originals),
        logits(models["learned_absolute"], perturbed),
    )
    assert (learned_original - learned_perturbed).abs().max() > 1e-3


def test_swapbench_eval_reports_no_change_on_every_shuffle(benchmark, models, tmp_path):
    output = tmp_path / "results.json"
    assert (
        main(
            [
                "eval",
                str(models["none"]),
                "--data",
                str(benchmark),
                "--device",
                "cpu",
                "--no-probe",
                "--bootstrap",
                "200",
                "--no-progress",
                "--output",
                str(output),
            ]
        )
        == 0
    )
    results = EvalResults.model_validate_json(output.read_text(encoding="utf-8"))
    assert set(results.results) == set(SHUFFLES)
    for config, figures in results.results.items():
        assert figures.delta == 0, config
        assert figures.accuracy_perturbed == figures.accuracy_original, config
        assert figures.mcnemar.original_only == figures.mcnemar.perturbed_only == 0, config
    predictions = [json.loads(line) for line in output.with_name("results.predictions.jsonl").read_text().splitlines()]
    assert len(predictions) == sum(f.n for f in results.results.values()) == 16
    assert all(p["prediction_original"] == p["prediction_perturbed"] for p in predictions)


def test_a_fresh_swapbench_eval_loads_a_zoo_checkpoint(benchmark, models, tmp_path):
    output = tmp_path / "fresh.json"
    environment = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "swapbench.commands.main",
            "eval",
            str(models["none"]),
            "--data",
            str(benchmark),
            "--device",
            "cpu",
            "--probe-words",
            "10",
            "--probe-length",
            "8",
            "--bootstrap",
            "100",
            "--no-progress",
            "--output",
            str(output),
        ],
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    results = EvalResults.model_validate_json(output.read_text(encoding="utf-8"))
    assert all(figures.delta == 0 for figures in results.results.values())
    assert results.model.probe is not None
    assert (results.model.positional_encoding.family, results.model.positional_encoding.kind) == ("none", "none")
