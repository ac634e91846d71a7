"""Benchmark `swapbench build` against its unavoidable work, side by side in one process.

- ptb backend: the build's wall time / the time to read the file and parse every bracketed tree (goal <= 1.2).
- spacy backend: the build's wall time, parse cache empty / spaCy's `nlp.pipe` over every premise once,
  on a freshly loaded pipeline with the same components (goal <= 0.5, thanks to parsing each distinct premise
  once, and to applying the attribute ruler by table lookup: parsing/attribute_rules.py). Also timed: `nlp.pipe`
  over the distinct premises alone, the part of the baseline that a build avoids only through that lookup.
- shuffle-sr: the shuffle-sr build's wall time (ptb backend, default role labeler) / spaCy's `nlp.pipe` over the
  distinct sentences it labels (entailment pairs' premises and hypotheses), on a freshly loaded pipeline
  (goal <= 1.5). With the spacy backend (parse cache empty) the baseline is the distinct sentences parsed or
  labelled: each is run through the pipeline once, whichever of the two reads it.
- commands: `swapbench --help` (goal <= 0.5 s) and `swapbench build --parser ptb` of the four shuffles (goal: its
  build <= 1.5 s, the ptb line's build time), each as a whole process, imports and shutdown included, wall time.
Also prints the spaCy projection's agreement with the PTB trees.

Each round runs the baseline, then the build, so both see the same machine; the ratio is of the medians, and
its spread is the range of the rounds' own ratios. A shared machine's speed can drift by 10% within minutes, which
a baseline measured once would put into the ratio. Every build is a fresh one: nothing a build computes (parses
aside, whose cache is empty in the spacy lines) outlives it, shuffle-sr's role labels included.

    python scripts/bench_build.py --source ../shared/data/snli_1.0 --split test [--clock cpu]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from nltk import Tree
from rich.console import Console

from swapbench.dataset.pipeline import build, build_options
from swapbench.parsing.spacy_parser import load_english
from swapbench.sources import find_split_file
from swapbench.sources.snli import SNLI

# The shuffles, whose unavoidable work is parsing; shuffle-sr adds a role labeler and is timed on its own.
VARIANTS = ["shuffle-3", "shuffle-4", "shuffle-5", "shuffle-random"]

# What a run's time is: wall time, or with --clock cpu the process's CPU time, which other jobs on a shared
# machine do not inflate (each run is still compared with its own baseline).
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
CLOCK = [time.perf_counter]

QUIET = Console(file=open("/dev/null", "w") if sys.platform != "win32" else None, quiet=True)


def timed(function) -> tuple[float, object]:
    start = CLOCK[0]()
    result = function()
    return CLOCK[0]() - start, result


class Rounds(dict):
    """Each run's times over the rounds, by name."""

    def median(self, name: str) -> float:
        return statistics.median(self[name])

    def ratio(self, name: str, baseline: str = "baseline") -> str:
        """The ratio of the medians, and the range of the rounds' own ratios."""
        rounds = [a / b for a, b in zip(self[name], self[baseline])]
        return f"{self.median(name) / self.median(baseline):.2f} (rounds {min(rounds):.2f}-{max(rounds):.2f})"


def side_by_side(runs: dict, repeat: int) -> tuple[Rounds, dict[str, object]]:
    """Each of `runs` in turn, `repeat` times over: the times of each, and its last result.

    A run is a function returning (seconds, result), so that it can leave its set-up out of the time.
    """
    times = Rounds({name: [] for name in runs})
    results: dict[str, object] = {}
    for _ in range(repeat):
        for name, run in runs.items():
            elapsed, results[name] = run()
            times[name].append(elapsed)
    return times, results


def spacy_parse(texts: list[str]) -> tuple[float, int]:
    """nlp.pipe over `texts`, timed from a freshly loaded pipeline, as the build has one: a pipeline that has
    seen the texts before tokenizes them from its cache, about 5% faster."""
    nlp = load_english()
    return timed(lambda: sum(1 for _ in nlp.pipe(texts, batch_size=256)))


def read_and_parse_trees(path: Path) -> int:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    trees = [Tree.fromstring(row["sentence1_parse"]) for row in rows if row["gold_label"] != "-"]
    return len(trees)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", required=True, help="SNLI 1.0 folder or file")
    parser.add_argument("--split", default="test")
    parser.add_argument("--repeat", type=int, default=5, help="rounds of alternating runs (medians taken)")
    parser.add_argument("--skip-spacy", action="store_true")
    parser.add_argument("--skip-commands", action="store_true", help="leave out the whole-process timings")
    parser.add_argument(
        "--clock",
        choices=CLOCKS,
        default="wall",
        help="wall time, or the process's CPU time (steadier on a shared machine) (default: wall)",
    )
    args = parser.parse_args()
    CLOCK[0] = CLOCKS[args.clock]
    path = find_split_file(SNLI, Path(args.source), args.split).resolve()  # the commands run in another folder
    console = Console()
    console.print(f"times: {args.clock} clock, median of {args.repeat} rounds")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        ptb_options = build_options(
            split=args.split, source=str(path), out=tmp / "ptb", parser="ptb", variants=VARIANTS
        )
        t, _ = side_by_side(
            {
                "baseline": lambda: timed(lambda: read_and_parse_trees(path)),
                "build": lambda: timed(lambda: build(ptb_options, console=QUIET)),
            },
            args.repeat,
        )
        console.print(
            f"ptb   : read + parse the trees {t.median('baseline'):.2f} s | build {t.median('build'):.2f} s "
            f"| ratio {t.ratio('build')} (goal <= 1.2)"
        )
        if not args.skip_commands:
            commands_line(console, path, args.split, tmp, args.repeat)
        premises, labelled = _sentences(path)
        distinct = list(dict.fromkeys(premises))
        sr_options = build_options(
            split=args.split, source=str(path), out=tmp / "sr", parser="ptb", variants=["shuffle-sr"]
        )
        t, _ = side_by_side(
            {
                "baseline": lambda: spacy_parse(labelled),
                "build": lambda: timed(lambda: build(sr_options, console=QUIET)),
            },
            args.repeat,
        )
        console.print(
            f"shuffle-sr (ptb, default role labeler): nlp.pipe over the {len(labelled)} distinct sentences "
            f"it labels {t.median('baseline'):.2f} s | build {t.median('build'):.2f} s | ratio "
            f"{t.ratio('build')} (goal <= 1.5)"
        )
        if args.skip_spacy:
            return
        run_once = list(dict.fromkeys(distinct + labelled))
        sr_caches = iter(range(args.repeat))

        def spacy_sr_build():
            options = build_options(
                split=args.split,
                source=str(path),
                out=tmp / "sr-spacy",
                parser="spacy",
                variants=["shuffle-sr"],
                cache_dir=tmp / f"sr-cache-{next(sr_caches)}",
            )
            return timed(lambda: build(options, console=QUIET))

        t, _ = side_by_side({"baseline": lambda: spacy_parse(run_once), "build": spacy_sr_build}, args.repeat)
        console.print(
            f"shuffle-sr (spacy, empty cache): nlp.pipe over the {len(run_once)} distinct sentences parsed "
            f"or labelled {t.median('baseline'):.2f} s | build {t.median('build'):.2f} s | ratio "
            f"{t.ratio('build')} (goal <= 1.5)"
        )

        caches = iter(range(args.repeat))

        def spacy_build():  # an empty cache each time: every distinct premise is parsed
            options = build_options(
                split=args.split,
                source=str(path),
                out=tmp / "spacy",
                parser="spacy",
                variants=VARIANTS,
                cache_dir=tmp / f"cache-{next(caches)}",
            )
            return timed(lambda: build(options, console=QUIET)[1])

        t, results = side_by_side(
            {
                "baseline": lambda: spacy_parse(premises),
                "distinct": lambda: spacy_parse(distinct),
                "build": spacy_build,
            },
            args.repeat,
        )
        info = results["build"]
        console.print(
            f"spacy : nlp.pipe over {len(premises)} premises {t.median('baseline'):.2f} s | build (empty "
            f"cache) {t.median('build'):.2f} s | ratio {t.ratio('build')} (goal <= 0.5)"
        )
        # The share of the baseline that the build cannot avoid: parsing each distinct premise once.
        console.print(
            f"        nlp.pipe over the {len(distinct)} distinct premises alone {t.median('distinct'):.2f} s "
            f"| ratio {t.ratio('distinct')}; the build's other work "
            f"{t.median('build') - t.median('distinct'):.2f} s"
        )
        a = info.parser_agreement
        console.print(
            f"spacy projection vs PTB, (label, span) constituents of {a['min_words']}-{a['max_words']} words:"
            f" precision {a['precision']:.3f}, recall {a['recall']:.3f} over {a['sentences']} sentences"
        )
        for config in info.configs:
            console.print(f"  {config.name:16} {config.rows:6d} rows")


def commands_line(console: Console, path: Path, split: str, tmp: Path, repeat: int) -> None:
    """`swapbench --help` and the ptb build of the shuffles, each as a whole process (wall time, medians)."""

    def process(*words: str):
        def run():
            began = time.perf_counter()
            # run from `tmp`, so that `-m` finds swapbench where this process did, not in the current folder
            subprocess.run(
                [sys.executable, "-m", "swapbench", *words],
                check=True,
                capture_output=True,
                cwd=tmp,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
            )
            return time.perf_counter() - began, None

        return run

    build_words = (
        "build",
        "--source",
        str(path),
        "--split",
        split,
        "--parser",
        "ptb",
        "--variants",
        ",".join(VARIANTS),
        "--out",
        str(tmp / "ptb-command"),
        "--overwrite",
    )
    t, _ = side_by_side(
        {"python": process("--version"), "help": process("--help"), "build": process(*build_words)}, repeat
    )
    console.print(
        f"commands (whole processes, wall): swapbench --help {t.median('help'):.2f} s (goal <= 0.5 s); "
        f"swapbench build --parser ptb, the four shuffles {t.median('build'):.2f} s; swapbench --version "
        f"{t.median('python'):.2f} s"
    )


def _sentences(path: Path) -> tuple[list[str], list[str]]:
    """Every labelled pair's premise, and the distinct sentences of the entailment pairs (shuffle-sr labels those),
    stripped as the build reads them."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        rows = [row for row in map(json.loads, handle) if row["gold_label"] != "-"]
    labelled = [row[k].strip() for row in rows if row["gold_label"] == "entailment" for k in ("sentence1", "sentence2")]
    return [row["sentence1"] for row in rows], list(dict.fromkeys(labelled))


if __name__ == "__main__":
    main()
