"""Comparing texts that tokenizers and treebanks spell differently, names made safe for file names, figures as
people read them, and slice tags in the order people read them."""

from __future__ import annotations

import re
from pathlib import Path


# Penn Treebank spells " as `` and '', and ' as `; texts may have typographic quotes. Quote style is never what
# two spellings of a sentence differ in, so every comparison reads all of them as the plain ones.
QUOTES = (("``", '"'), ("''", '"'), ("\u201c", '"'), ("\u201d", '"'), ("`", "'"), ("\u2018", "'"), ("\u2019", "'"))


def plain_quotes(text: str) -> str:
    """`text` with Penn Treebank and typographic quotes as plain ones; white space is kept."""
    for quote, plain in QUOTES:
        text = text.replace(quote, plain)
    return text


def squash(text: str) -> str:
    """`text` without its white space and with plain quotes (plain_quotes).

    Two spellings of one sentence squash alike: the raw SNLI text, a parser's tokens joined, a treebank's leaves.
    Squashing tokens one by one gives the lengths that locate them in the squashed sentence.
    """
    return plain_quotes("".join(text.split()))


def slug(name: str, empty: str = "model") -> str:
    """A model or dataset name as one safe file-name part: a local path by its last part, a Hub id with "__" for
    "/", other characters outside [A-Za-z0-9_.@-] as "_" (none at either end); `empty` when nothing is left."""
    name = Path(name).name if Path(name).exists() else name.replace("/", "__")
    return re.sub(r"[^A-Za-z0-9_.@-]+", "_", name).strip("_") or empty


def points(fraction: float) -> str:
    """A difference of fractions as signed percentage points to one decimal; one that rounds to zero is 0.0,
    never -0.0. Fractions are stored, points are shown (docs/commands/eval.md, "Units")."""
    text = f"{100 * fraction:+.1f}"
    return "0.0" if text in ("+0.0", "-0.0") else text


def percent(fraction: float) -> str:
    """A fraction as a percentage to one decimal, unsigned: accuracies and rates. A value that rounds to zero
    from below (a spread's lower bound) is 0.0, never -0.0."""
    text = f"{100 * fraction:.1f}"
    return "0.0" if text == "-0.0" else text


# A path of the machine that wrote a file: absolute, home- or dot-relative, standing on its own or after "=" or a
# quote (so "owner/name" Hub ids and URLs are left alone).
_MACHINE_PATH = re.compile(r"""(?<![\w:/.~…-])(?:~|\.{1,2})?/[^\s'"`),]*""")


def portable(text: str | None, keep: int = 1) -> str | None:
    """`text` with every path of this machine in it cut to its last `keep` components: "…/snli_1.0". For a file
    that is published (a board, a zoo): applied to a JSON file's text, it cuts the paths inside its strings and
    leaves every other byte as it was."""
    if text is None:
        return None

    def cut(match: re.Match) -> str:
        parts = [part for part in match.group(0).split("/") if part not in ("", ".", "..", "~")]
        if "site-packages" in parts:  # an installed package's files: named by the package, wherever it is
            return "…/" + "/".join(parts[parts.index("site-packages"):])
        return "…/" + "/".join(parts[-keep:]) if parts else match.group(0)

    return _MACHINE_PATH.sub(cut, text)


def tag_sort_key(tag: str) -> tuple:
    """Slice tags (kind:value) in natural order: by kind, then by value, numbers in numeric order (words:9 before
    words:10), numbers before words."""
    kind, _, value = tag.partition(":")
    return (kind, 0, int(value), "") if value.isdigit() else (kind, 1, 0, value)
