"""A configuration's fingerprint covers every column that a figure, a slice or a label view reads.

Each such column of a real build is rewritten in its Parquet file, in turn. `eval` must refuse the folder (its
build_info.json no longer matches), and when the tamperer also rewrites build_info.json, `eval` scores it but
`submit` refuses the results: they are not the board's reference data.
"""

from __future__ import annotations

import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from eval_models import save_classifier

from swapbench.commands.main import main
from swapbench.core.fingerprint import FINGERPRINT_COLUMNS, content_fingerprint
from swapbench.results.build_record import BUILD_INFO, BuildInfo

TAMPERED = "shuffle-sr"  # the configuration with every fingerprinted column, binary_label included
OTHER_TEXT = "a dog sleeps in the park ."


def tamper(column: str, table: pa.Table) -> list:
    values = table.column(column).to_pylist()
    if column in ("label", "original_label"):
        return [(v + 1) % 3 for v in values]
    if column == "binary_label":
        return [1 - v for v in values]
    if column == "pair_id":
        return [v + " x" for v in values]
    if column == "original_premise":  # the case: the original is made the perturbed premise
        return [p if p != v else OTHER_TEXT for p, v in zip(table.column("premise").to_pylist(), values)]
    return [OTHER_TEXT for _ in values]


def tampered_copy(dataset, folder, column: str):
    shutil.copytree(dataset, folder)
    [path] = (folder / TAMPERED).glob("*.parquet")
    table = pq.read_table(path)
    changed = tamper(column, table)
    assert changed != table.column(column).to_pylist()
    index = table.schema.get_field_index(column)
    table = table.set_column(index, table.schema.field(index), pa.array(changed, type=table.schema.field(index).type))
    pq.write_table(table, path)
    return folder, table


def rewrite_build_info(folder, table) -> None:
    """What a tamperer would do: record the fingerprint of the changed rows."""
    info = BuildInfo.model_validate_json((folder / BUILD_INFO).read_text())
    for config in info.configs:
        if config.name == TAMPERED:
            config.fingerprint = content_fingerprint(table.to_pydict())
    (folder / BUILD_INFO).write_text(info.model_dump_json(indent=2))


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", TAMPERED])


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return save_classifier(
        tmp_path_factory.mktemp("model") / "bert", {0: "entailment", 1: "neutral", 2: "contradiction"}
    )


@pytest.fixture
def board(tmp_path, dataset):
    board = tmp_path / "board"
    assert main(["leaderboard", "--board", str(board), "--set-reference", str(dataset)]) == 0
    return board


def evaluate(model, data, output):
    return main(
        [
            "eval",
            str(model),
            "--data",
            str(data),
            "--output",
            str(output),
            "--no-progress",
            "--no-probe",
            "--bootstrap",
            "50",
        ]
    )


def test_every_fingerprinted_column_is_one_the_figures_read():
    assert set(FINGERPRINT_COLUMNS) == {
        "pair_id",
        "premise",
        "hypothesis",
        "label",
        "original_premise",
        "original_hypothesis",
        "original_label",
        "binary_label",
    }


@pytest.mark.parametrize("column", FINGERPRINT_COLUMNS)
def test_a_tampered_column_is_refused_by_eval_and_by_submit(column, tmp_path, dataset, model, board, capsys, digest):
    folder, table = tampered_copy(dataset, tmp_path / "data", column)
    before = digest(folder)
    output = tmp_path / "out" / "results.json"
    assert evaluate(model, folder, output) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"configuration '{TAMPERED}' of {folder} differs from what {BUILD_INFO} records" in err
    assert not output.exists() and digest(folder) == before

    rewrite_build_info(folder, table)
    assert evaluate(model, folder, output) == 0
    results = json.loads(output.read_text())
    assert all(c["verified"] for c in results["dataset"]["configurations"])
    capsys.readouterr()
    board_before = digest(board)
    assert main(["submit", "--check", str(output), "--board", str(board)]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "refused" in out and "dataset.fingerprint:" in out and f"configurations that differ: {TAMPERED}" in out
    assert digest(board) == board_before


def test_the_untampered_build_is_accepted(tmp_path, dataset, model, board, capsys):
    output = tmp_path / "results.json"
    assert evaluate(model, dataset, output) == 0
    capsys.readouterr()
    code = main(["submit", "--check", str(output), "--board", str(board)])
    out = " ".join(capsys.readouterr().out.split())
    # The data pass; the tiny untrained model may still be refused for sitting at chance, and for nothing else.
    assert code == 0 or ("refused, 1 problem(s): - health: the model is at chance" in out), out
