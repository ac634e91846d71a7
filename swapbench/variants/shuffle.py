"""Word shuffles: inside constituents of exactly N words (meaning kept), or over the whole premise (baseline)."""

from __future__ import annotations

import datasets

from ..core.errors import SwapbenchError
from ..parsing.base import Constituent, Parse
from ..core.registry import VARIANTS
from ..sources.pair import Pair
from .base import Perturbed, Variant
from .randomness import ExampleRandom, changed_order

SCOPES = ("all", "one")
# A bound on N that refuses absurd values: SNLI's test premises have at most 54 words.
MIN_WORDS, MAX_WORDS = 2, 64

MOVED_SPAN = {"label": datasets.Value("string"), "start": datasets.Value("int32"), "end": datasets.Value("int32"),
              "text": datasets.Value("string")}


def shuffle_positions(positions: tuple[int, ...], folded: tuple[str, ...], permutation: list[int],
                      rng: ExampleRandom) -> bool:
    """Shuffle the words at `positions` (`folded`: those words casefolded) among themselves, in `permutation`;
    False if their order cannot change."""
    order = changed_order(folded, rng)
    if order is None:
        return False
    for slot, k in zip(positions, order):
        permutation[slot] = positions[k]
    return True


class ConstituencyShuffle(Variant):
    """shuffle-N: words move only among themselves inside NP/VP/PP/ADVP/ADJP constituents of exactly N words.

    Punctuation does not count as a word and stays in place. Constituents of N words never partially overlap
    (a tree's constituents nest or are disjoint, and nested ones of equal word count hold the same words), so
    with scope "all" every such constituent is shuffled; with scope "one" a single one, drawn at random.
    A constituent whose words are all identical cannot change and is passed over.
    """

    def __init__(self, size: int, scope: str = "all"):
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {SCOPES}, not {scope!r}")
        self.size = size
        self.scope = scope
        self.name = f"shuffle-{size}"
        self.description = (f"words shuffled inside {'every' if scope == 'all' else 'one'} NP/VP/PP/ADVP/ADJP "
                            f"constituent of exactly {size} words; label unchanged")

    @property
    def extra_features(self):
        return {"moved_spans": [MOVED_SPAN]}

    def targets(self, parse: Parse) -> list[Constituent]:
        """The distinct word sets this variant may shuffle, outermost label first, in sentence order."""
        return [phrase.span for phrase in parse.shuffle_phrases(self.size)]

    def apply(self, pair: Pair, parse: Parse, rng: ExampleRandom) -> Perturbed | None:
        candidates = parse.shuffle_phrases(self.size)
        if not candidates:
            return None
        if self.scope == "one":
            candidates = [candidates[rng.below(len(candidates))]]
        permutation = list(range(len(parse.tokens)))
        moved = []
        for span, positions, folded, text in candidates:
            if shuffle_positions(positions, folded, permutation, rng):
                moved.append({"label": span.label, "start": span.start, "end": span.end, "text": text})
        if not moved:
            return None
        tags = sorted({"label:" + m["label"] for m in moved}) + [f"moved:{len(moved)}"]
        return _perturbed(pair, parse, permutation, tags, {"moved_spans": moved})


class RandomShuffle(Variant):
    """shuffle-random: every word of the premise shuffled, punctuation kept in place; the baseline."""

    name = "shuffle-random"
    description = "all premise words shuffled, punctuation kept in place; label unchanged"

    def apply(self, pair: Pair, parse: Parse, rng: ExampleRandom) -> Perturbed | None:
        positions = parse.word_positions
        permutation = list(range(len(parse.tokens)))
        if not shuffle_positions(positions, parse.folded_words, permutation, rng):
            return None
        return _perturbed(pair, parse, permutation, [f"words:{len(positions)}"])


def _perturbed(pair: Pair, parse: Parse, permutation: list[int], tags: list[str], extra: dict | None = None):
    """A premise shuffle: hypothesis and label stay as they were."""
    tokens = parse.tokens
    return Perturbed(" ".join([tokens[k] for k in permutation]), pair.hypothesis, pair.label, permutation, tags,
                     extra or {})


@VARIANTS.register("shuffle-N", pattern=r"shuffle-(0|[1-9][0-9]*)",
                   help=f"words shuffled inside NP/VP/PP/ADVP/ADJP constituents of exactly N words "
                        f"({MIN_WORDS} <= N <= {MAX_WORDS}; --shuffle-scope: every one or one)")
def make_constituency_shuffle(name: str, scope: str = "all", **options) -> ConstituencyShuffle:
    size = int(VARIANTS.lookup(name)[1].group(1))
    if not MIN_WORDS <= size <= MAX_WORDS:
        raise SwapbenchError(f"--variants: {name!r} asks for constituents of {size} words; a constituency "
                             f"shuffle takes constituents of at least {MIN_WORDS} words and at most {MAX_WORDS}")
    return ConstituencyShuffle(size, scope=scope)


make_constituency_shuffle.usage = f"shuffle-N ({MIN_WORDS} <= N <= {MAX_WORDS})"  # type: ignore[attr-defined]


@VARIANTS.register(RandomShuffle.name, help="every premise word shuffled, punctuation in place (the baseline)")
def make_random_shuffle(name: str, **options) -> RandomShuffle:
    return RandomShuffle()
