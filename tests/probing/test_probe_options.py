"""`swapbench probe`'s options are made from one model: the command line and `swapbench.probe` take the same
options, check them the same way and name a bad one the same way; --batch-size is the old --probe-batch-size."""

from __future__ import annotations

import json

import pytest
from eval_models import save_classifier

import swapbench
from swapbench.commands.main import main, make_parser
from swapbench.core.command_options import from_arguments
from swapbench.core.errors import SwapbenchError
from swapbench.probing.options import ProbeOptions

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


def parse_probe(*argv: str) -> ProbeOptions:
    return from_arguments(ProbeOptions, make_parser(["probe"]).parse_args(["probe", "MODEL", "--out", "o", *argv]))


def test_the_command_line_and_the_api_take_the_same_options():
    parser = make_parser(["probe"])._subparsers._group_actions[0].choices["probe"]
    # -v/-q are every command's (commands/main.py's CommandParser), not the probe's options
    assert {a.dest for a in parser._actions if a.dest not in ("help", "verbosity")} == set(ProbeOptions.model_fields)
    assert "batch_size" not in ProbeOptions.model_fields  # one name per meaning: the probe's batch


def test_out_is_required_on_the_command_line_only(capsys):
    with pytest.raises(SystemExit):
        make_parser(["probe"]).parse_args(["probe", "MODEL"])
    assert "the following arguments are required: --out" in capsys.readouterr().err
    assert ProbeOptions.from_keywords(model="m").out is None


def test_an_out_of_range_value_is_named_the_same_from_the_command_line_and_the_api(capsys):
    for flag, keyword, value, bound in [
        ("--length", "length", 2, 3),
        ("--words", "words", 0, 1),
        ("--probe-batch-size", "probe_batch_size", 0, 1),
    ]:
        with pytest.raises(SystemExit):
            parse_probe(flag, str(value))
        assert f"argument {flag}: {value} is out of range: expected an integer >= {bound}" in capsys.readouterr().err
        with pytest.raises(SwapbenchError, match=f"^{flag}: {value} is out of range: expected an integer >= {bound}$"):
            ProbeOptions.from_keywords(model="m", **{keyword: value})


def test_the_old_batch_size_still_sets_the_probe_batch_and_warns(capsys):
    options = parse_probe("--batch-size", "3")
    assert options.probe_batch_size == 3
    assert capsys.readouterr().err.strip() == "warning: --batch-size is deprecated: use --probe-batch-size"
    assert parse_probe("--probe-batch-size", "3") == options
    with pytest.warns(DeprecationWarning, match="batch_size is deprecated: use probe_batch_size"):
        assert ProbeOptions.from_keywords(model="MODEL", out="o", batch_size=3) == options


def test_the_probe_runs_the_same_from_the_command_line_and_the_api(tmp_path, capsys):
    model = save_classifier(tmp_path / "bert", NLI)
    assert (
        main(
            [
                "probe",
                str(model),
                "--out",
                str(tmp_path / "cli"),
                "--words",
                "3",
                "--length",
                "8",
                "--batch-size",
                "2",
                "--no-progress",
            ]
        )
        == 0
    )
    assert "warning: --batch-size is deprecated: use --probe-batch-size" in capsys.readouterr().err
    from_cli = json.loads((tmp_path / "cli" / "probe.json").read_text())
    probed = swapbench.probe(model, words=3, length=8, probe_batch_size=2, progress=False)
    assert probed.files == []  # no out: nothing written
    from_api = probed.result.model_dump(mode="json")
    for key in ("locality", "symmetry", "spread", "n_words", "length", "seed"):
        assert from_api[key] == pytest.approx(from_cli[key]), key
    with pytest.raises(SwapbenchError, match=r"^--length: 2 is out of range: expected an integer >= 3$"):
        swapbench.probe(model, length=2)
    with pytest.raises(SwapbenchError, match=r"unknown option wordz \(did you mean words\?\): expected one of"):
        swapbench.probe(model, wordz=2)
