"""3-way and binary models never share a column or an order on the board (which has no mean row)."""

from __future__ import annotations

import csv
import io

from board_helpers import empty_board, make_results, markdown_rows, save

from swapbench.commands.main import main


def binary(data: dict) -> dict:
    data["model"]["label_names"] = ["entailment", "non-entailment"]
    data["model"]["label_view"] = "binary"
    for result in data["results"].values():
        result["label_view"] = "binary"
    return data


def test_each_label_view_has_its_own_table_and_order(tmp_path):
    board = empty_board(tmp_path / "board")
    # The binary model has the highest delta shuffle-sr: one sort over both views would put it first.
    files = {
        "org/three-way-a": make_results("org/three-way-a", drops={"shuffle-sr": 8}),
        "org/three-way-b": make_results("org/three-way-b", drops={"shuffle-sr": 4}),
        "org/binary": binary(make_results("org/binary", drops={"shuffle-sr": 1})),
    }
    for name, data in files.items():
        assert main(["submit", str(save(data, tmp_path / f"{name.split('/')[1]}.json")), "--board", str(board)]) == 0
    readme = (board / "README.md").read_text()
    three_way, binary_part = readme.split("### Binary labels")
    assert "### 3-way labels" in three_way
    three_rows = [r[0] for r in markdown_rows(three_way)]
    binary_rows = [r[0] for r in markdown_rows(binary_part.split("## How")[0])]
    assert [r for r in three_rows if "org/" in r][:2] == [
        "[org/three-way-a](results/org-three-way-a__abc123.json)",
        "[org/three-way-b](results/org-three-way-b__abc123.json)",
    ]
    assert any("org/binary" in r for r in binary_rows) and not any("org/binary" in r for r in three_rows)
    assert "mean of" not in readme  # a mean across unrelated models would rank nothing

    html = (board / "index.html").read_text()
    assert html.count('class="board"') == 2 and 'id="board-binary"' in html
    views = [row["label_view"] for row in csv.DictReader(io.StringIO((board / "leaderboard.csv").read_text()))]
    assert views == ["3-way", "3-way", "binary"]
