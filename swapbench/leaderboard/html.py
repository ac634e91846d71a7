"""leaderboard/index.html: one self-contained page (inline CSS, JS and SVG; no network) that opens from disk.

The table is listed by model name and sorts by any column (click its header; missing values always sort last),
filters by positional-encoding family; each model links to its results file and opens its details (every
configuration and slice of its results file); the paper's reported rows are marked; the plot shows the role
sensitivity of the first role configuration against degree symmetry for every row that has both.
"""

from __future__ import annotations

from html import escape

from ..core.text import percent, plus_minus, tag_sort_key
from ..results.schema import ConfigurationResult
from . import RESULTS_DIR
from .plot import plot_svg
from .reference import Reference
from .store import model_label
from .table import VIEWS, Board, Column, Row, by_view, cell_text, interval_text, show, weights_text

STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 110rem;
       padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; }
p.lead { color: #555; margin-top: 0; }
.controls { display: flex; gap: 1.5rem; align-items: center; margin: 1rem 0 .5rem; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: .35rem .45rem; border-bottom: 1px solid #e3e3e3; vertical-align: top; }
td.model { white-space: nowrap; }
td.model a, td.model span.name { white-space: nowrap; }
th { background: #f5f5f7; position: sticky; top: 0; text-align: left; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th { cursor: pointer; }
th button { all: unset; display: block; width: 100%; cursor: pointer; font-weight: 600; }
th button:focus-visible, td button:focus-visible { outline: 2px solid #0a66c2; }
th[aria-sort=ascending] button::after { content: " \\25B2"; font-size: .75em; }
th[aria-sort=descending] button::after { content: " \\25BC"; font-size: .75em; }
td.training { color: #555; font-size: .9em; min-width: 12rem; overflow-wrap: normal; word-break: normal;
              hyphens: none; }
span.ci { display: block; color: #777; font-size: .75em; }
button.details { font-size: .75em; margin-left: .4rem; cursor: pointer; }
tr.reported td { background: #f4f4f6; color: #555; font-style: italic; }
span.badge { display: inline-block; margin-left: .4rem; padding: 0 .35rem; border: 1px solid #bbb;
             border-radius: .6rem; font-size: .72em; font-style: normal; white-space: nowrap; }
.scroll { overflow-x: auto; }
tbody tr:hover, tbody tr:target { background: #fff8dc; }
details.model-details { margin: .6rem 0; padding: .4rem .8rem; border: 1px solid #e3e3e3; border-radius: .3rem; }
details.model-details[open] { background: #fcfcfd; }
details.model-details table { width: auto; margin: .4rem 0 .8rem; }
figure { margin: 2rem 0; } figure svg { max-width: 100%; height: auto; }
figcaption, .note { color: #555; font-size: .9em; }
"""

SCRIPT = """
(function () {
  const filter = document.getElementById("family");
  const shown = document.getElementById("shown");
  const tables = Array.from(document.querySelectorAll("table.board"));
  tables.forEach(table => setUp(table));

  function setUp(table) {
  const body = table.tBodies[0];
  const headers = Array.from(table.tHead.rows[0].cells);

  function cellValue(row, index, numeric) {
    const cell = row.cells[index];
    if (numeric) { return cell.dataset.value === "" ? null : parseFloat(cell.dataset.value); }
    return cell.dataset.text !== undefined ? cell.dataset.text : cell.textContent.trim();
  }

  function sortBy(index) {
    const th = headers[index];
    const numeric = th.classList.contains("num");
    const direction = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    headers.forEach(h => h.removeAttribute("aria-sort"));
    th.setAttribute("aria-sort", direction);
    const sign = direction === "ascending" ? 1 : -1;
    const rows = Array.from(body.rows);
    rows.sort((a, b) => {
      const x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
      if (x === null || y === null || x === "" || y === "") {  // missing values last, in either direction
        const missingX = x === null || x === "", missingY = y === null || y === "";
        if (missingX !== missingY) { return missingX ? 1 : -1; }
      } else {
        const order = numeric ? x - y : x.localeCompare(y, undefined, {sensitivity: "base"});
        if (order !== 0) { return sign * order; }
      }
      return a.dataset.rank - b.dataset.rank;  // ties keep the board's order
    });
    rows.forEach(row => body.appendChild(row));
  }

  // The whole header cell sorts, not only its text; the button inside keeps it reachable by keyboard (Tab, then
  // Enter or Space), and its click reaches the cell's listener.
  headers.forEach((th, index) => th.addEventListener("click", () => sortBy(index)));
  }

  function applyFilter() {
    const family = filter.value;
    let count = 0, total = 0;
    tables.forEach(table => Array.from(table.tBodies[0].rows).forEach(row => {
      const keep = family === "" || row.dataset.family === family;
      row.hidden = !keep;
      count += keep ? 1 : 0;
      total += 1;
    }));
    document.querySelectorAll("svg [id^='pt-']").forEach(point => {
      const keep = family === "" || point.id.startsWith("pt-" + family + "-");
      point.style.opacity = keep ? "1" : "0.12";
    });
    shown.textContent = count + " of " + total + " models shown";
  }

  function openDetails(id) {
    const details = document.getElementById(id);
    if (!details) { return; }
    details.open = true;
    details.scrollIntoView({block: "start"});
  }

  document.querySelectorAll("button.details").forEach(button =>
    button.addEventListener("click", () => openDetails(button.dataset.details)));
  if (location.hash.startsWith("#details-")) { openDetails(location.hash.slice(1)); }
  filter.addEventListener("change", applyFilter);
  applyFilter();
})();
"""


def _model_cell(row: Row, index: int) -> str:
    if row.reported:
        return (f'<td class="model" data-text="{escape(row.label)}"><span class="name">{escape(row.label)}</span>'
                f'<span class="badge">{escape(row.reported)}</span></td>')
    return (f'<td class="model" data-text="{escape(row.label)}"><a href="{RESULTS_DIR}/{escape(row.file)}">'
            f'{escape(row.label)}</a><button type="button" class="details" data-details="details-{index}" '
            f'aria-label="details of {escape(row.label)}">details</button></td>')


def _cells(columns: list[Column], row: Row, index: int) -> str:
    cells = []
    for column in columns:
        value = row.values.get(column.key)
        if column.key == "model":
            cells.append(_model_cell(row, index))
        elif column.numeric:
            interval = interval_text(row, column)
            title = f' title="95% interval {escape(interval)}"' if interval else (
                ' title="reported in the paper; no interval"' if row.reported and value is not None else "")
            extra = f'<span class="ci">{escape(interval)}</span>' if interval else ""
            cells.append(f'<td class="num" data-value="{"" if value is None else repr(value)}"{title}>'
                         f"{escape(cell_text(row, column))}{extra}</td>")
        elif column.key == "training":
            cells.append(f'<td class="training" title="{escape(str(row.extra["training_detail"]))}">'
                         f"{escape(show(column, value))}</td>")
        else:
            cells.append(f'<td class="{column.key}">{escape(show(column, value))}</td>')
    return "".join(cells)


def _table(board: Board, view: str, rows: list[Row], start: int) -> str:
    """One label view's table; row ids run over the whole board (the plot links to them), ranks within it."""
    head = "".join(f'<th{" class=num" if c.numeric else ""} scope="col"'
                   f'{f" title={chr(34)}{escape(c.help)}{chr(34)}" if c.help else ""}>'
                   f'<button type="button">{escape(c.header)}</button></th>' for c in board.columns)
    table_id = "board" if view == "3-way" else f"board-{view}"
    body = "\n".join(f'<tr id="row-{start + i}" data-rank="{i}" data-family="{escape(row.family)}"'
                     f'{" class=reported" if row.reported else ""}>{_cells(board.columns, row, start + i)}</tr>'
                     for i, row in enumerate(rows))
    return f"""<h2>{escape(VIEWS[view][0].upper() + VIEWS[view][1:])}</h2>
<div class="scroll">
<table id="{table_id}" class="board" data-view="{escape(view)}">
<thead><tr>{head}</tr></thead>
<tbody>
{body}
</tbody>
</table>
</div>"""


def _percent(value: float | None) -> str:
    return "" if value is None else percent(value)


def _role_cells(figures, adjusted: bool = False) -> str:
    """Role sensitivity, its interval and its p-value as three cells (four with `adjusted`: a slice's p-value
    adjusted over its configuration's slices); empty where the figures have none (not a role configuration, or a
    file migrated from before they were recorded)."""
    role = figures.role_sensitivity
    if role is None:
        return "<td></td>" * (4 if adjusted else 3)
    points = Column("role", "", "delta")
    interval = "" if role.ci is None else f"[{show(points, role.ci.low)}, {show(points, role.ci.high)}]"
    p_values = [None if role.test is None else role.test.p_value] + (
        [None if role.test is None else role.test.p_adjusted] if adjusted else [])
    return f"<td class=num>{show(points, role.value)}</td><td class=num>{interval}</td>" + "".join(
        f"<td class=num>{_p(p)}</td>" for p in p_values)


def _p(p_value: float | None) -> str:
    return "" if p_value is None else f"{p_value:.3g}"


SLICES_NOTE = ("Slices are exploratory: a results file holds many, and read one by one some cross any threshold by "
               "chance. Each p-value is shown with its value adjusted (Holm) over every test of its "
               "configuration's slices; read a slice by the adjusted one.")


def _distance(figures: ConfigurationResult) -> str:
    """The mean distance the configuration's shuffles move words per row; empty where not recorded."""
    return "" if figures.displacement is None else f"{figures.displacement.distance.mean:.2f}"


def _seeds(results) -> list[str]:
    """Each fine-tuning's figures of a multi-seed row (point estimates: its validation accuracy, Δ of every
    configuration and role sensitivity of every role configuration); none for one fine-tuning."""
    variance = results.seed_variance
    if variance is None:
        return []
    points = Column("d", "", "delta")
    names = list(variance.spread)
    roles = [name for name in names if variance.spread[name].role_sensitivity is not None]
    head = "".join(f"<th class=num>Δ {escape(name)}</th>" for name in names) + "".join(
        f"<th class=num>Role sensitivity {escape(name)}</th>" for name in roles)
    lines = [f"<table class=\"seeds\"><caption>The {len(variance.runs)} fine-tunings whose mean the figures above "
             "are (point estimates), and their mean ± standard deviation</caption><thead><tr><th>Seed</th>"
             f"<th class=num>Validation</th>{head}</tr></thead><tbody>"]
    for run in variance.runs:
        cells = [f"<td class=num>{show(points, run.results[name].delta)}</td>" for name in names]
        cells += [f"<td class=num>{show(points, run.results[name].role_sensitivity)}</td>" for name in roles]
        lines.append(f"<tr><td>{run.seed}</td><td class=num>{_percent(run.fine_tuning.best_validation_accuracy)}</td>"
                     f"{''.join(cells)}</tr>")
    spreads = [variance.spread[name].delta for name in names] + [variance.spread[name].role_sensitivity
                                                                  for name in roles]
    accuracy = variance.validation_accuracy
    lines.append(f"<tr><td>mean ± sd</td><td class=num>{_percent(accuracy.mean)} {plus_minus(accuracy.std)}</td>"
                 + "".join(f"<td class=num>{show(points, spread.mean)} {plus_minus(spread.std)}</td>"
                           for spread in spreads) + "</tr></tbody></table>")
    return lines


def _details(row: Row, index: int) -> str:
    """Every configuration of the row's results file, and every slice of each."""
    r = row.results
    model = r.model
    show_delta = Column("d", "", "delta")
    weights = weights_text(model)
    lines = [f'<details id="details-{index}" class="model-details"><summary>{escape(row.label)}</summary>',
             f"<p>{escape(model_label(model.name_or_path))} · revision {escape(str(model.revision))} · "
             f"{escape(weights) + ' · ' if weights else ''}"
             f"{escape(model.architecture)} ({escape(model.model_type)}), {model.num_parameters:,} parameters · "
             f"{escape(model.label_view)} labels · {escape(str(row.extra['training_detail']))}</p>",
             "<table><thead><tr><th>Configuration</th><th class=num>n</th><th class=num>clusters</th>"
             "<th class=num>Original</th><th class=num>Perturbed</th><th class=num>Δ</th>"
             "<th class=num>95% interval</th><th class=num>McNemar p</th><th class=num>Non-entailment %</th>"
             "<th class=num>Role sensitivity</th><th class=num>95% interval</th><th class=num>Role-blind p</th>"
             '<th class=num title="mean over the scored rows of the sum of |new position - old position| of the '
             "premise's tokens\">Distance / row</th></tr></thead><tbody>"]
    for name, f in r.results.items():
        lines.append(f"<tr><td>{escape(name)}</td><td class=num>{f.n}</td><td class=num>{f.clusters or ''}</td>"
                     f"<td class=num>{_percent(f.accuracy_original)}</td>"
                     f"<td class=num>{_percent(f.accuracy_perturbed)}</td>"
                     f"<td class=num>{show(show_delta, f.delta)}</td><td class=num>[{show(show_delta, f.delta_ci.low)}, "
                     f"{show(show_delta, f.delta_ci.high)}]</td><td class=num>{f.mcnemar.p_value:.3g}</td>"
                     f"<td class=num>{_percent(f.non_entailment_rate)}</td>{_role_cells(f)}"
                     f"<td class=num>{_distance(f)}</td></tr>")
    lines.append("</tbody></table>")
    lines += _seeds(r)
    lines.append(f'<table class="slices"><caption>Slices (exploratory). {escape(SLICES_NOTE)}</caption>'
                 "<thead><tr><th>Configuration</th><th>Slice</th><th class=num>n</th>"
                 "<th class=num>Original</th><th class=num>Δ</th><th class=num>95% interval</th>"
                 "<th class=num>McNemar p</th><th class=num>adjusted</th>"
                 "<th class=num>Role sensitivity</th><th class=num>95% interval</th><th class=num>Role-blind p</th>"
                 "<th class=num>adjusted</th><th>Note</th></tr></thead><tbody>")
    for name, f in r.results.items():
        for tag, s in sorted((f.slices or {}).items(), key=lambda item: tag_sort_key(item[0])):
            lines.append(f"<tr><td>{escape(name)}</td><td>{escape(tag)}</td><td class=num>{s.n}</td>"
                         f"<td class=num>{_percent(s.accuracy_original)}</td>"
                         f"<td class=num>{show(show_delta, s.delta)}</td><td class=num>[{show(show_delta, s.delta_ci.low)}, "
                         f"{show(show_delta, s.delta_ci.high)}]</td><td class=num>{_p(s.mcnemar.p_value)}</td>"
                         f"<td class=num>{_p(s.mcnemar.p_adjusted)}</td>{_role_cells(s, adjusted=True)}"
                         f"<td>{'too small to read' if s.small else ''}</td></tr>")
    lines.append("</tbody></table></details>")
    return "\n".join(lines)


def render_html(board: Board, reference: Reference) -> str:
    groups, start, details = [], 0, []
    for view, view_rows in (by_view(board.rows) or {"3-way": []}).items():  # make_board put each view together
        groups.append(_table(board, view, view_rows, start))
        details += [_details(row, start + i) for i, row in enumerate(view_rows) if row.results is not None]
        start += len(view_rows)
    tables = "\n".join(groups)
    families = sorted({row.family for row in board.rows})
    options = "".join(f'<option value="{escape(f)}">{escape(f)}</option>' for f in families)
    fingerprint = reference.fingerprint_of(reference.configurations)
    plotted = escape(board.plotted_name)
    reported = board.reported
    reported_note = "" if reported is None else (
        f'<p class="note">Rows in grey italics, marked “{escape(reported.note)}”, are figures copied from '
        f"{escape(reported.citation)} (<code>reported.json</code>); they enter no figure of the board's own rows. "
        f"{escape(reported.construction)}</p>")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>swapbench leaderboard</title>
<style>{STYLE}</style>
</head>
<body>
<h1>swapbench leaderboard</h1>
<p class="lead">How NLI models take word swaps, after Table 3 of Chen, Varoquaux and Suchanek, <i>The Locality and
Symmetry of Positional Encodings</i> (Findings of EMNLP 2023). Accuracies in %, Δ in points (perturbed − original,
same pairs) with its 95% interval and its number of pairs n below it. A role configuration's headline is its role
sensitivity: the share of its swaps predicted non-entailment minus that of their originals, in points (0 for a
model blind to roles, whatever its label prior), with its interval; its Δ mixes the label prior in. Listed by
model name: no column ranks the models (sorting by Δ would reward a model that collapses to one answer, as it loses
nothing when words move), and there is no mean row. Click a header to sort; each model links to its results file
and opens its details.</p>
<div class="controls">
<label>Positional-encoding family <select id="family"><option value="">all</option>{options}</select></label>
<span id="shown" aria-live="polite"></span>
</div>
{tables}
{reported_note}
<p class="note">An empty cell is a configuration the results file does not report. Reference dataset: SNLI 1.0
{escape(reference.split)} built by <code>swapbench build</code> (parser {escape(reference.parser)}, seed
{reference.seed}, shuffle scope {escape(reference.shuffle_scope)}), fingerprint <code>{escape(fingerprint)}</code>.
How the numbers were made:
<a href="README.md">README.md</a>; unrounded figures: <a href="leaderboard.csv">leaderboard.csv</a>.</p>
<figure>
{plot_svg(board)}
<figcaption>Role sensitivity {plotted} (points: the share of swaps predicted non-entailment minus that of their
originals; 0 = blind to roles) against the degree symmetry of each model's positional attention (swapbench's
figure, continuous in the left/right gap; not the paper's symmetry, which any asymmetry at all puts near 0.43): one
point per row with both figures; rows without a degree symmetry are named under the axes. The paper reported
neither figure, so its rows have no point. Click a point to find its row.</figcaption>
</figure>
<h2>Details</h2>
{"".join(details) if details else '<p class="note">No results on the board yet.</p>'}
<script>{SCRIPT}</script>
</body>
</html>
"""
