"""Every string a submission carries is data wherever it is shown: hostile model names, revisions, training sources
and encoding kinds (HTML and script payloads, Markdown table breakers, newlines, formula prefixes, control and
bidirectional characters, mathtext, very long strings) put into results files on a board, through every renderer
(README.md, leaderboard.csv, index.html with its plot) and the suite's summary.

The helpers of swapbench/core/display.py are searched with hypothesis; the renderers on boards of results files
made with the schema's own classes (board_helpers), stored as `submit` stores them and rebuilt.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from pathlib import Path

import cmarkgfm
from board_helpers import empty_board, make_results, save
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swapbench.core.display import (
    FORMULA_PREFIXES,
    MAX_SHOWN,
    csv_cell,
    markdown_cell,
    plain_text,
    plot_text,
    submitted,
)
from swapbench.evaluation.options import eval_options_model
from swapbench.leaderboard.board import rebuild
from swapbench.suite.declaration import Run
from swapbench.suite.run import Outcome
from swapbench.suite.summary import render

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
PAYLOADS = [
    "<img src=x onerror=alert(1)>",
    "<script>window.__pwned=1</script>",
    "evil|x\n# Injected heading\n[click](http://evil.example)",
    "a | b | c\r\n|---|---|\n| x | y |",
    '=HYPERLINK("http://evil.example","x")',
    "@SUM(A1)",
    "+1+2",
    "-2+3",
    "\tx",
    "\rx",
    "org/\u202etxt.exe\u202c-model\u0007\u0000\u200b",
    "$\\frac{$",
    "a$b$c$",
    "\\$",
    "$x^2$",
    "`code` *em* _em_ ~~s~~ ![i](x) www.evil.example https://evil.example &amp; &lt;",
    "<!-- comment",
    "org/" + "a" * 5000,
]
FIELDS = ("name", "revision", "source", "kind")
hostile = st.one_of(
    st.sampled_from(PAYLOADS),
    st.text(st.characters(codec="utf-8"), max_size=60),
    st.text(
        st.sampled_from(list("<>&\"'|`*_[]()\\$=+-@!#~:\n\r\t ") + list(BIDI) + ["a", "\x00"]), min_size=1, max_size=40
    ),
)


def shown_control(text: str) -> list[str]:
    """Control, format and bidirectional characters in a rendered file, other than its own line breaks."""
    return sorted({f"U+{ord(c):04X}" for c in text if unicodedata.category(c) in ("Cc", "Cf", "Cs") and c != "\n"})


def hostile_results(value: str, field: str, index: int) -> dict:
    """A valid results dict with `value` in one of the strings the board shows."""
    data = make_results(value if field == "name" else f"org/model-{index}", trained_on="snli_1.0_dev.jsonl")
    model = data["model"]
    if field == "revision":
        model["revision"] = value
    elif field == "source":
        model["fine_tuning"]["train"]["source"] = value
    elif field == "kind":
        model["positional_encoding"]["kind"] = value
    return data


def board_of(folder: Path, values: list[tuple[str, str]]) -> Path:
    """A board holding one results file per (field, value), stored as submit stores them, then rebuilt."""
    board = empty_board(folder)
    (board / "results").mkdir()
    for i, (field, value) in enumerate(values):
        save(hostile_results(value, field, i), board / "results" / f"row-{i}.json")
    rebuild(board)
    return board


def markdown_cells(line: str) -> list[str]:
    """A Markdown table row's cells, split where GitHub splits them: at every '|' not escaped."""
    return re.split(r"(?<!\\)\|", line.strip())[1:-1]


def check_board(board: Path, values: list[str]) -> None:
    readme, html = (board / "README.md").read_text(), (board / "index.html").read_text()
    table = (board / "leaderboard.csv").read_text()

    # Markdown: one line per row, each with the header's cells; GitHub's renderer finds the same table.
    lines = [line for line in readme.splitlines() if line.startswith("|")]
    widths = {len(markdown_cells(line)) for line in lines}
    assert len(widths) == 1 and len(lines) == 2 + len(values), widths
    rendered = cmarkgfm.github_flavored_markdown_to_html(readme, options=cmarkgfm.Options.CMARK_OPT_UNSAFE)
    assert rendered.count("<tr>") == 1 + len(values)
    assert {row.count("<td") for row in re.findall(r"<tr>(.*?)</tr>", rendered, re.S)} - {0} == {widths.pop()}
    assert not re.search(r"<(img|script|h1 |!--)", rendered) and rendered.count("<h1>") == 1
    assert 'href="http' not in rendered and "<del>" not in rendered and "<em>em" not in rendered

    # HTML: nothing of a name is markup; the page's only script is its own.
    assert not re.search(r"<(img|!--)", html) and html.count("<script") == 1 and "__pwned=1</script>" not in html

    # CSV: no text cell a spreadsheet would run as a formula; every row as wide as the header.
    records = list(csv.reader(io.StringIO(table)))
    assert {len(r) for r in records} == {len(records[0])} and len(records) == 1 + len(values)
    for cell in (c for r in records[1:] for c in r):
        assert not cell.startswith(FORMULA_PREFIXES) or re.fullmatch(r"[+-][\d.e+-]+", cell), cell

    # No control or bidirectional character is shown anywhere, and no string runs past the bound.
    for text in (readme, html, table):
        assert shown_control(text) == []
        assert "a" * (MAX_SHOWN + 1) not in text


def test_every_payload_in_every_field_is_data_on_every_output(tmp_path):
    values = [(field, value) for field in FIELDS for value in PAYLOADS]
    board = board_of(tmp_path / "board", values)
    check_board(board, values)
    html = (board / "index.html").read_text()
    # Names are shown as written, escaped, not dropped: the plot draws mathtext as plain text, the page escapes.
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "$\\frac{$" in html and "a$b$c$" in html
    readme = (board / "README.md").read_text()
    assert "&lt;img src=x onerror=alert(1)&gt;" in readme and "evil\\|x \\# Injected heading" in readme


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(st.tuples(st.sampled_from(FIELDS), hostile), min_size=1, max_size=3))
def test_random_hostile_strings_leave_every_output_whole(tmp_path_factory, values):
    check_board(board_of(tmp_path_factory.mktemp("board"), values), values)


# ---- the helpers: what each guards against ----------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(hostile)
def test_plain_text_is_one_line_without_control_or_bidi_characters(value):
    text = plain_text(value)
    assert shown_control(text) == [] and "\n" not in text and text == text.strip()
    assert len(submitted(value)) <= MAX_SHOWN
    assert plain_text(text) == text  # idempotent: shown twice, it reads the same


@settings(max_examples=200, deadline=None)
@given(hostile)
def test_a_markdown_cell_reads_as_its_text_in_a_github_table(value):
    cell = markdown_cell(value)
    rendered = cmarkgfm.github_flavored_markdown_to_html(
        f"| h |\n|---|\n| {cell} |\n", options=cmarkgfm.Options.CMARK_OPT_UNSAFE
    )
    body = re.search(r"<tbody>\s*<tr>\s*<td>(.*?)</td>\s*</tr>\s*</tbody>", rendered, re.S)
    expected = plain_text(value)
    if not expected:
        assert "<tbody>" not in rendered or body.group(1) == ""
        return
    assert body, rendered  # one row of one cell
    inner = body.group(1)
    # The only markup GitHub makes of a cell's text is an e-mail autolink of the same text.
    inner = re.sub(r'<a href="mailto:[^"]*">(.*?)</a>', r"\1", inner)
    assert "<" not in inner.replace("&lt;", "")
    import html

    assert html.unescape(inner) == expected


@settings(max_examples=200, deadline=None)
@given(st.one_of(hostile, st.floats(allow_nan=False), st.integers()))
def test_a_csv_text_cell_never_starts_a_formula_and_numbers_stay_numbers(value):
    cell = csv_cell(value)
    if isinstance(value, (int, float)):
        assert cell == value
        return
    assert not cell.startswith(FORMULA_PREFIXES) or re.fullmatch(r"[+-][\d.]+(e[+-]?\d+)?", cell, re.I)
    assert cell in (plain_text(value), "'" + plain_text(value))


@settings(max_examples=60, deadline=None)
@given(hostile)
def test_plot_text_draws_as_written(value):
    """matplotlib draws the text as plain text: no mathtext error, and the characters it lays out are the text's."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure()
    FigureCanvasAgg(figure)
    artist = figure.text(0, 0, plot_text(value))
    text, math = artist._preprocess_math(artist.get_text())
    assert math is False and text == plain_text(value)
    figure.canvas.draw()  # lays the text out: raises on mathtext it cannot parse


def test_mathtext_in_a_name_no_longer_breaks_the_rebuild(tmp_path):
    board = board_of(tmp_path / "board", [("name", "$\\frac{$"), ("name", "a$b$c$")])
    svg = (board / "index.html").read_text().split("<svg", 1)[1]
    assert "$\\frac{$" in svg and "a$b$c$" in svg


# ---- the suite's summary ----------------------------------------------------------------------------------------


def test_the_suite_summary_escapes_model_names_and_errors(tmp_path):
    names = ["<img src=x onerror=alert(1)>", "a|b\n# heading", '=HYPERLINK("x")', "-2+3", "org/\u202em"]
    options = eval_options_model()
    outcomes = [
        Outcome(
            run=Run(label=f"{name} (classifier, seed 0)", options=options(model=name, data="d")),
            status="failed",
            error=f"<b>broke</b>\n## {name}",
        )
        for name in names
    ]
    markdown, table = render(outcomes)
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    assert len(lines) == 2 + len(names) and len({len(markdown_cells(line)) for line in lines}) == 1
    rendered = cmarkgfm.github_flavored_markdown_to_html(markdown, options=cmarkgfm.Options.CMARK_OPT_UNSAFE)
    assert not re.search(r"<(img|b>|h2>heading|h1>heading)", rendered) and rendered.count("<h2>") == 1
    assert shown_control(markdown) == [] and shown_control(table) == []
    records = list(csv.reader(io.StringIO(table)))
    assert [r[0] for r in records[1:]] == [
        "<img src=x onerror=alert(1)>",
        "a|b # heading",
        '\'=HYPERLINK("x")',
        "'-2+3",
        "org/m",
    ]
