"""The `swapbench` command. Each subcommand lives in its own module and registers itself here."""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading

from rich.console import Console
from rich.markup import escape

from ..core.errors import SwapbenchError
from ..core.version import __version__
from .build import add_build
from .curate import add_curate
from .evaluate import add_eval
from .leaderboard import add_leaderboard, add_submit
from .leak import add_leak
from .probe import add_probe
from .suite import add_suite
from .zoo import ZOO_HELP, add_zoo

COMMANDS = (add_build, add_probe, add_eval, add_suite, add_leak, add_curate, add_submit, add_leaderboard, add_zoo)


def make_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line; given `argv`, the zoo's options (whose encodings import torch) are made only when it runs
    the zoo, and the zoo is listed by its one-line help otherwise."""
    parser = argparse.ArgumentParser(
        prog="swapbench", description="Word-swap probing benchmarks for NLI models: build the perturbed SNLI "
        "dataset, score models on it, probe their positional attention, and keep the leaderboard.")
    parser.add_argument("--version", action="version", version=f"swapbench {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    words = sys.argv[1:] if argv is None else argv
    runs_zoo = next((word for word in words if not word.startswith("-")), None) == "zoo"
    for add in COMMANDS:
        if add is add_zoo and not runs_zoo:
            subparsers.add_parser("zoo", help=ZOO_HELP, add_help=False)  # `swapbench zoo --help` shows the rest
            continue
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


def load_model_types() -> None:
    """Register the model types swapbench defines with transformers' Auto classes (the zoo encoder's), so that
    eval and probe load their checkpoints like any other; deferred because it imports transformers."""
    import swapbench.zoo.modeling  # noqa: F401


def _report(err: SwapbenchError) -> int:
    Console(stderr=True, soft_wrap=True).print(f"[bold red]error:[/] {escape(str(err))}", highlight=False)
    return 2


def main(argv: list[str] | None = None) -> int:
    try:  # the options list the registries, which load plugins: one that fails is reported as any error
        args = make_parser(argv).parse_args(argv)
    except SwapbenchError as err:
        return _report(err)
    if getattr(args, "loads_models", False):
        load_model_types()
    try:
        with _sigterm_interrupts():
            return args.run(args)
    except SwapbenchError as err:
        return _report(err)
    except KeyboardInterrupt as err:
        terminated = isinstance(err, Terminated)
        Console(stderr=True, soft_wrap=True).print(
            f"{'terminated' if terminated else 'interrupted'}; the previous output, if any, is unchanged")
        return 128 + (signal.SIGTERM if terminated else signal.SIGINT)


if __name__ == "__main__":
    sys.exit(main())
