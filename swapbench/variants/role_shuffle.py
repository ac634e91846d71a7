"""shuffle-sr: the agent and patient of one verb exchanged, so that who does what to whom changes.

For each entailment pair the hypothesis is tried first, then the premise (shuffle-sr-premise, role_premise.py,
tries them in the reference paper's order, Algorithm 1's: the premise first); the first sentence with a swappable
verb is swapped and the other stays as it was. A swap that a filter drops (role_filters.py), or that the other
sentence does not ground (role_grounding.py: the other sentence must assert the swapped relation), gives way to
the next swappable verb, then to the other sentence; a pair none of whose swaps pass is counted under the reason
that dropped the first pick. The new label is contradiction, and in the binary view non-entailment.

Why the hypothesis first: a hypothesis swap is grounded by the pair itself (the premise entails the hypothesis),
while a premise swap needs a hypothesis that restates the relation, which few do; see README (shuffle-sr) for the
measurement.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from pydantic import create_model

from ..core.command_options import CommandOptions, option
from ..core.errors import SwapbenchError
from ..core.paths import ANNOTATIONS
from ..core.registry import LABELERS, VARIANTS
from ..core.selection import SelectionFile, read_selection
from ..core.text import portable, public_path
from ..parsing.base import Parse
from ..roles import RoleLabeler, RoleParse, Sentence, check_labeler, make_labeler
from ..roles.animacy import ANIMACIES, animacy_tag
from ..roles.base import Span
from ..sources.pair import Pair
from .base import Perturbed, Variant
from .randomness import ExampleRandom
from .role_filters import FILTER_DESCRIPTIONS, review
from .role_grounding import GROUNDING, ground
from .role_swap import Swap, swappable_frames

if TYPE_CHECKING:
    import datasets

BINARY_NAMES = ["entailment", "non-entailment"]
ORDERS = ("hypothesis-first", "premise-first")  # shuffle-sr's, then the reference paper's Algorithm 1
RETOKENIZED = (
    "retokenized",
    "the role labeler tokenized the sentence otherwise than the original is rendered "
    "(e.g. spaCy roles on a ptb build): the swap would differ from the original by more than the swap",
)


# The validity of shuffle-sr's labels, as judged by people on a sample (written by `swapbench curate --measure`).
VALIDITY = ANNOTATIONS / "shuffle-sr-validity.json"


def span_feature() -> dict[str, datasets.Value]:
    """The column type of an agent's or patient's span; made when a build writes, since datasets is not imported
    before (`swapbench build --help` imports the variants)."""
    import datasets

    return {"text": datasets.Value("string"), "start": datasets.Value("int32"), "end": datasets.Value("int32")}


def role_columns(
    name: str,
    side: tuple[str, str],
    verb: str,
    index_in: str,
    span_in: str,
    binary: str = "the label in the binary view; always non-entailment",
) -> dict[str, str]:
    """The card's descriptions of a role configuration's columns (RoleShuffle.extra_features): `side` its first
    column and what it holds, `verb` what the verb column names, `index_in` the sentence the verb's index counts
    in, `span_in` the one the agent's and patient's spans count in, `binary` what binary_label holds."""
    column, meaning = side
    return {
        column: f"{name}: {meaning}",
        "verb": f"{name}: {verb}",
        "verb_index": f"{name}: its token index in {index_in}",
        "agent": f"{name}: the agent's text and token span [start, end) in {span_in}",
        "patient": f"{name}: the patient's text and token span [start, end) in {span_in}",
        "labeler": f"{name}: the role labeler that found the roles",
        "binary_label": f"{name}: {binary}",
    }


class RoleOptions(CommandOptions):
    """The options of every role swap."""

    srl: str = option("auto", metavar="LABELER", help="shuffle-sr's semantic-role labeler")
    # The configuration's name says the order now, so that a board never puts the two orders in one column.
    sr_order: str | None = option(
        None,
        help="",
        removed="the configuration names the order: --variants shuffle-sr "
        "swaps the hypothesis first, --variants shuffle-sr-premise "
        "the premise first (the reference paper's Algorithm 1)",
    )
    spacy_model: str | None = option(None, help="the build's --spacy-model")


class RoleShuffleOptions(RoleOptions):
    sr_selection: Path | None = option(
        None,
        metavar="FILE",
        help="shuffle-sr keeps only the pairs accepted in this file (written by `swapbench curate`)",
    )


class RoleLabelings:
    """The role labels of one build, shared by its role configurations (shuffle-sr, -premise, -validated and
    -reversible ask for the same sentences, or some of them the same): each distinct request is labelled once.
    The build makes one (share_labelings) and drops it with its variants, so no labels, nor the spaCy pipeline
    that made them, outlive the build."""

    def __init__(self):
        self._done: dict = {}

    def label(self, key, sentences: list[Sentence], labeler: Callable[[], RoleLabeler]) -> tuple[list, str | None]:
        """The roles of `sentences` and the spaCy pipeline that labelled them, by the labeler `labeler()` makes;
        `key` names the request (labeler, spaCy model and the sentences themselves, so that a hit is the same
        work)."""
        if key not in self._done:
            made = labeler()
            self._done[key] = (made.label_many(sentences), made.spacy_pipeline)
        return self._done[key]


def share_labelings(variants: list) -> None:
    """One RoleLabelings for the role configurations among `variants`, the variants of one build."""
    shared = RoleLabelings()
    for variant in variants:
        if isinstance(variant, RoleShuffle):
            variant.labelings = shared


def read_validity(path: Path = VALIDITY) -> dict | None:
    """The measured validity of a configuration's labels, when the file records it (default: shuffle-sr's)."""
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


@VARIANTS.register(
    "shuffle-sr",
    help="agent and patient of one verb exchanged in an entailment pair; label contradiction (--srl, --sr-selection)",
)
class RoleShuffle(Variant):
    name = "shuffle-sr"
    description = (
        "agent and patient of one verb exchanged in the hypothesis, else the premise when the hypothesis "
        "asserts the swapped relation, of an entailment pair; label contradiction"
    )
    Options = RoleShuffleOptions
    refused_without = ("sr_selection",)
    needs_docs = True  # the role labeler reads the Docs the spaCy parser made
    validity_file = VALIDITY
    side_feature = "swapped_side"  # the first of extra_features: which side of the pair the row's exchange is on
    column_descriptions = role_columns(
        "shuffle-sr",
        ("swapped_side", "the sentence whose roles were exchanged, premise or hypothesis"),
        verb="the verb whose agent and patient were exchanged",
        index_in="the swapped sentence",
        span_in="the original sentence",
        binary="the label in the binary view (entailment, non-entailment); always non-entailment",
    )
    tag_descriptions = {
        "side": ("side:S", "shuffle-sr: the roles were exchanged in the premise or the hypothesis"),
        "construction": ("construction:C", "shuffle-sr: the grammatical construction of the swapped clause"),
        "labeler": ("labeler:L", "shuffle-sr: the role labeler that found the roles"),
        "animacy": (
            "animacy:A-P",
            "the animacy of the agent and the patient (" + ", ".join(ANIMACIES) + "), "
            "read off their head nouns (roles/animacy.py): 'animate-animate' swaps who "
            "did what to whom between two beings, 'animate-inanimate' can be told from "
            "the hypothesis alone",
        ),
        "coordination": (
            "coordination",
            "shuffle-sr: the agent or the patient holds a coordination ('a man and a woman')",
        ),
        "pronoun-case": ("pronoun-case", "shuffle-sr: a pronoun changed case with its role ('he' / 'him')"),
        "fallback": (
            "fallback",
            "shuffle-sr: not the first swap the algorithm picked, which a filter dropped, but a "
            "later verb or the other sentence",
        ),
    }
    order: ClassVar[str] = ORDERS[0]  # which sentence is tried first
    board_note: ClassVar[str] = "hypothesis side first, not the paper's order"
    card_limitations = (
        "shuffle-sr's roles come from an automatic role labeler and its swaps from rules; its "
        "filters drop the swaps that most often go wrong, not all of them, so some of its "
        "contradiction labels are wrong (see its validity above).",
    )

    @classmethod
    def options_model(cls) -> type[CommandOptions]:
        # --srl lists the labelers registered when the command line is made
        labelers = LABELERS.help_text()
        return create_model(
            cls.Options.__name__,
            __base__=cls.Options,
            srl=(
                str,
                option(
                    "auto", metavar="LABELER", help=f"shuffle-sr's semantic-role labeler (default: auto): {labelers}"
                ),
            ),
        )

    @classmethod
    def create(cls, name: str, options: RoleOptions) -> RoleShuffle:
        # --sr-selection is shuffle-sr's own: the other role swaps' options do not declare it
        return cls(srl=options.srl, selection=getattr(options, "sr_selection", None), spacy_model=options.spacy_model)

    @classmethod
    def check(cls, options: RoleOptions) -> None:
        check_labeler(options.srl)

    @classmethod
    def record(cls, options: RoleOptions, built: bool) -> dict:
        """The labeler, which every role swap of a build shares (the same --srl), and shuffle-sr's selection file."""
        if not built:
            return {}
        if not hasattr(options, "sr_selection"):
            return {"role_labeler": options.srl}
        selection = SelectionFile.of(options.sr_selection) if options.sr_selection else None
        return {"role_labeler": options.srl, "sr_selection": selection}

    @classmethod
    def card_notes(cls, info) -> list[str]:
        lines = []
        if info.role_labeler:
            lines.append(f"- Role labeler of the role swaps: `--srl {info.role_labeler}`.")
        if info.sr_selection:
            lines.append(
                f"- shuffle-sr kept only the swaps accepted in the curation file "
                f"`{Path(info.sr_selection.path).name}` ({info.sr_selection.sha256})."
            )
        return lines

    @classmethod
    def card_sections(cls, config, info, validity: dict | None = None) -> dict[str, list[str]]:
        sections = {"Candidates and filters": _filter_lines(config)} if "candidates" in config.extra else {}
        if cls.validity_file is not None:
            sections[f"Validity of {config.name}'s labels"] = validity_lines(config, validity)
        return sections

    def __init__(
        self,
        srl: str = "auto",
        selection: Path | None = None,
        spacy_model: str | None = None,
        labeler: RoleLabeler | None = None,
    ):
        self.srl = srl
        self.spacy_model = spacy_model
        self._labeler = labeler  # a ready labeler (tests pass one to share a loaded spaCy pipeline)
        self.labelings = RoleLabelings()  # its own, until the build shares one between its variants
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
        import datasets

        return {
            self.side_feature: datasets.Value("string"),
            "verb": datasets.Value("string"),
            "verb_index": datasets.Value("int32"),
            "agent": span_feature(),
            "patient": span_feature(),
            "labeler": datasets.Value("string"),
            "binary_label": datasets.ClassLabel(names=BINARY_NAMES),
        }

    def prepare(self, pairs: list[Pair], originals: dict[str, tuple[str, str]] | None = None) -> None:
        self.originals = originals or {}
        self._label(list(dict.fromkeys(s for p in pairs if p.label == "entailment" for s in _sentences(p))))

    def _label_by_premise(self, pairs: list[Pair]) -> tuple[dict[str, Sentence], dict[str, list[Pair]]]:
        """Label every premise and every entailed hypothesis of `pairs` (the variants that read relations off the
        premise); the premises as sentences and the pairs grouped by premise, in the source's order."""
        premises = {p.premise: Sentence(p.premise, p.premise_parse) for p in pairs}
        hypotheses = [Sentence(p.hypothesis, p.hypothesis_parse) for p in pairs if p.label == "entailment"]
        self._label(list(dict.fromkeys([*premises.values(), *hypotheses])))
        by_premise: dict[str, list[Pair]] = defaultdict(list)
        for p in pairs:
            by_premise[p.premise].append(p)
        return premises, by_premise

    def _label(self, sentences: list[Sentence]) -> None:
        """The roles of `sentences` in self.roles, through the labeling shared with the build's other role
        configurations when they asked for the same sentences."""
        if self.srl in ("tree", "agree") and sentences and not any(s.tree for s in sentences):
            raise SwapbenchError(
                f"--srl {self.srl} needs constituency trees (sentence1_parse, sentence2_parse) in the "
                "source: use --srl spacy, or a local SNLI 1.0 file"
            )
        # a labeler passed in (tests) is asked each time; a named one is shared between the variants of a build
        key = (self.srl, self.spacy_model, tuple(sentences)) if self._labeler is None else object()
        roles, self.spacy_pipeline = self.labelings.label(
            key, sentences, lambda: self._labeler or make_labeler(self.srl, self.spacy_model)
        )
        self.roles = dict(zip(sentences, roles))
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
        candidates = [
            (side, roles, other, frame)
            for side, roles, other in sides
            if roles is not None
            for frame in swappable_frames(roles)
        ]
        if not candidates:
            return None
        self.counts["candidates"] += 1
        first_reason = None
        # rank is read after the loop: the rank of the candidate it broke on (ruff's B007 misses that)
        for rank, (side, roles, other, frame) in enumerate(candidates):  # noqa: B007
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

    def _perturbed(
        self, pair: Pair, side: str, swap: Swap, premise: RoleParse | None, hypothesis: RoleParse | None, fallback: bool
    ) -> Perturbed:
        original_premise = " ".join(premise.tokens) if premise else pair.premise
        original_hypothesis = " ".join(hypothesis.tokens) if hypothesis else pair.hypothesis
        swapped = " ".join(swap.tokens)
        roles, frame = swap.parse, swap.frame
        tags = [
            f"side:{side}",
            f"construction:{swap.construction}",
            f"labeler:{roles.labeler}",
            animacy_tag(roles, frame.agent, frame.patient),
        ]
        if any(roles.tags[i] == "CC" for s in (frame.agent, frame.patient) for i in range(s.start, s.end)):
            tags.append("coordination")
        if swap.pronoun_case:
            tags.append("pronoun-case")
        if fallback:
            tags.append("fallback")  # not Algorithm 1's first pick, which a filter dropped
        extra = {
            "swapped_side": side,
            "verb": roles.tokens[frame.verb],
            "verb_index": frame.verb,
            "agent": _span(roles, frame.agent),
            "patient": _span(roles, frame.patient),
            "labeler": roles.labeler,
            "binary_label": BINARY_NAMES.index("non-entailment"),
        }
        return Perturbed(
            premise=swapped if side == "premise" else original_premise,
            hypothesis=swapped if side == "hypothesis" else original_hypothesis,
            label="contradiction",
            permutation=[],
            tags=tags,
            extra=extra,
            original_premise=original_premise,
            original_hypothesis=original_hypothesis,
        )

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
        stats = {
            "labeler": self.srl,
            "order": self.order,
            "sentences_by_labeler": {k.split(":", 1)[1]: v for k, v in sorted(c.items()) if k.startswith("labeler:")},
            "sentences_without_roles": c["sentences_without_roles"],
            "entailment_pairs": c["entailment_pairs"],
            "candidates": c["candidates"],
            "filtered": c["filtered"],
            "final": c["final"],
            "fallbacks": c["fallbacks"],
            "drop_reasons": dict(self.drop_reasons.most_common()),
            "filters": {**FILTER_DESCRIPTIONS, **GROUNDING, RETOKENIZED[0]: RETOKENIZED[1]},
        }
        if self.selection is not None:
            stats["selection"] = {
                "file": public_path(self.selection_path),
                "decisions": len(self.selection),
                "undecided": c["selection_undecided"],
                "rejected": c["selection_rejected"],
                "stale": c["selection_stale"],
            }
        return stats


def _sentences(pair: Pair) -> tuple[Sentence, Sentence]:
    return Sentence(pair.premise, pair.premise_parse), Sentence(pair.hypothesis, pair.hypothesis_parse)


def _span(roles: RoleParse, span: Span) -> dict:
    return {"text": roles.text(span), "start": span.start, "end": span.end}


def _filter_lines(config) -> list[str]:
    """Candidates, filtered and kept pairs, with each drop reason the build recorded."""
    x = config.extra
    lines = [
        "",
        f"### Filters of `{config.name}`",
        "",
        f"Role labeler `{x.get('labeler')}`: {x['candidates']} of {x.get('entailment_pairs', '?')} "
        f"entailment pairs had a swappable verb (candidates); {x['filtered']} "
        f"{'was' if x['filtered'] == 1 else 'were'} dropped by the filters; {x['final']} kept"
        + (
            f", {x['fallbacks']} of them through a later verb or the other sentence when the first swap was dropped"
            if x.get("fallbacks")
            else ""
        )
        + ".",
    ]
    by_labeler = x.get("sentences_by_labeler") or {}
    if by_labeler:
        lines.append(
            "Sentences whose roles each labeler found: "
            + ", ".join(f"`{name}` {count}" for name, count in by_labeler.items())
            + (f"; {x['sentences_without_roles']} without roles" if x.get("sentences_without_roles") else "")
            + "."
        )
    if x.get("selection"):
        sel = x["selection"]
        lines.append(
            f"A curation file (`{Path(sel['file']).name}`) kept only accepted swaps: {sel['rejected']} "
            f"rejected, {sel['undecided']} undecided, {sel['stale']} judged on a different swap."
        )
    reasons, described = x.get("drop_reasons", {}), x.get("filters", {})
    lines += ["", "| reason | dropped | why |", "|---|---:|---|"]
    for name in dict.fromkeys([*described, *reasons]):
        lines.append(f"| `{name}` | {reasons.get(name, 0)} | {described.get(name, 'no description recorded')} |")
    return lines


def validity_lines(config, validity: dict | None) -> list[str]:
    if validity is None:
        return [
            "",
            "Validity was not measured for this build: no judged sample of its swaps was recorded, so "
            "the share of its rows whose label holds is unknown.",
        ]
    # the file's own criterion where it states one (each configuration is judged by what its label claims)
    valid = (
        f"judged rows are valid ({validity['criterion']})"
        if validity.get("criterion")
        else "judged swaps are valid contradictions"
    )
    lines = [
        "",
        f"{validity['valid']} of {validity['judged']} {valid}: validity "
        f"{validity['validity']:.3f} (95% interval {validity['low']:.3f} to {validity['high']:.3f}); "
        f"measured with `{portable(validity['command'])}`.",
    ]
    if validity.get("build_fingerprint") != config.fingerprint:
        lines.append(
            f"The sample was judged on a build whose {config.name} fingerprint is "
            f"{validity.get('build_fingerprint')}, not this one's ({config.fingerprint})."
        )
    return lines
