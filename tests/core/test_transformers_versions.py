"""What differs between transformers 4 and 5, checked on whichever this environment has (make test runs the suite
on both): the warm-up ratio, the Trainer's log lines, the Hub commit a model was read at, the zoo config."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from huggingface_hub.errors import StrictDataclassError
from transformers import BertConfig, TrainingArguments

from swapbench.core.compat import warmup_arguments
from swapbench.evaluation.trainer import describe_log, optimisation_steps
from swapbench.zoo.config import FIELD_DEFAULTS, ZooConfig, parse_encoding_option
from swapbench.zoo.names import MODEL_TYPE

REPO = Path(__file__).resolve().parents[2]
COMMIT = "a" * 8 + "0123456789abcdef0123456789abcdef"


def test_a_warmup_ratio_is_a_ratio_of_the_steps(tmp_path):
    args = TrainingArguments(output_dir=str(tmp_path), report_to="none", use_cpu=True, **warmup_arguments(0.1))
    assert args.get_warmup_steps(200) == 20
    none = TrainingArguments(output_dir=str(tmp_path), report_to="none", use_cpu=True, **warmup_arguments(0.0))
    assert none.get_warmup_steps(200) == 0


def test_steps_and_log_lines():
    assert optimisation_steps(549_367, 32, 3) == 51_504 and optimisation_steps(64, 32, 1) == 2
    assert (
        describe_log({"loss": 0.69314, "grad_norm": 3.0, "learning_rate": 1.5e-05, "epoch": 1.0})
        == "epoch 1: loss 0.6931, learning rate 1.5e-05"
    )
    assert (
        describe_log({"eval_loss": 0.5, "eval_accuracy": 0.8421, "eval_runtime": 3.2, "epoch": 2.0})
        == "epoch 2: validation loss 0.5, validation accuracy 84.2%"
    )
    assert describe_log({"train_runtime": 10.0, "epoch": 3.0}) is None


def hub_cache(root: Path, repo: str, files: dict[str, str]) -> Path:
    """A Hugging Face cache holding `repo` at COMMIT on main, laid out as huggingface_hub writes it."""
    folder = root / f"models--{repo.replace('/', '--')}"
    (folder / "refs").mkdir(parents=True)
    (folder / "refs" / "main").write_text(COMMIT)
    snapshot = folder / "snapshots" / COMMIT
    snapshot.mkdir(parents=True)
    for name, text in files.items():
        (snapshot / name).write_text(text)
    return root


def test_the_hub_commit_of_a_model_is_recorded(tmp_path):
    """Read from a cache as the Hub leaves it, offline: the commit comes out on transformers 4 (the config's
    _commit_hash) and 5 (where that is None) alike, for the default branch and for a named revision."""
    config = BertConfig(
        vocab_size=10, hidden_size=8, num_hidden_layers=1, num_attention_heads=1, intermediate_size=8
    ).to_json_string()
    cache = hub_cache(tmp_path / "hub", "someone/tiny-bert", {"config.json": config})
    script = (
        "from swapbench.models.loading import load_config, model_revision\n"
        "from swapbench.core.hub_access import hub_commit\n"
        "config = load_config('someone/tiny-bert')\n"
        "print(model_revision('someone/tiny-bert', config))\n"
        "print(model_revision('someone/tiny-bert', load_config('someone/tiny-bert', 'main'), 'main'))\n"
        "print(hub_commit('someone/absent'))\n"
    )
    env = {**os.environ, "HF_HUB_CACHE": str(cache), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [COMMIT, COMMIT, "None"]


def test_the_zoo_config_is_strict_on_both_versions(tmp_path):
    config = ZooConfig(vocab_size=50, position_encoding="rope", t5_num_buckets=16)
    assert (config.position_encoding, config.t5_num_buckets, config.pad_token_id) == ("rope", 16, 0)
    config.save_pretrained(tmp_path)
    saved = json.loads((tmp_path / "config.json").read_text())
    assert (saved["position_encoding"], saved["model_type"]) == ("rope", MODEL_TYPE)
    again = ZooConfig.from_pretrained(tmp_path)
    assert (again.position_encoding, again.t5_num_buckets, again.vocab_size) == ("rope", 16, 50)
    with pytest.raises(StrictDataclassError, match="position_encoding 'bogus' is not one of"):
        ZooConfig(position_encoding="bogus")
    with pytest.raises(StrictDataclassError, match="head size must be even"):
        ZooConfig(position_encoding="rope", hidden_size=6, num_attention_heads=2)
    assert parse_encoding_option("tisa_kernels=3") == ("tisa_kernels", 3)
    assert FIELD_DEFAULTS["attenuated_learnable"] is True


def test_the_cache_goes_back_under_the_name_the_model_takes():
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    from transformers.modeling_outputs import CausalLMOutputWithPast

    from swapbench.core.compat import returned_cache, takes_cache_as

    class Renamed(torch.nn.Module):
        def forward(self, input_ids, cache=None, use_cache=None):
            return input_ids

    class Before(torch.nn.Module):  # transformers 4.x
        def forward(self, input_ids, past_key_values=None, use_cache=None):
            return input_ids

    assert (takes_cache_as(Renamed()), takes_cache_as(Before())) == ("cache", "past_key_values")
    model = GPT2LMHeadModel(GPT2Config(n_layer=1, n_head=2, n_embd=8, vocab_size=11, n_positions=16)).eval()
    name = takes_cache_as(model)
    with torch.no_grad():
        out = model(input_ids=torch.tensor([[1, 2, 3]]), use_cache=True)
        cache = returned_cache(out)
        assert cache is not None
        step = model(input_ids=torch.tensor([[4]]), use_cache=False, **{name: cache})
    assert step.logits.shape == (1, 1, 11)
    assert returned_cache(CausalLMOutputWithPast(logits=torch.zeros(1), **{name: "kv"})) == "kv"
