"""The leaderboard: `swapbench submit` validates a results file of `swapbench eval` and stores it under
leaderboard/results/; `swapbench leaderboard` rebuilds the Markdown table, the CSV and the static page from them.

    reference.py  the dataset every submission must have been scored on (leaderboard/reference.json)
    migrate.py    older results-schema versions brought up to the current one
    validate.py   every reason to refuse a file, each named
    store.py      normalized file names, storing, loading the board
    table.py      one row per model: the columns of the paper's Table 3, sorting, column means
    markdown.py   README.md and leaderboard.csv
    html.py       index.html: sortable, filterable table in foldable column groups, self-contained (inline CSS,
                  JS and SVG), fitting a phone's screen
    plot.py       the page's plot of Δ shuffle-sr against symmetry, as SVG
    board.py      submitting (validate, store, rebuild) and rebuilding
    command.py    the two subcommands
"""

from pathlib import Path

DEFAULT_BOARD = Path("leaderboard")
RESULTS_DIR = "results"
