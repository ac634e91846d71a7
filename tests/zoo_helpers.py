"""The zoo tests' setting: tiny template SNLI pairs, a word-level vocabulary, a fixture benchmark, a tiny recipe."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from word_tokenizer import bert_tokenizer

from swapbench.commands.main import main

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHUFFLES = "shuffle-3,shuffle-4,shuffle-5,shuffle-random"
SUBJECTS, VERBS = ("man", "woman", "dog", "child"), ("runs", "sleeps", "plays", "eats")


def write_pairs(path: Path, prefix: str, place: str = "park") -> Path:
    """Template pairs: entailment (a shorter true statement), contradiction (another verb), neutral (an added
    detail); 48 pairs. Validation pairs take another place, so that no premise is shared with training."""
    rows = []
    for subject in SUBJECTS:
        for verb in VERBS:
            other = VERBS[(VERBS.index(verb) + 1) % len(VERBS)]
            for label, hypothesis in (
                ("entailment", f"A {subject} {verb}."),
                ("contradiction", f"A {subject} {other}."),
                ("neutral", f"A happy {subject} {verb} in the {place}."),
            ):
                rows.append(
                    {
                        "gold_label": label,
                        "pairID": f"{prefix}{len(rows)}",
                        "sentence1": f"A {subject} {verb} in the {place}.",
                        "sentence2": hypothesis,
                    }
                )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def save_tokenizer(folder: Path) -> Path:
    """A word-level WordPiece vocabulary of the template and fixture words."""
    text = " ".join(
        json.loads(line)[key]
        for line in (FIXTURES / "snli_1.0_test.jsonl").read_text().splitlines()
        for key in ("sentence1", "sentence2")
    )
    text += " a happy in the park garden " + " ".join(SUBJECTS + VERBS)
    words = sorted(set(re.findall(r"\w+|[^\w\s]", text.lower())))
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + words
    bert_tokenizer(tokens, do_lower_case=True).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def setting(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("zoo-train")
    benchmark = root / "benchmark"
    assert (
        main(["build", "--source", str(FIXTURES), "--out", str(benchmark), "--no-cache", "--variants", SHUFFLES]) == 0
    )
    return {
        "train": write_pairs(root / "train.jsonl", "t"),
        "validation": write_pairs(root / "dev.jsonl", "d", "garden"),
        "tokenizer": save_tokenizer(root / "tokenizer"),
        "benchmark": benchmark,
    }


def recipe_options(setting, epochs: int = 1) -> list[str]:
    return [
        "--layers",
        "1",
        "--hidden",
        "16",
        "--heads",
        "2",
        "--epochs",
        str(epochs),
        "--lr",
        "1e-2",
        "--train-batch-size",
        "8",
        "--max-length",
        "32",
        "--tokenizer",
        str(setting["tokenizer"]),
        "--train-source",
        str(setting["train"]),
        "--val-source",
        str(setting["validation"]),
        "--device",
        "cpu",
        "--no-progress",
    ]
