"""The probe's framing is a recorded choice, probe.json holds the matrices every figure comes from, and
attention too flat for symmetry to mean anything is reported and warned of, in the table, the file and the board."""

from __future__ import annotations

import json

import numpy as np
from board_helpers import empty_board, make_results, save
from eval_models import save_classifier
from safetensors.torch import load_file, save_file

from swapbench.commands.main import main
from swapbench.probing import ProbeResult, symmetry
from swapbench.probing.metrics import FLAT_NOTE, FLAT_SPREAD, spread

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
POSITIONS = "bert.embeddings.position_embeddings.weight"


def without_positions(folder):
    """A BERT whose position embeddings are zero: identical words then get exactly uniform attention."""
    path = folder / "model.safetensors"
    tensors = load_file(path)
    tensors[POSITIONS].zero_()
    save_file(tensors, path, metadata={"format": "pt"})
    return folder


def test_spread_tells_flat_attention_from_a_positional_preference():
    rng = np.random.default_rng(0)
    uniform = np.full((64, 64), 1 / 64)
    noisy = uniform * (1 + 1e-6 * rng.standard_normal((64, 64)))
    noisy /= noisy.sum(axis=1, keepdims=True)
    assert symmetry(uniform) == 1.0 and symmetry(noisy) < 0.7  # the authors' metric, unchanged: noise
    assert spread(uniform) == 0 and spread(noisy) < FLAT_SPREAD
    local = np.eye(64) * 0.5 + uniform * 0.5
    assert spread(local) > FLAT_SPREAD


def test_flat_attention_is_warned_of_and_the_file_holds_what_the_figures_come_from(swapbench_cli, tmp_path):
    model = without_positions(save_classifier(tmp_path / "model", NLI))
    out = tmp_path / "probe"
    run = swapbench_cli("probe", model, "--out", out, "--words", "4", "--length", "12")
    assert run.code == 0, run.output
    # a warning, logged on stderr beside the figures the command prints on stdout
    assert "warning: the attention is nearly flat (spread 0.000" in " ".join(run.stderr.split())
    assert "nearly flat" not in run.stdout and "locality (paper)" in run.stdout
    data = json.loads((out / "probe.json").read_text(encoding="utf-8"))
    assert (data["flat"], data["positions"], data["length"], data["n_words"], data["add_special_tokens"]) == (
        True,
        12,
        12,
        4,
        False,
    )
    result = ProbeResult.model_validate(data)
    assert result.matrix_array().shape == (12, 12) and result.layer_arrays().shape == (2, 12, 12)
    assert symmetry(result.matrix_array()) == result.symmetry
    # The paper's symmetry scores the flat attention; degree symmetry declines to, and says why.
    assert result.degree_symmetry is None and result.degree_symmetry_note == FLAT_NOTE
    assert all(layer.degree_symmetry is None for layer in result.per_layer)
    assert "degree symmetry null (flat)" in " ".join(run.stdout.split())
    assert spread(result.matrix_array()) == result.spread


def test_the_board_shows_framing_and_flatness_and_refuses_another_framing(tmp_path, capsys, digest):
    board = empty_board(tmp_path / "board")
    flat = make_results("flat-model")
    flat["model"]["probe"].update(
        spread=0.02, flat=True, degree_symmetry=None, degree_symmetry_note="undefined for flat attention"
    )
    assert main(["submit", str(save(flat, tmp_path / "flat.json")), "--board", str(board)]) == 0
    [row] = [
        line
        for line in (board / "README.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| [flat-model")
    ]
    assert (
        "| no special tokens, spread 0.020; too flat: the paper's symmetry is noise, degree symmetry undefined |" in row
    )
    assert "| 0.900 |  | 0.500 |" in row  # the paper's symmetry, no degree symmetry, the paper's locality

    framed = make_results("framed-model")
    framed["model"]["probe"]["settings"]["add_special_tokens"] = True
    before = digest(board)
    capsys.readouterr()
    assert main(["submit", str(save(framed, tmp_path / "framed.json")), "--board", str(board)]) == 1
    assert (
        "model.probe.settings.add_special_tokens: probed with the tokenizer's special tokens; the board's rows "
        "are probed without them"
    ) in " ".join(capsys.readouterr().out.split())
    assert digest(board) == before
