"""The original pair, rendered one way for every configuration, so that it is scored once and "original" means
the same text in every column: tokens joined by single spaces, PTB escapes undone.

The premise takes the tokens of the build's parse; the hypothesis the tokens of its own tree (sentence2_parse)
when the build reads trees and the tree spells the sentence (else the text as read), or spaCy's English
tokenizer, which the text parsers (spacy, benepar) tokenize with.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..parsing.base import Parse
from ..parsing.ptb import unescape
from ..roles.tree_roles import spells
from ..snli import Pair

PRETERMINAL = re.compile(r"\(([^\s()]+) ([^\s()]+)\)")  # (TAG word): the leaves, without building the tree


def tree_tokens(bracketed: str) -> list[str]:
    return [unescape(word) for _, word in PRETERMINAL.findall(bracketed)]


def hypothesis_renderer(reads_trees: bool) -> Callable[[Pair], str]:
    """How hypotheses are tokenized in a build whose parser reads trees (ptb) or text."""
    if reads_trees:
        return _tree_rendering
    import spacy

    tokenizer = spacy.blank("en").tokenizer
    return lambda pair: " ".join(token.text for token in tokenizer(pair.hypothesis) if not token.is_space)


def _tree_rendering(pair: Pair) -> str:
    tokens = tree_tokens(pair.hypothesis_parse) if pair.hypothesis_parse else []
    return " ".join(tokens) if tokens and spells(tokens, pair.hypothesis) else pair.hypothesis


def render_original(pair: Pair, parse: Parse, hypothesis: Callable[[Pair], str]) -> tuple[str, str]:
    return " ".join(parse.tokens), hypothesis(pair)
