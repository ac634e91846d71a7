"""NLTK's TreebankWordDetokenizer (nltk 3.10), without importing nltk.

`import nltk` takes about a second, and a build needs nothing of nltk but this: its detokenizer's regular
expressions, applied in its order, with convert_parentheses off. They are copied from nltk/tokenize/treebank.py
and nltk/tokenize/destructive.py (MacIntyreContractions) of nltk 3.10.4 (Apache License 2.0), so that the text a
build writes no longer depends on the nltk installed. tests/variants/test_treebank_spacing.py holds them to nltk's
own detokenizer, where that nltk is 3.10.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_CONTRACTIONS2 = [
    r"(?i)\b(can)\s(not)\b",
    r"(?i)\b(d)\s('ye)\b",
    r"(?i)\b(gim)\s(me)\b",
    r"(?i)\b(gon)\s(na)\b",
    r"(?i)\b(got)\s(ta)\b",
    r"(?i)\b(lem)\s(me)\b",
    r"(?i)\b(more)\s('n)\b",
    r"(?i)\b(wan)\s(na)(?=\s)",
]
_CONTRACTIONS3 = [r"(?i) ('t)\s(is)\b", r"(?i) ('t)\s(was)\b"]
_ENDING_QUOTES = [
    (r"([^' ])\s('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", r"\1\2 "),
    (r"([^' ])\s('[sS]|'[mM]|'[dD]|') ", r"\1\2 "),
    (r"([^'\s])\s(\'\')", r"\1\2"),
    (r"([,.;:!?'])\s+(\"|\'\')", r"\1\2"),
    (r"(\'\')\s([.,:)\]>};%])", r"\1\2"),
    (r"''", '"'),
    (r'([,.;:!?])"(\')', r"\1\2" '"'),
]
_DOUBLE_DASHES = (r" -- ", r"--")
_PARENS_BRACKETS = [
    (r"([\[\(\{\<])\s", r"\g<1>"),
    (r"\s([\]\)\}\>])", r"\g<1>"),
    (r"([\]\)\}\>])\s([:;,.])", r"\1\2"),
]
_PUNCTUATION = [
    (r"([^'])\s'\s", r"\1' "),
    (r"\s([?!])", r"\g<1>"),
    (r'([^\.])\s(\.)(?!\.)([\]\)}>"\']*)', r"\1\2\3"),
    (r"([#$])\s", r"\g<1>"),
    (r"\s([;%])", r"\g<1>"),
    (r"\s\.\.\.\s", r"..."),
    (r"\s([:,])", r"\1"),
]
_STARTING_QUOTES = [
    (r"([ (\[{<])\s``", r"\1``"),
    (r"(``)\s", r"\1"),
    (r"``", r'"'),
]

_JOINED = [re.compile(p) for p in _CONTRACTIONS3 + _CONTRACTIONS2]  # each replaced by r"\1\2", in this order
_BEFORE_STRIP = [(re.compile(p), s) for p, s in _ENDING_QUOTES]
_AFTER_STRIP = [(re.compile(p), s) for p, s in [_DOUBLE_DASHES, *_PARENS_BRACKETS, *_PUNCTUATION, *_STARTING_QUOTES]]


def detokenize(tokens: Sequence[str]) -> str:
    """TreebankWordDetokenizer().detokenize(tokens)."""
    text = " " + " ".join(tokens) + " "
    for pattern in _JOINED:
        text = pattern.sub(r"\1\2", text)
    for pattern, substitution in _BEFORE_STRIP:
        text = pattern.sub(substitution, text)
    text = text.strip()
    for pattern, substitution in _AFTER_STRIP:
        text = pattern.sub(substitution, text)
    return text.strip()
