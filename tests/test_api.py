"""The notebook API: swapbench.build, .evaluate and .probe on the hand-written fixture and a tiny random model."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from eval_models import save_base, save_classifier, write_training_file

import swapbench
from swapbench.core.command_options import keywords_of
from swapbench.core.errors import SwapbenchError
from swapbench.core.text import public_command, public_path
from swapbench.results.schema import EvalResults

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


def test_import_swapbench_loads_nothing_heavy():
    code = (
        "import sys, swapbench; heavy = [m for m in ('torch', 'datasets', 'pandas', 'transformers', "
        "'swapbench.api', 'swapbench.evaluation') if m in sys.modules]; print(heavy)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.fixture(scope="module")
def built(tmp_path_factory, request):
    fixtures = request.config.rootpath / "tests" / "fixtures"
    out = tmp_path_factory.mktemp("api") / "snli-test"
    return swapbench.build(
        split="test", source=fixtures, out=out, variants=["shuffle-3", "shuffle-random"], use_cache=False
    )


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
    run = swapbench.evaluate(
        model, built.path, output=tmp_path / "results.json", probe=False, bootstrap=200, progress=False
    )
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
    slices = run.slices
    assert set(slices.columns) >= {
        "configuration",
        "slice",
        "delta",
        "small",
        "p_adjusted",
        "role_sensitivity_p_adjusted",
    }
    for row in slices.itertuples():  # the adjusted p of every slice, beside its p
        test = run.results.results[row.configuration].slices[row.slice].mcnemar
        assert (row.p_value, row.p_adjusted) == (test.p_value, test.p_adjusted) and row.p_adjusted >= row.p_value
    # The module is still the module: the API sits beside it.
    assert swapbench.results.schema.EvalResults is EvalResults


def test_probe_returns_the_result_and_one_row_per_layer(tmp_path):
    model = save_classifier(tmp_path / "bert", NLI)
    probed = swapbench.probe(model, words=3, length=8, progress=False, out=tmp_path / "probe")
    assert len(probed.layers) == len(probed.result.per_layer)
    assert list(probed.layers["locality"]) == [layer.locality for layer in probed.result.per_layer]
    assert list(probed.layers["degree_symmetry"]) == [layer.degree_symmetry for layer in probed.result.per_layer]
    assert list(probed.layers["relative_locality"]) == [layer.relative_locality for layer in probed.result.per_layer]
    figures = probed.figures
    assert figures.loc["symmetry", "of"] == "paper" and figures.loc["degree_symmetry", "of"] == "swapbench"
    assert figures.loc["degree_symmetry", "value"] == probed.result.degree_symmetry
    assert figures.loc["relative_locality", "value"] == probed.result.relative_locality
    assert (tmp_path / "probe" / "probe.json") in probed.files


def subcommand(*words: str):
    from swapbench.commands.main import make_parser

    parser = make_parser(list(words))
    for word in words:
        parser = next(
            a
            for a in parser._actions
            if a.dest in ("command", "zoo_command") or getattr(a, "choices", None) and word in (a.choices or ())
        ).choices[word]
    return parser


def test_every_flag_of_every_command_is_a_keyword_of_its_options():
    from swapbench.dataset.options import build_options_model
    from swapbench.evaluation.options import eval_options_model
    from swapbench.probing.options import ProbeOptions
    from swapbench.sources.options import ColumnOptions
    from swapbench.zoo.options import ZooRunOptions, ZooTrainOptions

    commands = {
        ("build",): keywords_of(build_options_model()) | keywords_of(ColumnOptions),
        ("eval",): keywords_of(eval_options_model()),
        ("probe",): keywords_of(ProbeOptions),
        ("zoo", "train"): keywords_of(ZooTrainOptions),
        ("zoo", "run"): keywords_of(ZooRunOptions),
    }
    for words, keywords in commands.items():
        flags = [
            flag
            for action in subcommand(*words)._actions
            for flag in action.option_strings
            if flag not in ("-h", "--help") and action.dest != "verbosity"
        ]  # -v/-q: the command line's own
        assert len(flags) > 5, words
        missing = [flag for flag in flags if flag.lstrip("-").replace("-", "_") not in keywords]
        assert not missing, (words, missing)


@pytest.fixture(scope="module")
def classifier(tmp_path_factory):
    return save_classifier(tmp_path_factory.mktemp("api-models") / "bert", NLI)


def test_an_in_memory_model_is_scored_and_recorded_as_in_memory(built, classifier, tmp_path):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from swapbench.leaderboard.validate import in_memory

    model = AutoModelForSequenceClassification.from_pretrained(classifier)
    tokenizer = AutoTokenizer.from_pretrained(classifier)
    from_memory = swapbench.evaluate(
        model,
        built.path,
        tokenizer=tokenizer,
        output=tmp_path / "memory.json",
        no_probe=True,
        bootstrap=100,
        no_progress=True,
    )
    from_folder = swapbench.evaluate(
        classifier, built.path, output=tmp_path / "folder.json", no_probe=True, bootstrap=100, no_progress=True
    )
    recorded = from_memory.results.model
    assert recorded.name_or_path == public_path(str(classifier))  # config._name_or_path: where it was loaded from
    assert recorded.revision.startswith("in-memory:sha256:") and recorded.revision != from_folder.results.model.revision
    assert from_memory.results.provenance.command == public_command(
        ["swapbench.evaluate", str(classifier), str(built.path)]
    )
    assert list(from_memory.examples["prediction_perturbed"]) == list(from_folder.examples["prediction_perturbed"])
    assert "in-memory" not in json.dumps(from_folder.results.model.model_dump(mode="json"))
    refused = in_memory(json.loads(from_memory.path.read_text()))
    assert [p.where for p in refused] == ["model.revision"] and "save_pretrained" in refused[0].message
    assert in_memory(json.loads(from_folder.path.read_text())) == []
    with pytest.raises(
        SwapbenchError,
        match=r"^an in-memory model \(BertForSequenceClassification\) is scored "
        r"with its tokenizer: pass tokenizer=",
    ):
        swapbench.evaluate(model, built.path, output=tmp_path / "no.json")
    with pytest.raises(SwapbenchError, match=r"^tokenizer= is for a model object"):
        swapbench.evaluate(classifier, built.path, tokenizer=tokenizer, output=tmp_path / "no.json")
    with pytest.raises(SwapbenchError, match=r"--epochs would be ignored. Add --finetune"):
        swapbench.evaluate(model, built.path, tokenizer=tokenizer, epochs=1, output=tmp_path / "no.json")
    assert not (tmp_path / "no.json").exists()


@pytest.mark.parametrize(
    "model, data, message",
    [
        (3, "data", "model: expected a Hub id or a folder (a str or a Path), not int"),
        ("m", ["data"], "data: expected a Hub id or a folder (a str or a Path), not list"),
    ],
)
def test_what_is_neither_a_name_nor_a_model_is_refused_by_type(model, data, message):
    with pytest.raises(SwapbenchError) as caught:
        swapbench.evaluate(model, data)
    assert str(caught.value).startswith(message)
    with pytest.raises(SwapbenchError, match=r"^model: expected a Hub id or a folder"):
        swapbench.probe(object())


def test_a_base_model_is_fine_tuned_from_the_api_by_keywords(built, tmp_path):
    base = save_base(tmp_path / "base")
    train = write_training_file(tmp_path / "snli" / "snli_1.0_train.jsonl", "train")
    run = swapbench.evaluate(
        base,
        built.path,
        output=tmp_path / "r.json",
        train_source=train,
        train_limit=40,
        val_holdout=8,
        epochs=1,
        lr=1e-4,
        train_batch_size=8,
        cache_dir=tmp_path / "cache",
        no_probe=True,
        no_progress=True,
        bootstrap=100,
    )
    tuning = run.results.model.fine_tuning
    assert run.results.model.fine_tuned and tuning.base_model == public_path(str(base))
    assert (tuning.recipe.epochs, tuning.recipe.learning_rate, tuning.recipe.batch_size) == (1, 1e-4, 8)
    assert tuning.train.limit == 40 and tuning.train.n + tuning.validation.n == 40 and tuning.validation.held_out


def test_build_takes_the_column_flags_as_keywords():
    from swapbench.dataset.options import build_options
    from swapbench.sources import Columns

    options = build_options(
        source="hub:org/nli", premise="sentence1", label_names="entailment,neutral,contradiction", no_cache=True
    )
    assert options.columns == Columns(premise="sentence1", label_names=("entailment", "neutral", "contradiction"))
    assert options.use_cache is False
    with pytest.raises(SwapbenchError, match="premise and columns name the same columns"):
        build_options(premise="sentence1", columns=Columns(premise="p"))
    with pytest.raises(SwapbenchError, match=r"^--label-names: "):
        build_options(label_names="entailment,maybe")
