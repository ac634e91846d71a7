"""The options of `swapbench probe`, defined once: the command line's arguments and `swapbench.probe`'s keywords are
both made from `ProbeOptions` (see core.command_options), and validated there once."""

from __future__ import annotations

from pathlib import Path

from ..core.command_options import option
from ..core.options import SEED_MAX
from ..models.gguf import GGUFOptions

MIN_LENGTH = 3  # copies of the word: symmetry compares what lies left and right of a position
PROBE_BATCH_SIZE = 8  # sequences per forward pass: the probe's default, and eval's when it probes


class ProbeOptions(GGUFOptions):
    """`swapbench probe MODEL --out DIR [options]`, and `swapbench.probe(model, **options)`."""

    model: str = option(positional=True, metavar="MODEL", help="Hugging Face model id, local folder, or .gguf file")
    gguf_file: str | None = option(
        None,
        metavar="NAME",
        help="the GGUF file in MODEL's folder or Hub repository to load (transformers dequantizes its weights to "
        "float32; probe.json records its quantization; probe has no --dtype). A MODEL that is a .gguf "
        "file's path names both at once",
    )
    out: Path | None = option(
        None, required=True, help="folder for probe.json and the figures (the API: none written when not given)"
    )
    revision: str | None = option(None, help="Hub revision (branch, tag or commit) of MODEL")
    words: int = option(100, ge=1, help="words drawn from the vocabulary")
    length: int = option(128, ge=MIN_LENGTH, help="copies of the word per sequence")
    seed: int = option(0, ge=0, le=SEED_MAX, help="seed of the word draw")
    add_special_tokens: bool = option(
        False,
        help="frame each sequence with the tokenizer's special tokens ([CLS] ... "
        "[SEP]); not the board's framing (see README)",
    )
    trust_remote_code: bool = option(
        False, help="run the model's own code shipped with it (auto_map), e.g. for an ALiBi BERT"
    )
    probe_batch_size: int = option(PROBE_BATCH_SIZE, ge=1, deprecated="--batch-size", help="sequences per forward pass")
    progress: bool = option(True, negative="--no-progress", help="no progress bar")
