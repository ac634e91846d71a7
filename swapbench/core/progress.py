"""The one progress bar every long step shows: what it does, the bar, done of total, time so far."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


def progress_bar(*, enabled: bool = True, console: Console | None = None) -> Progress:
    """A rich Progress to use as a context manager; `enabled` off draws nothing (--no-progress, no terminal)."""
    return Progress(TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), console=console, disable=not enabled)
