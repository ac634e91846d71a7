"""The commands, in the order `swapbench --help` lists them: each one's module and one-line help.

The command line makes the parser of the one command it runs, and lists the others by their line alone, so that
`swapbench --help` or `swapbench build` imports neither torch nor the options of the other commands.
"""

from __future__ import annotations

from typing import NamedTuple


class Command(NamedTuple):
    module: str  # swapbench.commands.<module>, whose add_<function> adds the command's parser
    function: str
    help: str


COMMANDS = {
    "build": Command("build", "add_build", "build the perturbed SNLI (or other NLI) dataset"),
    "probe": Command("probe", "add_probe", "measure the locality and symmetry of a model's positional attention"),
    "eval": Command("evaluate", "add_eval", "score an NLI model on every configuration; fine-tune a base model first"),
    "suite": Command("suite", "add_suite", "score every model of a suite file, resumably, and write the summary"),
    "leak": Command(
        "leak", "add_leak", "per role configuration, how well a hypothesis-only model tells swaps from originals"
    ),
    "curate": Command("curate", "add_curate", "accept or reject shuffle-sr swaps one by one"),
    "submit": Command(
        "leaderboard", "add_submit", "validate a results file of `swapbench eval` and put it on the leaderboard"
    ),
    "leaderboard": Command(
        "leaderboard",
        "add_leaderboard",
        "rebuild the leaderboard (README.md, leaderboard.csv, index.html) from its results",
    ),
    "zoo": Command(
        "zoo", "add_zoo", "train one small encoder per positional encoding and compare their order sensitivity"
    ),
}
