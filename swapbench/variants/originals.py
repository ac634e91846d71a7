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
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..parsing.base import Parse
from ..parsing.ptb import spells, unescape
from ..parsing.spacy_pipeline import english_tokenizer
from ..sources.pair import Pair
from .writing import Positions, Writing, pair_writing, single_spaced

PRETERMINAL = re.compile(r"\(([^\s()]+) ([^\s()]+)\)")  # (TAG word): the leaves, without building the tree


def tree_tokens(bracketed: str) -> list[str]:
    return [unescape(word) for _, word in PRETERMINAL.findall(bracketed)]


@dataclass(slots=True)
class Original:
    """One pair's original, in the two forms the build needs."""

    tokens: tuple[str, str]  # (premise, hypothesis), tokens joined by single spaces: what variants compare with
    text: tuple[str, str]  # (premise, hypothesis) as the source writes them, white space squashed: what models read
    writing: Writing  # how this pair's text writes its tokens, for the perturbed sentences
    # Derived from the above on first use: premise_tokens, and the premise's tokens by position
    # (Writing.positions; False: not made yet), made on the first permutation written.
    _premise_tokens: list[str] | None = field(default=None, repr=False, compare=False)
    _premise_positions: Positions | None | bool = field(default=False, repr=False, compare=False)

    @property
    def premise_tokens(self) -> list[str]:
        """The parse's tokens, which a premise shuffle's permutation indexes (no token holds a space): one list,
        which every row of the pair holds (read-only)."""
        if self._premise_tokens is None:
            self._premise_tokens = self.tokens[0].split(" ")
        return self._premise_tokens

    def write(self, tokens: str, permutation: Sequence[int] = ()) -> str:
        """A sentence of this pair's tokens, joined by single spaces as variants give them, written as text: a side
        the variant left as it was is the original's text. `permutation`, where the sentence is the premise's
        tokens permuted (token k is premise token permutation[k], Perturbed.permutation), makes the same text
        faster."""
        for side in (0, 1):
            if tokens == self.tokens[side]:
                return self.text[side]
        if permutation:
            if self._premise_positions is False:
                self._premise_positions = self.writing.positions(self.premise_tokens)
            if self._premise_positions is not None:
                return self.writing.write_order(self._premise_positions, permutation)
        return self.writing.write(tokens.split())


class OriginalRenderer:
    """Renders the originals of one build's pairs (`render(pair, parse)`), in a build whose parser reads trees (ptb)
    or text. The pairs share what does not depend on the pair: a premise's writing is learned once however many
    pairs share it (SNLI's about three), and spaced() decisions are shared, then dropped with the renderer's
    originals (what outlives the build is writing.py's bounded memo of decisions by token shape, a few hundred)."""

    def __init__(self, reads_trees: bool):
        self.reads_trees = reads_trees
        self.spacing: dict[tuple[str, str], bool] = {}
        self._premises: dict[tuple[tuple[str, ...], str], Writing] = {}
        self._tokenizer = None  # spaCy's English tokenizer, loaded on first use: a ptb build whose trees all spell
        # their sentences never needs it

    def hypothesis_tokens(self, pair: Pair) -> list[str]:
        """The hypothesis's tokens: its tree's when the build reads trees and the tree spells it, else spaCy's."""
        if self.reads_trees and pair.hypothesis_parse:
            tokens = tree_tokens(pair.hypothesis_parse)
            if tokens and spells(tokens, pair.hypothesis):
                return tokens
        if self._tokenizer is None:
            self._tokenizer = english_tokenizer()
        return [token.text for token in self._tokenizer(pair.hypothesis) if not token.is_space]

    def render(self, pair: Pair, parse: Parse) -> Original:
        premise_tokens, hypothesis_tokens = parse.tokens, self.hypothesis_tokens(pair)
        key = (tuple(premise_tokens), pair.premise)
        premise = self._premises.get(key)
        if premise is None:
            premise = self._premises[key] = pair_writing([(premise_tokens, pair.premise)], self.spacing)
        writing = Writing(dict(premise.spelling), dict(premise.gaps), self.spacing)
        writing.learn(hypothesis_tokens, pair.hypothesis)
        return Original(
            (" ".join(premise_tokens), " ".join(hypothesis_tokens)),
            (single_spaced(pair.premise), single_spaced(pair.hypothesis)),
            writing,
        )
