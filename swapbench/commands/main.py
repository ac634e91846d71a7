"""The `swapbench` command. Each subcommand lives in its own module and registers itself here."""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import signal
import sys
import threading

from ..core.errors import SwapbenchError
from ..core.logs import configured
from .help_texts import quick_parser
from .listing import COMMANDS


class VersionAction(argparse.Action):
    """`--version`: the installed version, read from the distributions' metadata only when asked for (a tenth of a
    second that every other command line would pay)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):  # noqa: A002
        super().__init__(
            option_strings, dest=dest, default=default, nargs=0, help=help or "show the version of swapbench and exit"
        )

    def __call__(self, parser, namespace, values, option_string=None):
        from ..core.version import __version__

        print(f"swapbench {__version__}")  # on stdout, as argparse's own version action prints it
        parser.exit()


class CommandParser(argparse.ArgumentParser):
    """A command's parser: every command, and each of the zoo's, takes --verbose or --quiet, defined here once.
    They set `verbosity` only when given (the default is suppressed), so that `zoo --quiet train` keeps it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        said = self.add_mutually_exclusive_group()
        said.add_argument(
            "-v",
            "--verbose",
            dest="verbosity",
            action="store_const",
            const="verbose",
            default=argparse.SUPPRESS,
            help="say more: swapbench's debug messages too",
        )
        said.add_argument(
            "-q",
            "--quiet",
            dest="verbosity",
            action="store_const",
            const="quiet",
            default=argparse.SUPPRESS,
            help="say only warnings and errors",
        )


def make_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line. Given `argv`, only the command it runs (its first word that is not an option) gets its
    parser made, from its module, and the others are listed by their one-line help (commands/listing.py), so that
    `swapbench --help` and `swapbench build` import neither torch nor the other commands' options; `swapbench
    COMMAND --help` shows a command's own options. Without `argv`, every command's parser is made."""
    parser = argparse.ArgumentParser(
        prog="swapbench",
        description="Word-swap probing benchmarks for NLI models: build the perturbed SNLI "
        "dataset, score models on it, probe their positional attention, and keep the leaderboard.",
    )
    parser.add_argument("--version", action=VersionAction)
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=CommandParser)
    runs = next((word for word in argv if not word.startswith("-")), None) if argv is not None else None
    for name, command in COMMANDS.items():
        if argv is None or name == runs:
            getattr(importlib.import_module(f"{__package__}.{command.module}"), command.function)(subparsers)
        else:
            subparsers.add_parser(name, help=command.help, add_help=False)
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
    eval and probe load their checkpoints like any other; deferred because it imports transformers: a command
    that loads models calls it once its options are checked, so that a bad option is refused at once."""
    import swapbench.zoo.modeling  # noqa: F401


def _report(err: SwapbenchError) -> int:
    """The error, printed; rich is imported here, where something is printed: --help needs none of it."""
    from rich.console import Console
    from rich.markup import escape

    Console(stderr=True, soft_wrap=True).print(f"[bold red]error:[/] {escape(str(err))}", highlight=False)
    return 2


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    quick = quick_parser(argv)  # `COMMAND --help` from help_texts.json, without the options' imports
    if quick is not None:
        quick.print_help()
        quick.exit()  # as argparse's own --help does
    try:  # the options list the registries, which load plugins: one that fails is reported as any error
        args = make_parser(argv).parse_args(argv)
    except SwapbenchError as err:
        return _report(err)
    try:
        with _sigterm_interrupts(), configured(getattr(args, "verbosity", "normal")):
            return args.run(args)
    except SwapbenchError as err:
        return _report(err)
    except KeyboardInterrupt as err:
        from rich.console import Console

        terminated = isinstance(err, Terminated)
        Console(stderr=True, soft_wrap=True).print(
            f"{'terminated' if terminated else 'interrupted'}; the previous output, if any, is unchanged"
        )
        return 128 + (signal.SIGTERM if terminated else signal.SIGINT)


def run() -> None:
    """The `swapbench` program: main(), then the process ends. Before it does, every object is frozen out of the
    cyclic collector's reach (gc.freeze): its last full pass at shutdown walks all that the command made and the
    libraries it loaded (0.2-0.3 s after a build) only to find them still referenced. main() itself leaves the
    collector as it was, for callers that go on (tests, a notebook)."""
    code = main()
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    run()
