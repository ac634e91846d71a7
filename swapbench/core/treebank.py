"""The words of a Penn Treebank bracketed parse, and whether they spell a text: what a source checks when it reads
trees (SNLI 1.0's `sentence1_parse`), without parsing them. The trees themselves are read in parsing/ptb.py."""

from __future__ import annotations

from .text import squash

# PTB escapes of brackets and quotes, undone so that the premise reads as text.
PTB_UNESCAPE = {
    "-LRB-": "(",
    "-RRB-": ")",
    "-LSB-": "[",
    "-RSB-": "]",
    "-LCB-": "{",
    "-RCB-": "}",
    "``": '"',
    "''": '"',
    "`": "'",
}


def unescape(token: str) -> str:
    return PTB_UNESCAPE.get(token, token)


def tree_words(text: str) -> list[str]:
    """The words of a bracketed parse, PTB escapes undone; ValueError unless its brackets make one tree.

    The brackets are checked as nltk's reader checks them, without building the tree, which costs several times
    as much: reading a split checks every tree it holds, and the build then reads only the distinct premises'.
    """
    words: list[str] = []
    depth, label_next, ended = 0, False, False
    for token in text.replace("(", " ( ").replace(")", " ) ").split():
        if ended:
            raise ValueError(f"{token!r} after the bracket that closes the tree")
        if token == "(":
            depth, label_next = depth + 1, True
        elif token == ")":
            if depth == 0:
                raise ValueError("a closing bracket before any opening one")
            depth, label_next = depth - 1, False
            ended = depth == 0
        elif label_next:  # the label of the bracket just opened
            label_next = False
        elif depth == 0:
            raise ValueError(f"{token!r} outside the brackets")
        else:
            words.append(unescape(token))
    if depth:
        raise ValueError(f"{depth} bracket(s) left open")
    if not words:
        raise ValueError("no words")
    return words


def spells(words: list[str] | tuple[str, ...], text: str) -> bool:
    """Whether `words` are the text's, ignoring whitespace and quote styles."""
    return squash("".join(words)) == squash(text)
