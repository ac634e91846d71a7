"""GGUF checkpoints without a real model: a .gguf file named as the model, the quantization read from a file's own
metadata, the revision and cache key of a GGUF file, and the refusals, each naming the file. The real SmolLM2 file
is scored and probed in tests/evaluation/test_eval_gguf.py."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from swapbench.core.errors import SwapbenchError
from swapbench.core.fingerprint import model_revision
from swapbench.evaluation.options import eval_options_model
from swapbench.models.gguf import as_dense, check_gguf, checkpoint_name, read_gguf, split_gguf_path
from swapbench.models.loading import library_quiet
from swapbench.probing.options import ProbeOptions


def write_gguf(path, tensors: dict[str, str], file_type: str | None = None):
    """A GGUF file of tiny tensors, each of the named ggml type (F32, Q8_0, Q4_1, ...), declaring `file_type`
    (a gguf.LlamaFileType name) when given."""
    gguf = pytest.importorskip("gguf", reason="GGUF files are read with the gguf package (the gguf extra)")
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(path), "llama")
    if file_type:
        writer.add_file_type(gguf.LlamaFileType[file_type])
    for name, kind in tensors.items():
        values = np.linspace(-1, 1, 4 * 32, dtype=np.float32).reshape(4, 32)
        if kind == "F32":
            writer.add_tensor(name, values)
        else:
            kind = gguf.GGMLQuantizationType[kind]
            writer.add_tensor(name, gguf.quants.quantize(values, kind), raw_dtype=kind)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


# ---- naming a GGUF file -------------------------------------------------------------------------------------------


def test_a_gguf_file_named_as_the_model_is_its_folder_and_its_name(tmp_path):
    file = tmp_path / "models" / "tiny.Q8_0.gguf"
    assert split_gguf_path(str(file), None) == (str(file.parent), "tiny.Q8_0.gguf")
    assert split_gguf_path(str(file), "tiny.Q8_0.gguf") == (str(file.parent), "tiny.Q8_0.gguf")
    for given in (str(file), file):  # a path as the command line and a notebook give it
        options = eval_options_model().from_keywords(model=given)
        assert (options.model, options.gguf_file) == (str(file.parent), "tiny.Q8_0.gguf")
    probe = ProbeOptions.from_keywords(model=str(file))
    assert (probe.model, probe.gguf_file) == (str(file.parent), "tiny.Q8_0.gguf")


def test_the_command_line_takes_gguf_file_and_a_gguf_path_alike(tmp_path):
    from swapbench.commands.main import make_parser
    from swapbench.core.command_options import from_arguments

    file = tmp_path / "tiny.gguf"
    for argv in (["eval", str(file)], ["eval", str(tmp_path), "--gguf-file", "tiny.gguf"]):
        options = from_arguments(eval_options_model(), make_parser(argv).parse_args(argv))
        assert (options.model, options.gguf_file) == (str(tmp_path), "tiny.gguf")
    argv = ["probe", str(file), "--out", str(tmp_path / "probe")]
    options = from_arguments(ProbeOptions, make_parser(argv).parse_args(argv))
    assert (options.model, options.gguf_file) == (str(tmp_path), "tiny.gguf")


def test_a_folder_or_hub_id_keeps_its_gguf_file(tmp_path):
    assert split_gguf_path("org/model-GGUF", "model.Q4_K_M.gguf") == ("org/model-GGUF", "model.Q4_K_M.gguf")
    assert split_gguf_path(str(tmp_path), None) == (str(tmp_path), None)
    folder = tmp_path / "odd.gguf"  # a folder whose name ends in .gguf is a folder
    folder.mkdir()
    assert split_gguf_path(str(folder), None) == (str(folder), None)


def test_a_gguf_file_and_another_gguf_file_are_refused():
    with pytest.raises(SwapbenchError, match="a.gguf is a GGUF file and --gguf-file names another"):
        eval_options_model().from_keywords(model="models/a.gguf", gguf_file="b.gguf")


# ---- the quantization, from the file's metadata ------------------------------------------------------------------


def test_the_quantization_is_the_files_declared_type(tmp_path):
    path = write_gguf(
        tmp_path / "m.gguf", {"norm": "F32", "a": "Q4_1", "b": "Q4_1", "token_embd.weight": "Q8_0"}, "MOSTLY_Q4_1"
    )
    assert read_gguf(path) == ("Q4_1", {"F32": 1, "Q4_1": 2, "Q8_0": 1}, True)  # no output.weight: tied
    path = write_gguf(tmp_path / "f.gguf", {"token_embd.weight": "F32", "output.weight": "F32"}, "ALL_F32")
    assert read_gguf(path) == ("F32", {"F32": 2}, False)


def test_without_a_declared_type_the_commonest_quantized_tensors_name_it(tmp_path):
    path = write_gguf(
        tmp_path / "m.gguf", {"n1": "F32", "n2": "F32", "n3": "F32", "a": "Q8_0", "b": "Q8_0", "c": "Q4_1"}
    )
    assert read_gguf(path).quantization == "Q8_0"  # F32 is the commonest, but holds the norms
    assert read_gguf(write_gguf(tmp_path / "f.gguf", {"a": "F32"})).quantization == "F32"


def test_a_file_that_is_not_gguf_is_refused_naming_it(tmp_path):
    pytest.importorskip("gguf", reason="GGUF files are read with the gguf package (the gguf extra)")
    path = tmp_path / "notes.gguf"
    path.write_text("not a GGUF file")
    with pytest.raises(SwapbenchError, match=f"cannot read {path} as a GGUF file"):
        read_gguf(path)


# ---- refusals -----------------------------------------------------------------------------------------------------


def test_a_missing_gguf_file_is_refused_naming_its_path_and_the_files_there(tmp_path):
    (tmp_path / "other.Q8_0.gguf").write_bytes(b"")
    with pytest.raises(SwapbenchError) as caught:
        check_gguf(str(tmp_path), "model.gguf")
    assert str(tmp_path / "model.gguf") in str(caught.value)
    assert "no such file (the GGUF files there: other.Q8_0.gguf)" in str(caught.value)


def test_without_the_gguf_package_the_refusal_says_how_to_install_it(tmp_path, monkeypatch):
    written = write_gguf(tmp_path / "written.gguf", {"a": "F32"})
    found = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None if name == "gguf" else found(name, *rest))
    with pytest.raises(SwapbenchError) as caught:
        check_gguf(str(tmp_path), "model.gguf")
    message = str(caught.value)
    assert str(tmp_path / "model.gguf") in message and "gguf package, which is not installed" in message
    assert "pip install 'swapbench[gguf]'" in message and "make setup-main" in message
    monkeypatch.setitem(sys.modules, "gguf", None)  # import gguf fails
    with pytest.raises(SwapbenchError, match=r"swapbench\[gguf\]"):
        read_gguf(written)


def test_eval_and_the_probe_refuse_a_missing_gguf_file_before_reading_any_data(tmp_path):
    import swapbench
    from swapbench.probing.errors import ProbeError
    from swapbench.probing.loading import load_model

    missing = tmp_path / "absent.Q4_1.gguf"
    with pytest.raises(SwapbenchError, match=f"cannot load GGUF file {missing}: no such file"):
        swapbench.evaluate(str(missing), str(tmp_path / "no-data"), no_probe=True)
    with pytest.raises(ProbeError, match=f"cannot load GGUF file {missing}: no such file"):
        load_model(str(tmp_path), gguf_file=missing.name)


def test_a_checkpoint_is_named_by_its_file_in_messages(tmp_path):
    assert checkpoint_name(str(tmp_path), "m.gguf") == str(tmp_path / "m.gguf")
    assert checkpoint_name("org/model-GGUF", "m.gguf") == "m.gguf of the Hub repository org/model-GGUF"
    assert checkpoint_name("org/model", None) == "org/model"


# ---- identity -----------------------------------------------------------------------------------------------------


def test_a_gguf_files_revision_is_its_own_sha256_whatever_lies_beside_it(tmp_path):
    file = tmp_path / "m.gguf"
    file.write_bytes(b"weights")
    expected = "sha256:" + hashlib.sha256(b"weights").hexdigest()
    assert model_revision(str(tmp_path), None, gguf_file="m.gguf") == expected
    folder_before = model_revision(str(tmp_path), None)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "x.pyc").write_bytes(b"bytecode of this python")
    assert model_revision(str(tmp_path), None, gguf_file="m.gguf") == expected
    assert model_revision(str(tmp_path), None) != folder_before


def test_the_fine_tuning_cache_key_names_the_gguf_file():
    from swapbench.evaluation.finetune import cache_key, checkpoint_folder, reference_recipe
    from swapbench.results.schema import TrainingData

    data = TrainingData(source="x", split="train", fingerprint="sha256:" + "1" * 64, n=10, limit=None, held_out=False)
    keys = {
        file: cache_key("org/model-GGUF", "c" * 40, reference_recipe(), data, data, gguf_file=file)
        for file in (None, "m.Q4_1.gguf", "m.Q8_0.gguf")
    }
    assert len(set(keys.values())) == 3  # one commit of a repository holds every GGUF file it has
    assert keys[None] == cache_key("org/model-GGUF", "c" * 40, reference_recipe(), data, data)  # as before
    assert checkpoint_folder(Path("/c"), "/models/pkg", "f" * 64, "m.Q4_1.gguf").name == f"m.Q4_1-{'f' * 16}"


# ---- a dense model, as transformers 5 marks it ---------------------------------------------------------------------


def test_a_dequantized_model_is_unmarked_and_a_packed_one_refused():
    model = torch.nn.Linear(2, 2)
    model.config = SimpleNamespace(quantization_config={"quant_method": "gguf"})
    model.hf_quantizer = object()
    assert as_dense(model) is model and model.hf_quantizer is None and not hasattr(model.config, "quantization_config")

    class GgufLinear(torch.nn.Linear):
        pass

    packed = torch.nn.Sequential(GgufLinear(2, 2))
    packed.config, packed.hf_quantizer = SimpleNamespace(), object()
    with pytest.raises(SwapbenchError, match="kept some GGUF weights packed \\(GgufLinear\\)"):
        as_dense(packed)


# ---- the reader's progress bar -------------------------------------------------------------------------------------


@pytest.mark.parametrize("verbosity", [None, "info"])
def test_the_gguf_readers_bar_is_held_back_while_swapbench_loads_and_given_back_after(verbosity, monkeypatch, capsys):
    """transformers' GGUF reader draws a tqdm bar of the file's tensors as it dequantizes them, past its own
    progress setting (disable_progress_bar): every load of swapbench's (library_quiet: eval's, the probe's,
    fine-tuning's) holds it back, a TRANSFORMERS_VERBOSITY of the user's too, so that no load under --no-progress
    or -q draws it; the reader is left as it was."""
    reader = pytest.importorskip("transformers.modeling_gguf_pytorch_utils", reason="this transformers reads no GGUF")
    if verbosity:
        monkeypatch.setenv("TRANSFORMERS_VERBOSITY", verbosity)
    else:
        monkeypatch.delenv("TRANSFORMERS_VERBOSITY", raising=False)

    def dequantize():  # the reader's loop over a file's tensors
        for _ in reader.tqdm(range(3), desc="Converting and de-quantizing GGUF tensors..."):
            pass

    with library_quiet():
        dequantize()
    assert "de-quantizing" not in capsys.readouterr().err
    dequantize()
    assert "de-quantizing" in capsys.readouterr().err
