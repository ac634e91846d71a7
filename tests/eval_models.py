"""Tiny random models for the `swapbench eval` tests, saved with a word-level WordPiece tokenizer.

Weights are drawn inside torch.random.fork_rng, so the tests' seeds do not leak into global state.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from transformers import AutoModel, AutoModelForSequenceClassification, BertConfig, BertTokenizer
from word_tokenizer import bert_tokenizer

SUBJECTS = ("man", "woman", "dog", "child", "boy", "girl", "person", "people", "group")
VERBS = ("runs", "sleeps", "plays", "eats", "sits", "walks", "sings", "reads")
WORDS = """a an the is are on in at of with to and his her their two three some one outside inside street
guitar red music makes plays man woman dog child boy girl person people group runs sleeps eats sits walks sings
reads book park fast slowly happy sad tall small ball water beach grass car city while near""".split()
PUNCTUATION = list(".,!?'\"-")
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]

# initializer_range 0.5 rather than 0.02: a random model then gives different labels to different pairs.
SMALL = dict(
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=2,
    intermediate_size=64,
    max_position_embeddings=160,
    initializer_range=0.5,
)


def save_tokenizer(folder: Path) -> BertTokenizer:
    folder.mkdir(parents=True, exist_ok=True)
    tokens = SPECIALS + sorted(set(WORDS)) + PUNCTUATION
    tokenizer = bert_tokenizer(tokens, do_lower_case=True, model_max_length=160)
    tokenizer.save_pretrained(folder)
    return tokenizer


def save_classifier(
    folder: Path,
    id2label: dict[int, str],
    config_class=BertConfig,
    seed: int = 0,
    bias: list[float] | None = None,
    **overrides,
) -> Path:
    """A random sequence classifier; `bias` (with zero classifier weights) fixes its prediction."""
    tokenizer = save_tokenizer(folder)
    config = config_class(
        vocab_size=len(tokenizer),
        num_labels=len(id2label),
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
        pad_token_id=0,
        **{**SMALL, **overrides},
    )
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = AutoModelForSequenceClassification.from_config(config)
    if bias is not None:
        head = model.classifier if hasattr(model.classifier, "weight") else model.classifier.out_proj
        with torch.no_grad():
            head.weight.zero_()
            head.bias.copy_(torch.tensor(bias))
    model.save_pretrained(folder)
    return folder


def save_base(folder: Path, seed: int = 0) -> Path:
    """A random base BERT (no classifier head): `swapbench eval` must fine-tune it."""
    tokenizer = save_tokenizer(folder)
    config = BertConfig(vocab_size=len(tokenizer), pad_token_id=0, **SMALL)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = AutoModel.from_config(config)
    model.save_pretrained(folder)
    return folder


def write_training_file(path: Path, split: str, start: int = 0) -> Path:
    """SNLI-format pairs from templates: entailment (a shorter true statement), contradiction (another verb),
    neutral (an added detail). 3 pairs per (subject, verb)."""
    rows = []
    number = start
    for subject in SUBJECTS[:4]:
        for verb in VERBS[:4]:
            other = VERBS[(VERBS.index(verb) + 1) % len(VERBS)]
            premise = f"A {subject} {verb} in the park."
            for label, hypothesis in (
                ("entailment", f"A {subject} {verb}."),
                ("contradiction", f"A {subject} {other}."),
                ("neutral", f"A happy {subject} {verb} in the park."),
            ):
                rows.append(
                    {"gold_label": label, "pairID": f"{split}{number}", "sentence1": premise, "sentence2": hypothesis}
                )
                number += 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
