"""Word shuffles: inside constituents of exactly N words (meaning kept), or over the whole premise (baseline)."""

from __future__ import annotations

from typing import Literal

from ..core.command_options import CommandOptions, option
from ..core.errors import SwapbenchError
from ..core.registry import VARIANTS
from ..parsing.base import Constituent, Parse
from ..sources.pair import Pair
from .base import Perturbed, Variant
from .contractions import binds, place_units, unit_words, word_units
from .randomness import ExampleRandom, changed_order

SCOPES = ("all", "one")
# The default scope, chosen by measurement on SNLI's test split (ptb trees; results/displacement.py defines the
# figures). Shuffling one constituent, the mean distance per row is 3.20 < 5.31 < 8.09 < 79.49 for shuffle-3, -4,
# -5 and -random, and tokens moved 2.40 < 3.15 < 4.03 < 12.92: a gradient on both. Shuffling every one, distance
# is 6.34, 7.40, 10.01 and tokens moved 4.74, 4.42, 4.96: a premise holds more constituents of 3 words than of 5,
# so shuffle-3 moves more tokens than shuffle-4 and the sizes mostly measure how many spans were shuffled. The
# paper shuffled one.
DEFAULT_SCOPE = "one"
# The sizes whose configurations the matched slice compares: the paper's shuffle-3, -4 and -5.
MATCHED_SIZES = (3, 4, 5)
MATCHED_TAG = f"matched:{MATCHED_SIZES[0]}-{MATCHED_SIZES[-1]}"
# A bound on N that refuses absurd values: SNLI's test premises have at most 54 words.
MIN_WORDS, MAX_WORDS = 2, 64


def shuffle_positions(
    positions: tuple[int, ...], folded: tuple[str, ...], permutation: list[int], rng: ExampleRandom
) -> bool:
    """Shuffle the words at `positions` (`folded`: those words casefolded) among themselves, in `permutation`, a
    contraction's "n't" moving with its host, and the halves of a split word together (contractions.py); False if
    their order cannot change."""
    if binds(folded):
        units = word_units(positions, folded)
        order = changed_order(unit_words(units, folded), rng)
        if order is None:
            return False
        place_units(positions, units, order, permutation)
        return True
    order = changed_order(folded, rng)
    if order is None:
        return False
    for slot, k in zip(positions, order):
        permutation[slot] = positions[k]
    return True


class ShuffleOptions(CommandOptions):
    shuffle_scope: Literal["all", "one"] = option(
        DEFAULT_SCOPE,
        help="shuffle one constituent of N words in a premise, drawn at random among those whose "
        "order can change (one, as the paper did), or every one (all)",
    )


def changeable(parse: Parse, size: int) -> tuple:
    """The constituents of `size` words whose order can change (not all one word, case aside)."""
    return parse.reorderable_phrases(size)


def matched(parse: Parse) -> bool:
    """Whether the premise has a changeable constituent of every size in MATCHED_SIZES: then shuffle-3, -4, -5 and
    shuffle-random each have a row for every pair of this premise, whatever the scope, and the rows tagged
    MATCHED_TAG compare the sizes on the same pairs."""
    return all(changeable(parse, size) for size in MATCHED_SIZES)


MATCHED_DESCRIPTION = (
    MATCHED_TAG,
    f"shuffle-N and shuffle-random: the premise has a constituent of every size "
    f"{', '.join(map(str, MATCHED_SIZES))} whose words can be reordered, so "
    f"shuffle-{MATCHED_SIZES[0]} to -{MATCHED_SIZES[-1]} and shuffle-random all have "
    "this pair: their slices under this tag compare the sizes on the same pairs",
)


@VARIANTS.register(
    "shuffle-N",
    pattern=r"shuffle-(0|[1-9][0-9]*)",
    help=f"words shuffled inside NP/VP/PP/ADVP/ADJP constituents of exactly N words "
    f"({MIN_WORDS} <= N <= {MAX_WORDS}; --shuffle-scope: every one or one)",
)
class ConstituencyShuffle(Variant):
    """shuffle-N: words move only among themselves inside NP/VP/PP/ADVP/ADJP constituents of exactly N words.

    Punctuation does not count as a word and stays in place. Constituents of N words never partially overlap
    (a tree's constituents nest or are disjoint, and nested ones of equal word count hold the same words), so
    with scope "all" every such constituent is shuffled; with scope "one" a single one, drawn at random.
    A constituent whose words are all identical cannot change and is passed over (never drawn).
    """

    def __init__(self, size: int, scope: str = DEFAULT_SCOPE):
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {SCOPES}, not {scope!r}")
        self.size = size
        self.scope = scope
        self.name = f"shuffle-{size}"
        self.description = (
            f"words shuffled inside {'every' if scope == 'all' else 'one'} NP/VP/PP/ADVP/ADJP "
            f"constituent of exactly {size} words; label unchanged"
        )

    Options = ShuffleOptions
    usage = f"shuffle-N ({MIN_WORDS} <= N <= {MAX_WORDS})"
    paper_settings = {"shuffle_scope": "scope"}
    column_descriptions = {
        "moved_spans": "shuffle-N: the constituents whose words were shuffled, each with its "
        "label (NP, VP, PP, ADVP, ADJP), token span [start, end) in "
        "`premise_tokens` and text"
    }
    tag_descriptions = {
        "moved": (
            "moved:N",
            (
                "shuffle-N: N constituents were shuffled in the premise (constituents, not the "
                "tokens that the predictions' `moved` counts)"
            ),
        ),
        "label": ("label:X", "shuffle-N: a constituent with label X (NP, VP, PP, ADVP, ADJP) was shuffled"),
        "matched": MATCHED_DESCRIPTION,
    }
    card_limitations = (
        "Shuffled premises are often ungrammatical, and shuffles inside a constituent can keep or "
        "change the meaning; the label is carried over unchanged, so some shuffle-N labels are "
        "wrong.",
    )

    @classmethod
    def create(cls, name: str, options: ShuffleOptions) -> ConstituencyShuffle:
        size = int(VARIANTS.lookup(name)[1].group(1))
        if not MIN_WORDS <= size <= MAX_WORDS:
            raise SwapbenchError(
                f"--variants: {name!r} asks for constituents of {size} words; a constituency "
                f"shuffle takes constituents of at least {MIN_WORDS} words and at most {MAX_WORDS}"
            )
        return cls(size, scope=options.shuffle_scope)

    @classmethod
    def record(cls, options: ShuffleOptions, built: bool) -> dict:
        # Recorded whether or not a shuffle-N was built: the results file and the leaderboard's reference carry it.
        return {"shuffle_scope": options.shuffle_scope}

    @classmethod
    def card_notes(cls, info) -> list[str]:
        how = (
            "every NP/VP/PP/ADVP/ADJP constituent of exactly N words"
            if info.shuffle_scope == "all"
            else "one NP/VP/PP/ADVP/ADJP constituent of exactly N words, drawn among those whose words can be "
            "reordered, as the paper did"
        )
        return [
            f"- Constituency shuffles move words inside {how} (`--shuffle-scope {info.shuffle_scope}`; "
            f"`--shuffle-scope {'one' if info.shuffle_scope == 'all' else 'all'}` shuffles "
            f"{'one' if info.shuffle_scope == 'all' else 'every one'}); punctuation never counts as a word and "
            "stays in place. The shuffled order always differs from the original."
        ]

    @property
    def extra_features(self):
        import datasets  # (not at import: `swapbench build --help` imports the variants)

        return {
            "moved_spans": [
                {
                    "label": datasets.Value("string"),
                    "start": datasets.Value("int32"),
                    "end": datasets.Value("int32"),
                    "text": datasets.Value("string"),
                }
            ]
        }

    def targets(self, parse: Parse) -> list[Constituent]:
        """The distinct word sets this variant may shuffle, outermost label first, in sentence order."""
        return [phrase.span for phrase in parse.shuffle_phrases(self.size)]

    def apply(self, pair: Pair, parse: Parse, rng: ExampleRandom) -> Perturbed | None:
        candidates = changeable(parse, self.size)
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
        tags = sorted({"label:" + m["label"] for m in moved}) + [f"moved:{len(moved)}"] + _matched_tag(parse)
        return _perturbed(pair, parse, permutation, tags, {"moved_spans": moved})


@VARIANTS.register("shuffle-random", help="every premise word shuffled, punctuation in place (the baseline)")
class RandomShuffle(Variant):
    """shuffle-random: every word of the premise shuffled, punctuation kept in place; the baseline."""

    name = "shuffle-random"
    description = "all premise words shuffled, punctuation kept in place; label unchanged"
    tag_descriptions = {
        "words": ("words:N", "shuffle-random: the premise's N words (punctuation excluded) were shuffled"),
        "matched": MATCHED_DESCRIPTION,
    }

    def apply(self, pair: Pair, parse: Parse, rng: ExampleRandom) -> Perturbed | None:
        positions = parse.word_positions
        permutation = list(range(len(parse.tokens)))
        if not shuffle_positions(positions, parse.folded_words, permutation, rng):
            return None
        return _perturbed(pair, parse, permutation, [f"words:{len(positions)}", *_matched_tag(parse)])


def _matched_tag(parse: Parse) -> list[str]:
    return [MATCHED_TAG] if matched(parse) else []


def _perturbed(pair: Pair, parse: Parse, permutation: list[int], tags: list[str], extra: dict | None = None):
    """A premise shuffle: hypothesis and label stay as they were."""
    tokens = parse.tokens
    return Perturbed(
        " ".join([tokens[k] for k in permutation]), pair.hypothesis, pair.label, permutation, tags, extra or {}
    )
