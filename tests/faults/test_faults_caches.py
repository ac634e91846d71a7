"""Caches that cannot serve a wrong answer (issue 41): a cached fine-tuned checkpoint whose files were edited or
cut short is moved aside, kept, and trained again; a score edited inside the scores cache fails its check and is
scored again; a suite run whose predictions file is cut short or overwritten is not done, and is scored again.
Each time the predictions are those of a run that had no cache."""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path

import numpy as np
import pytest
from eval_models import save_base, save_classifier, write_training_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safetensors.torch import load_file, save_file

from swapbench.commands.main import main
from swapbench.core.errors import SwapbenchError
from swapbench.evaluation.finetune import CONTENTS_FILE, INFO_FILE, checkpoint_problem
from swapbench.evaluation.score_cache import ScoreCache, cached_outputs
from swapbench.results.files import predictions_path, verified_predictions
from swapbench.results.schema import EvalResults

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
SEARCH = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def squeezed(text: str) -> str:
    """Text without white space: the console folds long lines, paths included, anywhere."""
    return "".join(text.split())


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3"])


@pytest.fixture(scope="module")
def private(tmp_path_factory):
    """The module's fixtures run before each test's private cache is set: they get one of their own."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SWAPBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("module-cache")))
        patch.setenv("HF_DATASETS_CACHE", str(tmp_path_factory.mktemp("module-hf")))
        yield


# ---- the fine-tuning cache -----------------------------------------------------------------------------------------


def fine_tune_args(base, train, data, cache, output, *extra):
    return [
        "eval",
        str(base),
        "--data",
        str(data),
        "--output",
        str(output),
        "--no-progress",
        "--no-probe",
        "--bootstrap",
        "50",
        "--train-source",
        str(train),
        "--val-holdout",
        "8",
        "--epochs",
        "1",
        "--train-batch-size",
        "8",
        "--cache-dir",
        str(cache),
        *extra,
    ]


@pytest.fixture(scope="module")
def tuned(tmp_path_factory, dataset, private):
    """A base model fine-tuned once, into an empty cache: the base, its training data, the cache it left, and the
    predictions of that run, which had no cache to read."""
    root = tmp_path_factory.mktemp("tuned")
    base = save_base(root / "base")
    train = write_training_file(root / "snli" / "snli_1.0_train.jsonl", "train")
    output = root / "clean.json"
    assert main(fine_tune_args(base, train, dataset, root / "cache", output)) == 0
    return base, train, root / "cache", predictions_path(output).read_text()


def the_checkpoint(cache: Path) -> Path:
    (folder,) = [p for p in (cache / "finetuned").iterdir() if p.is_dir() and ".damaged-" not in p.name]
    return folder


def edit_weights(weights: Path) -> None:
    """The classifier head turned around, as a stray script writing into the cache would."""
    tensors = load_file(weights)
    tensors["classifier.weight"] = -5 * tensors["classifier.weight"]
    save_file(tensors, weights, metadata={"format": "pt"})


def cut_short(weights: Path) -> None:
    """Half the file, as a full disk or a killed copy leaves it."""
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])


@pytest.mark.parametrize("damage", [edit_weights, cut_short], ids=["edited", "cut-short"])
def test_a_damaged_checkpoint_is_moved_aside_and_trained_again(tuned, dataset, tmp_path, capsys, damage):
    base, train, clean_cache, clean = tuned
    cache = shutil.copytree(clean_cache, tmp_path / "cache")
    folder = the_checkpoint(cache)
    damage(folder / "model.safetensors")
    damaged = (folder / "model.safetensors").read_bytes()
    capsys.readouterr()
    # --no-cache: the scores come from the checkpoint loaded, not from the scores cache
    output = tmp_path / "r.json"
    assert main(fine_tune_args(base, train, dataset, cache, output, "--no-cache")) == 0
    err = squeezed(capsys.readouterr().err)
    (aside,) = (cache / "finetuned").glob(f"{folder.name}.damaged-*")
    assert (
        squeezed(
            f"warning: the cached checkpoint {folder} is not used: model.safetensors is not the file its training wrote"
        )
        in err
    )
    assert squeezed(f"It was moved to {aside}") in err and "Reusing" not in err
    assert (aside / "model.safetensors").read_bytes() == damaged  # what the user had is kept
    results = EvalResults.model_validate_json(output.read_text())
    assert not results.model.fine_tuning.reused and checkpoint_problem(folder) is None
    assert predictions_path(output).read_text() == clean  # the predictions of a run without a cache

    capsys.readouterr()  # the new checkpoint is whole: the next run reuses it
    assert main(fine_tune_args(base, train, dataset, cache, tmp_path / "again.json")) == 0
    assert "Reusing the fine-tuned checkpoint" in capsys.readouterr().err


@pytest.fixture
def checkpoint(tuned, tmp_path) -> Path:
    """A copy of the whole cached checkpoint, to damage."""
    return shutil.copytree(the_checkpoint(tuned[2]), tmp_path / "checkpoint")


def test_a_whole_checkpoint_passes(checkpoint):
    assert checkpoint_problem(checkpoint) is None


@SEARCH
@given(data=st.data())
def test_any_changed_byte_of_any_file_of_a_checkpoint_is_caught(checkpoint, data):
    names = sorted(p.name for p in checkpoint.iterdir() if p.name not in (INFO_FILE, CONTENTS_FILE))
    name = data.draw(st.sampled_from(names))
    path = checkpoint / name
    whole = path.read_bytes()
    offset = data.draw(st.integers(0, len(whole) - 1))
    flip = data.draw(st.integers(1, 255))
    path.write_bytes(whole[:offset] + bytes([whole[offset] ^ flip]) + whole[offset + 1 :])
    try:
        assert f"{name} is not the file its training wrote" in checkpoint_problem(checkpoint)
    finally:
        path.write_bytes(whole)


@SEARCH
@given(data=st.data())
def test_a_checkpoint_file_cut_anywhere_is_caught(checkpoint, data):
    path = checkpoint / "model.safetensors"
    whole = path.read_bytes()
    path.write_bytes(whole[: data.draw(st.integers(0, len(whole) - 1))])
    try:
        assert "model.safetensors is not the file its training wrote" in checkpoint_problem(checkpoint)
    finally:
        path.write_bytes(whole)


def test_a_checkpoint_without_its_hashes_or_with_files_added_or_removed_is_not_served(checkpoint):
    (checkpoint / "extra.bin").write_bytes(b"weights from elsewhere")
    assert checkpoint_problem(checkpoint) == "extra.bin was not written by its training"
    (checkpoint / "extra.bin").unlink()
    (checkpoint / "config.json").unlink()
    assert checkpoint_problem(checkpoint) == "config.json is missing"
    (checkpoint / CONTENTS_FILE).write_text("{ not json", encoding="utf-8")
    assert f"its {CONTENTS_FILE}, the sha256 of its files, does not read" == checkpoint_problem(checkpoint)
    (checkpoint / CONTENTS_FILE).unlink()  # as an older swapbench wrote it
    assert "an older swapbench wrote it without one" in checkpoint_problem(checkpoint)


# ---- the scores cache ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scored(tmp_path_factory, dataset, private):
    """A classifier scored once, with an empty scores cache: the model, the cache and the predictions."""
    root = tmp_path_factory.mktemp("scored")
    model = save_classifier(root / "bert", NLI)
    output = root / "clean.json"
    assert main(score_args(model, dataset, root / "cache", output)) == 0
    return model, root / "cache", predictions_path(output).read_text()


def score_args(model, data, cache, output):
    return [
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
        "--cache-dir",
        str(cache),
    ]


def test_a_logit_edited_inside_the_scores_cache_is_scored_again(scored, dataset, tmp_path, capsys):
    model, clean_cache, clean = scored
    cache = shutil.copytree(clean_cache, tmp_path / "cache")
    (entry,) = (cache / "scores").glob("*.sqlite")
    with sqlite3.connect(entry) as db:  # one pair's logits made to say "contradiction" loudly: a sound database
        pair, outputs = db.execute("SELECT pair, outputs FROM scores ORDER BY pair LIMIT 1").fetchone()
        edited = np.frombuffer(outputs, dtype=np.float32) + np.array([0, 0, 100], dtype=np.float32)
        db.execute("UPDATE scores SET outputs = ? WHERE pair = ?", (edited.tobytes(), pair))
    db.close()
    capsys.readouterr()
    output = tmp_path / "r.json"
    assert main(score_args(model, dataset, cache, output)) == 0
    err = squeezed(capsys.readouterr().err)
    assert squeezed(f"warning: 1 row(s) of the scores cache {entry} fail their check") in err
    assert "1scored,1ofthemagain:theircachedrowfailedthecheck" in err
    assert predictions_path(output).read_text() == clean
    with sqlite3.connect(entry) as db:  # overwritten with what the model gives (another batch: the last bits may move)
        rescored = db.execute("SELECT outputs FROM scores WHERE pair = ?", (pair,)).fetchone()[0]
    db.close()
    assert np.allclose(np.frombuffer(rescored, dtype=np.float32), np.frombuffer(outputs, dtype=np.float32), atol=1e-5)


PAIRS = [(f"A man number {i} sits.", f"A man sits {i}.") for i in range(12)]
TRUTH = np.random.default_rng(0).normal(size=(len(PAIRS), 3)).astype(np.float32)


def score_truly(todo, on_batch):
    """A scorer whose outputs are known: each pair's row of TRUTH."""
    values = np.stack([TRUTH[PAIRS.index(pair)] for pair in todo])
    cut = np.zeros(len(todo), dtype=bool)
    on_batch(np.arange(len(todo)), values, cut)
    return values, cut


@SEARCH
@given(
    row=st.integers(0, len(PAIRS) - 1),
    change=st.sampled_from(["outputs", "cut", "checked", "another pair's"]),
    offset=st.integers(0, 63),
    flip=st.integers(1, 255),
)
def test_any_change_to_a_cached_row_is_caught_and_scored_again(row, change, offset, flip):
    with tempfile.TemporaryDirectory() as folder:
        path, warnings = Path(folder) / "entry.sqlite", []
        cache = ScoreCache(path, 3, np.float32, warnings.append, key="the entry's key")
        cached_outputs(cache, PAIRS, 3, np.float32, score_truly)
        with sqlite3.connect(path) as db:  # as another program would edit it
            rows = db.execute("SELECT rowid, outputs, cut, checked FROM scores ORDER BY rowid").fetchall()
            rowid, outputs, cut, checked = rows[row]
            if change == "cut":
                outputs, cut = outputs, 1 - cut
            elif change == "another pair's":  # a whole row, its check with it, under another pair's key
                _, outputs, cut, checked = rows[(row + 1 + offset % (len(rows) - 1)) % len(rows)]
            else:
                raw = outputs if change == "outputs" else checked
                at = offset % len(raw)
                raw = raw[:at] + bytes([raw[at] ^ flip]) + raw[at + 1 :]
                outputs, checked = (raw, checked) if change == "outputs" else (outputs, raw)
            db.execute(
                "UPDATE scores SET outputs = ?, cut = ?, checked = ? WHERE rowid = ?", (outputs, cut, checked, rowid)
            )
        db.close()
        again = cached_outputs(cache, PAIRS, 3, np.float32, score_truly)
        cache.close()
    assert again.rescored == again.scored == 1 and again.reused == len(PAIRS) - 1
    assert np.array_equal(again.values, TRUTH) and len(warnings) == 1


# ---- the suite -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def suite_done(tmp_path_factory, dataset, private):
    """A suite of one classifier, run once: its file and its output folder."""
    root = tmp_path_factory.mktemp("suite")
    model = save_classifier(root / "bert", NLI)
    suite = root / "suite.yaml"
    suite.write_text(
        f"data: {dataset}\noptions: {{no_probe: true, bootstrap: 50, no_cache: true}}\nmodels:\n"
        f"  - {{model: {model}, mode: classifier}}\n",
        encoding="utf-8",
    )
    assert main(["suite", str(suite), "--out", str(root / "out"), "--no-progress"]) == 0
    return suite, root / "out"


def the_run(out: Path) -> tuple[Path, EvalResults]:
    (path,) = (out / "results").glob("*.json")
    return path, EvalResults.model_validate_json(path.read_text())


@pytest.mark.parametrize("damage", ["cut short", "random bytes"])
def test_a_run_whose_predictions_were_damaged_is_scored_again(suite_done, tmp_path, capsys, damage):
    suite, done = suite_done
    out = shutil.copytree(done, tmp_path / "out")
    path, _ = the_run(out)
    predictions = predictions_path(path)
    whole = predictions.read_bytes()
    predictions.write_bytes(
        whole[: len(whole) // 3] if damage == "cut short" else np.random.default_rng(1).bytes(len(whole))
    )
    capsys.readouterr()
    assert main(["suite", str(suite), "--out", str(out), "--no-progress"]) == 0
    err = squeezed(capsys.readouterr().err)
    assert squeezed(f"warning: {predictions} is not the predictions its results file records") in err
    assert "therunisscoredagain" in err and "Donebefore" not in err
    assert [row.split(",")[3] for row in (out / "summary.csv").read_text().splitlines()[1:]] == ["scored"]
    assert predictions.read_bytes() == whole
    assert len(verified_predictions(path, the_run(out)[1].predictions)) == the_run(out)[1].predictions.rows


@SEARCH
@given(data=st.data())
def test_predictions_cut_anywhere_or_changed_anywhere_are_caught(suite_done, data):
    path, results = the_run(suite_done[1])
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / path.name
        shutil.copy(path, copy)
        whole = predictions_path(path).read_bytes()
        at = data.draw(st.integers(0, len(whole) - 1))
        cut = data.draw(st.booleans())
        predictions_path(copy).write_bytes(whole[:at] if cut else whole[:at] + bytes([whole[at] ^ 1]) + whole[at + 1 :])
        with pytest.raises(SwapbenchError, match="is not the predictions its results file records"):
            verified_predictions(copy, results.predictions)
        predictions_path(copy).unlink()
        with pytest.raises(SwapbenchError, match="is missing"):
            verified_predictions(copy, results.predictions)
