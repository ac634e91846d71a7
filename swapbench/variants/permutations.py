"""unlu: K permutations of every pair, for the permutation acceptance of Sinha et al., "UnNatural Language
Inference" (ACL 2021; code: facebookresearch/UNLU).

UNLU scores many word orders of each pair and asks how often the model still gives the gold label
(evaluation/acceptance.py computes its metrics). Its permutations are made as UNLU's code makes them
(codes/word_randomization.py, `randomize` and `fixed_shuffle_numpy`, with config.yaml's data_prep_config):

- both sentences are permuted (`keep_premise: False`); `--unlu-sides premise` permutes the premise alone, UNLU's
  `keep_premise` turned the other way round (it kept the premise and permuted the hypothesis: here the premise,
  which carries the content, is what moves);
- punctuation stays in place (`retain_punct: True`), every word moves (`percent: 1.0`, `keep_order: 0.0`); a
  contraction is one word, as UNLU's split on spaces makes "doesn't": its "n't" moves with its host
  (contractions.py), so that no "n't" is written onto another word;
- no word stays at its position: each permutation of a sentence's words is a derangement (fixed_shuffle_numpy
  draws until no position keeps its own index);
- the K permutations of a sentence are distinct: UNLU drew 100 with replacement and kept only the pairs whose
  draws were all distinct, on both sides (config.yaml `hyp_distinct_perm`, `prem_distinct_perm`; print_stats).
  Here K distinct derangements are drawn without replacement, so a pair is kept exactly when each permuted side
  has at least K derangements of its words (at least 5 words for K = 10, 6 for K = 100), where UNLU's filter also
  dropped, by chance, pairs whose draws collided.

Each permutation is drawn by the pair's own generator (randomness.py), and the K rows of a pair share its
pairID; `permutation_index` tells them apart, and the predictions file keys them by (pair, permutation).
"""

from __future__ import annotations

import functools
import itertools
from typing import Literal

from ..core.command_options import CommandOptions, option
from ..core.registry import VARIANTS
from ..parsing.base import Parse
from ..parsing.ptb import is_punctuation
from ..sources.pair import Pair
from .base import Perturbed, Variant
from .contractions import place_units, word_units
from .randomness import ExampleRandom

UNLU_PERMUTATIONS = 100  # what UNLU drew per pair
# The default K: 10 permutations add about one scored pair per original pair kept, which a CPU runs in minutes on
# SNLI's test split; UNLU's 100 take ten times that. Omega_max grows with K (more draws, more chances of one
# correct), so figures at different K are not comparable: the results record K.
DEFAULT_PERMUTATIONS = 10
MAX_PERMUTATIONS = 1000
SIDES = ("both", "premise")
# Sentences of up to this many words have their derangements listed (1,854 for 7 words) and K drawn among them
# without replacement; longer ones are drawn by rejection, which with at least 14,833 derangements rarely repeats.
LISTED_WORDS = 7


class PermutationOptions(CommandOptions):
    unlu_permutations: int = option(
        DEFAULT_PERMUTATIONS,
        ge=2,
        le=MAX_PERMUTATIONS,
        metavar="K",
        help=f"unlu: distinct permutations per pair (UNLU drew {UNLU_PERMUTATIONS}; Omega_max grows with K)",
    )
    unlu_sides: Literal["both", "premise"] = option(
        "both", help="unlu: permute both sentences (as UNLU did) or the premise alone"
    )
    unlu_draws: Literal["distinct", "unlu", "repeated"] = option(
        "distinct",
        exclude_if=lambda value: value == "distinct",
        help="unlu: how a pair's K permutations are drawn, which decides the pairs kept. distinct: K distinct "
        "derangements without replacement, a pair kept exactly when each permuted sentence has K (5 words "
        "for K = 10); unlu: K drawn independently, a pair kept only when its draws do not repeat on either "
        "side, UNLU's choice (hyp_distinct_perm, prem_distinct_perm), which also drops longer sentences by "
        "chance; repeated: K drawn independently and kept even when they repeat, so short sentences (2 words "
        "and up) stay",
    )


@functools.cache
def derangement_count(n: int) -> int:
    """Orders of n items that leave none in its place: D(n) = (n - 1)(D(n - 1) + D(n - 2))."""
    return 1 if n == 0 else 0 if n == 1 else (n - 1) * (derangement_count(n - 1) + derangement_count(n - 2))


@functools.cache
def _derangements(n: int) -> tuple[tuple[int, ...], ...]:
    return tuple(p for p in itertools.permutations(range(n)) if all(i != k for i, k in enumerate(p)))


def distinct_derangements(n: int, k: int, rng: ExampleRandom) -> list[tuple[int, ...]] | None:
    """K distinct derangements of range(n), uniformly drawn without replacement; None when there are fewer."""
    if derangement_count(n) < k:
        return None
    if n <= LISTED_WORDS:
        listed = _derangements(n)
        # A partial Fisher-Yates shuffle of the list's indices: the first k of a uniform order.
        moved: dict[int, int] = {}
        chosen = []
        for i in range(k):
            j = i + rng.below(len(listed) - i)
            chosen.append(listed[moved.get(j, j)])
            moved[j] = moved.get(i, i)
        return chosen
    found: dict[tuple[int, ...], None] = {}
    while len(found) < k:
        order = tuple(rng.permutation(n))
        if all(i != p for i, p in enumerate(order)):
            found.setdefault(order)
    return list(found)


def independent_derangements(n: int, k: int, rng: ExampleRandom, *, distinct: bool) -> list[tuple[int, ...]] | None:
    """K derangements of range(n), each drawn uniformly on its own (with replacement), as UNLU's seeds drew theirs;
    None when there are fewer than 2 items (no order moves every one), and with `distinct` when two draws are the
    same order (UNLU then dropped the pair)."""
    if n < 2:
        return None
    drawn = []
    for _ in range(k):
        order = tuple(rng.permutation(n))
        while any(i == p for i, p in enumerate(order)):
            order = tuple(rng.permutation(n))
        drawn.append(order)
    return None if distinct and len(set(drawn)) < k else drawn


DRAWS = {
    "distinct": distinct_derangements,
    "unlu": functools.partial(independent_derangements, distinct=True),
    "repeated": functools.partial(independent_derangements, distinct=False),
}


def permuted_units(
    positions: tuple[int, ...], units: list[tuple[int, ...]], order: tuple[int, ...], length: int
) -> list[int]:
    """The permutation of a sentence of `length` tokens that puts at the word slots the word units (contractions:
    a "n't" with its host, else one word) in `order`, punctuation in place: token k of the result is token
    result[k] of the sentence."""
    result = list(range(length))
    place_units(positions, units, order, result)
    return result


@VARIANTS.register(
    "unlu",
    help="UNLU's permutation acceptance: K distinct permutations of every pair, every word "
    "moved, punctuation in place (--unlu-permutations, --unlu-sides)",
)
class Permutations(Variant):
    """unlu: K rows per pair, each a distinct derangement of the words of both sentences (or the premise alone)."""

    name = "unlu"
    Options = PermutationOptions
    refused_without = ("unlu_permutations", "unlu_sides", "unlu_draws")
    several_rows_per_pair = True
    column_descriptions = {
        "permutation_index": "unlu: which of the pair's K permutations the row is (0 to K - 1): a row is keyed by "
        "(pair_id, permutation_index)",
        "hypothesis_permutation": "unlu: token k of the hypothesis is token hypothesis_permutation[k] of the "
        "original hypothesis's tokens; [] where the hypothesis is not permuted",
    }
    tag_descriptions = {"words": ("words:N", "unlu: the premise's N words (punctuation excluded) were permuted")}
    card_limitations = (
        "unlu keeps only pairs whose permuted sentences each have at least K orders that move every "
        "word (5 words for K = 10, 6 for K = 100): the pairs left out are those whose hypothesis (or, "
        "rarely, premise) is too short for K distinct derangements, about 14% of SNLI test at "
        "K = 10, so its pairs are longer than the split's on average. UNLU dropped them too, and "
        "more: it drew its 100 orders independently and kept a pair only when they did not repeat "
        "(`--unlu-draws unlu`); `--unlu-draws repeated` keeps them, with repeated orders.",
        "UNLU's Omega_max grows with K: figures measured with other K (UNLU drew 100) are not comparable to these.",
    )

    def __init__(self, permutations: int = DEFAULT_PERMUTATIONS, sides: str = "both", draws: str = "distinct"):
        if sides not in SIDES:
            raise ValueError(f"sides must be one of {SIDES}, not {sides!r}")
        if draws not in DRAWS:
            raise ValueError(f"draws must be one of {tuple(DRAWS)}, not {draws!r}")
        self.permutations, self.sides, self.draws = permutations, sides, draws
        which = "both sentences" if sides == "both" else "the premise"
        drawn = {
            "distinct": "distinct permutations",
            "unlu": "permutations drawn independently, a pair kept when they do not repeat,",
            "repeated": "permutations drawn independently (repeats kept)",
        }[draws]
        self.description = (
            f"{permutations} {drawn} of the words of {which} per pair, every word "
            "moved, punctuation in place (UNLU); label unchanged"
        )
        self._hypothesis_tokens: dict[str, list[str]] = {}

    @classmethod
    def create(cls, name: str, options: PermutationOptions) -> Permutations:
        return cls(options.unlu_permutations, options.unlu_sides, options.unlu_draws)

    @classmethod
    def card_notes(cls, info) -> list[str]:
        chosen = info.variant_options.get("unlu", {})
        k = chosen.get("unlu_permutations", DEFAULT_PERMUTATIONS)
        sides = chosen.get("unlu_sides", "both")
        draws = chosen.get("unlu_draws", "distinct")
        which = "both sentences" if sides == "both" else "the premise alone"
        distinct = ", and a pair's permutations are distinct" if draws != "repeated" else ""
        notes = [
            f"- unlu holds {k} permutations of every pair it keeps ({which} permuted, `--unlu-permutations`, "
            "`--unlu-sides`), as Sinha et al. (2021) made theirs: every word "
            f"moves, punctuation stays{distinct}. Its rows share their pair's "
            "`pair_id`; `permutation_index` tells them apart."
        ]
        if draws != "distinct":
            notes.append(
                f"- unlu's permutations were drawn independently (`--unlu-draws {draws}`): "
                + (
                    "a pair was kept only when its draws did not repeat on either side, as UNLU kept theirs."
                    if draws == "unlu"
                    else "a pair's permutations may repeat; pairs whose sentences have "
                    "fewer than K derangements are kept."
                )
            )
        return notes

    @property
    def extra_features(self):
        import datasets  # (not at import: `swapbench build --help` imports the variants)

        return {
            "permutation_index": datasets.Value("int32"),
            "hypothesis_permutation": datasets.Sequence(datasets.Value("int32")),
        }

    def prepare(self, pairs: list[Pair], originals: dict[str, tuple[str, str]] | None = None) -> None:
        self._hypothesis_tokens = {pair_id: tokens[1].split(" ") for pair_id, tokens in (originals or {}).items()}

    def apply(self, pair: Pair, parse: Parse, rng: ExampleRandom) -> list[Perturbed] | None:
        k = self.permutations
        draw = DRAWS[self.draws]
        premise_units = word_units(parse.word_positions, parse.folded_words)  # "n't" with its host (contractions)
        premise = draw(len(premise_units), k, rng)
        if premise is None:
            return None
        hypothesis_tokens = self._hypothesis_tokens.get(pair.pair_id) or pair.hypothesis.split()
        hypothesis_words = tuple(i for i, token in enumerate(hypothesis_tokens) if not is_punctuation(token, ""))
        hypothesis_units = word_units(hypothesis_words, [hypothesis_tokens[i].casefold() for i in hypothesis_words])
        hypothesis: list = [None] * k
        if self.sides == "both":
            hypothesis = draw(len(hypothesis_units), k, rng)
            if hypothesis is None:
                return None
        tags = [f"words:{len(parse.word_positions)}"]
        rows = []
        for index, (premise_order, hypothesis_order) in enumerate(zip(premise, hypothesis)):
            order = permuted_units(parse.word_positions, premise_units, premise_order, len(parse.tokens))
            hypothesis_order = (
                []
                if hypothesis_order is None
                else permuted_units(hypothesis_words, hypothesis_units, hypothesis_order, len(hypothesis_tokens))
            )
            rows.append(
                Perturbed(
                    " ".join(parse.tokens[i] for i in order),
                    " ".join(hypothesis_tokens[i] for i in hypothesis_order) if hypothesis_order else pair.hypothesis,
                    pair.label,
                    order,
                    tags,
                    {"permutation_index": index, "hypothesis_permutation": hypothesis_order},
                    original_hypothesis=" ".join(hypothesis_tokens) if hypothesis_order else None,
                )
            )
        return rows
