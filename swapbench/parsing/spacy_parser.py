"""Constituents projected from spaCy's dependency parse.

Each head's subtree becomes a phrase labelled by the head's part of speech. A plain subtree projection disagrees
with Penn Treebank bracketing in predictable ways, so each head also yields the smaller phrases that PTB has:

- a verb phrase leaves out the subject, and nests once per auxiliary: "is being driven by men",
  "being driven by men", "driven by men";
- a head with coordinated dependents also yields the phrase without the coordination: "a man" in
  "a man and a woman";
- a noun with dependents on its right also yields its base noun phrase: "a cook" in "a cook in an apron";
- particles ("picks *up*") are PRT, not PP, as in PTB;
- an adjective or determiner heading a subject or object is an NP ("each other");
- an adjective inside a noun phrase is an ADJP only when modified or coordinated ("very tall", "red and
  green"): PTB leaves "a bright yellow shirt" flat;
- when a verb's coordination is left out, so are its auxiliaries: PTB has "are (holding guns and peering)";
- hyphenated words are one token, as in PTB ("middle-aged").

Each rule was kept because it raised precision or recall against the SNLI test split's PTB trees
(scripts/bench_build.py prints the agreement).

Punctuation at a phrase's edges is trimmed.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from ..core.registry import PARSERS
from .base import ConstituencyParser, Constituent, Parse
from .spacy_pipeline import SpacyDocs, load_english, pipeline_version, spacy_docs  # noqa: F401  (imported from here by other modules)

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

# Bump when the projection rules change: cached parses of an older version are then not reused.
PROJECTION_VERSION = "6"

POS_LABEL = {
    "NOUN": "NP",
    "PROPN": "NP",
    "PRON": "NP",
    "NUM": "NP",
    "VERB": "VP",
    "AUX": "VP",
    "ADP": "PP",
    "ADJ": "ADJP",
    "ADV": "ADVP",
}
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
AUX_DEPS = frozenset({"aux", "auxpass", "neg"})
COORD_DEPS = frozenset({"cc", "conj", "preconj"})
# Dependents that stay outside the base noun phrase when they follow the noun.
NOMINAL_DEPS = frozenset({"nsubj", "nsubjpass", "dobj", "pobj", "iobj", "attr", "appos", "npadvmod"})
ADJECTIVE_MODIFIER_DEPS = frozenset({"advmod", "npadvmod", "cc", "conj"})
POSTMODIFIER_DEPS = frozenset({"prep", "acl", "relcl", "appos", "cc", "conj", "punct", "advmod", "amod", "npadvmod"})


def merge_hyphenated(doc: Doc) -> Doc:
    """Merge word-hyphen-word runs written without spaces into one token, which keeps the head's parse.
    The Doc given is left as it is (others read it too): a copy is merged, when there is anything to merge."""
    spans, i = [], 0
    while i < len(doc) - 2:
        j = i
        while (
            j + 2 < len(doc)
            and doc[j + 1].text == "-"
            and not doc[j].whitespace_
            and not doc[j + 1].whitespace_
            and doc[j].text[-1:].isalnum()
            and doc[j + 2].text[:1].isalnum()
        ):
            j += 2
        if j > i:
            spans.append(doc[i : j + 1])
        i = j + 1
    if spans:
        doc = doc.copy()
        with doc.retokenize() as retokenizer:
            for span in spans:
                retokenizer.merge(doc[span.start : span.end])
    return doc


def project(doc: Doc) -> Parse:
    doc = merge_hyphenated(doc)
    # Every token attribute is read once into plain lists: spaCy builds a new Token (and string) on each access.
    words = list(doc)
    dep = [t.dep_ for t in words]
    pos = [t.pos_ for t in words]
    left_edge = [t.left_edge.i for t in words]
    right_edge = [t.right_edge.i for t in words]
    lefts: list[list[int]] = [[] for _ in words]  # children before / after each head, in sentence order
    rights: list[list[int]] = [[] for _ in words]
    for t in words:
        head = t.head.i
        if head > t.i:
            lefts[head].append(t.i)
        elif head < t.i:
            rights[head].append(t.i)
    # Runs of extra whitespace are tokens in spaCy; they are dropped, and spans renumbered to match.
    kept = [t.i for t in words if not t.is_space]
    position = {i: k for k, i in enumerate(kept)}
    punct = tuple(pos[i] == "PUNCT" for i in kept)  # by tag, as for PTB: "&" is a word
    skip = [t.is_space or pos[t.i] == "PUNCT" for t in words]
    spans: dict[tuple[str, int, int], None] = {}

    def add(label: str, start: int, end: int) -> None:
        while start < end and skip[start]:
            start += 1
        while end > start and skip[end - 1]:
            end -= 1
        if end > start:
            spans[(label, position[start], position[end - 1] + 1)] = None

    for head in range(len(words)):
        left, right = lefts[head], rights[head]
        label = _label(dep[head], pos[head], len(left) + len(right))
        if label is None:
            continue
        if not left and not right:  # a word without dependents (most are): its own one-word phrase, if any
            if not skip[head] and not (label == "ADJP" and dep[head] == "amod"):
                spans[(label, position[head], position[head] + 1)] = None
            continue
        if label == "ADJP" and dep[head] == "amod" and not any(dep[c] in ADJECTIVE_MODIFIER_DEPS for c in right + left):
            continue
        if label == "VP":
            subjects = [k for k, child in enumerate(left) if dep[child] in SUBJECT_DEPS]
            left = left[subjects[-1] + 1 :] if subjects else left
            left = [c for c in left if dep[c] not in ("mark", "punct", "cc")]
        for kept_right in _right_variants(right, dep):
            end = max([head + 1] + [right_edge[c] + 1 for c in kept_right])
            if label == "VP":
                # One phrase per auxiliary, as PTB nests VPs: "is being driven", "being driven", "driven".
                starts = [left_edge[c] for c in left if dep[c] in AUX_DEPS or c == left[0]] + [head]
                if kept_right is not right:
                    starts = [head]
                for start in starts:
                    add(label, start, end)
            else:
                start = min([head] + [left_edge[c] for c in left])
                add(label, start, end)
        if label == "NP" and right:
            base_right = [c for c in right if dep[c] not in POSTMODIFIER_DEPS]
            end = max([head + 1] + [right_edge[c] + 1 for c in base_right])
            add(label, min([head] + [left_edge[c] for c in left]), end)

    constituents = tuple(Constituent(label, s, e) for label, s, e in sorted(spans, key=lambda k: (k[1], -k[2], k[0])))
    return Parse(tuple(words[i].text for i in kept), tuple(words[i].tag_ for i in kept), punct, constituents)


def _label(dep: str, pos: str, children: int) -> str | None:
    if dep == "prt":
        return "PRT"
    if pos in ("ADJ", "DET") and dep in NOMINAL_DEPS and children:
        return "NP"
    if pos == "AUX" and dep in ("aux", "auxpass"):
        return None
    return POS_LABEL.get(pos)


def _right_variants(right: list[int], dep: list[str]) -> list[list[int]]:
    """The right dependents, and the same without a trailing coordination (and its comma)."""
    variants = [right]
    coord = [k for k, c in enumerate(right) if dep[c] in COORD_DEPS]
    if coord:
        variants.append([c for c in right[: coord[0]] if dep[c] != "punct"])
    return variants


class SpacyParser(ConstituencyParser):
    name = "spacy"

    def __init__(self, model: str | None = None, nlp: Language | None = None, batch_size: int = 256):
        """`nlp`: a loaded pipeline to use on its own; else the build's shared one (spacy_pipeline.spacy_docs)."""
        self.docs = SpacyDocs(nlp=nlp, batch_size=batch_size) if nlp is not None else spacy_docs(model)
        self.nlp = self.docs.nlp  # loaded now: a missing pipeline is refused before any work

    @cached_property
    def version(self) -> str:
        return f"{self.docs.version}/projection-{PROJECTION_VERSION}"

    @property
    def spacy_pipeline(self) -> str:
        return self.docs.version

    def parse_many(self, inputs: list[str]) -> list[Parse]:
        return [project(doc) for doc in self.docs.docs(inputs)]


@PARSERS.register("spacy", help="constituents projected from spaCy's dependency parse (--spacy-model)")
def make_spacy(spacy_model: str | None = None, **options) -> SpacyParser:
    return SpacyParser(spacy_model)
