"""Agent and patient read off a Penn Treebank constituency tree, such as the ones SNLI 1.0 ships.

A verb's subject is the NP before its VP in a clause (S -> NP VP); its patient the first NP after it inside
the VP. Around that core:

- auxiliary chains (VP -> is VP(being VP(driven ...))) pass the subject down to the main verb; be/get followed
  by a past participle makes it a passive, whose subject is the patient and whose agent is the NP of "by";
- participial modifiers (NP -> NP VP): the inner NP is the agent of an -ing verb, the patient of an -ed one;
- relative clauses (NP -> NP SBAR(WHNP S)): the inner NP fills the relative pronoun's role;
- a clause without a subject of its own ("tries [to catch a ball]", "sits and [reads a book]",
  "while [holding a cup]") borrows the subject of the clause around it.

The tree avoids some of spaCy's misparses of caption-style sentences ("a girl wearing pink *pulls* weeds", where
spaCy makes "pulls" an adjective) but brings its own parser's attachment errors; frames both find are the most
reliable (agreement.py).
"""

from __future__ import annotations

from ..core.registry import LABELERS
from ..parsing.ptb import Node, is_punctuation, read_tree, spells
from .base import POSSESSIVE_RELATIVE, RELATIVE_PRONOUNS, Frame, RoleLabeler, RoleParse, Sentence, Span, trimmed

VERB_TAGS = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "MD"})
CLAUSES = frozenset({"S", "SINV", "SQ"})
# Forms that, followed by a past participle, make a passive ("is driven", "got hit", "being driven").
PASSIVE_AUX = frozenset(
    {
        "be",
        "is",
        "am",
        "are",
        "was",
        "were",
        "been",
        "being",
        "'s",
        "'re",
        "'m",
        "get",
        "gets",
        "got",
        "gotten",
        "getting",
    }
)
AUXILIARIES = PASSIVE_AUX | frozenset(
    {
        "have",
        "has",
        "had",
        "having",
        "'ve",
        "'d",
        "do",
        "does",
        "did",
        "will",
        "would",
        "can",
        "could",
        "may",
        "might",
        "must",
        "shall",
        "should",
        "'ll",
        "ca",
        "wo",
    }
)


@LABELERS.register("tree", help="roles read off the Penn Treebank trees SNLI 1.0 ships; needs trees")
def tree_labeler(spec: str = "tree", spacy_model: str | None = None) -> TreeRoles:
    return TreeRoles()


class TreeRoles(RoleLabeler):
    name = "tree"

    def label_many(self, sentences: list[Sentence]) -> list[RoleParse | None]:
        return [self.label(s) for s in sentences]

    def label(self, sentence: Sentence) -> RoleParse | None:
        if not sentence.tree:
            return None
        try:
            root, tokens, tags = read_tree(sentence.tree)
        except ValueError:
            return None
        if not spells(tokens, sentence.text):
            return None  # a tree of some other sentence: do not trust it
        punct = [is_punctuation(tok, tag) for tok, tag in zip(tokens, tags)]
        frames: dict[int, Frame] = {}
        RoleWalker(frames, punct).walk(root)
        return RoleParse(tuple(tokens), tuple(tags), tuple(frames[i] for i in sorted(frames)), self.name)


class RoleWalker:
    def __init__(self, frames: dict[int, Frame], punct: list[bool]):
        self.frames = frames
        self.punct = punct

    def walk(self, node: Node, subject: Span | None = None) -> None:
        """Visit a node; `subject` is what a subjectless clause below it (reached through PP/SBAR) borrows."""
        if node.word is not None:
            return
        if node.label in CLAUSES:
            self.clause(node, subject)
        elif node.label == "VP":
            self.verb_phrase(node, subject)
        elif node.label == "NP":
            self.noun_phrase(node)
        else:
            for child in node.children:
                self.walk(child, subject if node.label in ("SBAR", "PP") else None)

    def clause(self, node: Node, subject: Span | None, gap: Span | None = None) -> None:
        own = _subject_of(node)
        subject = _span(own) if own else subject
        for child in node.children:
            if child.label == "VP":
                self.verb_phrase(child, subject, gap=gap)
            elif child.label in CLAUSES:  # S -> S CC S
                self.clause(child, subject if _subject_of(child) is None else None, gap)
            else:
                self.walk(child)

    def noun_phrase(self, node: Node) -> None:
        inner = None  # the NP that a following participle or relative clause modifies
        for child in node.children:
            if child.label == "NP":
                inner = child
                self.walk(child)
            elif child.label == "VP" and inner is not None:  # "a girl wearing pink", "a ball thrown by a boy"
                self.verb_phrase(child, _span(inner), participle=True)
            elif child.label == "SBAR" and inner is not None and _relative_pronoun(child):
                self.relative_clause(child, _span(inner))
            else:
                self.walk(child)

    def relative_clause(self, sbar: Node, head: Span) -> None:
        for child in sbar.children:
            if child.label in CLAUSES:
                if _subject_of(child) is None:  # "a boy who [kicks a ball]": the head is the subject
                    self.clause(child, head)
                else:  # "a ball that [a boy kicks]": the head is the object
                    self.clause(child, None, gap=head)

    def verb_phrase(
        self, node: Node, subject: Span | None, passive: bool = False, gap: Span | None = None, participle: bool = False
    ) -> None:
        verbs = [c for c in node.children if c.word is not None and c.label in VERB_TAGS]
        inner = [c for c in node.children if c.label == "VP"]
        head = verbs[0] if verbs else None
        if inner and (head is None or head.word.lower() in AUXILIARIES):
            # an auxiliary chain, or coordinated VPs: the subject goes down to each inner VP
            makes_passive = head is not None and head.word.lower() in PASSIVE_AUX
            for child in node.children:
                if child.label == "VP":
                    child_head = _head_verb(child)
                    child_passive = passive or (makes_passive and child_head is not None and child_head.label == "VBN")
                    self.verb_phrase(child, subject, child_passive, gap, participle)
                else:
                    self.walk(child, subject)
            return
        if head is None:
            for child in node.children:
                self.walk(child, subject)
            return
        if participle and head.label == "VBN":
            passive = True
        objects = [c for c in node.children if c.label == "NP" and c.start > head.start]
        by_agent = _by_phrase(node, head)
        if passive:
            agent, patient = by_agent, subject
        else:
            agent = subject
            patient = _span(objects[0]) if objects else gap
        self.frames[head.start] = Frame(head.start, trimmed(agent, self.punct), trimmed(patient, self.punct))
        for child in node.children:
            if child is head:
                continue
            if child.label in CLAUSES and _subject_of(child) is None:
                # control: "tries [to catch a ball]"; the borrowed subject is this verb's agent
                self.clause(child, agent if not passive else patient)
            else:
                self.walk(child, agent if not passive else None)


def _subject_of(clause: Node) -> Node | None:
    """The NP before the clause's first VP."""
    for child in clause.children:
        if child.label == "VP":
            return None
        if child.label == "NP":
            following = clause.children[clause.children.index(child) + 1 :]
            if any(c.label == "VP" for c in following):
                return child
    return None


def _head_verb(vp: Node) -> Node | None:
    for child in vp.children:
        if child.word is not None and child.label in VERB_TAGS:
            return child
    for child in vp.children:  # coordinated VPs: the first conjunct's verb
        if child.label == "VP":
            return _head_verb(child)
    return None


def _by_phrase(vp: Node, head: Node) -> Span | None:
    for child in vp.children:
        if child.label == "PP" and child.start > head.start and child.children:
            first = child.children[0]
            if first.word is not None and first.word.lower() == "by":
                nps = [c for c in child.children[1:] if c.label == "NP"]
                if nps:
                    return _span(nps[0])
    return None


def _relative_pronoun(sbar: Node) -> bool:
    for child in sbar.children:
        if child.label == "WHNP":
            words = [n.word.lower() for n in child.children if n.word is not None]
            # "a man whose dog barks": the man is the dog's owner, not the barker
            return words[:1] != [] and words[0] in RELATIVE_PRONOUNS and words[0] != POSSESSIVE_RELATIVE
    return False


def _span(node: Node) -> Span:
    return Span(node.start, node.end)
