"""The board's probe figures: the paper's named as the paper's, swapbench's beside them, and the plot along degree
symmetry, naming the rows it cannot place."""

from __future__ import annotations

import csv
import io
import re

import pytest
from board_helpers import empty_board, make_results, markdown_rows, save

from swapbench.commands.main import main
from swapbench.results.schema import ProbeInfo, ProbeSettings


@pytest.fixture
def board(tmp_path):
    return empty_board(tmp_path / "board")


def submit(data: dict, path, board) -> int:
    return main(["submit", str(save(data, path)), "--board", str(board)])


def point_x(page: str, model_row: int) -> float:
    """The x of a plotted point in the SVG's own units: the marker's <use x=...> inside its group."""
    group = re.search(rf'<g id="pt-absolute-{model_row}">(.*?)</g>', page, re.S)
    assert group, f"no point for row {model_row}"
    return float(re.search(r'<use [^>]*\bx="([-\d.]+)"', group.group(1)).group(1))


def test_the_plot_runs_along_degree_symmetry_and_names_the_rows_without_it(tmp_path, board):
    # The paper's symmetry orders these two one way, degree symmetry the other: the plot must follow the latter.
    assert submit(make_results("org/a-switch", symmetry=0.43, degree_symmetry=0.95), tmp_path / "a.json", board) == 0
    assert submit(make_results("org/b-gap", symmetry=0.9, degree_symmetry=0.3), tmp_path / "b.json", board) == 0
    # A file written before degree symmetry was recorded: a row on the board, no point on the plot.
    older = make_results("org/c-older", degree_symmetry=None, relative_locality=None)
    assert submit(older, tmp_path / "c.json", board) == 0
    page = (board / "index.html").read_text(encoding="utf-8")
    assert point_x(page, 0) > point_x(page, 1)  # rows by name: a-switch 0, b-gap 1
    assert 'id="pt-absolute-2"' not in page
    assert "degree symmetry of the positional attention (swapbench's, not the paper's" in page
    assert "not plotted, no degree symmetry" in page and "org/c-older" in page.split("not plotted", 1)[1]
    assert "against degree symmetry" in (board / "README.md").read_text(encoding="utf-8")


def test_the_columns_say_which_figure_is_the_papers(tmp_path, board):
    data = make_results("org/model", symmetry=0.431, locality=0.07, degree_symmetry=0.999, relative_locality=-0.01)
    assert submit(data, tmp_path / "a.json", board) == 0
    header, row = markdown_rows((board / "README.md").read_text(encoding="utf-8"))[:2]
    cells = {
        name: row[header.index(name)]
        for name in ("Symmetry (paper)", "Degree symmetry", "Locality (paper)", "Relative locality")
    }
    assert cells == {
        "Symmetry (paper)": "0.431",
        "Degree symmetry": "0.999",
        "Locality (paper)": "0.070",
        "Relative locality": "-0.010",
    }
    [line] = csv.DictReader(io.StringIO((board / "leaderboard.csv").read_text(encoding="utf-8")))
    assert (line["symmetry_paper"], line["degree_symmetry"], line["locality_paper"], line["relative_locality"]) == (
        "0.431",
        "0.999",
        "0.07",
        "-0.01",
    )
    page = (board / "index.html").read_text(encoding="utf-8")
    assert (
        "the paper&#x27;s symmetry of the positional attention" in page
        or "the paper's symmetry of the positional attention" in page
    )


def test_a_degree_symmetry_of_flat_or_causal_attention_is_refused():
    settings = ProbeSettings(n_words=1, length=8, seed=0, add_special_tokens=False)
    with pytest.raises(ValueError, match="degree_symmetry is null under a causal mask and for flat attention"):
        ProbeInfo(locality=0.1, symmetry=0.5, per_layer=[], settings=settings, flat=True, degree_symmetry=0.9)
    with pytest.raises(ValueError, match="degree_symmetry is null"):
        ProbeInfo(
            locality=0.1,
            symmetry=None,
            symmetry_note="causal",
            per_layer=[],
            settings=settings,
            causal=True,
            degree_symmetry=0.9,
        )
    # A file of schema 2.2 without swapbench's figures still reads.
    old = ProbeInfo(locality=0.1, symmetry=0.5, per_layer=[], settings=settings)
    assert (old.degree_symmetry, old.relative_locality) == (None, None)
