"""`swapbench eval --seeds`: a base model fine-tuned once per seed on a few dozen pairs, each checkpoint cached, each
scored; the results hold the means over the seeds, each seed's figures and their spread, and the predictions every
seed's rows."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from eval_models import save_base, write_training_file
from rich.console import Console

from swapbench.commands.main import main
from swapbench.evaluation.figures import configuration_result
from swapbench.evaluation.report import print_table
from swapbench.evaluation.seeds import seed_figures
from swapbench.results.files import predictions_path, read_predictions
from swapbench.results.schema import EvalResults

ROLE = "shuffle-sr"


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", ROLE])


@pytest.fixture(scope="module")
def two_seeds(tmp_path_factory, dataset):
    """One run over seeds 0 and 1 (`results`, written at `path`), and what it needs to run again."""
    root = tmp_path_factory.mktemp("seeds")
    base = save_base(root / "base")
    train = write_training_file(root / "snli" / "snli_1.0_train.jsonl", "train")

    def evaluate(output, *extra) -> EvalResults:
        argv = [
            "eval",
            str(base),
            "--data",
            str(dataset),
            "--output",
            str(output),
            "--no-progress",
            "--no-probe",
            "--train-source",
            str(train),
            "--val-holdout",
            "8",
            "--epochs",
            "1",
            "--train-batch-size",
            "8",
            "--cache-dir",
            str(root / "cache"),
            "--bootstrap",
            "500",
            *extra,
        ]
        with pytest.MonkeyPatch.context() as patch:  # as the autouse private_cache does, for this module's runs
            patch.setenv("HF_DATASETS_CACHE", str(root / "hf-datasets"))
            assert main(argv) == 0
        return EvalResults.model_validate_json(output.read_text())

    path = root / "seeds.json"
    return SimpleNamespace(
        results=evaluate(path, "--seeds", "0,1"),
        path=path,
        evaluate=evaluate,
        root=root,
        cache=root / "cache",
        base=base,
        train=train,
        data=dataset,
    )


def test_two_seeds_fine_tune_two_cached_checkpoints_and_report_each_seed_s_figures(two_seeds, tmp_path):
    results, evaluate, cache = two_seeds.results, two_seeds.evaluate, two_seeds.cache
    variance = results.seed_variance
    assert variance.seeds == [0, 1]
    tunings = [run.fine_tuning for run in variance.runs]
    assert [t.recipe.seed for t in tunings] == [0, 1] and not any(t.reused for t in tunings)
    assert tunings[0].cache_key != tunings[1].cache_key  # the seed is part of the recipe, so of the cache key
    checkpoints = sorted(p.name for p in (cache / "finetuned").iterdir() if p.is_dir())
    assert checkpoints == sorted(t.checkpoint.rsplit("/", 1)[-1] for t in tunings)
    assert results.model.fine_tuning == tunings[0] and results.provenance.seeds.fine_tuning == 0
    assert variance.validation_accuracy.mean == pytest.approx(np.mean([t.best_validation_accuracy for t in tunings]))

    for name, mean in results.results.items():
        each = [run.results[name] for run in variance.runs]
        assert mean.seeds == 2 and mean.n == next(c.rows for c in results.dataset.configurations if c.name == name)
        for figure in ("accuracy_original", "accuracy_perturbed", "delta"):
            values = [getattr(f, figure) for f in each]
            assert getattr(mean, figure) == pytest.approx(np.mean(values)), figure
            assert getattr(variance.spread[name], figure).std == pytest.approx(np.std(values, ddof=1)), figure
        assert "seeds" in mean.delta_ci.method
    role = results.results[ROLE].role_sensitivity
    assert role.value == pytest.approx(np.mean([run.results[ROLE].role_sensitivity for run in variance.runs]))
    assert variance.spread["shuffle-3"].role_sensitivity is None

    # One seed alone later: its checkpoint is the one the run over seeds cached, its figures the seed's there.
    alone = evaluate(tmp_path / "seed-1.json", "--seed", "1")
    assert alone.model.fine_tuning.reused and alone.model.fine_tuning.cache_key == tunings[1].cache_key
    assert alone.seed_variance is None and all(r.seeds == 1 for r in alone.results.values())
    for name, figures in alone.results.items():
        assert figures.delta == variance.runs[1].results[name].delta
        assert figures.accuracy_original == variance.runs[1].results[name].accuracy_original
    written = json.loads((tmp_path / "seed-1.json").read_text())  # a one-seed file reads as before
    assert written["seed_variance"] is None
    assert not any(
        "seeds" in figures for result in written["results"].values() for figures in [result, *result["slices"].values()]
    )
    assert '"seed"' not in predictions_path(tmp_path / "seed-1.json").read_text()


def test_the_predictions_file_holds_every_seed_s_rows_and_gives_back_every_figure(two_seeds):
    results, path = two_seeds.results, two_seeds.path
    rows = read_predictions(predictions_path(path))
    assert len(rows) == results.predictions.rows == 2 * sum(c.rows for c in results.dataset.configurations)
    assert all(json.loads(line)["seed"] in (0, 1) for line in predictions_path(path).read_text().splitlines())
    by_configuration: dict[str, list] = {}
    for row in rows:
        by_configuration.setdefault(row.configuration, []).append(row)
    resamples = results.results["shuffle-3"].delta_ci.resamples
    for name, config_rows in by_configuration.items():
        again = configuration_result(
            config_rows,
            label_view=results.model.label_view,
            non_entailment_view=name == ROLE,
            seed=0,
            resamples=resamples,
        )
        assert again == results.results[name]
        for run in results.seed_variance.runs:
            mine = [row for row in config_rows if row.seed == run.seed]
            assert seed_figures(mine, role=name == ROLE, seed=0, resamples=resamples) == run.results[name]


def test_the_table_shows_the_mean_with_the_seeds_spread_and_each_seed(two_seeds):
    results = two_seeds.results
    console = Console(record=True, width=200)
    print_table(results, console)
    text = console.export_text()
    words = " ".join(text.split())
    assert "mean of 2 seeds" in words and "Over 2 fine-tuning seeds (0, 1)" in words
    spread = results.seed_variance.spread["shuffle-3"].delta
    assert f"±{100 * spread.std:.1f}" in text
    [seeds_header] = [line.split() for line in text.splitlines() if "mean ± sd" in line]
    assert seeds_header[:5] == ["figure", "seed", "0", "seed", "1"]
    assert any(line.strip().startswith(f"role {ROLE}") for line in text.splitlines())


def test_the_api_takes_seeds_and_gives_each_seed_s_figures(two_seeds, tmp_path):
    import swapbench

    run = swapbench.evaluate(
        two_seeds.base,
        two_seeds.data,
        output=tmp_path / "api.json",
        seeds=[0, 1],
        no_probe=True,
        no_progress=True,
        train_source=two_seeds.train,
        val_holdout=8,
        epochs=1,
        train_batch_size=8,
        cache_dir=two_seeds.cache,
        bootstrap=500,
    )
    assert all(r.fine_tuning.reused for r in run.results.seed_variance.runs)  # both checkpoints cached
    assert run.results.results == two_seeds.results.results
    frame = run.seeds
    assert sorted(set(frame["seed"])) == [0, 1] and len(frame) == 2 * len(run.results.results)
    means = frame.groupby("configuration")["delta"].mean()
    assert run.configurations.set_index("configuration")["delta"].to_dict() == pytest.approx(means.to_dict())
    assert sorted(set(run.examples["seed"])) == [0, 1]
