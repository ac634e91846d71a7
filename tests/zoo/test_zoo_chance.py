"""The zoo's "at chance" verdicts follow `swapbench eval`'s rule: accuracy on the label-keeping originals against
the majority class of the whole split, so that shuffle-sr's all-entailment originals, scored under --limit, do not
raise the bar above a model that reads the pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from board_helpers import figures, make_results

from swapbench.evaluation.health import model_health
from swapbench.leaderboard.migrate import SPLIT_LABELS
from swapbench.leaderboard.store import read_results
from swapbench.results.schema import PredictionRow
from swapbench.zoo import encodings  # noqa: F401  (registers the encodings the summary names)
from swapbench.zoo.summary import SeedRun, read_summary, summarize_encoding

COMMITTED_ZOO = Path(__file__).resolve().parents[2] / "leaderboard" / "zoo"
[(SNLI_TEST, _)] = SPLIT_LABELS
LABELS = ("entailment", "neutral", "contradiction")


def row(pair_id: str, configuration: str, gold_original: str, gold: str, prediction: str) -> PredictionRow:
    return PredictionRow(
        pair_id=pair_id,
        configuration=configuration,
        gold=gold,
        gold_original=gold_original,
        prediction_original=prediction,
        prediction_perturbed=prediction,
        cluster=pair_id,
        tags=[],
    )


def test_a_model_at_51_percent_beside_all_entailment_role_originals_is_not_at_chance():
    """The zoo's case: 1,000 shuffle-random originals, a third of each label, 51% right; 788 shuffle-sr originals,
    every one entailment. Their union's majority class (entailment) is over 51%: the old rule judged the model at
    chance against it. Against the whole split's third it is well above chance."""
    split = {f"p{i}": LABELS[i % 3] for i in range(9824)}
    shuffle = [
        row(
            f"p{i}",
            "shuffle-random",
            split[f"p{i}"],
            split[f"p{i}"],
            split[f"p{i}"] if i < 510 else LABELS[(i + 1) % 3],
        )
        for i in range(1000)
    ]
    role = [row(f"p{3 * i + 1000}", "shuffle-sr", "entailment", "contradiction", "neutral") for i in range(788)]
    scored = {r.pair_id: r.gold_original for r in shuffle + role}
    assert list(scored.values()).count("entailment") / len(scored) > 0.51  # the rate the old rule used
    health = model_health(
        shuffle + role, None, 3, split_gold=split, split_from="the split", label_keeping=["shuffle-random"]
    )
    assert health.accuracy_original == pytest.approx(0.51) and health.majority_rate == pytest.approx(1 / 3, abs=1e-3)
    assert not health.at_chance, health.reasons


def zoo_file_of_schema_2_1(tmp_path: Path, seed: int) -> Path:
    """A zoo results file as the committed ones were written: --limit 1000, 51% on the shuffle-random originals,
    and health judged by the old rule against the 55.5% of all originals scored."""
    data = make_results("swapbench-zoo/none", skip=("shuffle-3", "shuffle-4", "shuffle-5"))
    data["schema_version"] = "2.1"
    data["dataset"].update(limit=1000, source_fingerprint=SNLI_TEST)
    data["results"]["shuffle-random"] = figures(1000, 510, 5, 1).model_dump(mode="json")
    data["health"] = {
        "at_chance": True,
        "reasons": ["original accuracy 43.8% is not above the majority-class rate 55.5% by 10 points"],
        "checks": ["accuracy above majority", "predictions not collapsed"],
        "accuracy_original": 0.438,
        "majority_rate": 0.555,
        "top_prediction_share": 0.47,
        "min_train_loss": None,
    }
    path = tmp_path / f"seed-{seed}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_the_zoo_summary_rejudges_files_of_the_old_rule_when_it_reads_them(tmp_path):
    runs = []
    for seed in (0, 1):
        results = read_results(zoo_file_of_schema_2_1(tmp_path, seed)).results
        health = results.health
        assert not health.at_chance, health.reasons
        assert (health.accuracy_original, health.accuracy_pairs) == (0.51, 1000)
        assert health.majority_rate == pytest.approx(3368 / 9824)
        assert health.not_run == [
            "predictions not collapsed: a file before 2.2 holds the top prediction's share on "
            "the originals only, not on every prediction"
        ]
        runs.append(
            (
                SeedRun(
                    seed=seed,
                    results=f"seed-{seed}.json",
                    best_validation_accuracy=0.5,
                    train_seconds=0,
                    eval_seconds=0,
                    locality=None,
                    symmetry=None,
                ),
                results,
            )
        )
    assert summarize_encoding("none", "random", {"total": 1, "positional": 0}, runs).at_chance == []


@pytest.mark.skipif(not (COMMITTED_ZOO / "zoo.json").is_file(), reason="no committed zoo")
def test_the_committed_zoo_is_judged_by_the_new_rule():
    summary = read_summary(COMMITTED_ZOO)
    assert all(e.at_chance == [] for e in summary.encodings)
    readme = (COMMITTED_ZOO / "README.md").read_text(encoding="utf-8")
    assert readme.count("predictions collapsed onto one class): none of the 33.") == len(summary.setups)
