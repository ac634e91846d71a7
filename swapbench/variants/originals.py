"""The original pair, rendered one way for every configuration, so that it is scored once and "original" means
the same text in every column: tokens joined by single spaces, PTB escapes undone.

The premise takes the tokens of the build's parse; the hypothesis the tokens of its own tree (sentence2_parse)
when the build reads trees and the tree spells the sentence, else spaCy's English tokenizer, which the text
parsers (spacy, benepar) and the spaCy role labeler tokenize with: as shuffle-sr's default labeler does.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..parsing.base import Parse
from ..parsing.ptb import unescape
from ..parsing.ptb import spells
from ..parsing.spacy_pipeline import english_tokenizer
from ..sources.pair import Pair

PRETERMINAL = re.compile(r"\(([^\s()]+) ([^\s()]+)\)")  # (TAG word): the leaves, without building the tree


def tree_tokens(bracketed: str) -> list[str]:
    return [unescape(word) for _, word in PRETERMINAL.findall(bracketed)]


def hypothesis_renderer(reads_trees: bool) -> Callable[[Pair], str]:
    """How hypotheses are tokenized in a build whose parser reads trees (ptb) or text."""
    spacy_tokens = _spacy_tokens()

    def render(pair: Pair) -> str:
        if reads_trees and pair.hypothesis_parse:
            tokens = tree_tokens(pair.hypothesis_parse)
            if tokens and spells(tokens, pair.hypothesis):
                return " ".join(tokens)
        return " ".join(spacy_tokens(pair.hypothesis))

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


def render_original(pair: Pair, parse: Parse, hypothesis: Callable[[Pair], str]) -> tuple[str, str]:
    return " ".join(parse.tokens), hypothesis(pair)
