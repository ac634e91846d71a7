"""eval's outputs are atomic, unique and verified, and eval's own inputs get clear errors (issue 41).

The results file and its predictions are one unit: concurrent writers onto one path, and a writer killed with
SIGKILL at each step of the write, leave the earlier pair or the new one, never a results file beside predictions
that are not its own. Two default names made in the same second differ. A --max-length beyond the model's
positions, a MemoryError while scoring, a 230-character model folder and a bool given for a count are each a
clear error (or, for the long name, a run that works), not a traceback.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
from datetime import timezone
from pathlib import Path

import pytest
from board_helpers import make_results
from eval_models import save_classifier
from hypothesis import given, settings
from hypothesis import strategies as st

import swapbench
from swapbench.commands.main import main
from swapbench.core.errors import SwapbenchError
from swapbench.evaluation.options import eval_options_model
from swapbench.results.files import (
    default_output,
    predictions_path,
    render_predictions,
    verified_predictions,
    write_results,
)
from swapbench.results.schema import EvalResults, PredictionRow

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
BASE = EvalResults.model_validate(make_results("tiny"))


def pair(writer: int, rows: int = 3) -> tuple[EvalResults, str]:
    """Results and predictions text that belong together, told apart by `writer`."""
    lines = [
        PredictionRow(
            pair_id=f"{writer}-{i}",
            configuration="shuffle-3",
            gold="entailment",
            gold_original="entailment",
            prediction_original="neutral",
            prediction_perturbed="neutral",
            cluster=str(i),
            tags=[],
        )
        for i in range(rows)
    ]
    text, record = render_predictions(lines, Path("r.json"))
    return BASE.model_copy(update={"predictions": record}), text


def assert_whole(path: Path) -> str | None:
    """The writer whose pair is at `path` (None when there is none), after checking that the pair matches and
    that no journal or staging file is left. Where there is none, the next writer clears what a killed one left
    (its predictions without a results file, staging files) and writes a whole pair."""
    if not path.exists():
        write_results(*pair(9), path)
        assert verified_predictions(path)[0].pair_id.startswith("9-")
        writer = None
    else:
        rows = verified_predictions(path)  # raises when they are not the results file's own
        writer = rows[0].pair_id.split("-")[0]
    leftovers = [p.name for p in path.parent.iterdir() if p.name.startswith(".")]
    assert leftovers == [], leftovers
    return writer


# ---- names that cannot collide ----------------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(st.datetimes(timezones=st.just(timezone.utc)), st.integers(0, 999_999))
def test_two_default_names_made_in_one_second_differ(started, microsecond):
    one = default_output("org/model", "you/data", started)
    other = default_output("org/model", "you/data", started.replace(microsecond=microsecond))
    assert one != other and one.parent == other.parent  # same second, same microsecond even: told apart


def test_a_name_eval_chose_is_never_written_over(tmp_path):
    path = tmp_path / "results_x.json"
    results, text = pair(1)
    write_results(results, text, path, exclusive=True)
    before = path.read_bytes(), predictions_path(path).read_bytes()
    with pytest.raises(FileExistsError):
        write_results(*pair(2), path, exclusive=True)
    assert (path.read_bytes(), predictions_path(path).read_bytes()) == before
    write_results(*pair(3), path)  # a name the user gave (--output) is replaced, as one unit
    assert assert_whole(path) == "3"


# ---- one unit: concurrent writers, and a reader alongside them -----------------------------------------------------


def test_concurrent_writers_onto_one_path_always_leave_a_matching_pair(tmp_path):
    path = tmp_path / "results.json"
    problems: list[str] = []
    stop = threading.Event()

    def read_while_written():
        while not stop.is_set():
            if path.exists():
                try:
                    verified_predictions(path)
                except SwapbenchError as err:
                    problems.append(str(err))

    reader = threading.Thread(target=read_while_written)
    reader.start()
    try:
        for round_ in range(100):
            writers = [threading.Thread(target=write_results, args=(*pair(3 * round_ + k), path)) for k in range(3)]
            for writer in writers:
                writer.start()
            for writer in writers:
                writer.join()
            assert assert_whole(path) in {str(3 * round_ + k) for k in range(3)}
    finally:
        stop.set()
        reader.join()
    assert problems == []


def test_predictions_that_are_not_the_results_files_own_are_named(tmp_path):
    path = tmp_path / "results.json"
    write_results(*pair(1), path)
    _, other = pair(2)
    predictions_path(path).write_text(other)
    with pytest.raises(SwapbenchError, match=r"results\.predictions\.jsonl is not the predictions its results file"):
        verified_predictions(path)
    predictions_path(path).unlink()
    with pytest.raises(SwapbenchError, match="is missing"):
        verified_predictions(path)


# ---- kill -9 at each step of the write ----------------------------------------------------------------------------

KILLER = """
import os, signal
from pathlib import Path
from swapbench.results.files import write_results
from swapbench.results.schema import EvalResults
step, nth, path, results, text = {step!r}, {nth}, Path({path!r}), Path({results!r}), Path({text!r})
calls = [0]
def killing(original):
    def call(*args, **kwargs):
        calls[0] += 1
        if calls[0] == nth:
            os.kill(os.getpid(), signal.SIGKILL)
        return original(*args, **kwargs)
    return call
new = EvalResults.model_validate_json(results.read_bytes()), text.read_text(encoding="utf-8")
if step in ("unlink", "touch"):
    setattr(Path, step, killing(getattr(Path, step)))
elif step:
    setattr(os, step, killing(getattr(os, step)))
write_results(*new, path)
"""

# (step, n): SIGKILL at the n-th call of os.link (the earlier predictions kept), os.replace (the predictions, then
# the results file) or Path.unlink (the journal dropped once the pair is in); "" for a writer that is not killed.
STEPS = [("link", 1), ("replace", 1), ("replace", 2), ("unlink", 1), ("", 0)]


@pytest.mark.parametrize("earlier", [True, False], ids=["over-a-pair", "fresh"])
@pytest.mark.parametrize("step,nth", STEPS, ids=[f"{s or 'no-kill'}-{n}" for s, n in STEPS])
def test_a_writer_killed_at_any_step_leaves_the_earlier_pair_or_the_new_one(tmp_path, earlier, step, nth):
    path = tmp_path / "out" / "results.json"
    if earlier:
        write_results(*pair(1), path)
    if step == "link" and not earlier:
        step = "touch"  # (no earlier predictions to keep: the journal marks that there were none)
    results, text = pair(2)
    (tmp_path / "new.json").write_text(results.model_dump_json())
    (tmp_path / "new.jsonl").write_text(text, encoding="utf-8")
    script = KILLER.format(
        step=step, nth=nth, path=str(path), results=str(tmp_path / "new.json"), text=str(tmp_path / "new.jsonl")
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == (-9 if step else 0), done.stderr
    writer = assert_whole(path)  # verified_predictions rolled a half-written pair back first
    assert writer in ({"1", "2"} if earlier else {None, "2"})
    if step == "replace" and nth == 2 and earlier:  # killed between the two renames: the earlier pair comes back
        assert writer == "1"
    if not step or step == "unlink":  # killed once the results file was in: the new pair
        assert writer == "2"


# ---- eval's own inputs --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3"])


def test_a_max_length_beyond_the_models_positions_is_refused_before_any_work(tmp_path, dataset, capsys):
    model = save_classifier(tmp_path / "twelve-positions", NLI, max_position_embeddings=12)
    output = tmp_path / "results.json"
    code = main(
        [
            "eval",
            str(model),
            "--data",
            str(dataset),
            "--output",
            str(output),
            "--no-progress",
            "--no-probe",
            "--max-length",
            "64",
        ]
    )
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2 and "--max-length 64 is beyond the 12 positions of" in err and "Traceback" not in err
    assert not output.exists() and not (Path(swapbench_cache()) / "scores").exists()  # nothing scored
    # within the positions it runs, and pairs longer than the limit are cut rather than crash the model
    assert (
        main(
            [
                "eval",
                str(model),
                "--data",
                str(dataset),
                "--output",
                str(output),
                "--no-progress",
                "--no-probe",
                "--bootstrap",
                "50",
                "--max-length",
                "12",
            ]
        )
        == 0
    )
    assert EvalResults.model_validate_json(output.read_bytes()).provenance.scoring.max_length == 12


def swapbench_cache() -> str:
    import os

    return os.environ["SWAPBENCH_CACHE_DIR"]


def test_a_memory_error_while_scoring_is_a_clear_error(tmp_path, monkeypatch):
    """The real padding, wrapped to raise MemoryError after its first batch: the batch size halves down to one,
    then eval says what to do."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from swapbench.evaluation import scoring

    model_folder = save_classifier(tmp_path / "bert", NLI)
    tokenizer = AutoTokenizer.from_pretrained(model_folder)
    model = AutoModelForSequenceClassification.from_pretrained(model_folder)
    real_pad, calls = scoring.pad_batch, []

    def pad(*args, **kwargs):
        calls.append(1)
        if len(calls) > 1:
            raise MemoryError
        return real_pad(*args, **kwargs)

    monkeypatch.setattr(scoring, "pad_batch", pad)
    scored = []
    with pytest.raises(
        SwapbenchError, match=r"out of memory on cpu scoring 6 pairs .*2 were scored.*--eval-batch-size"
    ):
        scoring.predict(
            model,
            tokenizer,
            [("A man runs.", "A dog sleeps.")] * 6,
            batch_size=2,
            on_batch=lambda index, logits, cut: scored.extend(index),
        )
    assert len(scored) == 2  # what was scored before reached on_batch (the scores cache), and stays there


def test_a_230_character_model_folder_evaluates_and_writes_its_results(tmp_path, dataset, monkeypatch):
    name = "m" * 230
    model = save_classifier(tmp_path / name, NLI)
    monkeypatch.chdir(tmp_path)
    assert main(["eval", str(model), "--data", str(dataset), "--no-progress", "--no-probe", "--bootstrap", "50"]) == 0
    [written] = (tmp_path / "results").glob("*/results_*.json")
    assert len(written.parent.name) <= 64 and written.parent.name.startswith("m" * 40)
    results = EvalResults.model_validate_json(written.read_bytes())
    assert results.model.name_or_path.endswith(name)  # the file records the whole name
    assert verified_predictions(written)
    other = save_classifier(tmp_path / ("m" * 229 + "n"), NLI)  # starts alike: another folder all the same
    from swapbench.results.files import model_slug

    assert model_slug(str(other)) != model_slug(str(model))


@pytest.mark.parametrize(
    "keywords,named",
    [
        ({"limit": True}, "limit"),
        ({"limit": 2.0}, "limit"),
        ({"bootstrap": 1000.0}, "bootstrap"),
        ({"seed": False}, "seed"),
        ({"probe": 1}, "probe"),
        ({"seeds": [0, True]}, "seeds"),
    ],
)
def test_option_values_from_the_api_are_strictly_typed(keywords, named):
    with pytest.raises(SwapbenchError, match=rf"--{named}\b.*{named}"):
        eval_options_model().from_keywords(model="m", data="d", **keywords)


def test_evaluate_limit_true_is_refused_naming_limit(tmp_path):
    with pytest.raises(SwapbenchError, match=r"--limit: limit=True: expected an integer"):
        swapbench.evaluate(str(tmp_path / "model"), str(tmp_path / "data"), limit=True)
    # what the API still takes: a count, a list of seeds or a comma-separated string of them
    assert eval_options_model().from_keywords(model="m", data="d", limit=3, seeds="0,1").limit == 3
    assert eval_options_model().from_keywords(model="m", data="d", limit="3").limit == 3  # as the command line reads it
    assert eval_options_model().from_keywords(model="m", data="d", seeds=[0, 1]).fine_tuning_seeds == [0, 1]


def test_the_recorded_hash_is_that_of_the_bytes_written(tmp_path):
    path = tmp_path / "results.json"
    results, text = pair(7, rows=2)
    write_results(results, text, path)
    recorded = json.loads(path.read_text())["predictions"]
    assert recorded["sha256"] == hashlib.sha256(predictions_path(path).read_bytes()).hexdigest()
    assert recorded["rows"] == 2
