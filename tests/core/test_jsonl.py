"""JSON-lines reading and writing through the jsonlines package, bad lines named by file and line."""

from __future__ import annotations

import pytest

from swapbench.core.errors import InputError
from swapbench.core.jsonl import dumps_lines, read_file_objects, read_objects
from swapbench.results.files import read_predictions


def test_objects_come_with_their_line_numbers_blank_lines_skipped():
    text = '{"a": 1}\n\n  \n{"a": 2}\r\n'
    assert list(read_objects(text, "f.jsonl")) == [(1, {"a": 1}), (4, {"a": 2})]


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"a": ', r"f.jsonl:3: broken JSON: Expecting value \(column 7\)"),
        ("[1, 2]", r"f.jsonl:3: expected a JSON object"),
        ("null", r"f.jsonl:3: expected a JSON object"),
    ],
)
def test_a_bad_line_is_named_by_file_and_line(line, message):
    with pytest.raises(InputError, match=message):
        list(read_objects(f'{{"a": 1}}\n\n{line}\n', "f.jsonl"))


def test_only_a_line_feed_ends_a_line_and_text_round_trips(tmp_path):
    rows = [{"premise": "a\u2028b", "hypothesis": "caf\u00e9"}, {"premise": "x", "hypothesis": "y"}]
    text = dumps_lines(rows)
    assert text == '{"premise": "a\u2028b", "hypothesis": "caf\u00e9"}\n{"premise": "x", "hypothesis": "y"}\n'
    path = tmp_path / "rows.jsonl"
    path.write_text(text, encoding="utf-8")
    assert [row for _, row in read_file_objects(path)] == rows


def test_a_bad_predictions_line_is_named_by_file_and_line(tmp_path):
    path = tmp_path / "r.predictions.jsonl"
    path.write_text('{"pair_id": "1"}\n', encoding="utf-8")
    with pytest.raises(
        InputError, match=r"r.predictions.jsonl:1: not a PredictionRow: configuration: Field required; gold: Field"
    ):
        read_predictions(path)
