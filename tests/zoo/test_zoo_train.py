"""`swapbench zoo train`, `zoo run` and `zoo report` on tiny encoders and hand-made SNLI-format data."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForSequenceClassification
from zoo_helpers import SHUFFLES, recipe_options, setting  # noqa: F401  (setting is a fixture)

from swapbench.commands.main import main
from swapbench.evaluation.stats import holm
from swapbench.results.schema import EvalResults
from swapbench.zoo.compare import PREMISE_FAMILY
from swapbench.zoo.report import BEGIN, END
from swapbench.zoo.summary import ZooSummary
from swapbench.zoo.train import RECORD_FILE, TrainingRecord


def train(setting, encoding: str, out: Path, seed: int, epochs: int = 1) -> TrainingRecord:
    assert (
        main(["zoo", "train", encoding, "--out", str(out), "--seed", str(seed), *recipe_options(setting, epochs)]) == 0
    )
    return TrainingRecord.model_validate_json((out / RECORD_FILE).read_text(encoding="utf-8"))


def test_zoo_train_saves_a_checkpoint_that_the_auto_classes_load(setting, tmp_path, capsys):
    record = train(setting, "tisa", tmp_path / "tisa", seed=0, epochs=2)
    out, err = capsys.readouterr()
    # its summary is a message, logged on stderr where a user routes swapbench's messages; stdout holds no output
    assert (
        f"tisa: best validation accuracy {100 * record.best_validation_accuracy:.1f}% (epoch {record.best_epoch}), "
        f"{record.parameters['total']:,} parameters"
    ) in err
    assert f"wrote {tmp_path / 'tisa'}\n" in err and "best validation accuracy" not in out
    assert record.encoding == "tisa"
    assert [e.epoch for e in record.history] == [1, 2]
    assert record.best_validation_accuracy == max(e.validation_accuracy for e in record.history)
    assert record.train.n == record.validation.n == 48
    assert record.recipe.architecture.hidden == 16 and record.recipe.training.learning_rate == 1e-2
    model = AutoModelForSequenceClassification.from_pretrained(tmp_path / "tisa")
    assert model.config.position_encoding == "tisa"
    assert model.config.id2label == {0: "entailment", 1: "neutral", 2: "contradiction"}
    assert sum(p.numel() for p in model.parameters()) == record.parameters["total"]
    assert (tmp_path / "tisa" / "tokenizer_config.json").is_file()


def test_zoo_train_is_reproducible_by_seed(setting, tmp_path):
    weights = {}
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        train(setting, "shaw", tmp_path / name, seed=seed)
        weights[name] = AutoModelForSequenceClassification.from_pretrained(tmp_path / name).state_dict()
    assert all(torch.equal(weights["a"][k], weights["b"][k]) for k in weights["a"])
    assert not all(torch.equal(weights["a"][k], weights["c"][k]) for k in weights["a"])


def test_zoo_run_writes_marked_results_a_summary_a_table_and_a_figure(setting, tmp_path, capsys):
    out, work = tmp_path / "out", tmp_path / "work"
    command = [
        "zoo",
        "run",
        "--data",
        str(setting["benchmark"]),
        "--out",
        str(out),
        "--work",
        str(work),
        "--encodings",
        "none,alibi",
        "--seeds",
        "0,1",
        "--bootstrap",
        "100",
        "--probe-words",
        "5",
        *recipe_options(setting),
    ]
    assert main(command) == 0
    said = " ".join(capsys.readouterr().err.split())
    assert "Zoo run of 2 (set-up, encoding)s x 2 seeds in" in said and f"; wrote {out}" in said

    summary = ZooSummary.model_validate_json((out / "zoo.json").read_text(encoding="utf-8"))
    assert [e.encoding for e in summary.encodings] == ["none", "alibi"]
    assert summary.seeds == [0, 1] and summary.configurations == SHUFFLES.split(",")
    for encoding in summary.encodings:
        files = [EvalResults.model_validate_json((out / run.results).read_text()) for run in encoding.runs]
        for seed, run, results in zip((0, 1), encoding.runs, files):
            # evaluate() itself wrote the zoo's results, through the zoo's scorer: the work folder's copy is the same,
            # and like the published copy it names no path of this machine
            work_copy = (work / "results" / run.results).read_text()
            assert EvalResults.model_validate_json(work_copy) == results
            assert str(tmp_path) not in work_copy and str(tmp_path) not in (out / run.results).read_text()
            assert results.health.checks.count("training loss") == 1
            assert results.provenance.timings.fine_tuning == run.train_seconds > 0
            assert results.provenance.seeds.fine_tuning == seed
            model = results.model
            assert model.name_or_path == f"swapbench-zoo/{encoding.encoding}"
            # trained from scratch: not fine-tuned, and the base is the model type, not prose
            assert not model.fine_tuned and model.fine_tuning.from_scratch and model.fine_tuning.recipe.seed == seed
            assert model.fine_tuning.base_model == "swapbench-zoo"
            assert model.fine_tuning.data_overlap.scored_dataset == results.dataset.fingerprint
            assert model.positional_encoding.family == encoding.family
            assert model.positional_encoding.evidence["position_encoding"] == encoding.encoding
            assert model.probe is not None
        for config, spread in encoding.delta.items():
            assert spread.values == [r.results[config].delta for r in files]
        for config, spread in encoding.discordant.items():
            assert spread.values == [
                (r.results[config].mcnemar.original_only + r.results[config].mcnemar.perturbed_only)
                / r.results[config].n
                for r in files
            ]
    # The encoder without positions is blind to every shuffle, whatever its training: not one prediction changes.
    assert all(s.values == [0.0, 0.0] for s in summary.encodings[0].changed.values())
    assert all(s.values == [0.0, 0.0] for s in summary.encodings[0].delta.values())
    assert all(s.values == [0.0, 0.0] for s in summary.encodings[0].discordant.values())
    assert set(summary.encodings[1].changed) == set(SHUFFLES.split(","))
    assert [run.results for run in summary.runs] == [8]  # one run: 2 encodings x 2 seeds, each with its control
    # each encoding and seed trained and scored again on the hypotheses alone: its premise-blind control
    assert [(c.setup, c.encoding, [r.seed for r in c.runs]) for c in summary.controls] == [
        ("random", "none", [0, 1]),
        ("random", "alibi", [0, 1]),
    ]
    for control in summary.controls:
        for run in control.runs:
            assert run.results == f"random/{control.encoding}/seed-{run.seed}-hypothesis-only.json"
            blind = EvalResults.model_validate_json((out / run.results).read_text()).model
            assert blind.hypothesis_only and blind.fine_tuning.hypothesis_only and blind.probe is None
            assert blind.name_or_path == f"swapbench-zoo/{control.encoding}-hypothesis-only"
    tests = [summary.premise_test("random", name) for name in ("none", "alibi")]
    assert all(t.family == PREMISE_FAMILY and t.alternative == "greater" and t.b.hypothesis_only for t in tests)
    assert [t.p_holm for t in tests] == holm([t.p_value for t in tests])
    # a control's checkpoint is scored as it was trained, on the hypotheses alone, and only so
    blind_checkpoint = work / "checkpoints" / "random" / "none-seed0-hypothesis-only"
    assert (
        main(
            [
                "eval",
                str(blind_checkpoint),
                "--data",
                str(setting["benchmark"]),
                "--no-probe",
                "--output",
                str(tmp_path / "whole.json"),
            ]
        )
        == 2
    )
    assert "trained on the hypotheses alone" in " ".join(capsys.readouterr().err.split())
    assert (
        main(
            [
                "eval",
                str(blind_checkpoint),
                "--data",
                str(setting["benchmark"]),
                "--no-probe",
                "--device",
                "cpu",
                "--hypothesis-only",
                "--no-progress",
                "--output",
                str(tmp_path / "alone.json"),
            ]
        )
        == 0
    )
    alone = EvalResults.model_validate_json((tmp_path / "alone.json").read_text())
    assert alone.model.hypothesis_only and alone.model.fine_tuning.hypothesis_only
    assert alone.results["shuffle-random"].accuracy_original == pytest.approx(
        EvalResults.model_validate_json((out / "random/none/seed-0-hypothesis-only.json").read_text())
        .results["shuffle-random"]
        .accuracy_original
    )
    for spread in summary.encodings[1].changed.values():
        assert spread.low <= spread.mean <= spread.high
    # every pair's outcome is kept, so the comparison of alibi with none draws the pairs once for both
    assert all(run.outcomes for e in summary.encodings for run in e.runs) and summary.clusters
    [compared] = [c for c in summary.comparisons if (c.figure, c.configuration) == ("changed", "shuffle-random")]
    assert compared.paired and (compared.a.encoding, compared.b.encoding) == ("alibi", "none")
    assert compared.difference == pytest.approx(summary.encodings[1].changed["shuffle-random"].mean)
    assert compared.low <= compared.difference <= compared.high

    table = (out / "README.md").read_text(encoding="utf-8")
    assert "| `none` |" in table and "| `alibi` |" in table and "Predictions changed" in table
    assert "Premise-blind controls" in table and "premise-blind control %" in table and "p_Holm" in table
    assert str(tmp_path) not in table and str(setting["benchmark"]) not in table  # no path of this machine
    assert (out / "zoo_order_sensitivity.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # A second run reuses the checkpoints trained with the same recipe, in a process of its own: one that trains
    # nothing must still know the zoo's model type to load them.
    rerun = subprocess.run(
        [sys.executable, "-c", "import sys; from swapbench.commands.main import main; sys.exit(main())", *command],
        capture_output=True,
        text=True,
    )
    assert rerun.returncode == 0, rerun.stderr
    rerun = ZooSummary.model_validate_json((out / "zoo.json").read_text(encoding="utf-8"))
    assert all(run.train_seconds == 0 for e in rerun.encodings for run in e.runs)
    reused = EvalResults.model_validate_json((out / "random" / "alibi" / "seed-1.json").read_text())
    assert reused.model.fine_tuning.reused and reused.provenance.timings.fine_tuning == 0

    # `zoo report` recomputes zoo.json from the results files, redraws the table between its markers and keeps
    # the notes around them.
    (out / "README.md").write_text(f"# Notes\n\nwritten by hand\n\n{BEGIN}\nold table\n{END}\n\nmore notes\n")
    stale = rerun.model_copy(update={"encodings": [e.model_copy(update={"discordant": {}}) for e in rerun.encodings]})
    (out / "zoo.json").write_text(stale.model_dump_json())
    assert main(["zoo", "report", str(out)]) == 0
    assert f"Wrote {out / 'zoo.json'}\n" in capsys.readouterr().err
    assert ZooSummary.model_validate_json((out / "zoo.json").read_text(encoding="utf-8")) == rerun
    redrawn = (out / "README.md").read_text(encoding="utf-8")
    assert redrawn.startswith("# Notes\n\nwritten by hand") and redrawn.endswith("more notes\n")
    assert "old table" not in redrawn and "| `alibi` |" in redrawn


def test_encoding_options_reach_the_checkpoint_and_decide_its_reuse(setting, tmp_path):
    from swapbench.zoo.config import parse_encoding_option
    from swapbench.zoo.run import same_encoding_settings

    assert parse_encoding_option("attenuated_learnable=false") == ("attenuated_learnable", False)
    assert parse_encoding_option("tisa_kernels=3") == ("tisa_kernels", 3)
    assert parse_encoding_option("attenuated_locality=0.5") == ("attenuated_locality", 0.5)
    for bad in ("hidden_size=3", "tisa_kernels=three", "attenuated_learnable=maybe", "attenuated_locality"):
        with pytest.raises(ValueError):
            parse_encoding_option(bad)
    assert (
        main(
            [
                "zoo",
                "train",
                "tisa",
                "--out",
                str(tmp_path / "ckpt"),
                "--encoding-option",
                "tisa_kernels=0",
                *recipe_options(setting),
            ]
        )
        == 2
    )  # refused by the config's own check, before any training

    folder = tmp_path / "attenuated"
    assert (
        main(
            [
                "zoo",
                "train",
                "attenuated",
                "--out",
                str(folder),
                *recipe_options(setting),
                "--encoding-option",
                "attenuated_learnable=false",
                "--encoding-option",
                "attenuated_locality=0.02",
            ]
        )
        == 0
    )
    model = AutoModelForSequenceClassification.from_pretrained(folder)
    assert (model.config.attenuated_learnable, model.config.attenuated_locality) == (False, 0.02)
    assert list(model.zoo.positions.parameters()) == []  # fixed w and s
    record = TrainingRecord.model_validate_json((folder / RECORD_FILE).read_text(encoding="utf-8"))
    assert record.recipe.encoding_options == {"attenuated_learnable": False, "attenuated_locality": 0.02}
    assert same_encoding_settings(folder, "attenuated", record.recipe)
    defaults = record.recipe.model_copy(update={"encoding_options": {}})
    assert not same_encoding_settings(folder, "attenuated", defaults)  # `zoo run` would train it again


def test_zoo_figures_never_read_minus_zero():
    from swapbench.zoo.report import points
    from swapbench.zoo.summary import Spread

    near_zero = Spread(mean=-0.0001, sd=0.0002, low=-0.0004, high=0.0002, values=[-0.0003, 0.0001])
    assert points(near_zero) == "0.0 [0.0, 0.0]"
    assert points(near_zero, signed=True) == "0.0 [0.0, 0.0]"
    assert points(Spread(mean=0.012, sd=None, values=[0.012]), signed=True) == "+1.2"


def test_a_merged_zoo_names_every_run_that_made_it():
    """zoo.json and the table's recipe name each run (one command line) whose results files a merged zoo holds,
    with the commits it ran at, oldest first; a zoo of one run names its command alone."""
    from datetime import datetime, timezone
    from types import SimpleNamespace

    from swapbench.zoo.report import made_by
    from swapbench.zoo.summary import run_records

    def results(command, commit, hour):
        return SimpleNamespace(
            provenance=SimpleNamespace(
                command=command, git_commit=commit, started_at=datetime(2026, 1, 1, hour, tzinfo=timezone.utc)
            )
        )

    first = ["swapbench", "zoo", "run", "--setups", "random", "--out", "/home/me/out-a"]
    second = ["swapbench", "zoo", "run", "--setups", "minilm", "--out", "/home/me/out-b"]
    records = run_records(
        [
            results(second, "b" * 40, 5),
            results(first, "a" * 40, 3),
            results(second, "c" * 40, 6),
            results(first, "a" * 40, 4),
        ]
    )
    assert [(r.command, r.git_commits, r.results, r.started_at.hour) for r in records] == [
        (first, ["a" * 40], 2, 3),
        (second, ["b" * 40, "c" * 40], 2, 5),
    ]

    merged = SimpleNamespace(runs=records, swapbench_version="0.1.0", git_commit="a" * 40, command=first)
    lines = made_by(merged)
    assert "2 runs joined with `swapbench zoo report --merge`" in lines[0]
    assert "commit aaaaaaaaaaaa:" in lines[1] and "commits bbbbbbbbbbbb, cccccccccccc:" in lines[2]
    assert "--out …/me/out-b`" in lines[2] and "/home/me" not in "\n".join(lines)
    single = SimpleNamespace(runs=records[:1], swapbench_version="0.1.0", git_commit="a" * 40, command=first)
    assert made_by(single) == [
        "- swapbench 0.1.0, commit " + "a" * 40 + "; command: `swapbench zoo run --setups random --out …/me/out-a`"
    ]
