"""The scores cache, counted on the model itself: a forward hook counts the pairs the model runs (and stops a run
midway). A second eval runs none and writes the same figures and predictions; an added configuration runs only its
new pairs; an interrupted eval, run again, runs only the rest; --no-cache runs every pair. The fine-tuning cache is
found by the model's content, whatever path names it, and a damaged entry of either cache is a miss, with a
warning naming the file."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from eval_models import save_base, save_classifier, write_training_file
from logged import log_info, logged

from swapbench.evaluation.data import open_benchmark
from swapbench.evaluation.finetune import INFO_FILE
from swapbench.evaluation.options import eval_options_model
from swapbench.evaluation.pipeline import evaluate
from swapbench.evaluation.results import distinct_pairs
from swapbench.evaluation.scorers.classifier import ClassifierScorer
from swapbench.results.files import predictions_path

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
CONFIGS = ["shuffle-3", "shuffle-random"]
BATCH = 2


class Stopped(Exception):
    """What the hook raises to stop an eval midway, as a crash would."""


class Counting(ClassifierScorer):
    """The classifier scorer, with a hook counting the pairs its model runs; with `stop_after`, the batch after
    that many raises before it runs."""

    def __init__(self, stop_after: int | None = None):
        self.pairs = self.batches = 0
        self.stop_after = stop_after

    def prepare(self, run):
        prepared = super().prepare(run)
        prepared.loaded.model.register_forward_pre_hook(self.count, with_kwargs=True)
        return prepared

    def count(self, module, args, kwargs):
        if self.batches == self.stop_after:
            raise Stopped
        self.batches += 1
        self.pairs += kwargs["input_ids"].shape[0]


@pytest.fixture(autouse=True)
def info_logged(caplog):
    log_info(caplog)


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(CONFIGS)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return save_classifier(tmp_path_factory.mktemp("models") / "bert", NLI)


def distinct(dataset, configs=None) -> int:
    return len(distinct_pairs(open_benchmark(str(dataset), configs=configs)))


def run(model, dataset, output, scorer=None, **options):
    # float32: the pairs each run scores are counted, and --dtype auto on a CPU with bf16 units would score them again
    # in float32 whenever a random model's bf16 labels fall short of the agreement it needs
    options = {
        "probe": False,
        "progress": False,
        "bootstrap": 500,
        "eval_batch_size": BATCH,
        "dtype": "float32",
        **options,
    }
    scorer = scorer or Counting()
    results, path = evaluate(
        eval_options_model()(model=str(model), data=str(dataset), output=output, **options), scorer=scorer
    )
    return scorer.pairs, results, path


def test_a_second_run_scores_nothing_and_writes_the_same_figures(model, dataset, tmp_path, caplog):
    total = distinct(dataset)
    scored, first, first_path = run(model, dataset, tmp_path / "first.json")
    assert scored == total == first.provenance.scoring.unique_pairs
    assert f"Scores: 0 pairs from the cache, {total} scored" in logged(caplog)

    again, second, second_path = run(model, dataset, tmp_path / "second.json")
    assert again == 0
    assert f"Scores: {total} pairs from the cache, 0 scored" in logged(caplog)
    assert second.results.keys() == set(CONFIGS)
    assert second.results == first.results and second.health == first.health
    assert predictions_path(second_path).read_bytes() == predictions_path(first_path).read_bytes()
    assert second.provenance.scoring.batch_size == 0  # nothing ran

    uncached, third, _ = run(model, dataset, tmp_path / "third.json", use_cache=False)
    assert uncached == total and third.results == first.results
    assert "from the cache" not in logged(caplog)


def test_an_added_configuration_scores_only_its_new_pairs(model, dataset, tmp_path):
    one, _, _ = run(model, dataset, tmp_path / "one.json", configs=["shuffle-3"])
    assert one == distinct(dataset, ["shuffle-3"])
    both, results, _ = run(model, dataset, tmp_path / "both.json")
    new = distinct(dataset) - distinct(dataset, ["shuffle-3"])
    assert both == new > 0
    _, reference, _ = run(model, dataset, tmp_path / "reference.json", use_cache=False)
    assert results.results == reference.results


def test_another_scoring_option_is_another_entry(model, dataset, tmp_path):
    total = distinct(dataset)
    run(model, dataset, tmp_path / "first.json")
    cut, _, _ = run(model, dataset, tmp_path / "cut.json", max_length=16)
    assert cut == total  # other lengths, other logits: nothing is reused


def test_an_interrupted_run_scores_only_the_rest_when_run_again(model, dataset, tmp_path):
    total = distinct(dataset)
    stopped = Counting(stop_after=3)
    with pytest.raises(Stopped):
        run(model, dataset, tmp_path / "stopped.json", scorer=stopped)
    assert stopped.pairs == 3 * BATCH < total
    assert not (tmp_path / "stopped.json").exists()

    rest, results, _ = run(model, dataset, tmp_path / "resumed.json")
    assert rest == total - 3 * BATCH
    _, reference, _ = run(model, dataset, tmp_path / "reference.json", use_cache=False)
    assert results.results == reference.results


def squeezed(text: str) -> str:
    """Text without white space: the console folds long lines, paths included, anywhere."""
    return "".join(text.split())


def entry(cache_dir) -> os.PathLike:
    (path,) = (cache_dir / "scores").glob("*.sqlite")
    return path


def test_a_damaged_scores_cache_is_set_aside_with_a_warning_and_everything_scored_again(
    model, dataset, tmp_path, caplog
):
    cache_dir, total = tmp_path / "cache", distinct(dataset)
    _, first, _ = run(model, dataset, tmp_path / "first.json", cache_dir=cache_dir)
    path = entry(cache_dir)
    garbage = bytes(range(256)) * 16
    path.write_bytes(garbage)
    caplog.clear()
    again, second, _ = run(model, dataset, tmp_path / "second.json", cache_dir=cache_dir)
    err = squeezed(logged(caplog))
    assert again == total and second.results == first.results
    assert squeezed(f"warning: the scores cache {path} is damaged") in err
    assert (path.with_name(f"{path.stem}.damaged-1.sqlite")).read_bytes() == garbage
    assert run(model, dataset, tmp_path / "third.json", cache_dir=cache_dir)[0] == 0  # the new entry serves


def test_a_row_of_the_wrong_size_is_scored_again(model, dataset, tmp_path, caplog):
    cache_dir = tmp_path / "cache"
    _, first, _ = run(model, dataset, tmp_path / "first.json", cache_dir=cache_dir)
    with sqlite3.connect(entry(cache_dir)) as db:
        db.execute("UPDATE scores SET outputs = x'00' WHERE rowid = (SELECT min(rowid) FROM scores)")
    db.close()
    caplog.clear()
    again, second, _ = run(model, dataset, tmp_path / "second.json", cache_dir=cache_dir)
    assert again == 1 and second.results == first.results
    assert squeezed(f"1 row(s) of the scores cache {entry(cache_dir)}") in squeezed(logged(caplog))


@pytest.fixture
def base(tmp_path):
    return save_base(tmp_path / "models" / "base"), write_training_file(tmp_path / "snli" / "train.jsonl", "train")


def fine_tune(model, train, dataset, output, scorer=None, **options):
    return run(
        model,
        dataset,
        output,
        scorer=scorer,
        train_source=str(train),
        val_holdout=8,
        epochs=1,
        train_batch_size=8,
        **options,
    )


def test_a_relative_and_an_absolute_path_find_the_same_fine_tuning_and_scores(base, dataset, tmp_path, monkeypatch):
    model, train = base
    _, first, _ = fine_tune(model, train, dataset, tmp_path / "first.json")
    assert not first.model.fine_tuning.reused
    monkeypatch.chdir(model.parent)
    scored, second, _ = fine_tune("base", train, dataset, tmp_path / "second.json")
    tuning = second.model.fine_tuning
    assert tuning.reused and tuning.cache_key == first.model.fine_tuning.cache_key
    # (published as ./base, from the folder it was named in, and the checkpoint by its last parts)
    assert tuning.base_model == "./base" and tuning.checkpoint == first.model.fine_tuning.checkpoint
    assert scored == 0 and second.results == first.results


def test_a_damaged_training_record_is_a_miss_with_a_warning(base, dataset, tmp_path, caplog):
    model, train = base
    _, first, _ = fine_tune(model, train, dataset, tmp_path / "first.json")
    (record,) = (str(path) for path in Path(os.environ["SWAPBENCH_CACHE_DIR"]).glob(f"finetuned/*/{INFO_FILE}"))
    with open(record, "w", encoding="utf-8") as handle:
        handle.write('{"base_model": "cut short')
    caplog.clear()
    scored, second, _ = fine_tune(model, train, dataset, tmp_path / "second.json")
    err = squeezed(logged(caplog))
    assert squeezed(f"warning: the training record {record} does not read") in err
    assert not second.model.fine_tuning.reused  # trained again, and its checkpoint's record written anew
    assert second.model.fine_tuning.cache_key == first.model.fine_tuning.cache_key
    assert scored == distinct(dataset)  # a new training is another model: its scores are not the old ones
