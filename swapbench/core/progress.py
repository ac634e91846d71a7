"""The one progress display every long step shows, so that a run says it is alive and how long it has left.

On a terminal it is a rich bar: what it does, the bar, done of total, the time so far and the time left. Where
the bar is not drawn (stderr sent to a log file, `2> log.txt`), a step that asks for `lines` gets a plain line
instead at most every LINE_SECONDS, and one when it is done, with the count, the pace, the time so far and the time
left: without them a log shows nothing for the minutes or hours a scoring takes. A task added with `estimate=True`
also says once, on either, how long it takes in all, from its pace measured after its first advance (a warm-up batch,
or the pairs a cache gave back at once) over at least ESTIMATE_SECONDS.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from .logs import ROOT

LINE_SECONDS = 30.0  # a plain line at most this often
ESTIMATE_SECONDS = 10.0  # the pace is measured over at least this long before the estimate is said


def format_duration(seconds: float) -> str:
    """ "2 h 05 min", "14 min", "40 s": a time to the precision a reader plans with."""
    if seconds >= 3600:
        hours, minutes = divmod(round(seconds / 60), 60)
        return f"{hours} h {minutes:02d} min"
    if seconds >= 60:
        return f"{round(seconds / 60)} min"
    return f"{max(round(seconds), 1)} s"


def format_pace(per_second: float) -> str:
    """ "5,380", "41.2", "0.25": a count a second, to three figures at least."""
    return f"{per_second:,.0f}" if per_second >= 100 else f"{per_second:.3g}"


@dataclass
class _Watch:
    """What a task's lines and estimate need: its unit, whether to estimate, and what was measured so far."""

    unit: str
    estimate: bool
    last_line: float
    mark: tuple[float, float] | None = None  # (time, completed) after the first advance
    said: bool = False


class SteadyProgress(Progress):
    """rich's Progress, with plain lines at steady intervals where no bar is drawn (`lines`) and a one-time
    estimate for the tasks that ask for one; the same calls as Progress (add_task, advance, update)."""

    def __init__(
        self,
        *columns,
        lines: bool = False,
        every_seconds: float | None = None,
        estimate_after: float | None = None,
        **kwargs,
    ):
        super().__init__(*columns, **kwargs)
        if lines and not (self.console.is_terminal or self.console.is_jupyter):  # a notebook draws the bar
            self.disable = True  # rich would print the bar once, at the end
        self.lines = lines and self.disable  # a bar drawn says it all
        self.every_seconds = LINE_SECONDS if every_seconds is None else every_seconds
        self.estimate_after = ESTIMATE_SECONDS if estimate_after is None else estimate_after
        self._watches: dict[TaskID, _Watch] = {}

    def add_task(
        self,
        description: str,
        start: bool = True,
        total: float | None = 100.0,
        completed: int = 0,
        visible: bool = True,
        *,
        unit: str = "",
        estimate: bool = False,
        **fields,
    ) -> TaskID:
        """Progress.add_task; `unit` names what is counted ("pairs"), `estimate` asks for the one-time estimate."""
        task = super().add_task(description, start=start, total=total, completed=completed, visible=visible, **fields)
        self._watches[task] = _Watch(unit=unit, estimate=estimate, last_line=self.get_time())
        return task

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        self._tick(task_id)

    def update(self, task_id: TaskID, **changes) -> None:
        super().update(task_id, **changes)
        if "advance" in changes or "completed" in changes:
            self._tick(task_id)

    def _tick(self, task_id: TaskID) -> None:
        watch = self._watches.get(task_id)
        if watch is None or not (watch.estimate or self.lines):
            return
        task, now = self._tasks[task_id], self.get_time()
        done = task.completed
        if watch.mark is None:  # the first advance: a warm-up, or what a cache gave back, is no pace
            watch.mark = (now, done)
        since, measured = now - watch.mark[0], done - watch.mark[1]
        pace = measured / since if since > 0 and measured > 0 else None
        left = (task.total - done) / pace if pace and task.total else None
        if watch.estimate and not watch.said and pace and since >= self.estimate_after and left:
            watch.said = True
            self._say(
                f"{self._what(task)}: about {format_duration((task.elapsed or 0) + left)} in all, measured "
                f"{format_pace(pace)} {watch.unit or 'items'} a second over {measured:,.0f} {watch.unit} "
                "after the first batch"
            )
        finished = task.total is not None and done >= task.total
        if self.lines and (now - watch.last_line >= self.every_seconds or finished):  # the last line: its total
            watch.last_line = now
            self._say(self.describe(task, watch.unit, pace, left))

    def describe(self, task, unit: str, pace: float | None, left: float | None) -> str:
        """e.g. "scoring: 12,800 of 127,766 pairs (10%), 41.2 pairs a second, 5 min so far, about 46 min left"."""
        total = f" of {task.total:,.0f}" if task.total else ""
        share = f" ({task.completed / task.total:.0%})" if task.total else ""
        parts = [f"{self._what(task)}: {task.completed:,.0f}{total}{' ' + unit if unit else ''}{share}"]
        if pace:
            parts.append(f"{format_pace(pace)} {unit or 'items'} a second")
        parts.append(f"{format_duration(task.elapsed or 0)} so far")
        if left:
            parts.append(f"about {format_duration(left)} left")
        return ", ".join(parts)

    @staticmethod
    def _what(task) -> str:
        return Text.from_markup(task.description).plain

    def _say(self, line: str) -> None:
        if logging.getLogger(ROOT).level >= logging.WARNING:  # --quiet set it; unset (a library call) says all
            return
        self.console.print(Text(line), highlight=False, soft_wrap=True)  # plain text: one line a log is searched by


def progress_bar(
    *, enabled: bool = True, console: Console | None = None, lines: bool = False, **settings
) -> SteadyProgress:
    """A SteadyProgress to use as a context manager. `enabled` off draws no bar (--no-progress, no terminal);
    `lines` then gives plain lines at steady intervals instead (a log file). `settings`: every_seconds,
    estimate_after, get_time (SteadyProgress, rich's Progress)."""
    return SteadyProgress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        lines=lines,
        disable=not enabled,
        **settings,
    )
