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
