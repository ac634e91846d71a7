"""The `swapbench eval` subcommand: options -> EvalOptions -> pipeline.evaluate. Heavy imports wait until it runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.options import comma_list, device, integer, max_length, positive_float, positive_int, seed
from .probe import probe_length
from ..sources.options import add_column_arguments, canonical_split, columns_from, source_help, split_names

non_negative_int = integer(0)


def add_training_data_arguments(group) -> None:
    """Where training and validation pairs come from; shared by `swapbench eval` and `swapbench zoo train`."""
    group.add_argument("--train-source", help=source_help("$SWAPBENCH_SNLI_DIR, else the SNLI 1.0 release archive")
                       + "; also the pool of --shots examples")
    group.add_argument("--train-split", default="train", choices=split_names(),
                       help="split of the training source; dev and validation name the same split (default: train)")
    group.add_argument("--train-limit", type=positive_int, help="use only the first N training pairs")
    group.add_argument("--val-source", help="validation source (default: the training source)")
    group.add_argument("--val-split", default="validation", choices=split_names(),
                       help="validation split; dev and validation name the same split (default: validation)")
    group.add_argument("--val-limit", type=positive_int, help="use only the first N validation pairs")
    group.add_argument("--val-holdout", type=positive_int, metavar="N",
                       help="hold N training pairs out as validation instead of reading a validation split")


def add_eval(subparsers) -> None:
    from ..evaluation.scorers import mode_help

    p = subparsers.add_parser(
        "eval", help="score an NLI model on every configuration; fine-tune a base model first",
        description="Score MODEL (Hub id or local folder) on the original and perturbed pairs of every "
                    "configuration and report Δ accuracy with a paired bootstrap interval and an exact McNemar "
                    "test. A sequence-classification model with NLI labels is used as is; a base model is first "
                    "fine-tuned on SNLI (cached).")
    p.add_argument("model", help="Hub model id or local folder")
    p.add_argument("--revision", help="model revision (branch, tag or commit) on the Hub")
    p.add_argument("--allow-missing", action="store_true",
                   help="score a classifier whose checkpoint does not load whole (weights newly initialised or "
                        "left unused); recorded in the results and shown on the board")
    p.add_argument("--trust-remote-code", action="store_true",
                   help="run the model's own code shipped with it (auto_map), e.g. for an ALiBi BERT")
    data = p.add_argument_group("data")
    data.add_argument("--data", default="data/snli-test",
                      help="dataset folder written by `swapbench build`, or a Hub dataset id (default: %(default)s)")
    data.add_argument("--data-revision", help="Hub dataset revision")
    data.add_argument("--configs", help="comma-separated configurations to score (default: all)")
    data.add_argument("--split", choices=split_names(), metavar="SPLIT",
                      help="split to score, named as `swapbench build` names it: dev (= validation) and the "
                           "others (default: the split the dataset was built from)")
    data.add_argument("--limit", type=positive_int,
                      help="score only the first N rows of each configuration (smoke runs). It limits scoring "
                           "only: fine-tuning still reads its whole training data (--train-limit limits those). "
                           "Recorded in the results (dataset.limit); the leaderboard refuses limited runs")
    p.add_argument("--mode", default="classifier", metavar="MODE",
                   help="how the pairs are scored: " + mode_help().replace("%", "%%") + " (default: classifier)")
    prompt = p.add_argument_group("prompting (--mode prompt)")
    prompt.add_argument("--template", type=Path, metavar="FILE",
                        help="prompt template file naming {premise} and {hypothesis} (default: lm-evaluation-"
                             "harness's MNLI prompt: '{premise}\\nQuestion: {hypothesis} True, False or Neither?"
                             "\\nAnswer:')")
    prompt.add_argument("--verbalizers", metavar="MAP",
                        help="the word scored for each label (default: entailment=True,neutral=Neither,"
                             "contradiction=False), each after a space")
    prompt.add_argument("--shots", type=non_negative_int, default=0, metavar="K",
                        help="solved examples before each prompt, drawn with --seed from --train-source/"
                             "--train-split, never from the scored pairs (default: 0)")
    labels = p.add_argument_group("labels")
    labels.add_argument("--label-map", metavar="MAP",
                        help="model outputs to NLI labels when config.id2label cannot tell, e.g. "
                             "0=entailment,1=neutral,2=contradiction or LABEL_0=entailment,LABEL_1=not_entailment; "
                             "refused for a model whose own label names map otherwise, unless --force")
    labels.add_argument("--force", action="store_true",
                        help="let --label-map override the labels the model names itself")
    tune = p.add_argument_group("fine-tuning (base models; reference recipe: max length 128, AdamW, lr 2e-5, "
                                "batch 32, 3 epochs, best epoch on validation). Without these options a base model "
                                "is trained on all of SNLI's training split (549,367 pairs: about 51,500 steps); "
                                "eval says so, with the device, before it starts")
    tune.add_argument("--finetune", action="store_true",
                      help="fine-tune even when MODEL already is a sequence classifier")
    add_training_data_arguments(tune)
    add_column_arguments(tune)
    tune.add_argument("--epochs", type=positive_int, help="default: 3")
    tune.add_argument("--lr", type=positive_float, help="learning rate (default: 2e-5)")
    tune.add_argument("--batch-size", type=positive_int, help="training batch over all devices (default: 32)")
    tune.add_argument("--cache-dir", type=Path,
                      help="fine-tuned checkpoints go here (default: $SWAPBENCH_CACHE_DIR or ~/.cache/swapbench)")
    run = p.add_argument_group("scoring")
    run.add_argument("--max-length", type=max_length, default=128, help="truncate pairs to N tokens (default: 128)")
    run.add_argument("--eval-batch-size", type=positive_int, help="scoring batch size (default: automatic, halved "
                                                                   "on out-of-memory)")
    run.add_argument("--device", type=device, help="cpu, cuda, cuda:1, mps (default: a GPU when there is one)")
    run.add_argument("--dtype", choices=("auto", "float32", "bfloat16", "float16"), default="auto",
                     help="auto: bf16 (else fp16) on GPU, float32 on CPU")
    run.add_argument("--seed", type=seed, default=0, help="seed of fine-tuning, bootstrap and probe (default: 0)")
    run.add_argument("--bootstrap", type=positive_int, default=10_000, help="bootstrap resamples (default: 10000)")
    run.add_argument("--no-probe", action="store_true", help="skip the locality/symmetry probe")
    run.add_argument("--probe-words", type=positive_int, default=100, help="probe words (default: 100)")
    run.add_argument("--probe-length", type=probe_length, default=128, help="probe sequence length (default: 128)")
    run.add_argument("--slices", action="store_true",
                     help="also print accuracy and Δ per slice tag (label:NP, moved:2, side:hypothesis, ...)")
    run.add_argument("--output", type=Path,
                     help="results file (default: results/<model>/results_<data>_<time>.json, <model> naming the "
                          "Hub id and revision, or the local folder's path); the predictions go beside it")
    run.add_argument("--no-progress", action="store_true",
                     help="no progress bars at all (swapbench's, the datasets, weight-loading and download bars); "
                          "messages and the training's log lines still go to stderr")
    p.set_defaults(run=run_eval, loads_models=True)


def silence_library_bars() -> None:
    """Turn off the progress bars of the libraries swapbench calls: datasets ("Generating test split"),
    transformers (weight loading) and huggingface_hub (downloads)."""
    import datasets
    import huggingface_hub.utils
    import transformers

    datasets.disable_progress_bars()
    transformers.utils.logging.disable_progress_bar()
    huggingface_hub.utils.disable_progress_bars()


def run_eval(args: argparse.Namespace) -> int:
    from ..evaluation.finetune import DataChoice
    from ..evaluation.pipeline import EvalOptions, HelperProcess, evaluate

    if args.no_progress:
        silence_library_bars()

    options = EvalOptions(
        model=args.model, data=args.data, data_revision=args.data_revision, configs=comma_list(args.configs),
        split=canonical_split(args.split) if args.split else None, limit=args.limit, revision=args.revision,
        label_map=args.label_map, force=args.force,
        allow_missing=args.allow_missing, trust_remote_code=args.trust_remote_code,
        finetune=args.finetune, mode=args.mode, template=args.template, verbalizers=args.verbalizers,
        shots=args.shots,
        training=DataChoice(train_source=args.train_source, train_split=args.train_split,
                            train_limit=args.train_limit, val_source=args.val_source, val_split=args.val_split,
                            val_limit=args.val_limit, val_holdout=args.val_holdout, columns=columns_from(args)),
        epochs=args.epochs, learning_rate=args.lr, batch_size=args.batch_size, max_length=args.max_length,
        eval_batch_size=args.eval_batch_size, device=args.device, dtype=args.dtype, seed=args.seed,
        bootstrap=args.bootstrap, probe=not args.no_probe, probe_words=args.probe_words,
        probe_length=args.probe_length, slices=args.slices, cache_dir=args.cache_dir, output=args.output,
        progress=not args.no_progress, command=list(sys.argv))
    try:
        evaluate(options)
    except HelperProcess:
        pass  # the main process reports
    return 0
