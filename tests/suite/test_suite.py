"""`swapbench suite`: a declared list of tiny models scored in one command, a broken one reported while the others
go on, a suite killed midway finished by scoring only what is left, and declarations refused by file and line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from eval_models import save_classifier

import swapbench.models.loading
from swapbench.commands.main import main
from swapbench.core.errors import InputError
from swapbench.results.schema import EvalResults
from swapbench.suite.declaration import read_suite

REPO = Path(__file__).resolve().parents[2]
NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", "shuffle-sr"])


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("models")
    broken = save_classifier(root / "broken", NLI)
    (broken / "config.json").write_text("{ not json", encoding="utf-8")
    return {
        "first": save_classifier(root / "first", NLI, seed=1),
        "broken": broken,
        "third": save_classifier(root / "third", NLI, seed=3),
        "second": save_classifier(root / "second", NLI, seed=2),
    }


def write_suite(path: Path, data: Path, models: list[Path]) -> Path:
    lines = [f"data: {data}", "options: {no_probe: true, bootstrap: 200, no_cache: true}", "models:"]
    lines += [f"  - {{model: {model}, mode: classifier}}" for model in models]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def loads(monkeypatch) -> list[str]:
    """The models loaded in this process, counted where every model's weights are read."""
    loaded, load = [], swapbench.models.loading._from_pretrained

    def counted(auto_class, name_or_path, *args, **kwargs):
        loaded.append(Path(name_or_path).name)
        return load(auto_class, name_or_path, *args, **kwargs)

    monkeypatch.setattr(swapbench.models.loading, "_from_pretrained", counted)
    return loaded


def test_a_suite_with_a_broken_model_scores_the_others_and_says_what_failed(dataset, models, tmp_path, capsys):
    suite = write_suite(tmp_path / "suite.yaml", dataset, [models["first"], models["broken"], models["third"]])
    assert main(["suite", str(suite), "--out", str(tmp_path / "out"), "--no-progress"]) == 1

    said = " ".join(capsys.readouterr().err.split())
    results = sorted((tmp_path / "out" / "results").glob("*.json"))
    assert [EvalResults.model_validate_json(p.read_text()).model.name_or_path.rsplit("/", 1)[-1] for p in results] == [
        "first",
        "third",
    ]
    for number, name in enumerate(("first", "broken", "third"), 1):
        assert f"Model {number} of 3: {models[name]} (classifier, seed 0)" in said
    assert f"failed: {models['broken']} (classifier, seed 0):" in said
    assert "3 runs: 2 scored, 0 done before, 1 failed" in said
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "| scored |" in summary and "| failed |" in summary and "## Failures" in summary
    table = (tmp_path / "out" / "summary.csv").read_text().splitlines()
    assert table[0] == "model,mode,seed,status,health,limit,shuffle-3,shuffle-sr,results"
    assert [row.split(",")[3] for row in table[1:]] == ["scored", "failed", "scored"]


def test_a_suite_killed_after_its_first_model_scores_only_the_rest_when_started_again(dataset, models, tmp_path, loads):
    suite = write_suite(tmp_path / "suite.yaml", dataset, [models["first"], models["second"], models["third"]])
    out = tmp_path / "out"
    running = subprocess.Popen(
        [sys.executable, "-m", "swapbench", "suite", str(suite), "--out", str(out), "--no-progress"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=os.environ.copy(),
    )
    try:
        deadline = time.monotonic() + 120
        while not list((out / "results").glob("*.json")) and running.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        running.send_signal(signal.SIGKILL)  # the first model's results are written (with its predictions first)
    finally:
        running.wait()
    [first] = list((out / "results").glob("*.json"))
    written = first.read_bytes()

    assert main(["suite", str(suite), "--out", str(out), "--no-progress"]) == 0
    assert loads == ["second", "third"]  # the first model is not even loaded
    assert first.read_bytes() == written
    assert len(list((out / "results").glob("*.json"))) == 3
    statuses = [row.split(",")[3] for row in (out / "summary.csv").read_text().splitlines()[1:]]
    assert statuses == ["reused", "scored", "scored"]

    loads.clear()  # a third start scores nothing
    assert main(["suite", str(suite), "--out", str(out), "--no-progress"]) == 0
    assert loads == []


def test_a_run_whose_options_changed_is_scored_again(dataset, models, tmp_path, loads):
    suite = write_suite(tmp_path / "suite.yaml", dataset, [models["first"]])
    assert main(["suite", str(suite), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    suite.write_text(suite.read_text().replace("bootstrap: 200", "bootstrap: 300"))
    assert main(["suite", str(suite), "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    assert loads == ["first", "first"]


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("models:\n  - model: m\n    mode: finetune\n", 3, "models.0.mode: Input should be 'classifier', 'fine-tune'"),
        (
            "models:\n  - model: m\n  - model: n\n    options:\n      limt: 3\n",
            5,
            "models.1 (n): unknown option limt (did you mean limit?)",
        ),
        ("models:\n  - model: m\n    options: {seed: 3}\n", 3, "seed is set by the suite"),
        ("data: d\nmodels: []\n", 2, "models: List should have at least 1 item"),
        ("models:\n  - model: m\n    colour: red\n", 3, "models.0.colour: Extra inputs are not permitted"),
        ("models:\n  - model: m\n    options: {mode: prompt, label_map: x}\n", 3, "mode is set by the suite"),
        ("models:\n  - {model: m, mode: prompt, options: {epochs: 2}}\n", 2, "--epochs is for --mode classifier"),
        ("models: [model: m\n", 2, "not YAML"),
    ],
)
def test_a_bad_declaration_is_refused_with_its_file_and_line(tmp_path, text, line, message):
    path = tmp_path / "suite.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as refused:
        read_suite(path)
    assert str(refused.value).startswith(f"{path}:{line}: ")
    assert message in str(refused.value)


@pytest.mark.parametrize("name, runs", [("paper-encoders.yaml", 6), ("decoders.yaml", 8)])
def test_the_readme_suites_are_valid(name, runs):
    path = REPO / "suites" / name
    assert len(read_suite(path)) == runs
    assert f"(suites/{name})" in (REPO / "README.md").read_text(encoding="utf-8")


def test_the_gguf_files_of_one_folder_are_distinct_models(tmp_path):
    path = tmp_path / "suite.yaml"
    path.write_text(
        "models:\n  - {model: m/a.Q4_1.gguf, mode: prompt}\n"
        "  - {model: m, mode: prompt, options: {gguf_file: a.Q8_0.gguf}}\n",
        encoding="utf-8",
    )
    assert [(run.options.model, run.options.gguf_file) for run in read_suite(path)] == [
        ("m", "a.Q4_1.gguf"),
        ("m", "a.Q8_0.gguf"),
    ]
