"""Scoring sharded across processes: two CPU processes under `torchrun` (gloo) write the one results file, with
predictions byte for byte those of a single process."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from eval_models import save_classifier

from swapbench.commands.main import main
from swapbench.results.files import predictions_path
from swapbench.results.schema import EvalResults

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", "shuffle-sr"])


def torchrun(*arguments: str, processes: int = 2) -> subprocess.CompletedProcess:
    """`torchrun --standalone --nproc-per-node N -m swapbench ARGUMENTS`, each process on one CPU thread."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            f"--nproc-per-node={processes}",
            "-m",
            "swapbench",
            *arguments,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )


def test_two_processes_write_the_predictions_of_one(dataset, tmp_path, capsys):
    model = save_classifier(tmp_path / "model", NLI)
    common = ["--data", str(dataset), "--no-progress", "--no-probe", "--bootstrap", "200"]
    assert main(["eval", str(model), *common, "--output", str(tmp_path / "one.json"), "--no-cache"]) == 0
    # The sharded run fills the scores cache from both processes at once.
    done = torchrun(
        "eval", str(model), *common, "--output", str(tmp_path / "two.json"), "--cache-dir", str(tmp_path / "cache")
    )
    assert done.returncode == 0, done.stderr

    one, two = tmp_path / "one.json", tmp_path / "two.json"
    assert predictions_path(two).read_bytes() == predictions_path(one).read_bytes()
    written = sorted(path.name for path in tmp_path.iterdir() if path.is_file())
    assert written == sorted([one.name, two.name, predictions_path(one).name, predictions_path(two).name])
    results = EvalResults.model_validate_json(two.read_text())
    assert results.provenance.scoring.processes == 2
    assert EvalResults.model_validate_json(one.read_text()).provenance.scoring.processes == 1
    assert results.results == EvalResults.model_validate_json(one.read_text()).results
    assert done.stderr.count("Wrote ") == 1  # the main process reports; the other says nothing
    said = re.search(
        r"0 pairs from the cache, (\d+) scored \((\d+) by this process, one of 2\)", " ".join(done.stderr.split())
    )
    assert said, done.stderr
    everything, shard = map(int, said.groups())
    assert everything == results.provenance.scoring.unique_pairs and shard == (everything + 1) // 2

    # Every pair reached the cache, whichever process scored it: a single process now scores none.
    capsys.readouterr()
    assert (
        main(
            [
                "eval",
                str(model),
                *common,
                "--output",
                str(tmp_path / "again.json"),
                "--cache-dir",
                str(tmp_path / "cache"),
            ]
        )
        == 0
    )
    assert " 0 scored" in " ".join(capsys.readouterr().err.split())
    assert predictions_path(tmp_path / "again.json").read_bytes() == predictions_path(one).read_bytes()
