"""`swapbench probe MODEL --out DIR`: probe.json and the two heatmaps."""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.command_options import add_arguments, from_arguments
from ..core.files import check_writable, rendered, replace_files
from ..core.text import public_path
from ..probing.errors import ProbeError
from ..probing.options import ProbeOptions
from .listing import COMMANDS

if TYPE_CHECKING:  # the result imports the results schema and numpy, which --help needs none of
    from ..probing.result import ProbeResult

logger = logging.getLogger(__name__)

PROBE_JSON = "probe.json"
AVERAGE_PNG = "positional_attention.png"
LAYERS_PNG = "positional_attention_layers.png"
OFFSETS_PNG = "positional_attention_offsets.png"


def add_probe(subparsers) -> None:
    p = subparsers.add_parser(
        "probe",
        help=COMMANDS["probe"].help,
        description="Feed a model (Hub id, local folder or GGUF file) sequences of one "
        "repeated word, average its attention weights, and report their "
        "locality and symmetry with heatmaps and a profile by offset: the "
        "paper's two figures, and swapbench's relative locality (against "
        "uniform attention under the same mask) and degree symmetry "
        "(continuous in the left/right gap; null for flat attention). "
        "Decoder-only models are probed under their causal mask: both "
        "symmetries are then null, and left decay (a swapbench extension) "
        "describes how attention falls off to the left.",
    )
    add_arguments(p, ProbeOptions)
    p.set_defaults(run=run_probe)


def figure_name(model: str | None) -> str:
    """The model's name on the figures: as given, a folder by its last two parts. A checkpoint that `eval
    --finetune` made is a cache folder named by its key, so it is named by its base model."""
    from pydantic import ValidationError

    from ..evaluation.finetune import INFO_FILE
    from ..probing.plots import short_name
    from ..results.schema import FineTuningInfo

    record = Path(model).expanduser() / INFO_FILE if model else None
    if record is None or not record.is_file():
        return short_name(model)
    try:
        info = FineTuningInfo.model_validate_json(record.read_text(encoding="utf-8"))
    except (OSError, ValueError, ValidationError):
        return short_name(model)
    return f"{short_name(info.base_model)}, {'trained from scratch' if info.from_scratch else 'fine-tuned'}"


def write_probe(result: ProbeResult, out: Path, title: str) -> list[Path]:
    """probe.json, the two heatmaps and the offset profile (titled `title`) in `out`, all replaced together or
    none; returns their paths."""
    from ..probing.plots import plot_average, plot_layers, plot_offsets

    contents: dict[Path, str | bytes] = {
        out / PROBE_JSON: json.dumps(result.model_dump(mode="json"), indent=2) + "\n",
        **{
            out / name: rendered(lambda path, plot=plot: plot(result, path, title), ".png")
            for name, plot in ((AVERAGE_PNG, plot_average), (LAYERS_PNG, plot_layers), (OFFSETS_PNG, plot_offsets))
        },
    }
    replace_files(contents)
    return list(contents)


def probe(options: ProbeOptions) -> tuple[ProbeResult, list[Path]]:
    """Probe the model the options name; with options.out, write probe.json and the figures there too."""
    from ..models.gguf import checkpoint_path, gguf_record
    from ..probing.loading import load_model, model_revision
    from ..probing.run import probe_model

    if options.out is not None:
        if options.out.exists() and not options.out.is_dir():
            raise ProbeError(f"--out {options.out} exists and is not a folder")
        check_writable(options.out / PROBE_JSON, "--out")
    model, tokenizer = load_model(options.model, options.revision, options.trust_remote_code, options.gguf_file)
    result = probe_model(
        model,
        tokenizer,
        n_words=options.words,
        length=options.length,
        seed=options.seed,
        add_special_tokens=options.add_special_tokens,
        batch_size=options.probe_batch_size,
        progress=options.progress,
    )
    # probe.json is published: the model is named as a published file names a path (core.text.public_path); the
    # figures' title is read from the model's folder first (a fine-tuned checkpoint is named by its base model)
    checkpoint = checkpoint_path(options.model, options.gguf_file)
    title = figure_name(checkpoint)
    gguf = gguf_record(options.model, options.gguf_file, next(model.parameters()).dtype, options.revision)
    result = result.model_copy(
        update={
            "model": public_path(checkpoint),
            "gguf": gguf,
            "revision": model_revision(options.model, model, options.gguf_file),
        }
    )
    return result, write_probe(result, options.out, title) if options.out is not None else []


def run_probe(args: argparse.Namespace) -> int:
    options = from_arguments(ProbeOptions, args)
    from rich.console import Console

    from ..probing.figures import probe_figures
    from ..probing.run import flat_warning
    from .evaluate import silence_library_bars
    from .main import load_model_types

    load_model_types()
    console = Console()
    silence_library_bars(downloads=options.progress)
    result, paths = probe(options)
    framing = "framed by special tokens" if result.add_special_tokens else "no special tokens"
    ratio = "" if result.decay_ratio is None else f", decay ratio s {result.decay_ratio:.3g}"
    console.print(
        f"{probe_figures(result)}, spread {result.spread:.3f}, left decay w {result.left_decay:.3g}{ratio} "
        f"({result.n_words} words x {result.length} copies, {framing}; {result.positions} positions, "
        f"{len(result.per_layer)} layers, {result.seconds:.1f} s)"
    )
    for layer in result.per_layer:
        console.print(
            f"  layer {layer.layer:2d}: {probe_figures(layer, causal=result.causal)}, spread {layer.spread:.3f}"
        )
    if result.flat:
        logger.warning(flat_warning(result.spread))
    for path in paths:
        logger.info(f"Wrote {path}")
    return 0
