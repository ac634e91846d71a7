"""shuffle-sr: the agent and patient of one verb exchanged, so that who does what to whom changes.

For each entailment pair the hypothesis is tried first, then the premise (`order="premise-first"` is the reference
paper's Algorithm 1); the first sentence with a swappable verb is swapped and the other stays as it was. A swap
that a filter drops (role_filters.py), or that the other sentence does not ground (role_grounding.py: the other
sentence must assert the swapped relation), gives way to the next swappable verb, then to the other sentence; a
pair none of whose swaps pass is counted under the reason that dropped the first pick. The new label is
contradiction, and in the binary view non-entailment.

Why the hypothesis first: a hypothesis swap is grounded by the pair itself (the premise entails the hypothesis),
while a premise swap needs a hypothesis that restates the relation, which few do; see README (shuffle-sr) for the
measurement.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import datasets

from ..core.errors import SwapbenchError
from ..parsing.base import Parse
from ..core.registry import VARIANTS
from ..roles import RoleLabeler, RoleParse, Sentence, make_labeler
from ..roles.base import Span
from ..core.selection import read_selection
from ..sources.pair import Pair
from .base import Perturbed, Variant
from .randomness import ExampleRandom
from .role_filters import FILTER_DESCRIPTIONS, review
from .role_grounding import GROUNDING, ground
from .role_swap import Swap, swappable_frames

SPAN = {"text": datasets.Value("string"), "start": datasets.Value("int32"), "end": datasets.Value("int32")}
BINARY_NAMES = ["entailment", "non-entailment"]
# The last sentences labeled, with their roles: the key holds the sentences themselves, so a hit is the same work.
_LAST_LABELED: dict = {}
ORDERS = ("hypothesis-first", "premise-first")  # the default, then the reference paper's Algorithm 1
RETOKENIZED = ("retokenized", "the role labeler tokenized the sentence otherwise than the original is rendered "
               "(e.g. spaCy roles on a ptb build): the swap would differ from the original by more than the swap")


class RoleShuffle(Variant):
    name = "shuffle-sr"
    description = ("agent and patient of one verb exchanged in the hypothesis, else the premise when the hypothesis "
                   "asserts the swapped relation, of an entailment pair; label contradiction")

    def __init__(self, srl: str = "auto", selection: Path | None = None, spacy_model: str | None = None,
                 labeler: RoleLabeler | None = None, order: str = ORDERS[0]):
        if order not in ORDERS:
            raise SwapbenchError(f"--sr-order {order}: expected one of {', '.join(ORDERS)}")
        self.order = order
        self.srl = srl
        self.spacy_model = spacy_model
        self._labeler = labeler  # a ready labeler (tests pass one to share a loaded spaCy pipeline)
        self.selection_path = selection
        self.selection = None
        if selection is not None:
            if not Path(selection).is_file():
                raise SwapbenchError(f"--sr-selection {selection}: no such file")
            self.selection = read_selection(Path(selection))
        self.roles: dict[Sentence, RoleParse | None] = {}
        self.originals: dict[str, tuple[str, str]] = {}
        self.counts: Counter = Counter()
        self.drop_reasons: Counter = Counter()

    @property
    def extra_features(self) -> dict[str, datasets.Feature]:
        return {"swapped_side": datasets.Value("string"), "verb": datasets.Value("string"),
                "verb_index": datasets.Value("int32"), "agent": SPAN, "patient": SPAN,
                "labeler": datasets.Value("string"), "binary_label": datasets.ClassLabel(names=BINARY_NAMES)}

    def prepare(self, pairs: list[Pair], originals: dict[str, tuple[str, str]] | None = None) -> None:
        self.originals = originals or {}
        sentences = list(dict.fromkeys(s for p in pairs if p.label == "entailment" for s in _sentences(p)))
        if self.srl in ("tree", "agree") and sentences and not any(s.tree for s in sentences):
            raise SwapbenchError(f"--srl {self.srl} needs constituency trees (sentence1_parse, sentence2_parse) in the "
                                 "source: use --srl spacy, or a local SNLI 1.0 file")
        # a labeler passed in (tests) is asked each time; a named one is shared between the variants of a build
        key = (self.srl, self.spacy_model, tuple(sentences)) if self._labeler is None else object()
        if _LAST_LABELED.get("key") != key:  # shuffle-sr and shuffle-sr-validated in one build label once
            labeler = self._labeler or make_labeler(self.srl, self.spacy_model)
            _LAST_LABELED.clear()
            _LAST_LABELED.update(key=key, roles=labeler.label_many(sentences), pipeline=labeler.spacy_pipeline)
        self.roles = dict(zip(sentences, _LAST_LABELED["roles"]))
        self.spacy_pipeline = _LAST_LABELED["pipeline"]
        self.counts = Counter(sentences_without_roles=sum(r is None for r in self.roles.values()))
        self.counts.update(f"labeler:{r.labeler}" for r in self.roles.values() if r is not None)
        self.drop_reasons = Counter()

    def apply(self, pair: Pair, parse: Parse, rng: ExampleRandom) -> Perturbed | None:
        if pair.label != "entailment":
            return None
        self.counts["entailment_pairs"] += 1
        premise, hypothesis = (self.roles.get(s) for s in _sentences(pair))
        sides = [("premise", premise, hypothesis), ("hypothesis", hypothesis, premise)]
        if self.order == "hypothesis-first":
            sides.reverse()
        candidates = [(side, roles, other, frame) for side, roles, other in sides
                      if roles is not None for frame in swappable_frames(roles)]
        if not candidates:
            return None
        self.counts["candidates"] += 1
        first_reason = None
        for rank, (side, roles, other, frame) in enumerate(candidates):
            swap, reason = review(roles, frame)
            if reason is None:
                reason = ground(roles, frame, side, other)
            if reason is None and not self._tokenized_as_original(pair, side, roles):
                reason = RETOKENIZED[0]
            if reason is None:
                break
            first_reason = first_reason or reason
        else:
            self.counts["filtered"] += 1
            self.drop_reasons[first_reason] += 1
            return None
        result = self._perturbed(pair, side, swap, premise, hypothesis, fallback=rank > 0)
        if self.selection is not None and not self._selected(pair, result, side):
            return None
        self.counts["final"] += 1
        self.counts["fallbacks"] += rank > 0
        return result

    def _perturbed(self, pair: Pair, side: str, swap: Swap, premise: RoleParse | None,
                   hypothesis: RoleParse | None, fallback: bool) -> Perturbed:
        original_premise = " ".join(premise.tokens) if premise else pair.premise
        original_hypothesis = " ".join(hypothesis.tokens) if hypothesis else pair.hypothesis
        swapped = " ".join(swap.tokens)
        roles, frame = swap.parse, swap.frame
        tags = [f"side:{side}", f"construction:{swap.construction}", f"labeler:{roles.labeler}"]
        if any(roles.tags[i] == "CC" for s in (frame.agent, frame.patient) for i in range(s.start, s.end)):
            tags.append("coordination")
        if swap.pronoun_case:
            tags.append("pronoun-case")
        if fallback:
            tags.append("fallback")  # not Algorithm 1's first pick, which a filter dropped
        extra = {"swapped_side": side, "verb": roles.tokens[frame.verb], "verb_index": frame.verb,
                 "agent": _span(roles, frame.agent), "patient": _span(roles, frame.patient),
                 "labeler": roles.labeler, "binary_label": BINARY_NAMES.index("non-entailment")}
        return Perturbed(premise=swapped if side == "premise" else original_premise,
                         hypothesis=swapped if side == "hypothesis" else original_hypothesis,
                         label="contradiction", permutation=[], tags=tags, extra=extra,
                         original_premise=original_premise, original_hypothesis=original_hypothesis)

    def _tokenized_as_original(self, pair: Pair, side: str, roles: RoleParse) -> bool:
        """Whether the labeler's tokens are those of the original as the build renders it, so that the swapped
        sentence differs from the original by the swap alone."""
        original = self.originals.get(pair.pair_id)
        return original is None or " ".join(roles.tokens) == original[side == "hypothesis"]

    def _selected(self, pair: Pair, result: Perturbed, side: str) -> bool:
        decision = self.selection.get(pair.pair_id)
        if decision is None:
            self.counts["selection_undecided"] += 1
        elif not decision.accepted:
            self.counts["selection_rejected"] += 1
        elif not decision.judged(result.premise, result.hypothesis, side):
            self.counts["selection_stale"] += 1  # judged on a different swap (another labeler, order or version)
        else:
            return True
        return False

    def statistics(self) -> dict:
        c = self.counts
        stats = {"labeler": self.srl, "order": self.order,
                 "sentences_by_labeler": {k.split(":", 1)[1]: v for k, v in sorted(c.items())
                                          if k.startswith("labeler:")},
                 "sentences_without_roles": c["sentences_without_roles"],
                 "entailment_pairs": c["entailment_pairs"], "candidates": c["candidates"],
                 "filtered": c["filtered"], "final": c["final"], "fallbacks": c["fallbacks"],
                 "drop_reasons": dict(self.drop_reasons.most_common()),
                 "filters": {**FILTER_DESCRIPTIONS, **GROUNDING, RETOKENIZED[0]: RETOKENIZED[1]}}
        if self.selection is not None:
            stats["selection"] = {"file": str(self.selection_path), "decisions": len(self.selection),
                                  "undecided": c["selection_undecided"], "rejected": c["selection_rejected"],
                                  "stale": c["selection_stale"]}
        return stats


@VARIANTS.register(RoleShuffle.name, help="agent and patient of one verb exchanged in an entailment pair; label "
                                          "contradiction (--srl, --sr-selection)")
def make_role_shuffle(name: str, srl: str = "auto", sr_selection: Path | None = None,
                      spacy_model: str | None = None, sr_order: str = ORDERS[0], **options) -> RoleShuffle:
    return RoleShuffle(srl=srl, selection=sr_selection, spacy_model=spacy_model, order=sr_order)


def _sentences(pair: Pair) -> tuple[Sentence, Sentence]:
    return Sentence(pair.premise, pair.premise_parse), Sentence(pair.hypothesis, pair.hypothesis_parse)


def _span(roles: RoleParse, span: Span) -> dict:
    return {"text": roles.text(span), "start": span.start, "end": span.end}
