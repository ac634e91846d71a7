"""--device-map: a model spread over devices as it loads (accelerate's big-model loading), scored and probed as
it would be on one device. Here a tiny model is split between the CPU and disk offload."""

from __future__ import annotations

import pytest
import torch
from eval_models import save_classifier
from transformers import AutoModelForSequenceClassification

from swapbench.commands.main import main
from swapbench.core.compat import TRANSFORMERS_MAJOR
from swapbench.core.errors import SwapbenchError
from swapbench.evaluation.options import eval_options_model
from swapbench.results.files import predictions_path
from swapbench.results.schema import EvalResults

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", "shuffle-sr"])


@pytest.mark.skipif(
    TRANSFORMERS_MAJOR < 5,
    reason="transformers 4 cannot spread BertForSequenceClassification, "
    "which names no _no_split_modules (the next test)",
)
def test_a_model_split_between_cpu_and_disk_scores_and_probes_as_on_one_device(dataset, tmp_path):
    model = save_classifier(tmp_path / "model", NLI)
    size = sum(
        p.numel() * p.element_size() for p in AutoModelForSequenceClassification.from_pretrained(model).parameters()
    )
    # float32 as the weights were measured (auto would score in bf16 on a CPU with AMX or AVX512-BF16, halving them)
    common = [
        "--data",
        str(dataset),
        "--no-progress",
        "--no-cache",
        "--bootstrap",
        "200",
        "--probe-words",
        "20",
        "--probe-length",
        "32",
        "--dtype",
        "float32",
    ]
    assert main(["eval", str(model), *common, "--output", str(tmp_path / "one.json")]) == 0
    # The CPU may hold 70% of the weights (the embeddings): the rest goes to disk.
    assert (
        main(
            [
                "eval",
                str(model),
                *common,
                "--output",
                str(tmp_path / "split.json"),
                "--device-map",
                "auto",
                "--max-memory",
                f"cpu={size * 7 // 10_000}KB",
                "--offload-folder",
                str(tmp_path / "offload"),
            ]
        )
        == 0
    )

    one = EvalResults.model_validate_json((tmp_path / "one.json").read_text())
    split = EvalResults.model_validate_json((tmp_path / "split.json").read_text())
    assert one.model.device_map is None
    assert set(split.model.device_map.values()) == {"cpu", "disk"}
    assert (
        predictions_path(tmp_path / "split.json").read_bytes() == predictions_path(tmp_path / "one.json").read_bytes()
    )
    assert split.model.probe.per_layer == one.model.probe.per_layer
    assert split.model.num_parameters == one.model.num_parameters
    assert split.provenance.device == "cpu"


@pytest.mark.skipif(
    TRANSFORMERS_MAJOR < 5,
    reason="transformers 4 cannot spread BertForSequenceClassification, which names no _no_split_modules",
)
def test_a_device_map_that_keeps_the_whole_model_on_the_cpu_is_recorded_as_such(dataset, tmp_path):
    model = save_classifier(tmp_path / "model", NLI)
    assert (
        main(
            [
                "eval",
                str(model),
                "--data",
                str(dataset),
                "--no-progress",
                "--no-cache",
                "--bootstrap",
                "200",
                "--no-probe",
                "--dtype",
                "float32",
                "--device-map",
                "auto",
                "--output",
                str(tmp_path / "whole.json"),
            ]
        )
        == 0
    )
    whole = EvalResults.model_validate_json((tmp_path / "whole.json").read_text())
    assert set(whole.model.device_map.values()) == {"cpu"}


@pytest.mark.skipif(TRANSFORMERS_MAJOR >= 5, reason="transformers 5 spreads BertForSequenceClassification")
def test_a_model_class_transformers_cannot_spread_is_refused_by_name(dataset, tmp_path, capsys):
    model = save_classifier(tmp_path / "model", NLI)
    assert (
        main(
            [
                "eval",
                str(model),
                "--data",
                str(dataset),
                "--no-progress",
                "--no-cache",
                "--no-probe",
                "--output",
                str(tmp_path / "r.json"),
                "--device-map",
                "auto",
            ]
        )
        != 0
    )
    error = " ".join(capsys.readouterr().err.split())
    assert "--device-map auto: transformers 4." in error and "_no_split_modules" in error
    assert not (tmp_path / "r.json").exists()


def test_device_map_options_that_cannot_apply_are_refused():
    with pytest.raises(SwapbenchError, match="--max-memory is only for --device-map"):
        eval_options_model().from_keywords(model="m", max_memory="cpu=1GiB")
    with pytest.raises(SwapbenchError, match="give it or --device cpu, not both"):
        eval_options_model().from_keywords(model="m", device_map="auto", device="cpu")
    with pytest.raises(SwapbenchError, match="'gpu0=1GiB' is not DEVICE=SIZE"):
        eval_options_model().from_keywords(model="m", device_map="auto", max_memory="gpu0=1GiB")
    placement = (
        eval_options_model().from_keywords(model="m", device_map="auto", max_memory="0=70GiB, cpu=2GB").placement
    )
    assert placement.max_memory == {0: "70GiB", "cpu": "2GB"}


def test_a_split_model_s_inputs_go_to_its_first_gpu_else_the_cpu():
    from swapbench.models.loading import input_device

    module = torch.nn.Linear(2, 2)
    assert input_device(module) == torch.device("cpu")
    module.hf_device_map = {"embeddings": "cpu", "encoder.layer.0": 1, "encoder.layer.1": 2}
    assert input_device(module) == torch.device("cuda:1")
    module.hf_device_map = {"embeddings": "cpu", "encoder": "disk"}
    assert input_device(module) == torch.device("cpu")


@pytest.mark.skipif(
    TRANSFORMERS_MAJOR >= 5, reason="transformers 5 spreads BertForSequenceClassification: its load is not refused"
)
def test_a_refused_load_leaves_torchs_default_dtype_as_it_was(dataset, tmp_path):
    """transformers 4 sets the default dtype while it builds a model and keeps it when the load raises: the next
    model of the process would be built in bf16."""
    model = save_classifier(tmp_path / "model", NLI)
    main(
        [
            "eval",
            str(model),
            "--data",
            str(dataset),
            "--no-progress",
            "--no-cache",
            "--no-probe",
            "--dtype",
            "bfloat16",
            "--device-map",
            "auto",
            "--output",
            str(tmp_path / "r.json"),
        ]
    )
    assert torch.get_default_dtype() == torch.float32
