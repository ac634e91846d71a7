"""Strings a submission carries, made safe to show: every model name, revision, training source or template name
reaches a README, a CSV, a web page or a plot as data, never as markup, formula or spoofing device.

One helper per place a string is shown; each starts from `plain_text`, so the same characters are dropped
everywhere. The stored results file keeps the full value: only what is shown is cut.
"""

from __future__ import annotations

import re
import unicodedata

# A shown string from a submission is cut to this many characters (an ellipsis included): a name longer than a
# line says nothing more, and a 5000-character one would push every figure off the page.
MAX_SHOWN = 120
ELLIPSIS = "…"

# Characters that end or break a line: each becomes a space, so a name stays on its line (a Markdown table row,
# a CSV record) and cannot start a heading or a list of its own.
_LINE_BREAKS = {"\n", "\r", "\t", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"}
_SPACES = re.compile(r"\s+")


def _dropped(char: str) -> bool:
    """Control (Cc), format (Cf: the bidirectional overrides and isolates U+202A-U+202E and U+2066-U+2069, the
    marks U+200E, U+200F and U+061C, zero-width characters) and surrogate (Cs) characters. None shows as itself:
    each either reorders or hides the text around it (so that "evil" reads as "live"), or cannot be written as
    UTF-8 at all. Zero-width joiners go too: a name that reads like another must not look like it."""
    return unicodedata.category(char) in ("Cc", "Cf", "Cs")


def plain_text(value: object, limit: int | None = None) -> str:
    """`value` as one line of plain text: line breaks and runs of white space as one space, control, format and
    bidirectional characters dropped, cut to `limit` characters with an ellipsis (None: uncut). Guards against
    names that spoof another (bidi overrides), break the line they are shown on, or bury a page in one cell."""
    text = "".join(" " if char in _LINE_BREAKS else char for char in str(value))
    text = _SPACES.sub(" ", "".join(char for char in text if not _dropped(char))).strip()
    if limit is not None and len(text) > limit:
        text = text[: limit - len(ELLIPSIS)].rstrip() + ELLIPSIS
    return text


def submitted(value: object) -> str:
    """A string a submission carries (a model name, a revision, a training source, a quantization...) as the
    board shows it: plain_text cut to MAX_SHOWN characters. Cut where the string enters what is shown, not in a
    renderer, so that the board's own longer texts (a row's training details) stay whole."""
    return plain_text(value, MAX_SHOWN)


# Characters that Markdown (GitHub's: CommonMark with tables, autolinks, strikethrough and math) reads as markup
# in a table cell: emphasis, code, links and images, escapes, strikethrough, math, the cell separator, and the
# ':' of a URL (GitHub links "https://..." of itself).
# An underscore between two letters or digits is inert (CommonMark opens no emphasis inside a word), so "Q4_1"
# stays as written; any other is escaped.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*\[\]|~$!#]|:(?=//)|(?<![^\W_])_|_(?![^\W_]))")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
_WWW = re.compile(r"(www)\.", re.IGNORECASE)  # GitHub links "www.x.y" of itself; not once its dot is escaped


def markdown_cell(value: object, limit: int | None = None) -> str:
    """`value` as literal text in a Markdown table cell (or anywhere inline): plain_text, HTML's <, >, & and "
    as entities (so no tag, comment or entity of the value reaches the page), and every character Markdown
    reads as markup backslash-escaped (so no link, image, emphasis, code span, math or extra cell, and no
    autolink: the ':' of "://" and the dot of "www." are escaped too; GitHub still makes an e-mail address a mailto
    link of the same text). The text reads exactly as given."""
    text = "".join(_HTML.get(char, char) for char in plain_text(value, limit))
    return _WWW.sub(r"\1\\.", _MARKDOWN_SPECIAL.sub(r"\\\1", text))


def markdown_code(value: object, limit: int | None = None) -> str:
    """`value` as a Markdown code span: plain_text inside a run of backticks longer than any in it (padded with
    spaces where it starts or ends with one), so that nothing inside it ends the span early. In a code span
    nothing is markup, HTML included; only a '|' would still split a table cell, so keep code spans out of
    tables."""
    text = plain_text(value, limit)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


# The OWASP rule for CSV injection: a cell starting with one of these is read as a formula by spreadsheets.
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
# A number written as text ("-1.2", "+0.5", "1e-05"): a spreadsheet reads it as that number, nothing more.
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def csv_cell(value: object, limit: int | None = None) -> object:
    """A CSV cell: numbers (and None, as "") as they are, a number written as text ("-1.2") too, so a
    spreadsheet reads them as numbers; other text as plain_text, with a leading apostrophe where it would start
    with =, +, -, @, a tab or a carriage return, so that a spreadsheet shows it rather than running it as a
    formula (=HYPERLINK(...), -2+3, @SUM(...))."""
    if value is None:
        return ""
    if isinstance(value, (int, float)):
        return value
    text = plain_text(value, limit)
    if _NUMBER.fullmatch(text):
        return text
    return "'" + text if text.startswith(FORMULA_PREFIXES) else text


def plot_text(value: object, limit: int | None = None) -> str:
    """`value` as a matplotlib text artist shows it literally: plain_text with every '$' escaped, so that no
    part of it is read as mathtext (where "$\\frac{$" raises a parse error and "a$b$c" shows another text).
    matplotlib drops the escapes of a text with no unescaped '$', so it reads exactly as given; leave the
    artist's parse_math on (its default), or the backslashes would show."""
    return plain_text(value, limit).replace("$", r"\$")
