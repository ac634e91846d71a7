"""leaderboard/index.html: one self-contained page (inline CSS, JS and SVG; no network) that opens from disk.

The table sorts by any column (click its header; missing values always sort last) and filters by
positional-encoding family; each model links to its results file; the plot shows Δ shuffle-sr against symmetry.
"""

from __future__ import annotations

from html import escape

from . import RESULTS_DIR
from .plot import plot_svg
from .reference import Reference
from .table import COLUMNS, ROLE_CONFIG, VIEWS, Row, by_view, footer_cells, show

STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 96rem;
       padding: 0 1rem; color: #1d1d1f; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; }
p.lead { color: #555; margin-top: 0; }
.controls { display: flex; gap: 1.5rem; align-items: center; margin: 1rem 0 .5rem; }
table { border-collapse: collapse; width: 100%; }
th, td { padding: .35rem .45rem; border-bottom: 1px solid #e3e3e3; vertical-align: top; }
td a { overflow-wrap: anywhere; }
th { background: #f5f5f7; position: sticky; top: 0; text-align: left; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th button { all: unset; cursor: pointer; font-weight: 600; }
th button:focus-visible { outline: 2px solid #0a66c2; }
th[aria-sort=ascending] button::after { content: " \\25B2"; font-size: .75em; }
th[aria-sort=descending] button::after { content: " \\25BC"; font-size: .75em; }
td.training { color: #555; font-size: .9em; min-width: 9rem; }
.scroll { overflow-x: auto; }
tfoot td { font-style: italic; color: #555; border-top: 2px solid #ccc; }
tbody tr:hover, tbody tr:target { background: #fff8dc; }
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
    return cell.textContent.trim();
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
        const order = numeric ? x - y : x.localeCompare(y);
        if (order !== 0) { return sign * order; }
      }
      return a.dataset.rank - b.dataset.rank;  // ties keep the board's order
    });
    rows.forEach(row => body.appendChild(row));
  }

  headers.forEach((th, index) => th.querySelector("button").addEventListener("click", () => sortBy(index)));
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

  filter.addEventListener("change", applyFilter);
  applyFilter();
})();
"""


def _cells(row: Row) -> str:
    cells = []
    for column in COLUMNS:
        value = row.values[column.key]
        if column.key == "model":
            cells.append(f'<td><a href="{RESULTS_DIR}/{escape(row.file)}">{escape(row.label)}</a></td>')
        elif column.numeric:
            cells.append(f'<td class="num" data-value="{"" if value is None else repr(value)}">'
                         f"{escape(show(column, value))}</td>")
        elif column.key == "training":
            cells.append(f'<td class="training" title="{escape(row.extra["training_detail"])}">'
                         f"{escape(show(column, value))}</td>")
        else:
            cells.append(f'<td class="{column.key}">{escape(show(column, value))}</td>')
    return "".join(cells)


def _footer(rows: list[Row]) -> str:
    cells = []
    for column, (text, note) in zip(COLUMNS, footer_cells(rows)):
        numeric = ' class="num"' if column.numeric else ""
        cells.append(f"<td{numeric}>{escape(text)}{note}</td>")
    return f"<tr>{''.join(cells)}</tr>"


def _table(view: str, rows: list[Row], head: str, start: int) -> str:
    """One label view's table; row ids run over the whole board (the plot links to them), ranks within it."""
    table_id = "board" if view == "3-way" else f"board-{view}"
    body = "\n".join(f'<tr id="row-{start + i}" data-rank="{i}" data-family="{escape(row.family)}">'
                     f"{_cells(row)}</tr>" for i, row in enumerate(rows))
    return f"""<h2>{escape(VIEWS[view][0].upper() + VIEWS[view][1:])}</h2>
<div class="scroll">
<table id="{table_id}" class="board" data-view="{escape(view)}">
<thead><tr>{head}</tr></thead>
<tbody>
{body}
</tbody>
<tfoot>{_footer(rows) if rows else ""}</tfoot>
</table>
</div>"""


def render_html(rows: list[Row], reference: Reference) -> str:
    head = "".join(f'<th{" class=num" if c.numeric else ""} scope="col"><button type="button">{escape(c.header)}'
                   "</button></th>" for c in COLUMNS)
    groups, start = [], 0
    for view, view_rows in (by_view(rows) or {"3-way": []}).items():  # board_rows put each view's rows together
        groups.append(_table(view, view_rows, head, start))
        start += len(view_rows)
    tables = "\n".join(groups)
    families = sorted({row.family for row in rows})
    options = "".join(f'<option value="{escape(f)}">{escape(f)}</option>' for f in families)
    fingerprint = reference.fingerprint_of(reference.configurations)
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
same pairs); sorted by Δ {ROLE_CONFIG}, highest first. Click a header to sort; each model links to its results
file.</p>
<div class="controls">
<label>Positional-encoding family <select id="family"><option value="">all</option>{options}</select></label>
<span id="shown" aria-live="polite"></span>
</div>
{tables}
<p class="note">An empty cell is a configuration the results file does not report; it never enters a mean.
Reference dataset: SNLI 1.0 {escape(reference.split)} built by <code>swapbench build</code> (parser
{escape(reference.parser)}, seed {reference.seed}), fingerprint <code>{escape(fingerprint)}</code>. How the numbers
were made: <a href="README.md">README.md</a>; unrounded figures: <a href="leaderboard.csv">leaderboard.csv</a>.</p>
<figure>
{plot_svg(rows)}
<figcaption>Δ {ROLE_CONFIG} against the symmetry of each model's positional attention: one point per model with
both figures. Click a point to find its row.</figcaption>
</figure>
<script>{SCRIPT}</script>
</body>
</html>
"""
