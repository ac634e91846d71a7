"""`swapbench probe MODEL --out DIR`: probe.json and the two heatmaps."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console

from ..core.files import check_writable
from ..core.options import integer, positive_int, seed
from ..probing.errors import ProbeError
from ..probing.run import MIN_LENGTH
from ..probing.result import ProbeResult

PROBE_JSON = "probe.json"
AVERAGE_PNG = "positional_attention.png"
LAYERS_PNG = "positional_attention_layers.png"
OFFSETS_PNG = "positional_attention_offsets.png"

probe_length = integer(MIN_LENGTH)


def add_probe(subparsers) -> None:
    p = subparsers.add_parser("probe", help="measure the locality and symmetry of a model's positional attention",
                              description="Feed a model sequences of one repeated word, average its attention "
                                          "weights, and report their locality and symmetry with heatmaps and a "
                                          "profile by offset. Decoder-only models are probed under their causal "
                                          "mask: symmetry is then null, and left decay (a swapbench extension) "
                                          "describes how attention falls off to the left.")
    p.add_argument("model", metavar="MODEL", help="Hugging Face model id or local folder")
    p.add_argument("--out", type=Path, required=True, help="folder for probe.json and the figures")
    p.add_argument("--revision", help="Hub revision (branch, tag or commit) of MODEL")
    p.add_argument("--words", type=positive_int, default=100,
                   help="words drawn from the vocabulary (default: %(default)s)")
    p.add_argument("--length", type=probe_length, default=128,
                   help="copies of the word per sequence (default: %(default)s)")
    p.add_argument("--seed", type=seed, default=0, help="seed of the word draw (default: %(default)s)")
    p.add_argument("--add-special-tokens", action="store_true",
                   help="frame each sequence with the tokenizer's special tokens ([CLS] ... [SEP]); not the "
                        "board's framing (see README)")
    p.add_argument("--trust-remote-code", action="store_true",
                   help="run the model's own code shipped with it (auto_map), e.g. for an ALiBi BERT")
    p.add_argument("--batch-size", type=positive_int, default=8,
                   help="sequences per forward pass (default: %(default)s)")
    p.set_defaults(run=run_probe, loads_models=True)


def write_probe(result: ProbeResult, out: Path) -> list[Path]:
    """probe.json, the two heatmaps and the offset profile in `out`; returns their paths."""
    from ..probing.plots import plot_average, plot_layers, plot_offsets

    out.mkdir(parents=True, exist_ok=True)
    paths = [plot_average(result, out / AVERAGE_PNG), plot_layers(result, out / LAYERS_PNG),
             plot_offsets(result, out / OFFSETS_PNG)]
    json_path = out / PROBE_JSON
    json_path.write_text(json.dumps(result.model_dump(mode="json"), indent=2) + "\n", encoding="utf-8")
    return [json_path, *paths]


def run_probe(args: argparse.Namespace) -> int:
    from ..probing.loading import load_model, model_revision
    from ..probing.run import flat_warning, probe_model

    if args.out.exists() and not args.out.is_dir():
        raise ProbeError(f"--out {args.out} exists and is not a folder")
    check_writable(args.out / PROBE_JSON, "--out")
    console = Console()
    model, tokenizer = load_model(args.model, args.revision, args.trust_remote_code)
    result = probe_model(model, tokenizer, n_words=args.words, length=args.length, seed=args.seed,
                         add_special_tokens=args.add_special_tokens, batch_size=args.batch_size)
    result = result.model_copy(update={"model": args.model, "revision": model_revision(args.model, model)})
    paths = write_probe(result, args.out)
    framing = "framed by special tokens" if result.add_special_tokens else "no special tokens"
    symmetry_text = f"{result.symmetry:.1%}" if result.symmetry is not None else "null (causal mask)"
    console.print(f"locality {result.locality:.1%}, symmetry {symmetry_text}, spread {result.spread:.3f}, "
                  f"left decay w {result.left_decay:.3g} "
                  f"({result.n_words} words x {result.length} copies, {framing}; {result.positions} positions, "
                  f"{len(result.per_layer)} layers, {result.seconds:.1f} s)")
    for layer in result.per_layer:
        symmetry_text = f"{layer.symmetry:.1%}" if layer.symmetry is not None else "null"
        console.print(f"  layer {layer.layer:2d}: locality {layer.locality:.1%}, symmetry {symmetry_text}, "
                      f"spread {layer.spread:.3f}")
    if result.flat:
        console.print(f"[yellow]Warning:[/] {flat_warning(result.spread)}")
    for path in paths:
        console.print(f"  wrote {path}")
    return 0
