"""What swapbench logged, as the command line writes it to a log file: for tests that call the API, where messages
go to the "swapbench" logger and no handler of the command line's writes them to stderr."""

from __future__ import annotations

import logging

from swapbench.core.logs import PlainFormatter


def logged(caplog) -> str:
    """The messages logged since the last call (caplog set to INFO on "swapbench" first), one plain line each."""
    text = "\n".join(PlainFormatter("%(message)s").format(record) for record in caplog.records)
    caplog.clear()
    return text


def log_info(caplog) -> None:
    """Capture swapbench's messages from INFO up (the command line's default level)."""
    caplog.set_level(logging.INFO, logger="swapbench")
