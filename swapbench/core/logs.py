"""How swapbench says what it does: standard `logging`, so that a user silences, redirects or timestamps its
messages as those of any other library.

Every module logs on its own logger, `logging.getLogger(__name__)`: "swapbench.evaluation.finetune" and the like,
so that a package area ("swapbench.evaluation", "swapbench.dataset", ...) is one logger a user can set a level on or
attach a handler to. The package itself installs no handler: "swapbench" holds a NullHandler only (swapbench's
__init__), as the logging HOWTO asks of a library, and a program that imports swapbench.api decides where its
messages go (`logging.basicConfig(level=logging.INFO)` shows them).

The command line decides for itself once (`configured`, from commands/main.py): one handler on the "swapbench"
logger, writing to stderr, at INFO by default, DEBUG with --verbose and WARNING with --quiet. On a terminal it is
rich's RichHandler (the level in colour, long lines wrapped under the message, and printed above a progress bar
that is drawn); elsewhere (`2> log.txt`) a plain line each, the message alone, with "warning: " or "error: " before
one of those levels, so that a log file is read and searched as before. Messages are plain text, never rich markup.

What a command prints as its output (the results table, the leaderboard's verdicts) is no log message and stays on
stdout; progress bars keep their own console (core/progress.py).
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator

ROOT = "swapbench"
LEVELS = {"quiet": logging.WARNING, "normal": logging.INFO, "verbose": logging.DEBUG}


class _Stderr(logging.StreamHandler):
    """A StreamHandler on whatever sys.stderr is when a message is written (a test's capture, a redirection made
    after the handler), not on the stream it was made with."""

    def __init__(self) -> None:
        super().__init__()

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value) -> None:  # (StreamHandler sets it; the stream is always sys.stderr's)
        pass


class PlainFormatter(logging.Formatter):
    """The message alone, "warning: " or "error: " before it at those levels: a log file's line."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return text if record.levelno < logging.WARNING else f"{record.levelname.lower()}: {text}"


def make_handler() -> logging.Handler:
    """RichHandler on stderr when stderr is a terminal (rich's own test, which a notebook passes too), else a plain
    line a message."""
    from rich.console import Console

    console = Console(stderr=True)
    if console.is_terminal or console.is_jupyter:
        from rich.logging import RichHandler

        return RichHandler(console=console, show_time=False, show_path=False, markup=False, rich_tracebacks=False)
    handler = _Stderr()
    handler.setFormatter(PlainFormatter("%(message)s"))
    return handler


def configure(verbosity: str = "normal") -> logging.Handler:
    """Send swapbench's messages to stderr at `verbosity` ("quiet", "normal", "verbose"): the command line's one
    handler, which replaces one installed before. Returns the handler."""
    logger = logging.getLogger(ROOT)
    for old in [h for h in logger.handlers if getattr(h, "swapbench_cli", False)]:
        logger.removeHandler(old)
    handler = make_handler()
    handler.swapbench_cli = True
    logger.addHandler(handler)
    logger.setLevel(LEVELS[verbosity])
    return handler


@contextlib.contextmanager
def configured(verbosity: str = "normal") -> Iterator[logging.Handler]:
    """configure() for the length of a command; the logger as it was afterwards, so that a caller that goes on (a
    test, a notebook calling main()) keeps its own settings."""
    logger = logging.getLogger(ROOT)
    handlers, level = list(logger.handlers), logger.level
    try:
        yield configure(verbosity)
    finally:
        logger.handlers[:] = handlers
        logger.setLevel(level)


@contextlib.contextmanager
def errors_only(when: bool = True) -> Iterator[None]:
    """Only errors from swapbench while it runs, when `when`: the helper processes of a distributed run, whose
    main process reports for all of them."""
    if not when:
        yield
        return
    logger = logging.getLogger(ROOT)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)
