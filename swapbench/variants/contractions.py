"""A contraction moves as one word: "n't" goes where its host goes, and so does every word the text fused.

Treebank tokenization splits "doesn't" into "does" and "n't", "cannot" into "can" and "not", and SNLI's trees do
too. Shuffled apart, "n't" attaches to whatever word lands before it ("streetn't", "then't": the writer attaches
clitics to the word before, as text writes them), and "can" and "not" are written as two words: a model's
tokenizer then reads words that the original never had. WordPiece reads "doesn't" as doesn ' t, and "does ...
streetn't" as does ... streetn ' t, not a reordering of the same pieces. So the shuffles and UNLU's permutations
move a host and its "n't", and the halves of a word that Treebank tokenization splits ("can" "not", "gon" "na",
the detokenizer's contractions), together as one unit: the words of a row are then its original's words in another
order, under any tokenizer. (UNLU's own code splits on spaces, so "doesn't" is one word there too.) Other clitics
("'s", "'ll", "'re") attach to any word without changing it, and move alone as before.

A sentence without such a token has one unit per word, in order, and is shuffled exactly as before.
"""

from __future__ import annotations

from collections.abc import Sequence

CLITIC = "n't"  # casefolded
# The words Treebank tokenization splits in two (treebank_spacing._CONTRACTIONS2, casefolded): the second half
# moves with the first.
SPLIT_WORDS = frozenset({("can", "not"), ("gon", "na"), ("got", "ta"), ("gim", "me"), ("lem", "me"), ("wan", "na")})
# The tokens that may join the word before them: a sentence without any is shuffled word by word.
BOUND = frozenset({CLITIC, *(second for _, second in SPLIT_WORDS)})


def binds(folded: Sequence[str]) -> bool:
    """Whether any token of `folded` (casefolded words) may be bound to the word before it."""
    return not BOUND.isdisjoint(folded)


def word_units(positions: Sequence[int], folded: Sequence[str]) -> list[tuple[int, ...]]:
    """The units that move, each a tuple of indices into `positions` (`folded`: the words there, casefolded): a
    "n't", or the second half of a split word (SPLIT_WORDS), joins the word just before it when that word is among
    `positions` and its neighbour; a "n't" whose host is not among them (a constituent that starts with it) stays
    where it is, in no unit."""
    units: list[tuple[int, ...]] = []
    for i, word in enumerate(folded):
        joined = (
            units
            and units[-1][-1] == i - 1
            and positions[i - 1] == positions[i] - 1
            and (word == CLITIC or (folded[i - 1], word) in SPLIT_WORDS)
        )
        if joined:
            units[-1] = (*units[-1], i)
        elif word != CLITIC:
            units.append((i,))
    return units


def unit_words(units: Sequence[tuple[int, ...]], folded: Sequence[str]) -> tuple[str, ...]:
    """Each unit's words as one key (its words joined by a space): two units are alike when their words are."""
    return tuple(" ".join(folded[i] for i in unit) for unit in units)


def place_units(
    positions: Sequence[int], units: Sequence[tuple[int, ...]], order: Sequence[int], permutation: list[int]
) -> None:
    """Set `permutation` (token k of the result is token permutation[k] of the sentence) so that the units, read in
    sentence order, are the units in `order` (unit slot s gets unit order[s]'s words, in their own order), each
    unit's words neighbours. Between the first and the last of `positions`, every other token (punctuation, a
    "n't" left in place) keeps its place among the units: it follows as many units as before. Where every unit is
    one word, that is its own position."""
    first_of = {positions[unit[0]]: slot for slot, unit in enumerate(units)}
    members = {positions[i] for unit in units for i in unit}
    start, end = positions[0], positions[-1] + 1
    written: list[int] = []
    for k in range(start, end):
        if k in first_of:
            written.extend(positions[i] for i in units[order[first_of[k]]])
        elif k not in members:
            written.append(permutation[k])
    permutation[start:end] = written
