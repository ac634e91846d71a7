"""Penn Treebank bracketed parses, as SNLI 1.0 ships them in `sentence1_parse`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..core.errors import SwapbenchError
from ..core.registry import PARSERS
from ..core.treebank import PTB_UNESCAPE, spells, tree_words, unescape  # noqa: F401  (read here too)
from .base import ConstituencyParser, Constituent, MalformedInput, Parse

if TYPE_CHECKING:
    from nltk import Tree

# Punctuation is decided by the tag: "&" (CC) and "$" are words, "--" (:) is not.
PTB_PUNCT_TAGS = frozenset({".", ",", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP"})


def base_label(label: str) -> str:
    """NP-SBJ-1 and NP=2 are NPs; -LRB- and -NONE- stay as they are."""
    if label.startswith("-"):
        return label
    return label.split("-")[0].split("=")[0]


def read_parse(text: str) -> Parse:
    """The Parse of a bracketed tree, read in one pass, as parse_tree(nltk's Tree.fromstring(text)) makes it, in
    a fraction of the time; ValueError (tree_words's) when the brackets make no tree with words.

    A node with a single leaf is a preterminal (tag and word); a leaf beside other children is kept with no tag.
    Constituents are taken as their brackets close, in post-order as parse_tree walks.
    """
    tokens: list[str] = []
    tags: list[str] = []
    found: list[Constituent] = []
    stack: list[list] = []  # open nodes: [label, first token, children, whether the only child is a leaf]
    label_next = ended = False
    for piece in text.replace("(", " ( ").replace(")", " ) ").split():
        if ended:
            raise ValueError(tree_error(text))
        if piece == "(":
            if stack:
                stack[-1][2] += 1
                stack[-1][3] = False
            stack.append(["", len(tokens), 0, False])
            label_next = True
        elif piece == ")":
            if not stack:
                raise ValueError(tree_error(text))
            label, start, children, leaf = stack.pop()
            if children == 1 and leaf:
                tags[start] = label  # a preterminal: its label is the word's tag
            else:
                name = base_label(label)
                if name not in ("ROOT", "TOP", "") and len(tokens) > start:
                    found.append(Constituent(name, start, len(tokens)))
            label_next, ended = False, not stack
        elif label_next:
            stack[-1][0] = piece
            label_next = False
        elif not stack:
            raise ValueError(tree_error(text))
        else:
            node = stack[-1]
            node[2] += 1
            node[3] = node[2] == 1
            tokens.append(PTB_UNESCAPE.get(piece, piece))
            tags.append("")
    if stack or not tokens:
        raise ValueError(tree_error(text))
    found.sort(key=lambda c: (c.start, -c.end))
    punct = tuple(is_punctuation(tok, tag) for tok, tag in zip(tokens, tags))
    return Parse(tuple(tokens), tuple(tags), punct, tuple(found))


def tree_error(text: str) -> str:
    """What is wrong with a bracketed parse that does not read as one tree with words."""
    try:
        tree_words(text)
    except ValueError as err:
        return str(err)
    return "not one tree"


def is_punctuation(token: str, tag: str) -> bool:
    """Punctuation by its tag; a leaf without a tag by its characters."""
    return tag in PTB_PUNCT_TAGS or (not tag and not any(ch.isalnum() for ch in token))


@dataclass
class Node:
    """A constituent of a bracketed parse with its token span; preterminals carry their word."""

    label: str  # the base label (NP for NP-SBJ-1); for a preterminal, its part-of-speech tag
    start: int
    end: int
    children: list[Node] = field(default_factory=list)
    word: str | None = None  # set on preterminals and bare leaves


def read_tree(tree: Tree | str) -> tuple[Node, list[str], list[str]]:
    """The one reader of bracketed parses: the tree as Nodes with token spans, its tokens (PTB escapes undone) and
    their tags ("" for a bare leaf under a phrase). A string is read in one pass, as from nltk's
    Tree.fromstring(text) (ValueError if malformed), without importing nltk (a second)."""
    if isinstance(tree, str):
        return _read_nodes(tree)
    tokens: list[str] = []
    tags: list[str] = []

    def build(node) -> Node:
        if type(node) is str:  # a bare leaf: kept, with no tag
            tokens.append(unescape(node))
            tags.append("")
            return Node("", len(tokens) - 1, len(tokens), word=tokens[-1])
        if len(node) == 1 and type(node[0]) is str:
            tokens.append(unescape(node[0]))
            tags.append(node.label())
            return Node(node.label(), len(tokens) - 1, len(tokens), word=tokens[-1])
        start = len(tokens)
        children = [build(child) for child in node]
        return Node(base_label(node.label()), start, len(tokens), children)

    return build(tree), tokens, tags


def _read_nodes(text: str) -> tuple[Node, list[str], list[str]]:
    """read_tree of a string. A leaf is kept as a bare leaf until its bracket closes: on it alone, the bracket is
    a preterminal, whose label is the word's tag."""
    tokens: list[str] = []
    tags: list[str] = []
    stack: list[list] = []  # open brackets: [label, first token, children, whether the one child is a leaf]
    root: Node | None = None
    label_next = False
    for piece in text.replace("(", " ( ").replace(")", " ) ").split():
        if root is not None:
            raise ValueError(tree_error(text))
        if piece == "(":
            stack.append(["", len(tokens), [], False])
            label_next = True
        elif piece == ")":
            if not stack:
                raise ValueError(tree_error(text))
            label, start, children, leaf = stack.pop()
            if len(children) == 1 and leaf:
                tags[start] = label
                node = Node(label, start, start + 1, word=tokens[start])
            else:
                node = Node(base_label(label), start, len(tokens), children)
            if stack:
                stack[-1][2].append(node)
                stack[-1][3] = False
            else:
                root = node
            label_next = False
        elif label_next:
            stack[-1][0] = piece
            label_next = False
        elif not stack:
            raise ValueError(tree_error(text))
        else:
            tokens.append(unescape(piece))
            tags.append("")
            open_bracket = stack[-1]
            open_bracket[2].append(Node("", len(tokens) - 1, len(tokens), word=tokens[-1]))
            open_bracket[3] = len(open_bracket[2]) == 1
    if root is None:
        raise ValueError(tree_error(text))
    return root, tokens, tags


def parse_tree(tree: Tree) -> Parse:
    root, tokens, tags = read_tree(tree)
    constituents: list[Constituent] = []

    def walk(node: Node) -> None:
        for child in node.children:
            if child.word is None:
                walk(child)
        if node.label not in ("ROOT", "TOP", "") and node.end > node.start:
            constituents.append(Constituent(node.label, node.start, node.end))

    if root.word is None:  # a one-word sentence without a phrase above it has no constituent
        walk(root)
    # Post-order appends children before parents; outermost-first reads more naturally.
    constituents.sort(key=lambda c: (c.start, -c.end))
    punct = tuple(is_punctuation(tok, tag) for tok, tag in zip(tokens, tags))
    return Parse(tuple(tokens), tuple(tags), punct, tuple(constituents))


class PTBParser(ConstituencyParser):
    name = "ptb"
    reads_text = False

    @property
    def version(self) -> str:
        return "ptb-1"

    def parse_many(self, inputs: list[str]) -> list[Parse]:
        parses = []
        for index, text in enumerate(inputs):
            try:
                parses.append(read_parse(text))
            except ValueError as err:
                raise MalformedInput(index, f"malformed bracketed parse: {err}") from err
        return parses

    def is_parse_of(self, parse: Parse, source: str) -> bool:
        try:
            return parse.tokens == tuple(tree_words(source))
        except ValueError:
            return False


@PARSERS.register("ptb", help="the Penn Treebank trees the source supplies (SNLI 1.0's sentence1_parse)")
def make_ptb(has_parses: bool = True, **options) -> PTBParser:
    if not has_parses:
        raise SwapbenchError(
            "--parser ptb needs bracketed parses (sentence1_parse) in the source; "
            "the Hub copy of SNLI has none: use --parser spacy or a local SNLI 1.0 file"
        )
    return PTBParser()
