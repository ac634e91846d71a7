"""The notebook API: swapbench.build, .evaluate and .probe on the hand-written fixture and a tiny random model."""

from __future__ import annotations

import subprocess
import sys

import pytest
from eval_models import save_classifier

import swapbench
from swapbench.results.schema import EvalResults

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


def test_import_swapbench_loads_nothing_heavy():
    code = ("import sys, swapbench; heavy = [m for m in ('torch', 'datasets', 'pandas', 'transformers', "
            "'swapbench.api', 'swapbench.evaluation') if m in sys.modules]; print(heavy)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def built(tmp_path_factory, request):
    fixtures = request.config.rootpath / "tests" / "fixtures"
    out = tmp_path_factory.mktemp("api") / "snli-test"
    return swapbench.build(split="test", source=fixtures, out=out, variants=["shuffle-3", "shuffle-random"],
                           use_cache=False)


def test_build_returns_the_folder_and_its_configurations(built):
    assert (built.path / "build_info.json").is_file()
    table = built.configurations
    assert list(table["configuration"]) == ["shuffle-3", "shuffle-random"]
    assert list(table["rows"]) == [c.rows for c in built.info.configs]
    rows = built.rows("shuffle-random")
    assert len(rows) == built.info.configs[1].rows
    assert set(rows["label"]) <= {"entailment", "neutral", "contradiction"}


def test_evaluate_returns_results_and_their_tables(built, tmp_path):
    model = save_classifier(tmp_path / "bert", NLI)
    run = swapbench.evaluate(model, built.path, output=tmp_path / "results.json", probe=False, bootstrap=200,
                             progress=False)
    assert run.path == tmp_path / "results.json"
    assert EvalResults.model_validate_json(run.path.read_text()) == run.results
    configurations = run.configurations.set_index("configuration")
    assert list(configurations.index) == ["shuffle-3", "shuffle-random"]
    for name, result in run.results.results.items():
        assert configurations.loc[name, "delta"] == pytest.approx(result.delta)
        assert configurations.loc[name, "delta_low"] == pytest.approx(result.delta_ci.low)
        assert configurations.loc[name, "pairs"] == result.n
    examples = run.examples
    assert len(examples) == sum(r.n for r in run.results.results.values())
    accuracy = examples.groupby("configuration")["correct_perturbed"].mean()
    for name, result in run.results.results.items():
        assert accuracy[name] == pytest.approx(result.accuracy_perturbed)
    assert set(run.slices.columns) >= {"configuration", "slice", "delta", "small"}
    # The module is still the module: the API sits beside it.
    assert swapbench.results.schema.EvalResults is EvalResults


def test_probe_returns_the_result_and_one_row_per_layer(tmp_path):
    model = save_classifier(tmp_path / "bert", NLI)
    probed = swapbench.probe(model, words=3, length=8, progress=False, out=tmp_path / "probe")
    assert len(probed.layers) == len(probed.result.per_layer)
    assert list(probed.layers["locality"]) == [layer.locality for layer in probed.result.per_layer]
    assert (tmp_path / "probe" / "probe.json") in probed.files
