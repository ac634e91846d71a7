"""Drawing whole words from a tokenizer's vocabulary.

Tokenizers mark word starts and word pieces differently:
- WordPiece (BERT, MPNet, RoFormer): continuation pieces start with "##", everything else starts a word;
- SentencePiece (DeBERTa-v2, T5, ALBERT, XLNet): word starts carry a leading "▁";
- byte-level BPE (RoBERTa, GPT-2): word starts carry a leading "Ġ" (an encoded space), and the token
  text spells UTF-8 bytes as printable characters.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .errors import ProbeError

WORDPIECE, SENTENCEPIECE, BYTE_LEVEL = "wordpiece", "sentencepiece", "byte-level"
MARKERS = {WORDPIECE: "##", SENTENCEPIECE: "\u2581", BYTE_LEVEL: "\u0120"}


@dataclass(frozen=True)
class Word:
    token_id: int
    token: str
    text: str


def word_start_convention(tokens, backend=None) -> str:
    """Which convention a vocabulary follows: WordPiece if its `tokenizers` backend says so, else the
    convention whose marker most tokens carry."""
    if backend is not None and type(backend.model).__name__ == "WordPiece":
        return WORDPIECE
    counts = Counter()
    for token in tokens:
        for convention, marker in MARKERS.items():
            if token.startswith(marker) and len(token) > len(marker):
                counts[convention] += 1
    if not counts:
        raise ProbeError(
            "cannot tell word starts from word pieces in this vocabulary: no token starts with "
            "'##' (WordPiece), '\u2581' (SentencePiece) or '\u0120' (byte-level BPE)"
        )
    return counts.most_common(1)[0][0]


@lru_cache(maxsize=1)
def _byte_level_alphabet() -> dict[str, int]:
    """The GPT-2 map from the printable stand-in characters back to bytes."""
    printable = (
        list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    )
    chars = list(printable)
    shift = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            chars.append(256 + shift)
            shift += 1
    return {chr(c): b for b, c in zip(printable, chars)}


def word_text(token: str, convention: str) -> str | None:
    """The word a word-start token spells, or None when the token is a piece inside a word."""
    marker = MARKERS[convention]
    if convention == WORDPIECE:
        return None if token.startswith(marker) else token
    if not token.startswith(marker):
        return None
    text = token[len(marker) :]
    if convention == BYTE_LEVEL:
        alphabet = _byte_level_alphabet()
        try:
            text = bytes(alphabet[c] for c in text).decode("utf-8")
        except (KeyError, UnicodeDecodeError):
            return None
    return text


def candidate_words(tokenizer) -> tuple[str, list[Word]]:
    """The tokenizer's convention and its whole words of two letters or more, special and added tokens left out."""
    vocab = tokenizer.get_vocab()
    convention = word_start_convention(vocab, getattr(tokenizer, "backend_tokenizer", None))
    excluded = set(tokenizer.all_special_ids) | set(getattr(tokenizer, "added_tokens_decoder", {}) or {})
    words = []
    for token, token_id in sorted(vocab.items(), key=lambda item: item[1]):
        if token_id in excluded:
            continue
        text = word_text(token, convention)
        # isalpha() rules out numbers, punctuation and markup such as BERT's "[unused12]".
        if text is not None and len(text) >= 2 and text.isalpha():
            words.append(Word(token_id, token, text))
    return convention, words


def sample_words(tokenizer, n_words: int, seed: int) -> tuple[str, list[Word]]:
    """`n_words` distinct whole words drawn at random from the vocabulary; the same seed draws the same words."""
    convention, words = candidate_words(tokenizer)
    if n_words > len(words):
        raise ProbeError(
            f"asked for {n_words} words but the vocabulary has only {len(words)} whole words "
            f"of two letters or more ({convention} convention)"
        )
    rng = np.random.default_rng(seed)
    picks = rng.choice(len(words), size=n_words, replace=False)
    return convention, [words[i] for i in picks]
