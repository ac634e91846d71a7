"""The `swapbench eval` subcommand: its arguments are made from eval's options and every registered scorer's
(swapbench.evaluation.options.eval_options_model), which also give `swapbench.evaluate` its keywords; the pipeline
runs when it does."""

from __future__ import annotations

import argparse
import sys

from ..core.command_options import add_arguments, from_arguments
from ..evaluation.options import eval_options_model
from ..evaluation.training_options import TRAINING_DATA
from .listing import COMMANDS

FINE_TUNING = (
    "fine-tuning (base models; reference recipe: max length 128, AdamW, lr 2e-5, batch 32, 3 epochs, best "
    "epoch on validation). Without these options a base model is trained on all of SNLI's training split "
    "(549,367 pairs: about 51,500 steps); eval says so, with the device, before it starts"
)


def add_eval(subparsers) -> None:
    p = subparsers.add_parser(
        "eval",
        help=COMMANDS["eval"].help,
        description="Score MODEL (Hub id, local folder, or GGUF file: --gguf-file) on the original and perturbed "
        "pairs of every configuration and report Δ accuracy with a paired bootstrap interval and an "
        "exact McNemar test. A sequence-classification model with NLI labels is used as is; a base "
        "model is first fine-tuned on SNLI (cached).",
    )
    groups = {
        "data": p.add_argument_group("data"),
        "prompting": p.add_argument_group("prompting (--mode prompt)"),
        "labels": p.add_argument_group("labels"),
        "fine-tuning": p.add_argument_group(FINE_TUNING),
    }
    groups[TRAINING_DATA] = groups["fine-tuning"]
    groups["scoring"] = p.add_argument_group("scoring")
    add_arguments(p, eval_options_model(), groups=groups)
    p.set_defaults(run=run_eval)


def silence_library_bars(downloads: bool = False) -> None:
    """Turn off the progress bars of the libraries swapbench calls: transformers' (loading and writing weights,
    which swapbench's own bars for fine-tuning, probing and scoring make redundant), datasets' ("Generating test
    split") and, unless `downloads`, huggingface_hub's (downloads from the Hub, which can take minutes)."""
    import datasets
    import huggingface_hub.utils
    import transformers

    datasets.disable_progress_bars()
    transformers.utils.logging.disable_progress_bar()
    if not downloads:
        huggingface_hub.utils.disable_progress_bars()


def run_eval(args: argparse.Namespace) -> int:
    options = from_arguments(eval_options_model(), args, command=list(sys.argv))
    from ..evaluation.pipeline import HelperProcess, evaluate
    from .main import load_model_types

    load_model_types()
    silence_library_bars(downloads=options.progress)
    try:
        evaluate(options)
    except HelperProcess:
        pass  # the main process reports
    return 0
