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
from itertools import islice

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
            two = text[at : at + 2]
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
    # spaced() of the neighbours the text did not have, as they are met: a dictionary that the pairs of one build
    # share (pair_writing's `spacing`), since a lookup costs less than a call, and that is dropped with them.
    spacing: dict[tuple[str, str], bool] = field(default_factory=dict, repr=False, compare=False)

    def learn(self, tokens: Sequence[str], text: str) -> bool:
        """Learn from `text` written as `tokens`; False (nothing learned) when the tokens do not spell it."""
        spans = align(tokens, text)
        if spans is None:
            return False
        quoted = _quotes_for_detokenizer(tokens)  # an opening and a closing quote may be spelled apart
        for k, (_token, (start, end)) in enumerate(zip(tokens, spans)):
            self.spelling.setdefault(quoted[k], text[start:end])
            if k:
                self.gaps.setdefault((quoted[k - 1], quoted[k]), spans[k - 1][1] < start)
        return True

    def write(self, tokens: Sequence[str]) -> str:
        """`tokens` as text (the module's docstring says how)."""
        tokens = [token for token in tokens if token]
        if not tokens:
            return ""
        quoted = _quotes_for_detokenizer(tokens) if QUOTE in tokens else tokens
        spelling, gaps = self.spelling.get, self.gaps.get
        parts = [spelling(quoted[0], tokens[0])]
        for neighbours, token in zip(zip(quoted, islice(quoted, 1, None)), islice(tokens, 1, None)):
            gap = gaps(neighbours)
            if gap is None:
                gap = self._new_neighbours(neighbours)
            if gap:
                parts.append(" ")
            parts.append(spelling(neighbours[1], token))
        return "".join(parts)

    def positions(self, tokens: Sequence[str]) -> Positions | None:
        """What write() looks up for `tokens`, by position, for write_order(); None where write() would read the
        tokens otherwise: a quote (its opening or closing form depends on the order) or a token that is empty or
        holds white space (a side is split on white space)."""
        tokens = list(tokens)
        if QUOTE in tokens or " ".join(tokens).split() != tokens:  # a quote, an empty token, or white space in one
            return None
        gaps = self.gaps.get
        fused = frozenset(
            neighbours
            for neighbours, gap in self.gaps.items()
            if not gap and _is_word(neighbours[0]) and _is_word(neighbours[1])
        )
        return Positions(
            tokens,
            [self.spelling.get(token, token) for token in tokens],
            [gaps(neighbours) for neighbours in zip(tokens, tokens[1:])],
            [_is_word(token) for token in tokens],
            fused,
        )

    def write_order(self, positions: Positions, order: Sequence[int]) -> str:
        """write([positions.tokens[k] for k in order]), exactly, with fewer lookups: a permuted sentence keeps most
        of its neighbours, whose gap is read by position, and two words made neighbours are spaced unless the text
        fused them (write() finds the same: the learned gap, else spaced(), which spaces two words)."""
        tokens, spelled, after, word, fused = (
            positions.tokens,
            positions.spelled,
            positions.after,
            positions.word,
            positions.fused,
        )
        gaps = self.gaps.get
        previous = order[0]
        parts = [spelled[previous]]
        for k in islice(order, 1, None):
            if k == previous + 1:
                gap = after[previous]
            elif word[previous] and word[k]:
                gap = not fused or (tokens[previous], tokens[k]) not in fused
            else:
                gap = None
            if gap is None:
                neighbours = (tokens[previous], tokens[k])
                gap = gaps(neighbours)
                if gap is None:
                    gap = self._new_neighbours(neighbours)
            if gap:
                parts.append(" ")
            parts.append(spelled[k])
            previous = k
        return "".join(parts)

    def _new_neighbours(self, neighbours: tuple[str, str]) -> bool:
        """spaced() of neighbours the text did not have, from the decisions the build's pairs share."""
        gap = self.spacing.get(neighbours)
        if gap is None:
            gap = self.spacing[neighbours] = spaced(*neighbours)
        return gap


@dataclass(slots=True)
class Positions:
    """A sentence's tokens as one Writing writes them (Writing.positions): each token's spelling, the gap the
    writing has learned after each (None where it has learned none), whether each is a word (_is_word), and the
    pairs of words that the text wrote fused ("can" "not" of "cannot")."""

    tokens: list[str]
    spelled: list[str]
    after: list[bool | None]
    word: list[bool]
    fused: frozenset[tuple[str, str]]


def spaced(left: str, right: str) -> bool:
    """Whether text has a space between the tokens `left` and `right` made neighbours: as NLTK's
    TreebankWordDetokenizer writes the two, except that two words are never fused into one."""
    return _spaced_shapes(_shape(left), _shape(right))


# The words that the detokenizer's contraction rules name (treebank_spacing._CONTRACTIONS2/3), casefolded.
_NAMED_WORDS = frozenset({"can", "not", "d", "gim", "me", "gon", "na", "got", "ta", "lem", "more", "wan", "is", "was"})


def _shape(token: str) -> str:
    """A token as the detokenizer's rules see it: any other token of letters and digits alone matches them exactly
    as "x" does (the rules name no other word, and read such characters only as word characters, which \\b, \\s
    and their classes treat alike), so the decisions are computed once per shape, not per pair of words."""
    return "x" if token.isalnum() and token.lower() not in _NAMED_WORDS else token


@lru_cache(maxsize=1 << 12)
def _spaced_shapes(left: str, right: str) -> bool:
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


def pair_writing(sentences: Sequence[tuple[Sequence[str], str]], spacing: dict | None = None) -> Writing:
    """The writing of a pair learned from its sentences, each (tokens, text); a sentence whose tokens do not spell
    its text teaches nothing, and its tokens are then spaced by the detokenizer alone. `spacing`: the dictionary of
    spaced() decisions that the pairs of one build share (Writing.spacing)."""
    writing = Writing(spacing=spacing if spacing is not None else {})
    for tokens, text in sentences:
        writing.learn(tokens, text)
    return writing
