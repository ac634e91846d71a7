"""The results and build_info.json record how the data were built (parser, shuffle scope, --limit,
role labeler, spaCy pipeline, selection file by hash); `submit` names a limited build as such."""

from __future__ import annotations

import hashlib
import json

from board_helpers import empty_board
from eval_models import save_classifier

from swapbench.commands.main import main
from swapbench.core.text import public_path

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


def test_a_limited_curated_build_is_recorded_and_refused_by_name(swapbench_cli, tmp_path, fixtures, digest):
    selection = tmp_path / "sr-selection.jsonl"
    # the one shuffle-sr swap of the first 6 pairs, accepted (a configuration left empty is refused)
    selection.write_text(
        json.dumps(
            {
                "pair_id": "fx1a#1r1e",
                "decision": "accept",
                "premise": "A man plays a red guitar on the street .",
                "hypothesis": "Music makes a person .",
            }
        )
        + "\n",
        encoding="utf-8",
    )
    data = tmp_path / "data"
    assert (
        main(
            [
                "build",
                "--source",
                str(fixtures),
                "--out",
                str(data),
                "--no-cache",
                "--parser",
                "ptb",
                "--limit",
                "6",
                "--shuffle-scope",
                "all",
                "--variants",
                "shuffle-random,shuffle-sr",
                "--sr-selection",
                str(selection),
            ]
        )
        == 0
    )
    info = json.loads((data / "build_info.json").read_text(encoding="utf-8"))
    # --parser ptb, yet the default labeler (agree) ran spaCy: the pipeline and its version are named
    assert info["role_labeler"] == "auto"
    assert len(info["spacy_pipelines"]) == 1 and "/spacy-" in info["spacy_pipelines"][0]
    sha = "sha256:" + hashlib.sha256(selection.read_bytes()).hexdigest()
    assert info["sr_selection"] == {"path": public_path(selection), "sha256": sha}

    output = tmp_path / "out" / "r.json"
    assert (
        main(
            [
                "eval",
                str(save_classifier(tmp_path / "model", NLI)),
                "--data",
                str(data),
                "--output",
                str(output),
                "--no-progress",
                "--no-probe",
                "--bootstrap",
                "50",
            ]
        )
        == 0
    )
    build = json.loads(output.read_text(encoding="utf-8"))["dataset"]["build"]
    assert build == {
        "parser": "ptb",
        "parser_version": info["parser_version"],
        "shuffle_scope": "all",
        "limit": 6,
        "role_labeler": "auto",
        "spacy_pipelines": info["spacy_pipelines"],
        "sr_selection": {"path": public_path(selection), "sha256": sha},
    }

    board = empty_board(tmp_path / "board")
    before = digest(board)
    run = swapbench_cli("submit", "--check", output, "--board", board)
    assert run.code == 1, run.output
    assert "dataset.build.limit: built with --limit 6" in " ".join(run.stdout.split())
    assert "Traceback" not in run.output and digest(board) == before
