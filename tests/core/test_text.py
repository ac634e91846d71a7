"""Paths of this machine are cut from what is published; Hub ids, URLs and relative paths are left alone."""

from __future__ import annotations

import json

from swapbench.core.text import portable


def test_a_path_of_this_machine_keeps_its_last_components_and_nothing_else_changes():
    assert portable("/work/x/data/snli_1.0") == "…/snli_1.0"
    assert portable("../shared/data/snli_1.0/snli_1.0_dev.jsonl.gz", keep=2) == "…/snli_1.0/snli_1.0_dev.jsonl.gz"
    assert portable("--out=/tmp/run/out") == "--out=…/out" and portable("see ~/cache/a here") == "see …/a here"
    assert portable("/root/.venv/lib/python3.11/site-packages/pkg/model") == "…/site-packages/pkg/model"
    for kept in ("owner/name", "https://example.org/a/b", "data/snli-test", "snli_1.0", "…/already/cut"):
        assert portable(kept) == kept


def test_a_json_text_keeps_every_byte_but_the_paths_in_its_strings():
    record = {
        "model": "/home/me/m",
        "runs": [{"command": ["swapbench", "--data", "/home/me/d"]}],
        "n": 2,
        "p": 1.5e-05,
        "none": None,
        "hub": "owner/name",
    }
    cut = portable(json.dumps(record, indent=2), keep=2)
    assert json.loads(cut) == {**record, "model": "…/me/m", "runs": [{"command": ["swapbench", "--data", "…/me/d"]}]}
    text = json.dumps({"model": "owner/name", "p": 1.5e-05})
    assert portable(text, keep=2) == text
