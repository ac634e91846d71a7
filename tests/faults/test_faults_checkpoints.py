"""A checkpoint that does not load whole is never scored silently, and a config asking for a
positional encoding the loaded code does not run is refused."""

from __future__ import annotations

import pytest
from eval_models import save_base, save_classifier, write_training_file
from safetensors.torch import load_file, save_file

from swapbench.commands.main import main
from swapbench.leaderboard.table import training_text
from swapbench.results.schema import EvalResults

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
POSITIONS = "bert.embeddings.position_embeddings.weight"


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3"])


def drop_weight(folder, key: str):
    """Remove one tensor from the checkpoint, as a conversion that lost it would."""
    path = folder / "model.safetensors"
    tensors = load_file(path)
    del tensors[key]
    save_file(tensors, path, metadata={"format": "pt"})
    return folder


def eval_args(model, data, output, *extra):
    return [
        "eval",
        str(model),
        "--data",
        str(data),
        "--output",
        str(output),
        "--no-progress",
        "--no-probe",
        "--bootstrap",
        "50",
        *extra,
    ]


@pytest.mark.parametrize("declared", ["alibi", "relative_key", "relative_key_query"])
def test_a_config_asking_for_an_unimplemented_encoding_is_refused(swapbench_cli, tmp_path, dataset, declared):
    model = save_classifier(tmp_path / "model", NLI, position_embedding_type=declared)
    output = tmp_path / "out" / "r.json"
    run = swapbench_cli(*eval_args(model, dataset, output))
    assert run.code == 2 and "Traceback" not in run.output
    message = " ".join(run.stderr.split())
    assert (
        f"asks for position_embedding_type='{declared}', which transformers' bert code does not implement" in message
        and "--trust-remote-code" in message
    )
    assert not output.exists()
    probe = swapbench_cli("probe", model, "--out", tmp_path / "probe", "--words", "3", "--length", "8")
    assert probe.code == 2 and "does not implement" in " ".join(probe.stderr.split())
    assert not (tmp_path / "probe").exists()


def test_a_classifier_with_a_missing_weight_is_refused_unless_allowed(swapbench_cli, tmp_path, dataset, digest):
    model = drop_weight(save_classifier(tmp_path / "model", NLI), POSITIONS)
    before = digest(model)
    output = tmp_path / "out" / "r.json"
    run = swapbench_cli(*eval_args(model, dataset, output))
    assert run.code == 2, run.output
    message = " ".join(run.stderr.split())
    assert "does not load whole: 1 missing from the checkpoint, newly initialised" in message
    assert POSITIONS in message and "--allow-missing" in message and not output.exists()

    assert main(eval_args(model, dataset, output, "--allow-missing")) == 0
    results = EvalResults.model_validate_json(output.read_text())
    assert results.model.weights.missing == [POSITIONS] and results.model.weights.allowed
    assert "checkpoint not loaded whole (--allow-missing): 1 weights missing" in training_text(results.model)
    assert digest(model) == before


def test_the_probe_refuses_an_encoder_with_a_missing_weight(swapbench_cli, tmp_path):
    model = drop_weight(save_classifier(tmp_path / "model", NLI), "bert.encoder.layer.0.attention.self.query.weight")
    run = swapbench_cli("probe", model, "--out", tmp_path / "probe", "--words", "3", "--length", "8")
    assert run.code == 2 and "encoder.layer.0.attention.self.query.weight" in run.stderr.replace("\n", "")


def test_a_base_model_may_only_get_a_new_head(tmp_path, dataset, capsys):
    base = drop_weight(save_base(tmp_path / "base"), "encoder.layer.1.output.dense.weight")
    train = write_training_file(tmp_path / "snli" / "snli_1.0_train.jsonl", "train")
    rc = main(
        eval_args(
            base,
            dataset,
            tmp_path / "r.json",
            "--train-source",
            str(train),
            "--val-holdout",
            "8",
            "--epochs",
            "1",
            "--cache-dir",
            str(tmp_path / "cache"),
        )
    )
    assert rc == 2
    message = " ".join(capsys.readouterr().err.split())
    assert "does not load whole" in message and "encoder.layer.1.output.dense.weight" in message
    assert "classifier" not in message.split("does not load whole")[1]
