"""`probe --out` and `zoo run --out` replace their files together or not at all: a disk that fills up while the
last figure is written leaves every file of the earlier run as it was, and no staging file beside them."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from eval_models import save_classifier
from zoo_helpers import recipe_options, setting  # noqa: F401  (setting is a fixture)

from swapbench.commands.main import main
from swapbench.results.schema import EvalResults

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


def disk_fills_up(original):
    """`original` (a plotting function given a path) that writes half its file, then finds the disk full."""

    def plot(result, path: Path, *title):
        original(result, path, *title)
        data = Path(path).read_bytes()
        Path(path).write_bytes(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    return plot


def test_a_fault_while_probe_writes_leaves_the_earlier_probe_whole(tmp_path, monkeypatch, digest):
    import swapbench.probing.plots as plots

    model, out = save_classifier(tmp_path / "bert", NLI), tmp_path / "probe"
    probe = ["probe", str(model), "--out", str(out), "--length", "8", "--no-progress"]
    assert main([*probe, "--words", "3"]) == 0
    before = digest(out)
    assert len(before) == 4

    monkeypatch.setattr(plots, "plot_offsets", disk_fills_up(plots.plot_offsets))
    with pytest.raises(OSError, match="No space left"):
        main([*probe, "--words", "4"])
    assert digest(out) == before  # no file replaced, none cut short, no staging file left

    monkeypatch.undo()
    assert main([*probe, "--words", "4"]) == 0
    after = digest(out)
    assert after.keys() == before.keys() and after["probe.json"] != before["probe.json"]


def test_a_fault_while_zoo_run_writes_leaves_its_summary_table_and_figure_whole(
    setting,
    tmp_path,  # noqa: F811
    monkeypatch,
    digest,
):
    import swapbench.zoo.report as report

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
        "none",
        "--seeds",
        "0",
        "--probe-words",
        "5",
        *recipe_options(setting),
    ]
    assert main([*command, "--bootstrap", "100"]) == 0
    before = digest(out)
    assert {"zoo.json", "README.md"} <= before.keys()

    monkeypatch.setattr(report, "plot_sensitivity", disk_fills_up(report.plot_sensitivity))
    with pytest.raises(OSError, match="No space left"):
        main([*command, "--bootstrap", "200"])
    after = digest(out)
    # each run's own results files, rewritten by every run: the encoder's and its premise-blind control's
    seed_files = [name for name in before if name.endswith(("seed-0.json", "seed-0-hypothesis-only.json"))]
    assert seed_files and after.keys() == before.keys()  # no staging file left
    # The summary, the table and the figure go together: the earlier ones stay whole.
    assert {k: v for k, v in after.items() if k not in seed_files} == {
        k: v for k, v in before.items() if k not in seed_files
    }
    for name in seed_files:  # each seed's results file was replaced whole, before the fault
        assert EvalResults.model_validate_json((out / name).read_text()).results
