"""Tokens written back as text, the way the pair's own text writes them.

Variants work on tokens (a parse's leaves, a labeler's tokens); models read text, and were trained on SNLI's own
text, not on Penn Treebank tokens joined by spaces ("it , a", "can not"). A pair's `Writing` aligns each sentence's
tokens with the text it was read from, and writes any sequence of those tokens back:

- tokens that were neighbours in the pair's text keep the space, or the lack of one, that the text has between
  them, and every token keeps the spelling the text gives it (typographic quotes, a bracket);
- tokens that a perturbation made neighbours are spaced by NLTK's TreebankWordDetokenizer, its rules applied
  without importing nltk (treebank_spacing.py): punctuation and clitics attach to the word before, opening
  brackets and quotes to the word after, except that two words are never fused into one: "not" moved before
  "can" is not written "notcan", nor "can" before "not" "cannot".

So the unperturbed sentence is its text exactly (white space squashed), and a perturbation changes the order of
words and nothing else a tokenizer can see.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from ..core.text import QUOTES, squash
from .treebank_spacing import detokenize

QUOTE = '"'
# PTB's spellings of an opening and a closing double quote, which the detokenizer needs to tell them apart.
OPENING, CLOSING = "``", "''"
# plain_quotes of one character: align reads the text character by character, and a dictionary is faster than a call
PLAIN_CHARACTER = {quote: plain for quote, plain in QUOTES if len(quote) == 1}


# A token without quotes of any style or white space matches the text only as it is spelled: align compares it
# whole (str.startswith) instead of character by character.
QUOTE_OR_SPACE = re.compile("[\\s\"'`" + "".join(PLAIN_CHARACTER) + "]")


def single_spaced(text: str) -> str:
    """`text` with each run of white space one space, none at either end: the original pair as a model reads it."""
    return " ".join(text.split())


def align(tokens: Sequence[str], text: str) -> list[tuple[int, int]] | None:
    """Each token's [start, end) in `text`, or None when the tokens do not spell it (white space and quote style
    aside, as core.text.squash compares them). A PTB quote (``, '') matches any one quote character of the text
    and a typographic or plain quote matches ``/'' in the text."""
    spans, at, n = [], 0, len(text)
    for token in tokens:
        while at < n and text[at].isspace():
            at += 1
        if text.startswith(token, at) and not QUOTE_OR_SPACE.search(token):
            spans.append((at, at + len(token)))
            at += len(token)
            continue
        target = squash(token)
        start, done = at, ""
        while len(done) < len(target) and at < n:
            if text[at].isspace():
                return None  # a token never spans white space
            two = text[at:at + 2]
            if two in (OPENING, CLOSING):
                done, at = done + QUOTE, at + 2
            else:
                done, at = done + PLAIN_CHARACTER.get(text[at], text[at]), at + 1
        if done != target:
            return None
        spans.append((start, at))
    while at < n and text[at].isspace():
        at += 1
    return spans if at == n else None


def _is_word(token: str) -> bool:
    """A word that stands alone in text: letters or digits at both ends and no apostrophe (so not a clitic such
    as "n't", which the detokenizer attaches)."""
    return bool(token) and token[0].isalnum() and token[-1].isalnum() and "'" not in token


@dataclass
class Writing:
    """How one pair's text writes its tokens: the spelling of each token (an opening and a closing quote apart),
    and the space (True) or none (False) between neighbours, learned from the sentences it is given (`learn`)."""

    spelling: dict[str, str] = field(default_factory=dict)
    gaps: dict[tuple[str, str], bool] = field(default_factory=dict)

    def learn(self, tokens: Sequence[str], text: str) -> bool:
        """Learn from `text` written as `tokens`; False (nothing learned) when the tokens do not spell it."""
        spans = align(tokens, text)
        if spans is None:
            return False
        quoted = _quotes_for_detokenizer(tokens)  # an opening and a closing quote may be spelled apart
        for k, (token, (start, end)) in enumerate(zip(tokens, spans)):
            self.spelling.setdefault(quoted[k], text[start:end])
            if k:
                self.gaps.setdefault((quoted[k - 1], quoted[k]), spans[k - 1][1] < start)
        return True

    def write(self, tokens: Sequence[str]) -> str:
        """`tokens` as text (the module's docstring says how)."""
        tokens = [token for token in tokens if token]
        if not tokens:
            return ""
        quoted = _quotes_for_detokenizer(tokens)
        parts = [self.spelling.get(quoted[0], tokens[0])]
        for k in range(1, len(tokens)):
            gap = self.gaps.get((quoted[k - 1], quoted[k]))
            if gap is None:
                gap = spaced(quoted[k - 1], quoted[k])
            parts.append((" " if gap else "") + self.spelling.get(quoted[k], tokens[k]))
        return "".join(parts)


@lru_cache(maxsize=1 << 16)
def spaced(left: str, right: str) -> bool:
    """Whether text has a space between the tokens `left` and `right` made neighbours: as NLTK's
    TreebankWordDetokenizer writes the two, except that two words are never fused into one."""
    if _is_word(left) and _is_word(right):
        return True
    return " " in detokenize([left, right])


def _quotes_for_detokenizer(tokens: Sequence[str]) -> list[str]:
    """Plain double quotes as PTB's opening and closing ones, alternately, so the detokenizer attaches each to the
    right side; any other token as it is."""
    out, opened = [], False
    for token in tokens:
        if token == QUOTE:
            out.append(CLOSING if opened else OPENING)
            opened = not opened
        else:
            out.append(token)
    return out


def pair_writing(sentences: Sequence[tuple[Sequence[str], str]]) -> Writing:
    """The writing of a pair learned from its sentences, each (tokens, text); a sentence whose tokens do not spell
    its text teaches nothing, and its tokens are then spaced by the detokenizer alone."""
    writing = Writing()
    for tokens, text in sentences:
        writing.learn(tokens, text)
    return writing
