"""The board as a browser shows it, with hostile model names on it: README.md rendered as GitHub renders it
(cmark-gfm, GitHub's own, with raw HTML let through: stricter than GitHub, which also sanitises) and index.html,
each loaded in headless Chromium (as test_leaderboard_browser.py launches it). No script of a name runs (no dialog,
no window.__pwned) and no element of a name exists.

Skips, saying why, when Playwright or Chromium is missing; .ci/run installs both.
"""

from __future__ import annotations

from pathlib import Path

import cmarkgfm
import pytest
from board_helpers import empty_board, make_results, save

from swapbench.leaderboard.board import rebuild

NAMES = [
    '<img src=x onerror="window.__pwned=1;alert(1)">',
    "<script>window.__pwned=2;alert(2)</script>",
    'x\n\n<svg onload="window.__pwned=3"></svg>\n\n# Injected heading',
    'evil|<img src=y onerror="window.__pwned=4">|[click](javascript:window.__pwned=5)',
    '<a href="javascript:window.__pwned=6" id="pwnlink">click</a>',
]


@pytest.fixture(scope="module")
def board(tmp_path_factory) -> Path:
    board = empty_board(tmp_path_factory.mktemp("hostile") / "board")
    (board / "results").mkdir()
    for i, name in enumerate(NAMES):  # stored as submit stores them
        save(make_results(name, trained_on="snli_1.0_dev.jsonl"), board / "results" / f"row-{i}.json")
    rebuild(board)
    readme = (board / "README.md").read_text(encoding="utf-8")
    body = cmarkgfm.github_flavored_markdown_to_html(readme, options=cmarkgfm.Options.CMARK_OPT_UNSAFE)
    (board / "README.html").write_text(f"<!DOCTYPE html><meta charset=utf-8><body>{body}</body>", encoding="utf-8")
    return board


def visit(context, page_path: Path) -> dict:
    """Load a page and say what ran and what is there."""
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(page_path.as_uri())
    page.wait_for_timeout(200)  # an onerror of an image that fails to load fires after load
    found = {
        "dialogs": dialogs,
        "pwned": page.evaluate("window.__pwned === undefined ? null : window.__pwned"),
        "elements": page.evaluate("""() => ({
                 img: document.querySelectorAll('img').length,
                 script: Array.from(document.scripts).filter(s => s.textContent.includes('__pwned')).length,
                 handlers: Array.from(document.querySelectorAll('*')).filter(e => Array.from(e.attributes).some(
                     a => a.name.startsWith('on'))).length,
                 javascript: Array.from(document.querySelectorAll('a[href]')).filter(
                     a => a.getAttribute('href').trim().toLowerCase().startsWith('javascript:')).length,
                 h1: document.querySelectorAll('h1').length})"""),
        "text": page.inner_text("body"),
    }
    page.close()
    return found


def test_the_markdown_board_as_github_renders_it_runs_no_script_of_a_name(browser_context, board):
    found = visit(browser_context, board / "README.html")
    assert found["dialogs"] == [] and found["pwned"] is None
    assert found["elements"] == {"img": 0, "script": 0, "handlers": 0, "javascript": 0, "h1": 1}
    assert "<img src=x" in found["text"]  # the name is shown as written, as text


def test_the_html_board_runs_no_script_of_a_name(browser_context, board):
    found = visit(browser_context, board / "index.html")
    assert found["dialogs"] == [] and found["pwned"] is None
    assert found["elements"] == {"img": 0, "script": 0, "handlers": 0, "javascript": 0, "h1": 1}
    assert "<img src=x" in found["text"]
