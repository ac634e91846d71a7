"""`swapbench eval` end to end on a dataset built from the hand-written fixture, with tiny random models."""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import shutil

import datasets
import pyarrow.parquet as pq
import pytest
from eval_models import save_classifier
from pydantic import BaseModel, ValidationError
from transformers import DebertaV2Config, RoFormerConfig

from swapbench.commands.main import main
from swapbench.evaluation.figures import configuration_result
from swapbench.results import schema
from swapbench.results.files import read_predictions
from swapbench.results.schema import EvalResults

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
CONTRADICTION_FIRST = {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}
CONFIGS = ["shuffle-3", "shuffle-random", "shuffle-sr"]
BOOTSTRAP = 2000


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(CONFIGS)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    return {
        "bert": save_classifier(root / "bert", NLI),
        "deberta": save_classifier(
            root / "deberta",
            NLI,
            config_class=DebertaV2Config,
            relative_attention=True,
            position_biased_input=False,
            pos_att_type=["p2c", "c2p"],
        ),
        "roformer": save_classifier(root / "roformer", NLI, config_class=RoFormerConfig),
        # The bias fixes the prediction to output 0, whatever that output means.
        "contradiction-first": save_classifier(root / "cfirst", CONTRADICTION_FIRST, bias=[4.0, 0.0, 0.0]),
        "entailment-first": save_classifier(root / "efirst", NLI, bias=[4.0, 0.0, 0.0]),
        "unmappable": save_classifier(root / "unmappable", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}),
        "binary": save_classifier(root / "binary", {0: "entailment", 1: "not_entailment"}),
    }


def evaluate(model, data, output, *extra: str) -> tuple[int, EvalResults | None]:
    rc = main(
        [
            "eval",
            str(model),
            "--data",
            str(data),
            "--output",
            str(output),
            "--no-progress",
            "--bootstrap",
            str(BOOTSTRAP),
            *extra,
        ]
    )
    return rc, (EvalResults.model_validate_json(output.read_text()) if rc == 0 else None)


def unwrapped(text: str) -> str:
    """Rich wraps long messages at the terminal width."""
    return " ".join(text.split())


def gold_columns(data, config):
    table = datasets.load_dataset(str(data), config, split="test")
    names = table.features["label"].names
    return [names[i] for i in table["original_label"]], [names[i] for i in table["label"]]


def recompute(rows: list[dict], configuration: str) -> dict:
    """The figures from the predictions file, computed here independently of swapbench."""
    mine = [r for r in rows if r["configuration"] == configuration]
    n = len(mine)
    right_o = [r["prediction_original"] == r["gold_original"] for r in mine]
    right_p = [r["prediction_perturbed"] == r["gold"] for r in mine]
    b = sum(o and not p for o, p in zip(right_o, right_p))
    c = sum(p and not o for o, p in zip(right_o, right_p))
    # The clustered exact McNemar test by enumeration: every sign of every cluster's sum of (perturbed - original).
    sums = {}
    for r, o, p in zip(mine, right_o, right_p):
        sums[r["cluster"]] = sums.get(r["cluster"], 0) + int(p) - int(o)
    observed = abs(sum(sums.values()))
    flips = list(itertools.product((-1, 1), repeat=len(sums)))
    p_value = sum(abs(sum(e * s for e, s in zip(signs, sums.values()))) >= observed for signs in flips) / len(flips)
    return {
        "n": n,
        "accuracy_original": sum(right_o) / n,
        "accuracy_perturbed": sum(right_p) / n,
        "original_only": b,
        "perturbed_only": c,
        "p_value": p_value,
        "clusters": len(sums),
        "non_entailment": sum(r["prediction_perturbed"] != "entailment" for r in mine) / n,
    }


@pytest.mark.parametrize("name, family", [("bert", "absolute"), ("deberta", "relative"), ("roformer", "rotary")])
def test_end_to_end_results_validate_and_equal_a_recomputation(name, family, models, dataset, tmp_path, capsys):
    rc, results = evaluate(
        models[name], dataset, tmp_path / "results.json", "--probe-words", "5", "--probe-length", "16"
    )
    assert rc == 0
    assert list(results.results) == CONFIGS
    assert results.model.positional_encoding.family == family
    assert 0 <= results.model.probe.locality <= 1 and len(results.model.probe.per_layer) == 2
    probe = results.model.probe  # swapbench's figures beside the paper's, for the average and each layer
    assert probe.relative_locality is not None and all(layer.relative_locality is not None for layer in probe.per_layer)
    assert (probe.degree_symmetry is None) == bool(probe.flat)
    assert results.model.fine_tuned is False and results.model.label_map_source == "config"
    assert results.model.pair_template is None  # an encoder keeps its tokenizer's own pair template

    predictions = tmp_path / results.predictions.path
    assert hashlib.sha256(predictions.read_bytes()).hexdigest() == results.predictions.sha256
    rows = [json.loads(line) for line in predictions.read_text().splitlines()]
    assert len(rows) == results.predictions.rows == sum(r.n for r in results.results.values())
    for config, figures in results.results.items():
        expected = recompute(rows, config)
        assert figures.n == expected["n"]
        assert figures.accuracy_original == pytest.approx(expected["accuracy_original"], abs=1e-12)
        assert figures.accuracy_perturbed == pytest.approx(expected["accuracy_perturbed"], abs=1e-12)
        assert (figures.mcnemar.original_only, figures.mcnemar.perturbed_only) == (
            expected["original_only"],
            expected["perturbed_only"],
        )
        assert figures.mcnemar.p_value == pytest.approx(expected["p_value"], rel=1e-12)
        assert figures.clusters == expected["clusters"]
        if config == "shuffle-sr":
            assert figures.non_entailment_rate == pytest.approx(expected["non_entailment"], abs=1e-12)
        else:
            assert figures.non_entailment_rate is None
        # ... and the interval too, from the rows of the file and the recorded seed.
        again = configuration_result(
            [r for r in read_predictions(predictions) if r.configuration == config],
            label_view="3-way",
            non_entailment_view=config == "shuffle-sr",
            seed=results.provenance.seeds.bootstrap,
            resamples=BOOTSTRAP,
        )
        assert again == figures

    assert results.provenance.scoring.unique_pairs < results.provenance.scoring.pairs  # originals scored once
    assert results.dataset.configurations[0].verified
    table = capsys.readouterr().out
    assert all(config in table for config in CONFIGS)
    assert "symmetry (paper)" in " ".join(table.split())


def test_a_random_model_gives_informative_figures(models, dataset, tmp_path):
    # Guards the test above: a model that predicted one label everywhere would make the recomputation trivial.
    _, results = evaluate(models["bert"], dataset, tmp_path / "r.json", "--no-probe")
    rows = read_predictions(tmp_path / results.predictions.path)
    assert len({r.prediction_original for r in rows} | {r.prediction_perturbed for r in rows}) > 1


@pytest.mark.parametrize(
    "name, predicted", [("contradiction-first", "contradiction"), ("entailment-first", "entailment")]
)
def test_label_order_is_honoured(name, predicted, models, dataset, tmp_path):
    _, results = evaluate(models[name], dataset, tmp_path / "r.json", "--no-probe")
    rows = read_predictions(tmp_path / results.predictions.path)
    assert {r.prediction_original for r in rows} == {r.prediction_perturbed for r in rows} == {predicted}
    for config in CONFIGS:
        gold_original, gold = gold_columns(dataset, config)
        figures = results.results[config]
        assert figures.accuracy_original == pytest.approx(gold_original.count(predicted) / len(gold))
        assert figures.accuracy_perturbed == pytest.approx(gold.count(predicted) / len(gold))
    assert results.results["shuffle-sr"].non_entailment_rate == (1.0 if predicted == "contradiction" else 0.0)


def test_unmappable_model_is_refused_unless_label_map_is_given(models, dataset, tmp_path, capsys):
    rc, _ = evaluate(models["unmappable"], dataset, tmp_path / "r.json", "--no-probe")
    assert rc == 2
    assert "Give the mapping with --label-map" in unwrapped(capsys.readouterr().err)
    assert not (tmp_path / "r.json").exists()
    rc, results = evaluate(
        models["unmappable"],
        dataset,
        tmp_path / "r.json",
        "--no-probe",
        "--label-map",
        "LABEL_0=neutral,LABEL_1=contradiction,LABEL_2=entailment",
    )
    assert rc == 0
    assert results.model.label_names == ["neutral", "contradiction", "entailment"]
    assert results.model.label_map_source == "--label-map"


def test_two_label_model_is_scored_on_the_binary_view(models, dataset, tmp_path):
    _, results = evaluate(models["binary"], dataset, tmp_path / "r.json", "--no-probe")
    assert results.model.label_view == "binary"
    rows = read_predictions(tmp_path / results.predictions.path)
    assert {r.gold for r in rows} | {r.prediction_perturbed for r in rows} <= {"entailment", "non-entailment"}
    assert "non-entailment" in {r.gold_original for r in rows}
    sr = [r for r in rows if r.configuration == "shuffle-sr"]
    assert {r.gold for r in sr} == {"non-entailment"}
    assert results.results["shuffle-sr"].accuracy_perturbed == results.results["shuffle-sr"].non_entailment_rate


def test_configs_and_limit(models, dataset, tmp_path):
    _, results = evaluate(
        models["bert"], dataset, tmp_path / "r.json", "--no-probe", "--configs", "shuffle-random", "--limit", "2"
    )
    assert list(results.results) == ["shuffle-random"]
    assert results.results["shuffle-random"].n == 2
    assert results.results["shuffle-random"].displacement.rows == 2  # of the rows scored, not of the build
    assert results.dataset.limit == 2
    assert results.dataset.configurations[0].rows > 2  # the fingerprint covers the whole configuration
    rc, _ = evaluate(models["bert"], dataset, tmp_path / "x.json", "--no-probe", "--configs", "shuffle-9")
    assert rc == 2


def test_data_changed_after_the_build_are_refused(models, dataset, tmp_path, capsys):
    changed = tmp_path / "changed"
    shutil.copytree(dataset, changed)
    path = next((changed / "shuffle-3").glob("*.parquet"))
    table = pq.read_table(path)
    premises = table.column("premise").to_pylist()
    premises[0] = premises[0] + " indeed"
    pq.write_table(table.set_column(table.schema.get_field_index("premise"), "premise", [premises]), path)
    rc, _ = evaluate(models["bert"], changed, tmp_path / "r.json", "--no-probe")
    assert rc == 2
    assert "differs from what build_info.json records" in unwrapped(capsys.readouterr().err)


def test_schema_rejects_inconsistent_files(models, dataset, tmp_path):
    _, results = evaluate(models["bert"], dataset, tmp_path / "r.json", "--no-probe")
    data = json.loads((tmp_path / "r.json").read_text())

    def rejects(change) -> bool:
        copy = json.loads(json.dumps(data))
        change(copy)
        try:
            EvalResults.model_validate(copy)
        except ValidationError:
            return True
        return False

    assert not rejects(lambda d: None)
    assert rejects(lambda d: d.update(schema_version="0.9"))
    assert rejects(lambda d: d["results"]["shuffle-3"].update(delta=d["results"]["shuffle-3"]["delta"] + 0.01))
    assert rejects(lambda d: d["results"]["shuffle-3"].update(accuracy_original=1.5))
    assert rejects(lambda d: d["dataset"].update(fingerprint="sha256:" + "0" * 64))
    assert rejects(lambda d: d["results"].pop("shuffle-3"))
    assert rejects(lambda d: d["model"].update(extra_key=1))
    assert rejects(lambda d: d["model"].pop("num_parameters"))


def test_every_key_of_the_schema_is_described():
    models = [
        v
        for v in vars(schema).values()
        if isinstance(v, type) and issubclass(v, BaseModel) and v.__module__ == schema.__name__
    ]
    assert len(models) > 15
    for model in models:
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no description"


def test_a_model_at_chance_is_flagged_in_the_file_and_in_words(models, dataset, tmp_path, capsys):
    # "entailment-first" answers entailment to everything: collapsed, and no better than the majority class.
    _, results = evaluate(models["entailment-first"], dataset, tmp_path / "r.json", "--no-probe")
    assert results.health.at_chance
    assert any(
        "of the predictions scored (originals and perturbed pairs) are entailment" in r for r in results.health.reasons
    )
    out = unwrapped(capsys.readouterr().out)
    assert "WARNING: This model is at chance: its figures are not a result to report" in out
    assert main(["submit", "--check", str(tmp_path / "r.json")]) == 1
    assert "health: the model is at chance" in unwrapped(capsys.readouterr().out)


def test_slices_are_in_the_file_the_predictions_and_the_slices_table(models, dataset, tmp_path, capsys):
    _, results = evaluate(models["bert"], dataset, tmp_path / "r.json", "--no-probe", "--slices")
    rows = read_predictions(tmp_path / results.predictions.path)
    tables = {config: datasets.load_dataset(str(dataset), config, split="test") for config in CONFIGS}
    for config, figures in results.results.items():
        table = tables[config]
        mine = [r for r in rows if r.configuration == config]
        assert [r.tags for r in mine] == table["tags"]
        # Pairs that share a premise share a cluster, and only they.
        premises = table["original_premise"]
        assert len({r.cluster for r in mine}) == len(set(premises)) == figures.clusters
        for a, pa in zip(mine, premises):
            assert all((a.cluster == b.cluster) == (pa == pb) for b, pb in zip(mine, premises))
        assert set(figures.slices) == {tag for tags in table["tags"] for tag in tags}
        # each row's displacement rides in its predictions row, and the configuration's summary is theirs
        distances = [sum(abs(k - p) for k, p in enumerate(perm)) if perm else None for perm in table["permutation"]]
        assert [r.distance for r in mine] == distances
        if config == "shuffle-sr":  # a role swap reorders no premise's tokens one for one
            assert figures.displacement is None and all(r.moved is None for r in mine)
        else:
            assert figures.displacement.rows == len(mine)
            assert figures.displacement.distance.mean == pytest.approx(sum(distances) / len(distances), abs=1e-4)
        for tag, s in figures.slices.items():
            tagged = [r for r in mine if tag in r.tags]
            assert s.n == len(tagged) and s.small  # a fixture of 8 pairs: every slice is too small to read
            assert s.accuracy_original == pytest.approx(
                sum(r.prediction_original == r.gold_original for r in tagged) / len(tagged)
            )
        assert_holm_adjusted(figures)
    out = capsys.readouterr().out
    assert "Slices of shuffle-3 (exploratory)" in out and "too small" in out and "p adj" in out
    assert "side:premise" in out or "side:hypothesis" in out


def assert_holm_adjusted(figures) -> None:
    """Every slice test of a configuration carries Holm's adjustment over all of them, computed here from its
    definition: the i-th smallest of m p-values times m - i + 1, the running maximum of those, cut at 1."""
    tests = [
        test
        for tag in sorted(figures.slices)
        for test in (
            figures.slices[tag].mcnemar,
            *([figures.slices[tag].role_sensitivity.test] if figures.slices[tag].role_sensitivity else []),
        )
    ]
    ranked = sorted(tests, key=lambda t: t.p_value)
    running = 0.0
    for i, test in enumerate(ranked):
        running = max(running, min(1.0, (len(tests) - i) * test.p_value))
        assert test.p_adjusted == pytest.approx(running, rel=1e-12)
    assert figures.mcnemar.p_adjusted is None


def test_the_slices_tables_fit_a_terminal_and_sort_numbers_as_numbers():
    from types import SimpleNamespace

    from rich.console import Console

    from swapbench.evaluation.report import slices_tables
    from swapbench.results.schema import PredictionRow

    # 40 premises of 3 pairs each, tagged words:2 .. words:21 and one long tag; a correct prediction flips on
    # every seventh pair.
    labels = ["entailment", "neutral", "contradiction"]
    rows = [
        PredictionRow(
            pair_id=f"p{i}",
            configuration="shuffle-random",
            gold=labels[i % 3],
            gold_original=labels[i % 3],
            prediction_original=labels[i % 3],
            prediction_perturbed=labels[(i + (i % 7 == 0)) % 3],
            cluster=f"c{i // 3}",
            tags=[f"words:{2 + (i // 3) % 20}", "construction:participial-modifier"],
        )
        for i in range(120)
    ]
    result = configuration_result(rows, label_view="3-way", non_entailment_view=False, seed=0, resamples=200)
    results = SimpleNamespace(results={"shuffle-random": result})
    console = Console(width=80, record=True, file=io.StringIO(), color_system=None)
    for table in slices_tables(results):
        console.print(table)
    text = console.export_text()
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    assert "…" not in text  # nothing cut short
    assert "(exploratory)" in text and "p adj" in text
    assert_holm_adjusted(result)
    words = [line.split()[0] for line in text.splitlines() if line.strip().startswith("words:")]
    assert words == sorted(words, key=lambda w: int(w.split(":")[1])) and len(words) > 2
    assert "-0.0" not in text
