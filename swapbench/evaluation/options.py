"""The options of `swapbench eval`, defined once: the command line's arguments and `swapbench.evaluate`'s keywords
are both made from them (see core.command_options), and validated there once.

`EvalOptions` holds eval's own options. Each registered scorer adds its own (evaluation/scorers/base.py: a scorer's
`Options`: --mode prompt's templates and shots, the classifier's fine-tuning recipe); since a scorer may be
registered by any imported module (a plugin's, a test's), the full model is made by `eval_options_model()` when the
command line or the API call is made, never at import, as the build's options are made with its variants'.

One name, one meaning: the training batch is --train-batch-size, the scoring batch --eval-batch-size, the probe's
--probe-batch-size; the fine-tuning's truncation is --train-max-length, the scoring's --max-length.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import create_model, field_validator, model_validator

from ..core.command_options import CommandOptions, option
from ..core.errors import SwapbenchError
from ..core.options import MIN_MAX_LENGTH, SEED_MAX, device_problem
from ..core.options import device as device_name
from ..core.registry import SCORERS
from ..models.gguf import GGUFOptions
from ..probing.options import MIN_LENGTH, PROBE_BATCH_SIZE
from ..sources.options import ColumnOptions, canonical_split, split_names
from .scorers import mode_help
from .scorers.classifier import DEFAULT_MAX_LENGTH
from .training_options import TrainingDataOptions

if TYPE_CHECKING:  # both import torch: the options are read by `swapbench eval --help`, which must not
    from ..models.loading import Placement
    from .finetune import DataChoice


def memory_map(text: str) -> dict[int | str, str]:
    """--max-memory "0=70GiB,cpu=200GiB" as accelerate takes it: {0: "70GiB", "cpu": "200GiB"}."""
    import re

    found: dict[int | str, str] = {}
    for part in (item.strip() for item in text.split(",") if item.strip()):
        device, _, size = (piece.strip() for piece in part.partition("="))
        if not (device.isdigit() or device in ("cpu", "mps")) or not re.fullmatch(r"\d+(\.\d+)?[KMG]i?B", size):
            raise ValueError(
                f"{part!r} is not DEVICE=SIZE: a GPU index, cpu or mps, and a size in KB, MB, GB, "
                "KiB, MiB or GiB, such as 70GiB"
            )
        found[int(device) if device.isdigit() else device] = size
    if not found:
        raise ValueError("no DEVICE=SIZE given")
    return found


class EvalOptions(GGUFOptions, ColumnOptions, TrainingDataOptions):  # (pydantic lists the last base's fields first)
    """`swapbench eval MODEL [options]`, and `swapbench.evaluate(model, data, **options)`."""

    model: str = option(positional=True, metavar="MODEL", help="Hub model id, local folder, or .gguf file")
    revision: str | None = option(None, help="model revision (branch, tag or commit) on the Hub")
    allow_missing: bool = option(
        False,
        help="score a classifier whose checkpoint does not load whole (weights newly "
        "initialised or left unused); recorded in the results and shown on the "
        "board",
    )
    trust_remote_code: bool = option(
        False, help="run the model's own code shipped with it (auto_map), e.g. for an ALiBi BERT"
    )
    mode: str = option("classifier", metavar="MODE", help=lambda: "how the pairs are scored: " + mode_help())

    data: str = option(
        "data/snli-test", group="data", help="dataset folder written by `swapbench build`, or a Hub dataset id"
    )
    data_revision: str | None = option(None, group="data", help="Hub dataset revision")
    configs: list[str] | None = option(
        None, group="data", help="comma-separated configurations to score (default: all)"
    )
    split: str | None = option(
        None,
        group="data",
        choices=split_names,
        metavar="SPLIT",
        help="split to score, named as `swapbench build` names it: dev (= validation) and the "
        "others (default: the split the dataset was built from)",
    )
    limit: int | None = option(
        None,
        ge=1,
        group="data",
        help="score only the first N rows of each configuration (smoke runs). It limits "
        "scoring only: fine-tuning still reads its whole training data (--train-limit "
        "limits those). Recorded in the results (dataset.limit); the leaderboard refuses "
        "limited runs",
    )

    cache_dir: Path | None = option(
        None,
        group="fine-tuning",
        help="fine-tuned checkpoints and the scores cache go here (default: "
        "$SWAPBENCH_CACHE_DIR or ~/.cache/swapbench)",
    )

    max_length: int | None = option(
        None,
        ge=MIN_MAX_LENGTH,
        group="scoring",
        help=f"truncate scored pairs to N tokens (default: {DEFAULT_MAX_LENGTH}; --mode "
        "prompt: the model's context length, prompts cut from the left); "
        "--train-max-length is the fine-tuning's",
    )
    eval_batch_size: int | None = option(
        None, ge=1, group="scoring", help="scoring batch size (default: automatic, halved on out-of-memory)"
    )
    use_cache: bool = option(
        True,
        negative="--no-cache",
        group="scoring",
        help="neither read nor write the scores and probe caches: score every pair and probe "
        "the model (a fine-tuned checkpoint is still cached)",
    )
    device: str | None = option(
        None, parse=device_name, group="scoring", help="cpu, cuda, cuda:1, mps (default: a GPU when there is one)"
    )
    device_map: Literal["auto", "balanced", "sequential"] | None = option(
        None,
        group="scoring",
        help="spread a model too large for one device over the GPUs, then the CPU, then disk, as it loads "
        "(accelerate's big-model loading), for scoring and the probe; recorded in the results (model.device_map). "
        "auto and balanced share the layers out evenly, sequential fills each GPU in turn. In one process: not "
        "with --device, nor under torchrun",
    )
    max_memory: str | None = option(
        None,
        group="scoring",
        metavar="MAP",
        help="with --device-map: the most each device may hold, e.g. 0=70GiB,1=70GiB,"
        "cpu=200GiB (default: what each has free)",
    )
    offload_folder: Path | None = option(
        None,
        group="scoring",
        help="with --device-map: where the layers that fit on no device are kept (default: a temporary folder)",
    )
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = option(
        "auto",
        group="scoring",
        help="auto: bfloat16 where the device runs it fast (a GPU that supports it; a CPU "
        "with AMX or AVX512-BF16, Intel Xeon 4th generation, AMD Zen 4 and later, where it scores 2-3x "
        "faster), else fp16 on other GPUs and float32 on a CPU; when fewer than 99% "
        "of the float32 sample's labels agree, auto scores again in float32 and says "
        "so. Any dtype but float32 also scores a sample of the pairs in float32 and "
        "records how many labels agree (provenance.scoring.dtype_agreement); "
        "provenance.dtype records the dtype the labels come from. float32: the "
        "exact labels, slower",
    )
    threads: int | None = option(
        None,
        ge=1,
        group="scoring",
        keyed=False,
        help="torch's CPU threads (default: the cores that other processes leave free when "
        "the run starts, or OMP_NUM_THREADS when set); recorded in the results "
        "(provenance.torch_threads)",
    )
    seed: int = option(
        0,
        ge=0,
        le=SEED_MAX,
        group="scoring",
        help="seed of the bootstrap, the probe and, without --seeds, the fine-tuning",
    )
    bootstrap: int = option(10_000, ge=1, group="scoring", help="bootstrap resamples")
    probe: bool = option(True, negative="--no-probe", group="scoring", help="skip the locality/symmetry probe")
    probe_words: int = option(100, ge=1, group="scoring", help="probe words")
    probe_length: int = option(128, ge=MIN_LENGTH, group="scoring", help="probe sequence length")
    probe_batch_size: int = option(PROBE_BATCH_SIZE, ge=1, group="scoring", help="probe sequences per forward pass")
    k_curve: bool = option(
        False,
        group="scoring",
        help="also report UNLU's figures recomputed with the first K′ of each pair's K "
        "permutations, K′ = 2 to K (results: permutation_acceptance.k_curve), to show how "
        "far they move with K",
    )
    slices: bool = option(
        False,
        group="scoring",
        help="also print accuracy and Δ per slice tag (label:NP, moved:2: two constituents shuffled, "
        "side:hypothesis, ...)",
    )
    output: Path | None = option(
        None,
        group="scoring",
        help="results file (default: results/<model>/results_<data>_<time>.json, <model> "
        "naming the Hub id and revision, or the local folder by its name (by its "
        "parent's when its own is generic, such as model); the predictions go beside "
        "it",
    )
    progress: bool = option(
        True,
        negative="--no-progress",
        group="scoring",
        help="no progress bars at all (swapbench's, the datasets, weight-loading and download "
        "bars); messages and the training's log lines still go to stderr",
    )
    command: list[str] | None = option(
        None, cli=False, help="the command line that ran, recorded in the results (default: this process's)"
    )

    @field_validator("split", mode="after")
    @classmethod
    def _canonical_split(cls, value):
        """dev is SNLI's validation split: the build names it so."""
        return canonical_split(value) if value else value

    @field_validator("device", mode="after")
    @classmethod
    def _usable_device(cls, value):
        problem = device_problem(value) if value else None
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("max_memory", mode="after")
    @classmethod
    def _memory_map(cls, value):
        if value is not None:
            memory_map(value)
        return value

    @model_validator(mode="after")
    def _placement(self):
        if self.device_map is None:
            alone = [
                flag
                for flag, value in (("--max-memory", self.max_memory), ("--offload-folder", self.offload_folder))
                if value is not None
            ]
            if alone:
                raise ValueError(f"{' and '.join(alone)} {'is' if len(alone) == 1 else 'are'} only for --device-map")
        elif self.device:
            raise ValueError(
                f"--device-map {self.device_map} places the model itself: give it or --device {self.device}, not both"
            )
        return self

    @property
    def placement(self) -> Placement | None:
        """How the model is spread over devices (--device-map); None: it is loaded on one device."""
        from ..models.loading import Placement

        if self.device_map is None:
            return None
        return Placement(
            self.device_map,
            memory_map(self.max_memory) if self.max_memory else None,
            str(self.offload_folder) if self.offload_folder else None,
        )

    @model_validator(mode="after")
    def _command_line(self):
        if self.command is None:
            self.command = list(sys.argv)
        return self

    @property
    def training(self) -> DataChoice:
        return replace(super().training, columns=self.columns)

    @property
    def fine_tuning_seeds(self) -> list[int]:
        """The seed of each fine-tuning of the model, in order: --seeds (the classifier's option), else --seed
        alone."""
        return getattr(self, "seeds", None) or [self.seed]


def scorer_options() -> list[type[CommandOptions]]:
    """Each registered scorer's options model, once each, in the order the scorers were registered; a scorer's
    option named as one of eval's own, or declared by two scorers otherwise, is refused, naming them."""
    models: list[type[CommandOptions]] = []
    declared: dict[str, tuple[str, object]] = {}  # field -> (the first scorer that declares it, its annotation)
    for entry in SCORERS:
        model = entry.value.Options
        if model in models or not model.model_fields:
            continue
        for name, field in model.model_fields.items():
            if name in EvalOptions.model_fields:
                raise SwapbenchError(f"scorer {entry.name} declares the option {name}, which is one of eval's own")
            if name in declared and declared[name][1] != field.annotation:
                raise SwapbenchError(
                    f"scorer {entry.name} declares the option {name} otherwise than {declared[name][0]} does"
                )
            declared.setdefault(name, (entry.name, field.annotation))
        models.append(model)
    return models


@functools.cache
def _with(models: tuple[type[CommandOptions], ...]) -> type[EvalOptions]:
    # The scorers' models as bases before EvalOptions: pydantic lists their fields after eval's own, in
    # registration order, and their validators and properties come with them. One class per set of scorers, so
    # that two options made alike are equal.
    return create_model("EvalOptions", __base__=(*reversed(models), EvalOptions), __module__=__name__)


def eval_options_model() -> type[EvalOptions]:
    """The options of `swapbench eval` as they are now: eval's own and every registered scorer's."""
    return _with(tuple(scorer_options()))
