"""index.html in headless Chromium (Debian's chromium, driven by Playwright): it opens from disk with no network,
lists the models by name with the paper's reported rows marked, sorts by a column, filters by positional-encoding
family, opens a model's details with its slices, plots every row (the paper's included), and is saved as a
screenshot. It fits a window 1,280 px wide and a phone's 390 px: only the table's own box scrolls sideways, the
model column staying at its left edge; its column groups fold; the plot's key is framed, outside the axes.

Skips, saying why, when Playwright or Chromium is missing; .ci/run installs both.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from board_helpers import COMMITTED, ROWS, empty_board, honest, make_results, save

from swapbench.commands.main import main
from swapbench.leaderboard.board import rebuild

# (model, family, symmetry, locality, pairs lost on shuffle-sr and shuffle-sr-premise): Δ = (1 - lost) / 20
SLICES_IN_TEXT_ORDER = ["words:10", "words:19", "words:2", "words:9"]
MODELS = [
    ("org/bert-like", "absolute", 0.95, 0.70, 9),
    ("org/deberta-like", "relative", 0.60, 0.50, 3),
    ("org/roberta-like", "absolute", 0.90, 0.40, 6),
    ("org/t5-like", "relative", 0.80, 0.65, 12),
]


@pytest.fixture(scope="module")
def page_path(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("submissions")
    ROWS["shuffle-sr-premise"] = 20  # the paper's order, beside which its reported rows are plotted
    try:
        board = empty_board(folder / "board")
        made = [
            make_results(
                model,
                family=family,
                symmetry=symmetry,
                locality=locality,
                drops={"shuffle-sr": lost, "shuffle-sr-premise": lost},
                skip=("shuffle-5",) if model == "org/t5-like" else (),
            )
            for model, family, symmetry, locality, lost in MODELS
        ]
    finally:
        del ROWS["shuffle-sr-premise"]
    (board / "reported.json").write_bytes((COMMITTED / "reported.json").read_bytes())
    for (model, *_), data in zip(MODELS, made):
        missing = ("shuffle-5",) if model == "org/t5-like" else ()
        slices = data["results"]["shuffle-3"]["slices"]
        for tag in SLICES_IN_TEXT_ORDER:  # the details must list them in natural order, not in this one
            slices[tag] = slices["label:NP"]
        honest(data)  # its figures made from predictions whose rows carry those tags
        if missing:  # stored before the board showed shuffle-5 (submit now refuses it): the board leaves it blank
            (board / "results").mkdir(exist_ok=True)
            save(data, board / "results" / f"{model.split('/')[1]}.json")
        else:
            assert main(["submit", str(save(data, folder / f"{model.split('/')[1]}.json")), "--board", str(board)]) == 0
    rebuild(board)
    return board / "index.html"


def visible_models(page, reported: bool = False) -> list[str]:
    """The board's own models shown, in order (with `reported`, the paper's rows too, as names)."""
    selector = "#board tbody tr:not([hidden]) td:first-child " + (
        "a, #board tbody tr:not([hidden]) td:first-child span.name" if reported else "a"
    )
    return page.eval_on_selector_all(selector, "cells => cells.map(c => c.textContent)")


def test_the_page_sorts_filters_and_fetches_nothing(browser_context, page_path, tmp_path):
    page = browser_context.new_page()
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(page_path.as_uri())

    # The board's own order: by name, the paper's reported rows after the board's own, marked; no mean row.
    assert visible_models(page) == ["org/bert-like", "org/deberta-like", "org/roberta-like", "org/t5-like"]
    assert visible_models(page, reported=True)[4:] == ["ALBERT", "BERT", "DeBERTa", "StrucBERT", "XLNet"]
    assert page.locator("#board tbody tr.reported").count() == 5
    assert (
        page.locator("#board tbody tr.reported .badge").first.inner_text()
        == "reported by Chen et al. (2023), not re-run"
    )
    assert page.locator("#board tfoot").count() == 0 and "mean of" not in page.content()
    assert page.inner_text("#shown") == "9 of 9 models shown"

    # Each Δ cell shows its interval and n.
    first = page.locator("#board tbody tr").first
    cell = first.locator("td").nth(
        page.locator("#board thead th")
        .all_inner_texts()
        .index("Δ shuffle-sr (hypothesis side first, not the paper's order)")
    )
    assert "n 20" in cell.inner_text() and cell.get_attribute("title").startswith("95% interval [")

    # Sort by locality (the probe's columns unfolded first): ascending, then descending on a second click (the
    # paper's rows sort along). The whole header cell sorts: a click in its corner, outside the header's text, counts.
    page.check("#show-probe")
    header = page.locator("#board thead th", has_text="Locality (paper)")
    box, text = header.bounding_box(), header.locator("button").bounding_box()
    corner = {"x": 2, "y": box["height"] - 2}
    assert not (
        text["x"] <= box["x"] + corner["x"] <= text["x"] + text["width"]
        and text["y"] <= box["y"] + corner["y"] <= text["y"] + text["height"]
    ), "the corner is on the text"
    header.click(position=corner)
    assert header.get_attribute("aria-sort") == "ascending"
    assert visible_models(page) == ["org/roberta-like", "org/deberta-like", "org/t5-like", "org/bert-like"]
    assert visible_models(page, reported=True)[0] == "StrucBERT"  # locality 7.5% in the paper
    header.locator("button").click()  # once per click: the text's click is not counted twice
    assert header.get_attribute("aria-sort") == "descending"
    assert visible_models(page) == ["org/bert-like", "org/t5-like", "org/deberta-like", "org/roberta-like"]
    # and by keyboard: the header is focusable, Enter and Space sort
    header.locator("button").focus()
    page.keyboard.press("Enter")
    assert header.get_attribute("aria-sort") == "ascending"
    page.keyboard.press("Space")
    assert header.get_attribute("aria-sort") == "descending"
    assert visible_models(page) == ["org/bert-like", "org/t5-like", "org/deberta-like", "org/roberta-like"]

    # Sort by original accuracy, highest first: the paper's models (about 90%) above ours (80%).
    original = page.locator("#board thead th", has_text="Original").first.locator("button")
    original.click()
    original.click()
    assert visible_models(page, reported=True)[:2] == ["ALBERT", "DeBERTa"]

    # Filter by family: the sorted order holds among the rows kept; the other family's points are dimmed.
    page.select_option("#family", "relative")
    assert visible_models(page) == ["org/deberta-like", "org/t5-like"]
    assert page.inner_text("#shown") == "4 of 9 models shown"  # two of ours, DeBERTa and XLNet
    opacity = page.eval_on_selector_all("svg g[id^='pt-']", "gs => gs.map(g => [g.id, g.style.opacity])")
    assert {gid.split("-")[1] for gid, o in opacity if o == "1"} == {"relative"}
    assert {gid.split("-")[1] for gid, o in opacity if o != "1"} == {"absolute"}

    # Sort a column where one row has no value: missing values go last, in both directions.
    page.select_option("#family", "")
    delta5 = page.locator("#board thead th", has_text="Δ shuffle-5").locator("button")
    delta5.click()
    assert visible_models(page)[-1] == "org/t5-like"
    delta5.click()
    assert visible_models(page)[-1] == "org/t5-like"

    # The plot holds a point per row with a symmetry and a role sensitivity: our 4; the paper reported none.
    points = page.eval_on_selector_all("svg g[id^='pt-']:not([id$='-label'])", "gs => gs.map(g => g.id)")
    assert len(points) == 4
    assert page.locator("figure svg text", has_text="BERT ‡").count() == 0

    # A model's details open from its row, with its configurations and slices.
    details = page.locator("details.model-details").first
    assert not details.evaluate("d => d.open")
    page.locator("#board button.details").first.click()
    assert page.locator("details.model-details[open]").count() == 1
    opened = page.locator("details.model-details[open]")
    assert opened.is_visible() and "label:NP" in opened.inner_text() and "shuffle-sr" in opened.inner_text()
    tags = opened.locator("table.slices tbody tr td:nth-child(2)").all_inner_texts()
    assert tags == ["label:NP", "words:2", "words:9", "words:10", "words:19"]  # by kind, then numbers by value

    # Each model links to its results file, which exists beside the page.
    links = page.eval_on_selector_all("#board tbody a", "links => links.map(a => a.getAttribute('href'))")
    assert len(links) == 4 and all((page_path.parent / link).is_file() for link in links)

    page.select_option("#family", "relative")
    screenshot = tmp_path / "leaderboard.png"
    page.screenshot(path=str(screenshot), full_page=True)
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [url for url in requests if not url.startswith("file://")] == []
    page.close()


def page_scrolls_sideways(page) -> bool:
    """Whether the page itself (not a box inside it) is wider than the window."""
    return page.evaluate("document.documentElement.scrollWidth > document.documentElement.clientWidth")


def shown(page, selector: str) -> list[str]:
    """The text of each element the selector finds that is laid out (not folded away), in order."""
    return page.eval_on_selector_all(
        selector, "cells => cells.filter(c => c.getClientRects().length > 0).map(c => c.textContent.trim())"
    )


@pytest.mark.parametrize("width", [1280, 390])
def test_the_page_fits_the_window_and_every_row_keeps_its_name_when_the_table_scrolls(
    browser_context, page_path, width
):
    page = browser_context.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(page_path.as_uri())
    assert not page_scrolls_sideways(page)

    # Every group unfolded, the table is wider than the window: its own box scrolls, the page never does.
    for checkbox in page.locator("fieldset.folds input[type=checkbox]").all():
        checkbox.check()
    assert not page_scrolls_sideways(page)
    page.evaluate("window.scrollTo(500, 0)")
    assert page.evaluate("window.scrollX") == 0
    box = page.locator("div.scroll").first
    scroll_width, client_width = box.evaluate("b => [b.scrollWidth, b.clientWidth]")
    assert scroll_width > client_width + 300
    frame = box.bounding_box()
    assert frame["width"] >= width - 40  # the window's width, less the page's padding: no max-width keeps it narrow

    # Scrolled to its far right, the figures move under the model column, which stays at the box's left edge,
    # drawn over them on a background of its own.
    page.evaluate("document.getElementById('board').scrollIntoView({block: 'start'})")
    first_delta = page.locator("#board tbody tr").first.locator("td.g-shuffles").first
    before = first_delta.bounding_box()["x"]
    box.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
    assert box.evaluate("b => b.scrollLeft") > 300
    assert first_delta.bounding_box()["x"] < before - 300
    names = page.locator("#board tbody td.model").all()
    assert len(names) == 9
    for cell in names:
        assert abs(cell.bounding_box()["x"] - frame["x"]) <= 1, cell.inner_text()
    on_top = page.evaluate("""() => Array.from(document.querySelectorAll('#board tbody td.model'))
        .filter(c => c.getBoundingClientRect().bottom < window.innerHeight)
        .map(c => { const r = c.getBoundingClientRect();
                    const hit = document.elementFromPoint(r.left + 3, r.top + r.height / 2);
                    return [c.contains(hit), getComputedStyle(c).backgroundColor]; })""")
    assert len(on_top) >= 3
    assert all(hit for hit, _ in on_top)
    assert all(colour not in ("transparent", "rgba(0, 0, 0, 0)") for _, colour in on_top)
    header = page.locator("#board thead th.model")
    assert abs(header.bounding_box()["x"] - frame["x"]) <= 1

    # A model's details, however wide their tables, scroll in their own box too.
    page.locator("#board button.details").first.click()
    assert page.locator("details.model-details[open]").count() == 1
    assert not page_scrolls_sideways(page)
    page.close()


def test_column_groups_fold_and_the_headline_columns_come_first(browser_context, page_path):
    page = browser_context.new_page()
    page.goto(page_path.as_uri())
    every = page.eval_on_selector_all("#board thead th", "cells => cells.map(c => c.textContent.trim())")
    headers = shown(page, "#board thead th")
    # First the model and what always shows, then each configuration's headline: the Δ of the word-order
    # configurations, the role sensitivity of the role configurations; the rest folded.
    fixed = headers.index("Original") + 1
    assert headers[:fixed] == ["Model", "Architecture", "Mode", "Positional encoding", "Original"]
    deltas = [h for h in headers[fixed:] if h.startswith("Δ ")]
    roles = [h for h in headers[fixed:] if h.startswith("Role sensitivity")]
    assert deltas and roles and headers[fixed:] == deltas + roles
    assert "Locality (paper)" in every and "Locality (paper)" not in headers
    assert "Training data" in every and "Training data" not in headers
    assert len(shown(page, "#board tbody tr:first-child td")) == len(headers)  # the rows' cells fold with them

    # Unfold the probe (a click on its label, as a reader does): its columns and their cells show; fold it again.
    page.click("fieldset.folds label:has(#show-probe)")
    unfolded = shown(page, "#board thead th")
    assert unfolded[len(headers) :] == [
        "Symmetry (paper)",
        "Degree symmetry",
        "Locality (paper)",
        "Relative locality",
        "Probe",
    ]
    assert len(shown(page, "#board tbody tr:first-child td")) == len(unfolded)
    page.click("fieldset.folds label:has(#show-probe)")
    assert shown(page, "#board thead th") == headers

    # Fold the Δ columns: the model and the role sensitivities stay.
    page.uncheck("#show-shuffles")
    assert shown(page, "#board thead th") == headers[:fixed] + roles
    assert shown(page, "#board tbody tr:first-child td.g-shuffles") == []
    assert shown(page, "#board tbody td.model a") == [
        "org/bert-like",
        "org/deberta-like",
        "org/roberta-like",
        "org/t5-like",
    ]

    # In a wide window, all unfolded, the table's box takes the window's width: no max-width of the page keeps it
    # narrow.
    page.set_viewport_size({"width": 2600, "height": 900})
    for checkbox in page.locator("fieldset.folds input[type=checkbox]").all():
        checkbox.check()
    assert page.locator("div.scroll").first.bounding_box()["width"] >= 2600 - 40
    page.close()


def test_the_plots_key_is_framed_outside_its_axes(browser_context, page_path):
    page = browser_context.new_page()
    page.goto(page_path.as_uri())
    axes, key = page.locator("#plot-axes").bounding_box(), page.locator("#plot-legend").bounding_box()
    assert key["x"] >= axes["x"] + axes["width"]  # right of the axes, where no point can be
    frame = page.locator("#plot-legend path").first
    assert frame.evaluate("p => getComputedStyle(p).stroke") not in ("none", "")
    assert abs(frame.bounding_box()["width"] - key["width"]) <= 2  # the frame is around the whole key
    page.close()
