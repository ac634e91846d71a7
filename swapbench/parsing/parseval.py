"""How well one backend's constituents agree with reference trees: precision and recall of (label, span).

Spans are compared as character offsets in the source sentence, so backends that tokenize differently
(spaCy against PTB) can be compared. Only constituents of `min_words` to `max_words` words count: those are
the ones the shuffles use.
"""

from __future__ import annotations

from ..core.text import plain_quotes
from .base import SHUFFLE_LABELS, Parse


def char_offsets(text: str, tokens: tuple[str, ...]) -> list[tuple[int, int]] | None:
    """Where each token lies in `text`, or None if the tokens do not spell the text in order."""
    offsets, at = [], 0
    for token in tokens:
        found = text.find(token, at)
        if found < 0 or text[at:found].strip():
            return None
        offsets.append((found, found + len(token)))
        at = found + len(token)
    return offsets


def labelled_spans(text: str, parse: Parse, min_words: int, max_words: int) -> set[tuple[str, int, int]] | None:
    """The parse's (label, first character, end character) constituents in `text`, whose quotes are plain
    (text.plain_quotes); None if its tokens do not spell the text."""
    # One plain_quotes over the joined tokens, not one per token: no quote spans the separator.
    offsets = char_offsets(text, tuple(plain_quotes("\0".join(parse.tokens)).split("\0")))
    if offsets is None:
        return None
    spans = set()
    for c in parse.constituents:
        if c.label in SHUFFLE_LABELS and min_words <= parse.words_in(c) <= max_words:
            spans.add((c.label, offsets[c.start][0], offsets[c.end - 1][1]))
    return spans


def agreement(
    texts: list[str], reference: list[Parse], predicted: list[Parse], min_words: int = 2, max_words: int = 5
) -> dict:
    """Micro-averaged precision and recall over the sentences whose tokens both align with the text."""
    matched = n_reference = n_predicted = sentences = unaligned = 0
    for text, ref, pred in zip(texts, reference, predicted):
        text = plain_quotes(text)
        gold = labelled_spans(text, ref, min_words, max_words)
        guess = labelled_spans(text, pred, min_words, max_words)
        if gold is None or guess is None:
            unaligned += 1
            continue
        sentences += 1
        matched += len(gold & guess)
        n_reference += len(gold)
        n_predicted += len(guess)
    return {
        "precision": matched / n_predicted if n_predicted else 0.0,
        "recall": matched / n_reference if n_reference else 0.0,
        "matched": matched,
        "reference": n_reference,
        "predicted": n_predicted,
        "sentences": sentences,
        "unaligned": unaligned,
        "min_words": min_words,
        "max_words": max_words,
    }
