"""The terminal table of a results file: accuracies, Δ and its interval per configuration, and per slice tag."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..core.text import percent, points, tag_sort_key
from ..results.schema import MIN_SLICE_CLUSTERS, MIN_SLICE_PAIRS, EvalResults


# The terminal's units: accuracies and rates in percent, Δ and its interval in percentage points. The results file
# holds the same figures as fractions.
def _paired_cells(r) -> list[str]:
    """n, clusters, orig, pert, Δ, 95% CI, p of a configuration or a slice."""
    return [str(r.n), "" if r.clusters is None else str(r.clusters), percent(r.accuracy_original),
            percent(r.accuracy_perturbed), points(r.delta),
            f"[{points(r.delta_ci.low)}, {points(r.delta_ci.high)}]", f"{r.mcnemar.p_value:.2g}"]


PAIRED_HEADERS = ("n", "clusters", "orig %", "pert %", "Δ pp", "95% CI", "p")
PAIRED_CAPTION = ("orig, pert: accuracy (%) on the original and perturbed pairs; Δ = pert - orig in percentage "
                  "points, its 95% bootstrap interval and p-value, both clustered by premise (pairs sharing a "
                  "premise resampled and sign-flipped together: clustered exact McNemar)")


def results_table(results: EvalResults) -> Table:
    model = results.model
    pe = model.positional_encoding
    how = " (fine-tuned here)" if model.fine_tuned else ""
    if model.hypothesis_only:
        how = " (fine-tuned here on the hypotheses alone: --hypothesis-only)"
    if model.prompt:
        how = f" (prompted, {model.prompt.shots}-shot)"
    title = f"{model.name_or_path}{how} · {model.architecture_kind} · positions: {pe.family} ({pe.kind})"
    if model.probe:
        symmetry = "n/a (causal)" if model.probe.symmetry is None else f"{model.probe.symmetry:.1%}"
        title += f" · locality {model.probe.locality:.1%}, symmetry {symmetry}"
    caption = (f"{results.dataset.path} [{results.dataset.split}], {model.label_view} labels. {PAIRED_CAPTION}; "
               "non-ent: perturbed pairs predicted non-entailment (%)")
    table = Table(title=escape(title), caption=escape(caption), box=box.SIMPLE_HEAD)
    show_rate = any(r.non_entailment_rate is not None for r in results.results.values())
    table.add_column("config", no_wrap=True)
    for header in PAIRED_HEADERS + (("non-ent %",) * show_rate):
        table.add_column(header, justify="right", no_wrap=True)
    for name, r in results.results.items():
        cells = [name, *_paired_cells(r)]
        if show_rate:
            cells.append("" if r.non_entailment_rate is None else percent(r.non_entailment_rate))
        table.add_row(*cells)
    return table


SMALL_MARK = "†"


def slices_tables(results: EvalResults) -> list[Table]:
    """One narrow table per configuration (80 columns hold it), its slices in natural order (words:9 before
    words:10); a slice too small to read is dimmed and marked."""
    tables = []
    for name, r in results.results.items():
        if not r.slices:
            continue
        table = Table(title=f"Slices of {escape(name)}", box=box.SIMPLE_HEAD, collapse_padding=True,
                      pad_edge=False, title_justify="left")
        table.add_column("slice", overflow="fold")  # a long tag folds; the figures are never cut
        for header in PAIRED_HEADERS:
            table.add_column(header, justify="right", no_wrap=True)
        for tag in sorted(r.slices, key=tag_sort_key):
            s = r.slices[tag]
            cells = _paired_cells(s)
            cells[-1] = _slice_p(s.mcnemar.p_value)
            table.add_row(escape(tag) + (f" {SMALL_MARK}" if s.small else ""), *cells,
                          style="dim" if s.small else None)
        tables.append(table)
    return tables


SLICES_CAPTION = (f"A row counts under each of its tags; columns as above. {SMALL_MARK} too small to read: fewer "
                  f"than {MIN_SLICE_PAIRS} pairs or {MIN_SLICE_CLUSTERS} clusters.")


def _slice_p(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.2g}"


def health_warning(results: EvalResults) -> str | None:
    """The terminal's words for a model at chance, or None."""
    health = results.health
    if not health.at_chance:
        return None
    return ("This model is at chance: its figures are not a result to report, and the leaderboard refuses them. "
            + "; ".join(health.reasons) + ".")


def print_table(results: EvalResults, console: Console | None = None, slices: bool = False) -> None:
    console = console or Console()
    if not console.is_terminal:  # a log file: rich would squeeze the table into 80 columns
        console.width = max(console.width, 120)
    console.print(results_table(results))
    tables = slices_tables(results) if slices else []
    for table in tables:
        console.print(table)
    if tables:
        console.print(SLICES_CAPTION)
    warning = health_warning(results)
    if warning:
        console.print(f"[bold red]WARNING[/]: {escape(warning)}")
