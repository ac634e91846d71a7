"""`swapbench zoo train|run|params|scales|report`. The encodings' choices and help come from zoo/catalogue.py when
the parser is built: the built-in encodings' declarations, read without torch, and any other encoding registered in
`swapbench.core.registry.ENCODINGS` by an imported module or a plugin; heavy work (torch, the encodings' modules)
waits until a subcommand runs, so that `--help` and a bad argument answer at once."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from ..core.command_options import add_arguments, from_arguments
from .listing import COMMANDS

logger = logging.getLogger(__name__)


def add_zoo(subparsers) -> None:
    from ..zoo import catalogue
    from ..zoo.options import ENCODER, ParamsOptions, ScalesOptions, ZooRunOptions, ZooTrainOptions

    p = subparsers.add_parser(
        "zoo",
        help=COMMANDS["zoo"].help,
        description="The positional-encoding zoo: the same small BERT-style encoder, data and recipe, with only "
        "the positional encoding changed. Encodings: " + catalogue.help_text() + ".",
    )
    commands = p.add_subparsers(dest="zoo_command", required=True)

    train = commands.add_parser(
        "train",
        help="train the encoder with one positional encoding from scratch",
        description="Train the zoo encoder with ENCODING from scratch on SNLI (or a local "
        "source) with the Trainer, and save the checkpoint to --out.",
    )
    add_arguments(train, ZooTrainOptions, groups=recipe_groups(train))
    train.set_defaults(run=run_train)

    run = commands.add_parser(
        "run",
        help="train and score every encoding over several seeds",
        description="Train every encoding over every seed, score each checkpoint with "
        "`swapbench eval`, and write one results file per encoding and seed, "
        "zoo.json, a Markdown table (README.md) and a figure to --out.",
    )
    add_arguments(run, ZooRunOptions, groups=recipe_groups(run))
    run.set_defaults(run=run_run)

    params = commands.add_parser(
        "params",
        help="parameter counts of the encoder for every encoding",
        description="Build the encoder for every encoding (random weights, no data) and count its parameters.",
    )
    add_arguments(params, ParamsOptions, groups={ENCODER: params.add_argument_group(ENCODER)})
    params.set_defaults(run=run_params)

    scales = commands.add_parser(
        "scales",
        help="how large each encoding's position signal starts against the words'",
        description="Build the encoder for every encoding (random weights) and measure, at "
        "initialisation, the position/word norm ratio of the vectors added to "
        "the input and the positional/content ratio of the first layer's "
        "attention logits.",
    )
    add_arguments(scales, ScalesOptions, groups={ENCODER: scales.add_argument_group(ENCODER)})
    scales.set_defaults(run=run_scales)

    report = commands.add_parser(
        "report",
        help="redraw the table and figure of a zoo run from its results",
        description="Recompute zoo.json's figures from the results files it lists, and "
        "rewrite README.md's table and the PNG figure in FOLDER.",
    )
    report.add_argument("folder", type=Path, help="the --out folder of `swapbench zoo run`")
    report.add_argument(
        "--merge",
        type=Path,
        nargs="+",
        metavar="FOLDER",
        default=[],
        help="first add the set-ups and encodings of these other runs' --out folders (the same "
        "recipe, seeds and data, run in parallel), copying their results files",
    )
    report.set_defaults(run=run_report)


def recipe_groups(parser) -> dict:
    """The argument groups of a zoo command that trains, in the order its help lists them."""
    from ..zoo.options import ENCODER, OPTIONS, TRAINING, TRAINING_DATA

    return {name: parser.add_argument_group(name) for name in (ENCODER, TRAINING, OPTIONS, TRAINING_DATA)}


def check_settings(settings, encodings: list[str]) -> None:
    """Build each encoding's config before any data is read, so that its own checks (hidden size a multiple of
    the heads, an even head size for rope, ...) stop a bad setting at once."""
    from ..core.errors import SwapbenchError
    from ..zoo.train import zoo_config

    for name in encodings:
        try:
            zoo_config(
                name,
                settings.architecture,
                max_length=settings.training.max_length,
                vocab_size=1,
                options=settings.encoding_options,
            )
        except SwapbenchError as err:
            raise SwapbenchError(
                f"{name}: {err} (from --layers, --hidden, --heads, --intermediate, --max-length and --encoding-option)"
            ) from err


def run_train(args: argparse.Namespace) -> int:
    from ..zoo.options import ZooTrainOptions
    from ..zoo.train import train_encoder
    from .evaluate import silence_library_bars
    from .main import load_model_types

    options = from_arguments(ZooTrainOptions, args)
    load_model_types()
    silence_library_bars(downloads=options.progress)
    settings = options.make_recipe(options.seed)
    check_settings(settings, [options.encoding])
    scored = None
    if options.data:
        from ..evaluation.data import open_benchmark
        from ..evaluation.scored_data import scored_pairs

        scored = scored_pairs(open_benchmark(options.data))
    train_encoder(  # logs its summary, from the main process
        options.encoding,
        settings,
        options.out,
        scored=scored,
        device=options.device,
        progress=options.progress,
        overwrite=options.overwrite,
    )
    return 0


def run_run(args: argparse.Namespace) -> int:
    from ..zoo.options import ZooRunOptions
    from ..zoo.run import run_zoo
    from .evaluate import silence_library_bars
    from .main import load_model_types

    options = from_arguments(ZooRunOptions, args, command=list(sys.argv))
    load_model_types()
    silence_library_bars(downloads=options.progress)
    check_settings(options.recipe, options.encodings)
    run_zoo(options)  # logs its summary
    return 0


def run_params(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from ..core.registry import ENCODINGS
    from ..zoo import encodings  # noqa: F401  (registers the built-in encodings)
    from ..zoo.modeling import ZooForSequenceClassification, count_parameters
    from ..zoo.options import ParamsOptions
    from ..zoo.train import zoo_config

    table = Table(title="zoo encoder parameters")
    for column in ("encoding", "total", "positional", "non-embedding", "family/kind"):
        table.add_column(column, justify="left" if column in ("encoding", "family/kind") else "right", no_wrap=True)
    options = from_arguments(ParamsOptions, args)
    for entry in ENCODINGS:
        config = zoo_config(
            entry.name, options.architecture, max_length=options.max_length, vocab_size=options.vocab_size
        )
        counts = count_parameters(ZooForSequenceClassification(config))
        table.add_row(
            entry.name,
            f"{counts['total']:,}",
            f"{counts['positional']:,}",
            f"{counts['non_embedding']:,}",
            f"{entry.value.family}/{entry.value.kind}",
        )
    Console(width=110).print(table)  # wide enough for every column when the output is not a terminal
    return 0


def run_scales(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from ..zoo import encodings  # noqa: F401  (registers the built-in encodings)
    from ..zoo.options import ScalesOptions
    from ..zoo.scales import initial_scales

    table = Table(title="position signal against the words' at initialisation")
    for column in ("encoding", "input ‖p‖/‖w‖", "logits positional/content"):
        table.add_column(column, justify="left" if column == "encoding" else "right", no_wrap=True)
    options = from_arguments(ScalesOptions, args)
    for name, ratios in initial_scales(options.architecture, max_length=options.max_length, seed=options.seed).items():
        table.add_row(name, *("–" if r is None else f"{r:.3g}" for r in (ratios.input, ratios.logits)))
    Console(width=110).print(table)
    return 0


def run_report(args: argparse.Namespace) -> int:
    from ..core.text import portable
    from ..zoo import encodings  # noqa: F401  (registers the built-in encodings, which the summary reads)
    from ..zoo.report import write_report
    from ..zoo.summary import SUMMARY_FILE, merge_summaries, read_summary, refresh_summary

    summary = read_summary(args.folder)
    if args.merge:
        summary = merge_summaries(summary, args.folder, args.merge)
    summary = refresh_summary(summary, args.folder)
    record = args.folder / SUMMARY_FILE
    for path in [
        record,
        *write_report(summary, args.folder, also={record: portable(summary.model_dump_json(indent=2), keep=2) + "\n"}),
    ]:
        logger.info(f"Wrote {path}")
    return 0
