"""shuffle-sr-reversible: minimal pairs whose two readings are both sentences about two beings, from natural premises.

From a frame whose agent and patient are both animate (roles/animacy.py) and whose predicate is not symmetric,
two hypotheses are written: the frame itself ("A man is pushing a woman"), which the premise entails, and its
reversal ("A woman is pushing a man"), which changes only the order of the two arguments (and a pronoun's case).
The row's original pair is (premise, entailed hypothesis), gold entailment; its perturbed pair is (premise,
reversal), non-entailment in the binary view. Both hypotheses name two beings, so no reversal has a thing acting
on a person; a reversal between a person and an animal can still be implausible on its own (tagged beings:...),
and what the hypotheses alone give away is measured, not assumed (`swapbench leak`).

Frames come from every premise (main clauses, participles "a nurse holding a puppy", relative clauses) and from the
hypotheses of its entailment pairs, which the premise entails and so do their frames. Each source pair carries at
most one row: a premise's frames go to the pairs that share it, a hypothesis's frame to its own pair first.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from ..core.registry import VARIANTS
from ..parsing.base import Parse
from ..roles import RoleParse, Sentence
from ..roles.animacy import ANIMATE, PERSON_PRONOUNS, animacy, being, indefinite
from ..roles.base import Frame, Span, is_auxiliary
from ..roles.heads import heads, key, words_match
from ..roles.morphology import (
    PAST_BE,
    agree,
    be,
    capitalised,
    case_for_slot,
    has_cased_pronoun,
    keeps_capital,
    plural,
    uncapitalised,
)
from ..sources.pair import Pair
from .base import Perturbed
from .randomness import ExampleRandom
from .role_filters import FILTERS, OVERLAP, SYMMETRIC_VERBS, overlaps
from .role_shuffle import ANNOTATIONS, BINARY_NAMES, RoleOptions, RoleShuffle, role_columns, validity_lines
from .role_swap import construction, exchange, swappable_frames

# Symmetric and reciprocal predicates: "a man dances a woman" reversed says the same; role_filters' symmetric
# verbs and the reciprocal ones of captions. Passing someone on foot is passing each other ("two women pass three
# men"); overtaking has a direction and stays.
RECIPROCAL_VERBS = SYMMETRIC_VERBS | frozenset(
    key(w)
    for w in (
        "talk",
        "chat",
        "converse",
        "argue",
        "dance",
        "play",
        "compete",
        "kiss",
        "date",
        "marry",
        "divorce",
        "befriend",
        "join",
        "partner",
        "collide",
        "share",
        "trade",
        "swap",
        "box",
        "fence",
        "tango",
        "waltz",
        "oppose",
        "pass",
    )
)
# role_filters' filters that read the swapped sentence Algorithm 1 writes in place, not the two main clauses
# written here (an agent shared with another clause, or a pronoun inside a modifier, is rewritten as a subject),
# or that keep a swap from being labeled contradiction: two beings present together may perceive each other, but
# the premise does not say that the woman watches the man it says watches her, so the reversal is not entailed.
NOT_APPLICABLE = frozenset({"distant_agent", "pronoun_in_modifier", "mutual_perception"})
# Verbs whose second being follows a preposition, and those prepositions, where the relation has a direction
# (looking at someone is not being looked at; talking to someone does not say that they answer); reciprocal ones
# ("talk with", "play with", "dance with") and
# spatial ones ("stand next to") are left out, and so are verbs of motion, whose object is a path.
PREPOSITIONAL: dict[str, frozenset[str]] = {
    key(verb): frozenset(preps.split())
    for verb, preps in {
        "look": "at for",
        "stare": "at",
        "glance": "at",
        "gaze": "at",
        "peer": "at",
        "peek": "at",
        "glare": "at",
        "smile": "at",
        "grin": "at",
        "laugh": "at",
        "frown": "at",
        "point": "at",
        "yell": "at to",
        "shout": "at",
        "scream": "at",
        "bark": "at",
        "talk": "to",
        "speak": "to",
        "whisper": "to",
        "explain": "to",
        "lecture": "to",
        "preach": "to",
        "call": "to",
        "gesture": "to at",
        "signal": "to",
        "growl": "at",
        "wave": "at to",
        "poke": "at",
        "aim": "at",
        "swing": "at",
        "lunge": "at",
        "listen": "to",
        "sing": "to",
        "read": "to",
        "wait": "for",
        "search": "for",
        "reach": "for",
        "care": "for",
        "perform": "for",
        "pose": "for",
        "cheer": "for",
        "root": "for",
        "hide": "behind from",
        "stand": "behind over",
        "kneel": "behind over",
        "sit": "behind on",
        "lean": "on over",
        "tower": "over",
        "bend": "over",
        "climb": "on onto",
        "step": "on",
        "lie": "on",
        "lay": "on",
        "hover": "over",
    }.items()
}
PHRASE_TAGS = frozenset({"DT", "JJ", "JJR", "JJS", "NN", "NNS", "NNP", "NNPS", "PRP", "PRP$", "CD", "POS"})
ASSERTING_TAGS = frozenset({"VBZ", "VBP", "VBD", "VBG", "VBN"})

REASONS: dict[str, str] = {
    OVERLAP[0]: OVERLAP[1],
    "indefinite_argument": "an argument is an indefinite pronoun ('someone', 'anybody', 'no one'): the reversal is "
    "as vague as the original and true of most scenes that make the original true",
    "agent_not_animate": "the agent is not animate (a thing, or a noun the animacy lexicon does not know): the "
    "reversal would be implausible and could be told from the hypothesis alone",
    "patient_not_animate": "the patient is not animate ('a man holds a baby' is kept, 'a man holds a cup' is not)",
    "symmetric_predicate": "the predicate is symmetric or reciprocal ('meet', 'hug', 'marry', 'kiss', 'fight', "
    "'play', 'dance', 'pass'): the reversal says the same thing",
    "reciprocal_with": "the patient follows 'with' ('dances with a woman', 'talks with a man'): a relation done "
    "together, which the reversal restates",
    "not_asserted": "the verb is a base form (after 'to', a modal or 'does'): 'tries to catch a boy' does not "
    "assert the catching; or the patient is the subject of an infinitive ('gets the children to "
    "move'), not the verb's patient",
    "verb_form": "the verb's form is one the hypothesis is not written from (an active past participle: 'has "
    "lifted a child')",
    **{f.name: f.description for f in FILTERS if f.name not in NOT_APPLICABLE | {"symmetric_predicate"}},
    "split_frame": "words other than a particle stand between the verb and its second argument ('feeds a horse "
    "an apple' read with 'an apple' as the patient, a passive without 'by' next to its agent): the "
    "clause would not be written as the sentence has it",
    "bare_singular": "an argument is a singular noun without a determiner ('keep watch', 'is "
    "riding jumping pony'): most often part of an idiom or a misread verb, and bare as a subject",
    "double_object": "a noun phrase follows the patient ('hands her sister a cup', 'shows the boy a trick'): "
    "the first object is a recipient, and the clause without the second says something else",
    "verb_between": "another verb stands between the agent and the verb without 'and', 'while' or a comma ('is "
    "riding jumping pony'): the verb is most likely misread",
    "duplicate_relation": "the same relation as a frame kept before for the same premise (its hypothesis "
    "restating the premise, or a second reading)",
    "no_pair_left": "the premise had more reversible frames than source pairs to carry them (one row a pair)",
}


@dataclass(frozen=True, slots=True)
class Written:
    """A frame's two hypotheses, and where the frame was found."""

    side: str  # premise or hypothesis
    parse: RoleParse
    frame: Frame
    construction: str
    prepositional: bool  # the patient is the object of a preposition after the verb ("looks at a woman")
    entailed: str
    reversal: str


@VARIANTS.register(
    "shuffle-sr-reversible",
    help="the premise's own animate agent-patient frame as an entailed "
    "hypothesis, and its reversal as non-entailment (--srl)",
)
class ReversibleRoles(RoleShuffle):
    name = "shuffle-sr-reversible"
    description = (
        "a frame with an animate agent and patient and a non-symmetric verb, written as a hypothesis "
        "(entailment) and reversed (non-entailment, label neutral)"
    )
    Options = RoleOptions
    refused_without = ()
    validity_file = ANNOTATIONS / "shuffle-sr-reversible-validity.json"
    side_feature = "frame_side"
    board_note = "hypotheses written from the premise's frame"
    needs_premise = True
    column_descriptions = role_columns(
        "shuffle-sr-reversible",
        ("frame_side", "the sentence the frame came from, premise or an entailment hypothesis"),
        verb="the frame's verb",
        index_in="that sentence",
        span_in="that sentence",
    )
    tag_descriptions = {
        "side": ("side:S", "shuffle-sr-reversible: the frame came from the premise or an entailment hypothesis"),
        "construction": ("construction:C", "shuffle-sr-reversible: the construction of the frame's clause"),
        "labeler": ("labeler:L", "shuffle-sr-reversible: the role labeler that found the roles"),
        "animacy": RoleShuffle.tag_descriptions["animacy"],
        "beings": (
            "beings:A-P",
            "shuffle-sr-reversible: what the agent and the patient name, person or animal "
            "(mixed: conjuncts of both), read off the animacy lexicon (roles/animacy.py); a "
            "reversal between a person and an animal is often implausible ('a goat is milking "
            "a farmer'), so beings:person-person is the slice that only roles decide",
        ),
        "pronoun-case": ("pronoun-case", "shuffle-sr-reversible: a pronoun changed case with its role"),
        "prepositional": (
            "prepositional",
            "shuffle-sr-reversible: the second being is the object of a preposition ('a man looking at a woman')",
        ),
    }
    card_limitations = (
        "shuffle-sr-reversible's frames come from an automatic role labeler and its animacy from "
        "a lexicon of person and animal nouns; a misread frame gives an entailed hypothesis the "
        "premise does not entail.",
    )

    @classmethod
    def card_notes(cls, info) -> list[str]:
        return []

    @classmethod
    def card_sections(cls, config, info, validity: dict | None = None) -> dict[str, list[str]]:
        sections = (
            {f"Reversible pairs of `{config.name}`": _card_lines(config)} if "frames_found" in config.extra else {}
        )
        return {**sections, f"Validity of {config.name}'s labels": validity_lines(config, validity)}

    def prepare(self, pairs: list[Pair], originals: dict[str, tuple[str, str]] | None = None) -> None:
        self.originals = originals or {}
        premises, by_premise = self._label_by_premise(pairs)
        self.frames_found: Counter = Counter()
        self.assigned: dict[str, Written] = {}
        for premise, group in by_premise.items():
            self._assign(group, self._kept(premises[premise], group))

    def _kept(self, premise: Sentence, group: list[Pair]) -> list[tuple[Written, str | None]]:
        """The premise's reversible frames, each with the pair it belongs to first (None: any of the premise)."""
        found = [("premise", self.roles.get(premise), None)]
        found += [
            ("hypothesis", self.roles.get(Sentence(p.hypothesis, p.hypothesis_parse)), p.pair_id)
            for p in group
            if p.label == "entailment"
        ]
        kept: list[tuple[Written, str | None]] = []
        for side, parse, owner in found:
            frames = (
                [(f, False) for f in swappable_frames(parse)] + [(f, True) for f in prepositional_frames(parse)]
                if parse is not None
                else []
            )
            for frame, prepositional in frames:
                kind = (
                    "prepositional"
                    if prepositional
                    else construction(parse, frame)
                    if not overlaps(frame)
                    else "overlapping"
                )
                self.frames_found[f"{side}:{kind}"] += 1
                written, reason = review_reversible(parse, frame, side, prepositional)
                if reason is None and any(_same_relation(written, other) for other, _ in kept):
                    reason = "duplicate_relation"
                if reason is not None:
                    self.drop_reasons[reason] += 1
                    continue
                kept.append((written, owner))
        return kept

    def _assign(self, group: list[Pair], kept: list[tuple[Written, str | None]]) -> None:
        free = [p.pair_id for p in group]
        later = []
        for written, owner in kept:
            if owner is not None and owner in free:
                free.remove(owner)
                self.assigned[owner] = written
            else:
                later.append(written)
        for written in later:
            if not free:
                self.drop_reasons["no_pair_left"] += 1
                continue
            self.assigned[free.pop(0)] = written

    def apply(self, pair: Pair, parse: Parse, rng: ExampleRandom) -> Perturbed | None:
        written = self.assigned.get(pair.pair_id)
        if written is None:
            return None
        roles, frame = written.parse, written.frame
        premise = self.originals.get(pair.pair_id, (" ".join(parse.tokens),))[0]
        tags = [
            f"side:{written.side}",
            f"construction:{written.construction}",
            f"labeler:{roles.labeler}",
            f"animacy:{ANIMATE}-{ANIMATE}",
            f"beings:{being(roles, frame.agent)}-{being(roles, frame.patient)}",
        ] + ["prepositional"] * written.prepositional
        if _pronoun_moves(roles, frame):
            tags.append("pronoun-case")
        extra = {
            "frame_side": written.side,
            "verb": roles.tokens[frame.verb],
            "verb_index": frame.verb,
            "agent": _span(roles, frame.agent),
            "patient": _span(roles, frame.patient),
            "labeler": roles.labeler,
            "binary_label": BINARY_NAMES.index("non-entailment"),
        }
        # Neutral, not contradiction: the premise says that the man pushes the woman, not that she does not push
        # him; HANS likewise labels its subject/object swaps non-entailment.
        return Perturbed(
            premise=premise,
            hypothesis=written.reversal,
            label="neutral",
            permutation=[],
            tags=tags,
            extra=extra,
            original_premise=premise,
            original_hypothesis=written.entailed,
            original_label="entailment",
        )

    def statistics(self) -> dict:
        c = self.counts
        return {
            "labeler": self.srl,
            "sentences_by_labeler": {k.split(":", 1)[1]: v for k, v in sorted(c.items()) if k.startswith("labeler:")},
            "sentences_without_roles": c["sentences_without_roles"],
            "frames_found": dict(sorted(self.frames_found.items())),
            "frames": sum(self.frames_found.values()),
            "final": len(self.assigned),
            "drop_reasons": dict(self.drop_reasons.most_common()),
            "filters": REASONS,
        }


def prepositional_frames(parse: RoleParse) -> list[Frame]:
    """Frames with an agent and no patient whose verb takes its second being through a preposition of
    PREPOSITIONAL ("a man looking at a woman"): the noun phrase after the preposition as the patient."""
    found = []
    for frame in parse.frames:
        if frame.agent is None or frame.patient is not None or is_auxiliary(parse.tokens[frame.verb]):
            continue
        at = frame.verb + 1
        while at < len(parse.tokens) and parse.tags[at] == "RB" and parse.tokens[at].lower() not in ("next", "close"):
            at += 1
        if at >= len(parse.tokens) or parse.tokens[at].lower() not in PREPOSITIONAL.get(
            key(parse.tokens[frame.verb]), ()
        ):
            continue
        end = at + 1
        while end < len(parse.tokens) and (
            parse.tags[end] in PHRASE_TAGS
            or (parse.tokens[end].lower() == "of" and parse.tags[end - 1] in ("NN", "NNS"))
        ):
            end += 1
        if end > at + 1 and frame.agent.end <= frame.verb:
            found.append(Frame(frame.verb, frame.agent, Span(at + 1, end)))
    return found


def review_reversible(
    parse: RoleParse, frame: Frame, side: str, prepositional: bool = False
) -> tuple[Written | None, str | None]:
    """The two hypotheses of a frame, or the reason it gives none."""
    if overlaps(frame):
        return None, OVERLAP[0]
    if indefinite(parse, frame.agent) or indefinite(parse, frame.patient):  # "no one": of unknown animacy
        return None, "indefinite_argument"
    if animacy(parse, frame.agent) != ANIMATE:
        return None, "agent_not_animate"
    if animacy(parse, frame.patient) != ANIMATE:
        return None, "patient_not_animate"
    if key(parse.tokens[frame.verb]) in RECIPROCAL_VERBS and not prepositional:  # PREPOSITIONAL has its direction
        return None, "symmetric_predicate"
    if frame.patient.start > 0 and parse.tokens[frame.patient.start - 1].lower() == "with":
        return None, "reciprocal_with"
    tag = parse.tags[frame.verb]
    if tag not in ASSERTING_TAGS:
        return None, "not_asserted"
    kind = construction(parse, frame)
    if tag == "VBN" and kind != "passive":
        return None, "verb_form"
    second = frame.agent if kind == "passive" else frame.patient
    between = parse.tags[frame.verb + 1 : second.start - prepositional]
    if (
        second.start < frame.verb
        or any(t != "RP" for t in between[:-1] if kind == "passive")
        or (kind == "passive" and parse.tokens[second.start - 1].lower() != "by")
        or (kind != "passive" and any(t not in ("RP", "RB") if prepositional else t != "RP" for t in between))
    ):
        return None, "split_frame"
    if any(
        parse.tags[s.start] == "NN" and parse.tokens[s.start].lower() not in PERSON_PRONOUNS
        for s in (frame.agent, frame.patient)
    ):
        return None, "bare_singular"
    after = parse.tags[second.end] if second.end < len(parse.tags) else None
    if kind != "passive" and after in ("DT", "PRP$", "CD"):
        return None, "double_object"
    if kind != "passive" and after == "TO" and second.end + 1 < len(parse.tags) and parse.tags[second.end + 1] == "VB":
        return None, "not_asserted"
    if kind == "active" and frame.agent.end <= frame.verb and _verb_between(parse, frame.agent.end, frame.verb):
        return None, "verb_between"
    swap = exchange(parse, frame)
    for f in FILTERS:
        if f.name not in NOT_APPLICABLE and f.rejects(swap):
            return None, f.name
    return Written(side, parse, frame, kind, prepositional, *write(parse, frame, kind)), None


def _verb_between(parse: RoleParse, start: int, end: int) -> bool:
    """A verb other than an auxiliary between an agent and its verb, not joined by "and", "while", "as" or a
    comma: the verb is most likely misread ("is riding jumping pony": "jumping" taken for the verb)."""
    words = [w.lower() for w in parse.tokens[start:end]]
    verbs = [i for i in range(start, end) if parse.tags[i].startswith("VB") and not is_auxiliary(parse.tokens[i])]
    return bool(verbs) and not {"and", "while", "as", ",", "then", "or"} & set(words)


def write(parse: RoleParse, frame: Frame, kind: str) -> tuple[str, str]:
    """The frame as a main clause, and the same clause with agent and patient exchanged."""
    agent, patient = frame.agent, frame.patient
    return _clause(parse, frame, kind, agent, patient), _clause(parse, frame, kind, patient, agent)


def _clause(parse: RoleParse, frame: Frame, kind: str, agent: Span, patient: Span) -> str:
    verb, tag = parse.tokens[frame.verb], parse.tags[frame.verb]
    before = [w.lower() for w in parse.tokens[max(0, frame.verb - 3) : frame.verb]]
    past = any(w in PAST_BE for w in before) or tag == "VBD"
    after = _verb_words(parse, frame, kind)
    if kind == "passive":  # the patient stays the subject: "A woman is pushed by a man"
        subject, rest = patient, ["being"] * ("being" in before) + after
        words = [*_words(parse, subject, True), be(parse, subject, past), *rest, *_words(parse, agent, False)]
    elif tag == "VBG":
        words = [*_words(parse, agent, True), be(parse, agent, past), *after, *_words(parse, patient, False)]
    else:
        words = [agree(verb.lower(), tag, plural(parse, agent)), *after[1:]]
        words = [*_words(parse, agent, True), *words, *_words(parse, patient, False)]
    words[0] = capitalised(words[0])
    return " ".join([*words, "."])


def _verb_words(parse: RoleParse, frame: Frame, kind: str) -> list[str]:
    """The verb with the particles between it and its second argument ("showing off", "worked on by")."""
    second = frame.agent if kind == "passive" else frame.patient
    return [w.lower() for w in parse.tokens[frame.verb : second.start]]


def _words(parse: RoleParse, span: Span, subject: bool) -> list[str]:
    """The span's words, a whole-conjunct pronoun in the case of its slot, the sentence's first capital undone."""
    out = []
    for word, i in case_for_slot(parse, span, nominative=subject):
        if i == 0 and word == parse.tokens[0] and not keeps_capital(word, parse.tags[0]):
            word = uncapitalised(word)
        out.append(word)
    return out


def _pronoun_moves(parse: RoleParse, frame: Frame) -> bool:
    return has_cased_pronoun(parse, frame.agent) or has_cased_pronoun(parse, frame.patient)


def _same_relation(a: Written, b: Written) -> bool:
    """The same verb between the same two beings, named alike or one by the other's hypernym."""

    def match(x: RoleParse, xs: Span, y: RoleParse, ys: Span) -> bool:
        return any(words_match(x.tokens[i], y.tokens[j]) for i in heads(x, xs) for j in heads(y, ys))

    return (
        key(a.parse.tokens[a.frame.verb]) == key(b.parse.tokens[b.frame.verb])
        and match(a.parse, a.frame.agent, b.parse, b.frame.agent)
        and match(a.parse, a.frame.patient, b.parse, b.frame.patient)
    )


def _span(roles: RoleParse, span: Span) -> dict:
    return {"text": roles.text(span), "start": span.start, "end": span.end}


def _card_lines(config) -> list[str]:
    x = config.extra
    found = x.get("frames_found", {})
    lines = [
        "",
        f"Role labeler `{x.get('labeler')}`: {x.get('frames', 0)} frames with an agent and a patient were "
        f"found ({', '.join(f'{k} {v}' for k, v in found.items()) or 'none'}); {x.get('final', 0)} became rows.",
        "",
        "Each row's original pair is the premise with a hypothesis written from one of its frames (or from a "
        "frame of one of its entailment hypotheses, which the premise entails), gold entailment; its "
        "perturbed pair is the premise with the same hypothesis, agent and patient exchanged. Both agent and "
        "patient are animate, so that the reversal is not told from the hypothesis alone by a thing acting "
        "on a person.",
        "",
        "Between a person and an animal the reversal is still often implausible on its own ('a goat is "
        "milking a farmer', 'a cat is brushing a girl'): such rows are kept, and tagged `beings:person-animal` "
        "or `beings:animal-person` (`beings:person-person` between two people). Read the hypothesis-only "
        "check and the `beings:person-person` slice: they are what only the roles decide.",
        "",
        "The reversal is labeled `neutral`, non-entailment in the binary view (`binary_label`), not "
        "contradiction: the premise says that the man pushes the woman, not that she does not push him, so "
        "the reversal is not entailed but not excluded either; HANS likewise labels its subject/object "
        "swaps non-entailment. Score this configuration in the binary view.",
        "",
        "The reversal changes only the order of the two arguments, the case of a pronoun that moves, and the "
        "verb's agreement with its new subject ('two men are carrying a boy' -> 'a boy is carrying two "
        "men'), so that no reversal is told apart by broken agreement.",
        "",
        "| reason | dropped | why |",
        "|---|---:|---|",
    ]
    reasons, described = x.get("drop_reasons", {}), x.get("filters", {})
    for name in dict.fromkeys([*described, *reasons]):
        lines.append(f"| `{name}` | {reasons.get(name, 0)} | {described.get(name, 'no description recorded')} |")
    return lines
