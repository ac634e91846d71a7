"""Comparing texts that tokenizers and treebanks spell differently, names made safe for file names, figures as
people read them, and slice tags in the order people read them."""

from __future__ import annotations

import hashlib
import os
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


# The longest slug: file systems take 255 bytes a name, and a slug is one part of a name (results_<data>_<time>,
# a cache entry with its key, a staging file's ".<name>.<pid>-<token>.tmp" around that).
SLUG_MAX = 64


def slug(name: str, empty: str = "model") -> str:
    """A model or dataset name as one safe file-name part: a local path by its last part, a Hub id with "__" for
    "/", other characters outside [A-Za-z0-9_.@-] as "_" (none at either end); `empty` when nothing is left. A
    name longer than SLUG_MAX keeps a readable start and ends in a hash of the whole name, so that two long names
    that start alike stay apart and no file name runs past the file system's limit."""
    name = Path(name).name if exists(name) else name.replace("/", "__")
    safe = re.sub(r"[^A-Za-z0-9_.@-]+", "_", name).strip("_") or empty
    if len(safe) <= SLUG_MAX:
        return safe
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{safe[: SLUG_MAX - len(digest) - 1].rstrip('_.-')}-{digest}"


def exists(name: str) -> bool:
    """Whether a file or folder `name` is there; False for a name no file system takes (too long a part), which
    Path.exists raises on."""
    try:
        return Path(name).exists()
    except (OSError, ValueError):
        return False


def points(fraction: float) -> str:
    """A difference of fractions as signed percentage points to one decimal; one that rounds to zero is 0.0,
    never -0.0. Fractions are stored, points are shown (docs/commands/eval.md, "Units")."""
    text = f"{100 * fraction:+.1f}"
    return "0.0" if text in ("+0.0", "-0.0") else text


def plus_minus(spread: float) -> str:
    """A standard deviation of fractions beside its mean, in points: "±0.4"."""
    return f"±{100 * spread:.1f}"


def percent(fraction: float) -> str:
    """A fraction as a percentage to one decimal, unsigned: accuracies and rates. A value that rounds to zero
    from below (a spread's lower bound) is 0.0, never -0.0."""
    text = f"{100 * fraction:.1f}"
    return "0.0" if text == "-0.0" else text


# A path of the machine that wrote a file: absolute, home- or dot-relative, standing on its own or after "=" or a
# quote (so "owner/name" Hub ids and URLs are left alone).
_MACHINE_PATH = re.compile(r"""(?<![\w:/.~…-])(?:~|\.{1,2})?/[^\s'"`),]*""")


def public_path(path: str | os.PathLike, keep: int = 2) -> str:
    """How a published file (results, predictions, card, build_info.json, probe.json, zoo files, the board) names
    a path given on this machine: one inside the working folder as "./" and its path from there (posix; "./"
    tells it from a Hub id), a Hub id or a name that is no path as it is, any other path by its last `keep`
    parts: "…/data/snli_1.0". An installed package's file is named from site-packages on, wherever it is."""
    text = os.fspath(path)
    if not text or text.startswith("…"):
        return text
    spelled_as_path = text.startswith(("/", "./", "../", "~")) or text in (".", "..")
    if not spelled_as_path and not Path(text).exists():
        return text  # a Hub id, a file name, a word
    where = Path(os.path.abspath(os.path.expanduser(text)))
    inside = _inside_cwd(where)
    if inside is not None:
        return "./" + inside if inside else "."
    parts = [part for part in where.parts if part not in ("/", "")]
    if "site-packages" in parts:
        return "…/" + "/".join(parts[parts.index("site-packages") :])
    return "…/" + "/".join(parts[-keep:]) if parts else text


def _inside_cwd(where: Path) -> str | None:
    """`where` from the working folder (posix, "" for the folder itself), or None when it lies outside it."""
    cwd = Path.cwd()
    for folder, path in ((cwd, where), (cwd.resolve(), where.resolve())):  # as spelled, then with links followed
        try:
            relative = path.relative_to(folder).as_posix()
        except ValueError:
            continue
        return "" if relative == "." else relative
    return None


def public_command(command: list[str]) -> list[str]:
    """A command line as a published file records it: the program by its name ("swapbench"), and every path in
    it named as public_path names it."""
    words = [portable(word, keep=2) for word in command]
    if words and Path(command[0]).name in ("swapbench", "cli.py", "__main__.py", "main.py"):
        words[0] = "swapbench"
    return words


def portable(text: str | None, keep: int = 1) -> str | None:
    """`text` with every path of this machine in it named as public_path names it (keeping the last `keep`
    parts of one outside the working folder): "…/snli_1.0". For a file that is published (a board, a zoo):
    applied to a JSON file's text, it cuts the paths inside its strings and leaves every other byte as it was."""
    if text is None:
        return None
    return _MACHINE_PATH.sub(lambda match: public_path(match.group(0), keep), text)


def tag_sort_key(tag: str) -> tuple:
    """Slice tags (kind:value) in natural order: by kind, then by value, numbers in numeric order (words:9 before
    words:10), numbers before words."""
    kind, _, value = tag.partition(":")
    return (kind, 0, int(value), "") if value.isdigit() else (kind, 1, 0, value)
