"""The original pair, rendered one way for every configuration, so that it is scored once and "original" means
the same text in every column: the source's own text, white space squashed (what models were trained on).

Variants work on tokens, and compare their output with the original's tokens joined by single spaces (PTB escapes
undone): the premise takes the tokens of the build's parse; the hypothesis the tokens of its own tree
(sentence2_parse) when the build reads trees and the tree spells the sentence, else spaCy's English tokenizer,
which the text parsers (spacy, benepar) and the spaCy role labeler tokenize with: as shuffle-sr's default labeler
does. The pair's Writing (writing.py), learned from both sentences, writes a variant's tokens back as text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..parsing.base import Parse
from ..parsing.ptb import unescape
from ..parsing.ptb import spells
from ..parsing.spacy_pipeline import english_tokenizer
from ..sources.pair import Pair
from .writing import Writing, pair_writing, single_spaced

PRETERMINAL = re.compile(r"\(([^\s()]+) ([^\s()]+)\)")  # (TAG word): the leaves, without building the tree


def tree_tokens(bracketed: str) -> list[str]:
    return [unescape(word) for _, word in PRETERMINAL.findall(bracketed)]


def hypothesis_renderer(reads_trees: bool) -> Callable[[Pair], list[str]]:
    """How hypotheses are tokenized in a build whose parser reads trees (ptb) or text."""
    spacy_tokens = _spacy_tokens()

    def render(pair: Pair) -> list[str]:
        if reads_trees and pair.hypothesis_parse:
            tokens = tree_tokens(pair.hypothesis_parse)
            if tokens and spells(tokens, pair.hypothesis):
                return tokens
        return spacy_tokens(pair.hypothesis)

    return render


def _spacy_tokens() -> Callable[[str], list[str]]:
    """spaCy's English tokenizer, loaded on first use (a ptb build whose trees all spell their sentences never
    needs it)."""
    tokenizer = None

    def tokens(text: str) -> list[str]:
        nonlocal tokenizer
        if tokenizer is None:
            tokenizer = english_tokenizer()
        return [token.text for token in tokenizer(text) if not token.is_space]

    return tokens


@dataclass(slots=True)
class Original:
    """One pair's original, in the two forms the build needs."""

    tokens: tuple[str, str]  # (premise, hypothesis), tokens joined by single spaces: what variants compare with
    text: tuple[str, str]  # (premise, hypothesis) as the source writes them, white space squashed: what models read
    writing: Writing  # how this pair's text writes its tokens, for the perturbed sentences

    @property
    def premise_tokens(self) -> list[str]:
        """The parse's tokens, which a premise shuffle's permutation indexes (no token holds a space)."""
        return self.tokens[0].split(" ")

    def write(self, tokens: str) -> str:
        """A sentence of this pair's tokens, joined by single spaces as variants give them, written as text: a side
        the variant left as it was is the original's text."""
        for side in (0, 1):
            if tokens == self.tokens[side]:
                return self.text[side]
        return self.writing.write(tokens.split())


def render_original(pair: Pair, parse: Parse, hypothesis: Callable[[Pair], list[str]]) -> Original:
    premise_tokens, hypothesis_tokens = list(parse.tokens), hypothesis(pair)
    writing = pair_writing([(premise_tokens, pair.premise), (hypothesis_tokens, pair.hypothesis)])
    return Original((" ".join(premise_tokens), " ".join(hypothesis_tokens)),
                    (single_spaced(pair.premise), single_spaced(pair.hypothesis)), writing)
