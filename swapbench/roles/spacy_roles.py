"""Agent and patient read off spaCy's dependency parse.

- active clauses: the nsubj subtree is the agent, the dobj subtree the patient;
- passives: the nsubjpass subtree is the patient, the noun phrase under the `agent` preposition ("by") the agent;
- participial modifiers: "a girl wearing pink" (acl, -ing): the modified noun phrase is the agent;
  "a ball thrown by a boy" (acl, -ed): it is the patient;
- relative clauses: "a boy who kicks a ball": the noun phrase the clause modifies fills the role of its
  relative pronoun, as PropBank (and AllenNLP) have it;
- a verb without a subject of its own borrows its head's: coordinated verbs ("sits and reads a book") and
  control ("tries to catch a ball");
- a subtree keeps its modifiers and coordination ("a man and a woman", "a man in a grassy field").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.registry import LABELERS
from ..parsing.spacy_pipeline import SpacyDocs, spacy_docs
from .base import RELATIVE_PRONOUNS, Frame, RoleLabeler, RoleParse, Sentence, Span, trimmed

if TYPE_CHECKING:  # spaCy takes seconds to import: a build that labels nothing goes without it
    from spacy.language import Language
    from spacy.tokens import Doc, Token

# Verbs that take their subject from the verb they depend on.
BORROWS_SUBJECT = frozenset({"conj", "xcomp"})


def is_punct(token: Token) -> bool:
    return token.is_punct or token.pos_ == "PUNCT" or not any(ch.isalnum() for ch in token.text)


class SpacyRoles(RoleLabeler):
    name = "spacy"

    def __init__(self, model: str | None = None, nlp: Language | None = None, batch_size: int = 256):
        """`nlp`: a loaded pipeline to use on its own; else the build's shared one, whose Docs the spaCy parser
        may have made already (parsing/spacy_pipeline.py)."""
        self.docs = SpacyDocs(nlp=nlp, batch_size=batch_size) if nlp is not None else spacy_docs(model)
        self.nlp = self.docs.nlp

    @property
    def spacy_pipeline(self) -> str:
        return self.docs.version

    def label_many(self, sentences: list[Sentence]) -> list[RoleParse | None]:
        return [role_parse(doc, self.name) for doc in self.docs.docs([s.text for s in sentences])]


@LABELERS.register("spacy", help="roles from spaCy's dependency parse; needs only the text")
def spacy_labeler(spec: str = "spacy", spacy_model: str | None = None) -> SpacyRoles:
    return SpacyRoles(spacy_model)


def role_parse(doc: Doc, labeler: str = "spacy") -> RoleParse:
    punct = [is_punct(t) for t in doc]
    frames = []
    for token in doc:
        if token.pos_ not in ("VERB", "AUX") or token.dep_ in ("aux", "auxpass"):
            continue
        agent, patient = roles(token)
        frames.append(Frame(token.i, _span(agent, punct), _span(patient, punct)))
    return RoleParse(tuple(t.text for t in doc), tuple(t.tag_ for t in doc), tuple(frames), labeler)


def roles(verb: Token, depth: int = 0) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """(agent, patient) of `verb` as (start, end) token ranges, before punctuation is trimmed."""
    agent = patient = None
    subject = None
    for child in verb.children:
        if child.dep_ == "nsubj" and agent is None:
            agent = subject = subtree(child)
        elif child.dep_ == "nsubjpass" and patient is None:
            patient = subject = subtree(child)
        elif child.dep_ == "dobj" and patient is None:
            patient = subtree(child)
        elif child.dep_ == "agent":  # "by" of a passive
            objects = [c for c in child.children if c.dep_ == "pobj"]
            if objects:
                agent = subtree(objects[0])

    relative = _relative_pronoun(verb)
    if verb.dep_ == "relcl" and relative is not None:
        head = base_phrase(verb.head, verb)
        if relative.dep_ == "nsubj":
            agent = head
        elif relative.dep_ in ("dobj", "nsubjpass"):
            patient = head
    elif verb.dep_ == "acl" and verb.head.pos_ in ("NOUN", "PROPN", "PRON", "NUM"):
        head = base_phrase(verb.head, verb)
        if verb.tag_ == "VBN":
            patient = patient or head
        else:
            agent = agent or head
    elif subject is None and verb.dep_ in BORROWS_SUBJECT and depth < 5:
        head_agent, head_patient = roles(verb.head, depth + 1)
        passive_head = any(c.dep_ == "nsubjpass" for c in verb.head.children)
        if passive_head and verb.dep_ == "conj" and head_patient and patient is None:
            patient = head_patient  # "was hit and knocked over": the subject is the patient of both
        elif not passive_head and head_agent and agent is None:
            agent = head_agent
    return agent, patient


def subtree(token: Token) -> tuple[int, int]:
    return token.left_edge.i, token.right_edge.i + 1


def base_phrase(noun: Token, modifier: Token) -> tuple[int, int]:
    """The noun phrase that `modifier` (a participle or relative clause) modifies, without the modifier."""
    start = noun.left_edge.i
    end = modifier.left_edge.i if modifier.left_edge.i > noun.i else noun.i + 1
    return start, end


def _relative_pronoun(verb: Token) -> Token | None:
    for child in verb.children:
        if (
            child.dep_ in ("nsubj", "nsubjpass", "dobj")
            and child.lower_ in RELATIVE_PRONOUNS
            and child.tag_ in ("WP", "WDT")
        ):
            return child
    return None


def _span(span: tuple[int, int] | None, punct: list[bool]) -> Span | None:
    return trimmed(Span(*span), punct) if span else None
