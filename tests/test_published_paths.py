"""No file that a user publishes names a path of their machine: everything `build`, `eval`, `probe`, `zoo run` and
`submit` write names models, sources and files by Hub id, file name or a path inside the working folder."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from board_helpers import rederived, save
from eval_models import save_base, save_classifier, write_training_file
from zoo_helpers import FIXTURES, save_tokenizer, write_pairs

from swapbench.commands.main import main
from swapbench.core.text import public_command, public_path
from swapbench.results.files import predictions_path, read_predictions
from swapbench.results.schema import EvalResults

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
CONFIGS = "shuffle-3,shuffle-random"
# An absolute path: "/" (or "~/") and two names, where a word starts: a URL, a cut path ("…/a/b") or base64 is none.
ABSOLUTE = re.compile(r"""(?:^|(?<=[\s"'=(`\[]))~?/[\w.-]+/[\w.-]+""", re.MULTILINE)
TEXT_SUFFIXES = (".json", ".jsonl", ".md", ".csv", ".html")


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict:
    """One run of every command on the fixture data and tiny models kept in a temporary folder, from a working
    folder elsewhere; what they wrote, by command. The checkpoints (models, the zoo's work folder, the caches) are
    the user's own and are not looked at."""
    root = tmp_path_factory.mktemp("published")
    here = tmp_path_factory.mktemp("working-folder")
    cache = tmp_path_factory.mktemp("swapbench-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(here)
        patch.setenv("SWAPBENCH_CACHE_DIR", str(cache))
        bench = root / "bench"
        assert main(["build", "--source", str(FIXTURES), "--out", str(bench), "--no-cache", "--variants", CONFIGS]) == 0
        classifier = save_classifier(root / "models" / "bert", NLI)
        base = save_base(root / "models" / "base")
        train = write_training_file(root / "snli" / "snli_1.0_train.jsonl", "train")
        scoring = ["--no-progress", "--bootstrap", "50", "--probe-words", "3", "--probe-length", "8"]
        # the default output lands in the working folder, under the model's name
        assert main(["eval", str(classifier), "--data", str(bench), *scoring]) == 0
        tuned_results = root / "out" / "tuned.json"
        assert (
            main(
                [
                    "eval",
                    str(base),
                    "--data",
                    str(bench),
                    "--output",
                    str(tuned_results),
                    "--train-source",
                    str(train),
                    "--val-holdout",
                    "8",
                    "--epochs",
                    "1",
                    "--train-batch-size",
                    "8",
                    *scoring,
                ]
            )
            == 0
        )
        assert main(["probe", str(classifier), "--out", str(root / "probe"), "--words", "3", "--length", "8"]) == 0
        zoo_data = root / "zoo-data"
        zoo_data.mkdir()
        assert (
            main(
                [
                    "zoo",
                    "run",
                    "--data",
                    str(bench),
                    "--out",
                    str(root / "zoo"),
                    "--work",
                    str(root / "work"),
                    "--encodings",
                    "rope",
                    "--seeds",
                    "0",
                    "--bootstrap",
                    "50",
                    "--probe-words",
                    "3",
                    "--layers",
                    "1",
                    "--hidden",
                    "16",
                    "--heads",
                    "2",
                    "--epochs",
                    "1",
                    "--max-length",
                    "32",
                    "--train-batch-size",
                    "8",
                    "--tokenizer",
                    str(save_tokenizer(zoo_data / "tokenizer")),
                    "--train-source",
                    str(write_pairs(zoo_data / "train.jsonl", "t")),
                    "--val-source",
                    str(write_pairs(zoo_data / "dev.jsonl", "d", "garden")),
                    "--device",
                    "cpu",
                    "--no-progress",
                ]
            )
            == 0
        )
        board = root / "board"
        assert main(["leaderboard", "--board", str(board), "--set-reference", str(bench)]) == 0
        # The tiny model is at chance, which the board refuses; what is looked at here is what it stores. So the
        # file submitted is that run's, its predictions made right on every original and on four swaps in five
        # and its training loss lowered (the board recomputes every figure from the predictions, the health
        # block's included, and re-derives at-chance from the training loss).
        data = json.loads(tuned_results.read_text(encoding="utf-8"))
        for epoch in data["model"]["fine_tuning"]["history"]:
            epoch["train_loss"] = 0.5
        rows: dict[str, list] = {}
        for i, row in enumerate(read_predictions(predictions_path(tuned_results))):
            rows.setdefault(row.configuration, []).append(
                row.model_copy(
                    update={
                        "prediction_original": row.gold_original,
                        "prediction_perturbed": row.gold if i % 5 else row.prediction_perturbed,
                    }
                )
            )
        tuning = EvalResults.model_validate(data).model.fine_tuning
        assert (
            main(
                [
                    "submit",
                    str(save(rederived(data, [(None, tuning, rows)]), root / "out" / "submitted.json")),
                    "--board",
                    str(board),
                ]
            )
            == 0
        )
    return {
        "build": [bench],
        "eval": [here, root / "out"],
        "probe": [root / "probe"],
        "zoo": [root / "zoo"],
        "submit": [board],
        "root": root,
        "working folder": here,
        "cache": cache,
    }


def text_files(folders: list[Path]) -> list[Path]:
    return [
        path
        for folder in folders
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name.endswith(TEXT_SUFFIXES)
    ]


@pytest.mark.parametrize("command", ["build", "eval", "probe", "zoo", "submit"])
def test_what_a_command_writes_names_no_path_of_the_machine(written, command):
    files = text_files(written[command])
    assert files, f"{command} wrote no text file"
    machine = [str(written[key]) for key in ("root", "working folder", "cache")] + [
        str(FIXTURES.parent.parent),
        os.path.expanduser("~"),
    ]
    for path in files:
        text = path.read_text(encoding="utf-8")
        for where in machine:
            assert where not in text, f"{path.name} names {where}"
        found = ABSOLUTE.findall(text)
        assert not found, f"{path.name} names absolute paths: {found[:5]}"
        assert "../" not in text, f"{path.name} names a path that leaves the working folder"


def test_the_default_results_folder_is_named_after_the_model_and_is_not_hidden(written):
    [results] = (written["working folder"] / "results").glob("*/results_*.json")
    assert results.parent.name == "bert"
    data = json.loads(results.read_text(encoding="utf-8"))
    assert data["model"]["name_or_path"] == "…/models/bert" and data["dataset"]["path"].endswith("/bench")


def test_a_path_is_named_from_the_working_folder_or_by_its_last_parts(tmp_path, monkeypatch):
    (tmp_path / "models" / "bert").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "models")
    assert public_path(tmp_path / "models" / "bert") == "./bert" and public_path("bert") == "./bert"
    assert public_path(tmp_path / "models") == "."
    assert public_path("../models/bert") == "./bert"  # it leads back inside
    assert public_path(tmp_path / "elsewhere" / "data" / "snli_1.0") == "…/data/snli_1.0"
    assert public_path("../x/y/z", keep=1) == "…/z"
    assert public_path("owner/name") == "owner/name" and public_path("bert-base-uncased") == "bert-base-uncased"
    assert public_path("/venv/lib/python3.11/site-packages/pkg/model") == "…/site-packages/pkg/model"
    # a command line's paths, standing alone or after "=", named alike; the program by its name
    assert public_command(
        [
            str(tmp_path / "venv" / "bin" / "swapbench"),
            "eval",
            str(tmp_path / "models" / "bert"),
            "--data",
            "owner/name",
            f"--output={tmp_path / 'out' / 'r.json'}",
        ]
    ) == ["swapbench", "eval", "./bert", "--data", "owner/name", "--output=…/out/r.json"]
