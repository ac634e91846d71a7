"""`swapbench curate`: judge shuffle-sr's swaps one at a time, original beside swapped, and record the decisions.

It reads the shuffle-sr configuration of a folder that `swapbench build` wrote, and appends each decision to a
JSON-lines selection file (see selection.py) as soon as it is made, so a session can stop at any point and the
next one resumes with the first swap not yet judged. `swapbench build --sr-selection FILE` then keeps only the
accepted swaps.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..core.command_options import CommandOptions, option
from ..core.errors import SwapbenchError
from ..core.selection import Decision, append_decision, read_selection

ANSWERS = {
    "a": "accept",
    "accept": "accept",
    "r": "reject",
    "reject": "reject",
    "s": "skip",
    "skip": "skip",
    "q": "quit",
    "quit": "quit",
}
PROMPT = "a = accept, r = reject, s = skip, q = quit > "


class CurateOptions(CommandOptions):
    dataset: Path = option(positional=True, metavar="DATASET", help="a folder written by `swapbench build`")
    selection: Path = option(
        help="the decisions file, created or extended (give it to `swapbench build --sr-selection`)"
    )
    with_text: bool = option(
        True,
        negative="--without-text",
        help="record only pair id, swapped side and decision, not the sentences (a file to publish)",
    )


def read_rows(dataset: Path, config: str | None = None) -> list[dict]:
    """The rows of `config`, by default the role swap's (whose rows name the swapped side)."""
    import pyarrow.parquet as pq

    from ..variants.role_shuffle import RoleShuffle  # here: the command line starts without the variants

    config = config or RoleShuffle.name

    files = sorted((Path(dataset) / config).glob("*.parquet"))
    if not files:
        raise SwapbenchError(f"{dataset}: no {config} configuration (build it with --variants {config})")
    return [row for f in files for row in pq.read_table(f).to_pylist()]


def curate(
    rows: list[dict], selection: Path, console: Console, ask: Callable[[str], str] | None = None, with_text: bool = True
) -> Counter:
    """Ask about every swap without a current decision; return how many were accepted, rejected and skipped."""
    ask = ask or console.input
    decided = read_selection(selection)
    todo = [r for r in rows if not _current(decided.get(r["pair_id"]), r)]
    console.print(
        f"{len(rows)} swaps: {len(rows) - len(todo)} already decided, {len(todo)} to judge. "
        f"Decisions go to {escape(str(selection))}."
    )
    counts: Counter = Counter()
    for number, row in enumerate(todo, start=1):
        console.print(render(row, number, len(todo)))
        answer = _answer(ask, console)
        if answer == "quit":
            break
        counts[answer] += 1
        if answer in ("accept", "reject"):
            text = (row["premise"], row["hypothesis"]) if with_text else (None, None)
            append_decision(selection, Decision(row["pair_id"], answer, *text, side=row["swapped_side"]))
    total = read_selection(selection)
    accepted = sum(d.accepted for d in total.values())
    console.print(
        f"This session: {counts['accept']} accepted, {counts['reject']} rejected, {counts['skip']} skipped. "
        f"In the file: {accepted} accepted, {len(total) - accepted} rejected."
    )
    return counts


def render(row: dict, number: int, total: int) -> Table:
    side = row["swapped_side"]
    table = Table(
        title=f"{number}/{total}  {escape(row['pair_id'])}",
        show_lines=True,
        expand=True,
        caption=f"verb [bold]{escape(row['verb'])}[/]: agent [cyan]{escape(row['agent']['text'])}[/] "
        f"<-> patient [magenta]{escape(row['patient']['text'])}[/]  "
        f"({escape(row['labeler'])}; {escape(', '.join(row['tags']))})",
    )
    table.add_column("", style="dim", no_wrap=True)
    table.add_column("original")
    table.add_column("swapped")
    for name in ("premise", "hypothesis"):
        swapped = escape(row[name])
        table.add_row(name, escape(row[f"original_{name}"]), f"[bold yellow]{swapped}[/]" if name == side else swapped)
    return table


def _answer(ask: Callable[[str], str], console: Console) -> str:
    while True:
        try:
            reply = ask(PROMPT)
        except EOFError:  # input ran out: stop, keeping what was decided
            return "quit"
        answer = ANSWERS.get(reply.strip().lower())
        if answer:
            return answer
        console.print(
            f"{escape(repr(reply.strip()))} is not an answer: type a (accept), r (reject), s (skip) or "
            "q (quit), then Enter.",
            highlight=False,
        )


def _current(decision: Decision | None, row: dict) -> bool:
    """A decision counts only for the swap it was made on: a rebuilt, different swap is asked about again."""
    return decision is not None and decision.judged(row["premise"], row["hypothesis"], row["swapped_side"])
