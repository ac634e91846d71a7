"""Faults in the files eval and the suite read: a built dataset folder's Parquet files, its card and build record,
JSON nested without end, and a suite file of nested YAML aliases. Each is refused with an error that names the file
(and the row or line), before any pair is scored; none may end in a traceback or an unbounded message."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from eval_models import save_classifier
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swapbench.commands.main import main
from swapbench.core.errors import InputError, SwapbenchError
from swapbench.core.jsonl import read_file_objects, read_json
from swapbench.evaluation.data import open_benchmark
from swapbench.suite.declaration import read_suite

CONFIG = "shuffle-random"
NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset) -> Path:
    return build_fixture_dataset([CONFIG])


@pytest.fixture
def copy(dataset, tmp_path):
    """A copy of the built folder to damage, and its one Parquet file."""
    folder = tmp_path / "data"
    shutil.copytree(dataset, folder)
    return folder, next((folder / CONFIG).glob("*.parquet"))


def refused(folder: Path, names: Path | str, *phrases: str) -> str:
    """open_benchmark's InputError, which must name `names` (a file) and say each phrase; its message."""
    with pytest.raises(InputError) as caught:
        open_benchmark(str(folder))
    message = str(caught.value)
    assert message.startswith(str(names)), message
    for phrase in phrases:
        assert phrase in message, message
    assert "\n" not in message
    return message


def rewrite(path: Path, change) -> None:
    pq.write_table(change(pq.read_table(path)), path)


def with_labels(table: pa.Table, first: int) -> pa.Table:
    index = table.schema.get_field_index("label")
    labels = [first, *table.column("label").to_pylist()[1:]]
    return table.set_column(index, table.schema.field(index), pa.array(labels, type=table.schema.field(index).type))


# --- the Parquet files ---


def test_the_built_folder_itself_loads(dataset):
    assert open_benchmark(str(dataset)).configurations[0].rows > 0


@pytest.mark.parametrize(
    "damage",
    [lambda b: b[: len(b) // 2], lambda b: b"", lambda b: b[:100] + b"\xff" * 300 + b[400:]],
    ids=["truncated", "empty", "overwritten"],
)
def test_a_damaged_parquet_file_is_refused_by_name(copy, damage):
    folder, parquet = copy
    parquet.write_bytes(damage(parquet.read_bytes()))
    refused(folder, parquet, "not a readable Parquet file", "rebuild the folder with `swapbench build`")


def test_a_parquet_file_without_its_feature_metadata_is_refused(copy):
    folder, parquet = copy
    rewrite(parquet, lambda table: table.replace_schema_metadata(None))
    refused(folder, parquet, "has no feature metadata")


def test_broken_feature_metadata_is_refused(copy):
    folder, parquet = copy
    rewrite(parquet, lambda table: table.replace_schema_metadata({"huggingface": "{ not json"}))
    refused(folder, parquet, "broken feature metadata")


def test_a_label_column_without_label_names_is_refused(copy):
    folder, parquet = copy
    features = json.loads(pq.read_schema(parquet).metadata[b"huggingface"])
    features["info"]["features"]["label"] = {"dtype": "int64", "_type": "Value"}
    rewrite(parquet, lambda table: table.replace_schema_metadata({"huggingface": json.dumps(features)}))
    refused(folder, parquet, "column label has no label names")


@pytest.mark.parametrize("column", ["hypothesis", "label", "original_label", "pair_id", "permutation"])
def test_a_missing_column_is_refused_by_name(copy, column):
    folder, parquet = copy
    rewrite(parquet, lambda table: table.drop_columns([column]))
    refused(folder, parquet, f"no column {column}")


def test_a_column_of_another_type_is_refused(copy):
    folder, parquet = copy
    rewrite(
        parquet,
        lambda table: table.set_column(
            table.schema.get_field_index("premise"), "premise", pa.array(range(table.num_rows))
        ),
    )
    refused(folder, parquet, "column premise holds int64, not text")


def test_an_empty_value_is_refused_with_its_row(copy):
    folder, parquet = copy
    rewrite(
        parquet,
        lambda table: table.set_column(
            table.schema.get_field_index("hypothesis"),
            "hypothesis",
            pa.array([*table.column("hypothesis").to_pylist()[:2], None, *table.column("hypothesis").to_pylist()[3:]]),
        ),
    )
    refused(folder, parquet, "row 3: column hypothesis is empty")


@pytest.mark.parametrize("label", [7, 3, -5, -1])  # -1 once read as the last label name, silently
def test_an_out_of_range_label_is_refused_with_its_row(copy, label):
    folder, parquet = copy
    rewrite(parquet, lambda table: with_labels(table, label))
    refused(
        folder, parquet, f"row 1: label {label} is not one of its 3 labels (0 to 2: entailment, neutral, contradiction)"
    )


def test_a_data_file_linked_from_outside_the_folder_is_refused(copy, tmp_path):
    folder, parquet = copy
    outside = tmp_path / "outside.parquet"
    shutil.move(parquet, outside)
    parquet.symlink_to(outside)
    refused(folder, parquet, "leads outside the dataset folder")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_bytes_give_a_clean_error_or_the_same_rows(copy, data):
    """Whatever bytes are overwritten, eval either reads the rows the build recorded (the fingerprint checks them)
    or refuses with a SwapbenchError: never another exception."""
    folder, parquet = copy
    original = parquet.read_bytes()  # as built: each example puts it back
    start = data.draw(st.integers(0, len(original) - 1), label="start")
    patch = data.draw(st.binary(min_size=1, max_size=64), label="patch")
    parquet.write_bytes(original[:start] + patch + original[start + len(patch) :])
    try:
        open_benchmark(str(folder))
    except SwapbenchError as err:
        assert str(folder) in str(err)
    finally:
        parquet.write_bytes(original)


# --- the card ---


def with_card_header(folder: Path, header: str) -> Path:
    card = folder / "README.md"
    card.write_text("---\n" + header + "\n---" + card.read_text().split("---", 2)[2])
    return card


@pytest.mark.parametrize(
    "header, line, phrase",
    [
        ("configs: [unclosed\n  - : :", 3, "front matter is not YAML"),
        ("- a\n- list", 2, "configs: expected a list of configurations"),
        ("license: mit", 2, "configs: expected a list of configurations"),
        ("configs:\n- data_files: []", 3, "configs.0: expected a mapping with a config_name"),
        ("configs:\n- config_name: x\n  data_files: nope", 4, "configs.0.data_files: expected a list"),
        ("configs: &a [*a]", 2, "YAML anchors and aliases"),
    ],
)
def test_a_damaged_card_is_refused_by_line(copy, header, line, phrase):
    folder, _ = copy
    card = with_card_header(folder, header)
    refused(folder, f"{card}:{line}:", phrase)


def test_a_card_without_front_matter_is_refused(copy):
    folder, _ = copy
    (folder / "README.md").write_text("# a card\n")
    refused(folder, f"{folder / 'README.md'}:1:", "no YAML front matter")


@pytest.mark.parametrize(
    "target, phrase",
    [
        ("../../../../../../../../etc/passwd", "leaves the dataset folder (..)"),
        (f"{CONFIG}/../../outside/*.parquet", "leaves the dataset folder (..)"),
        ("/etc/passwd", "is not a relative path"),
        ("https://example.com/x.parquet", "is a URL or drive"),
        ("hf://datasets/someone/else/x.parquet", "is a URL or drive"),
        ("C:\\\\Windows\\\\x.parquet", "is a URL or drive"),
        ("\\\\\\\\server\\\\share\\\\x.parquet", "is a URL or drive"),
    ],
)
def test_card_data_files_outside_the_folder_are_refused_before_reading(copy, tmp_path, target, phrase):
    folder, parquet = copy
    (tmp_path / "outside").mkdir()
    shutil.copy(parquet, tmp_path / "outside" / parquet.name)  # a readable file there: refused all the same
    card = folder / "README.md"
    text = card.read_text()
    card.write_text(text.replace(f"path: {CONFIG}/{parquet.name}", f'path: "{target}"'))
    line = text[: text.index(f"path: {CONFIG}/")].count("\n") + 1
    refused(folder, f"{card}:{line}:", "configs.0.data_files.0.path", phrase)


# --- JSON nested without end ---


def test_deeply_nested_build_info_is_refused_by_name(copy):
    folder, _ = copy
    for text in ("[" * 100_000, '{"a":' * 100_000):
        (folder / "build_info.json").write_text(text)
        refused(folder, folder / "build_info.json", "not the build_info.json of a `swapbench build`", "recursion limit")


def test_deeply_nested_json_is_refused_by_every_reader(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputError, match=rf"^{deep}: JSON nested too deeply$"):
        read_json(deep)
    lines = tmp_path / "deep.jsonl"
    lines.write_text('{"a": 1}\n' + "[" * 100_000 + "\n")
    with pytest.raises(InputError, match=rf"^{lines}:2: nested too deeply$"):
        list(read_file_objects(lines))


def test_read_json_names_the_file_of_broken_json(tmp_path):
    broken = tmp_path / "b.json"
    broken.write_text('{\n  "a": \n}')
    with pytest.raises(InputError, match=rf"^{broken}:3: broken JSON: Expecting value"):
        read_json(broken)


# --- the command line: exit code 2, one line, before any scoring ---


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return save_classifier(tmp_path_factory.mktemp("model") / "bert", NLI)


@pytest.mark.parametrize("damage", ["parquet", "label", "card"])
def test_eval_refuses_a_damaged_folder_in_one_line_and_writes_nothing(copy, model, tmp_path, capsys, damage):
    folder, parquet = copy
    if damage == "parquet":
        parquet.write_bytes(parquet.read_bytes()[:200])
    elif damage == "label":
        rewrite(parquet, lambda table: with_labels(table, 9))
    else:
        with_card_header(folder, "configs:\n- config_name: x\n  data_files:\n  - {split: test, path: /etc/passwd}")
    output = tmp_path / "results.json"
    code = main(["eval", str(model), "--data", str(folder), "--output", str(output), "--no-progress", "--no-probe"])
    said = capsys.readouterr().err.replace("\n", "")
    assert code == 2, said
    assert str(folder) in said and "Traceback" not in said
    assert not output.exists() and not list(tmp_path.glob("results*"))


# --- the suite file ---


def billion_laughs(levels: int = 9) -> str:
    """A suite file whose one option holds 9**levels values once its aliases are expanded, in some 300 bytes."""
    items = ["&a [x,x,x,x,x,x,x,x,x]"]
    for previous, name in zip("abcdefghijklmnop", "bcdefghijklmnopq"[: levels - 1]):
        items.append(f"&{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    return "models:\n- model: m\n  options:\n    configs: [" + ", ".join(items) + "]\n"


def test_a_yaml_bomb_suite_is_refused_at_once_in_a_short_message(tmp_path):
    suite = tmp_path / "suite.yaml"
    suite.write_text(billion_laughs())
    assert len(suite.read_bytes()) < 600
    started = time.perf_counter()
    with pytest.raises(InputError) as caught:
        read_suite(suite)
    assert time.perf_counter() - started < 1.0
    assert str(caught.value) == (
        f"{suite}:4: YAML anchors and aliases (&name, *name) are not accepted in a declaration: write each value out"
    )


def test_an_anchor_alone_is_refused_too(tmp_path):
    suite = tmp_path / "suite.yaml"
    suite.write_text("models:\n- &first {model: m}\n")
    with pytest.raises(InputError, match=r"suite.yaml:2: YAML anchors and aliases"):
        read_suite(suite)


@pytest.mark.parametrize(
    "suite_text",
    [
        "models:\n- model: {name}\n- model: {name}\n",  # declared twice: the name is quoted
        "models:\n- model: {name}\n  options: {{bootstrap: -1}}\n",  # an option refused: the entry is named
        "models: [" + "{{model: m, nope: 1}}, " * 50 + "]\n",  # 50 problems
    ],
)
def test_suite_errors_quote_a_bounded_excerpt(tmp_path, suite_text):
    suite = tmp_path / "suite.yaml"
    suite.write_text(suite_text.format(name="m" * 100_000))
    with pytest.raises(InputError) as caught:
        read_suite(suite)
    assert len(str(caught.value)) < 2_000, len(str(caught.value))
