"""The options of `swapbench eval`, defined once: the command line's arguments and `swapbench.evaluate`'s keywords
are both made from `EvalOptions` (see core.command_options), and validated there once.

One name, one meaning: the training batch is --train-batch-size, the scoring batch --eval-batch-size, the probe's
--probe-batch-size; the fine-tuning's truncation is --train-max-length, the scoring's --max-length.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import field_validator, model_validator

from ..core.command_options import option
from ..core.options import MIN_MAX_LENGTH, SEED_MAX, comma_separated, device_problem, seeds_problem
from ..core.options import device as device_name
from ..core.options import seed as seed_number
from ..core.registry import TEMPLATES
from ..models.gguf import GGUFOptions
from ..probing.options import MIN_LENGTH, PROBE_BATCH_SIZE
from ..sources.options import ColumnOptions, canonical_split, split_names
from .scorers import mode_help
from .scorers.classifier import DEFAULT_MAX_LENGTH
from .templates import templates_help
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
            raise ValueError(f"{part!r} is not DEVICE=SIZE: a GPU index, cpu or mps, and a size in KB, MB, GB, "
                             "KiB, MiB or GiB, such as 70GiB")
        found[int(device) if device.isdigit() else device] = size
    if not found:
        raise ValueError("no DEVICE=SIZE given")
    return found


class EvalOptions(GGUFOptions, ColumnOptions, TrainingDataOptions):  # (pydantic lists the last base's fields first)
    """`swapbench eval MODEL [options]`, and `swapbench.evaluate(model, data, **options)`."""

    model: str = option(positional=True, metavar="MODEL", help="Hub model id, local folder, or .gguf file")
    revision: str | None = option(None, help="model revision (branch, tag or commit) on the Hub")
    allow_missing: bool = option(False, help="score a classifier whose checkpoint does not load whole (weights newly "
                                             "initialised or left unused); recorded in the results and shown on the "
                                             "board")
    trust_remote_code: bool = option(False, help="run the model's own code shipped with it (auto_map), e.g. for an "
                                                 "ALiBi BERT")
    mode: str = option("classifier", metavar="MODE", help=lambda: "how the pairs are scored: " + mode_help())

    data: str = option("data/snli-test", group="data",
                       help="dataset folder written by `swapbench build`, or a Hub dataset id")
    data_revision: str | None = option(None, group="data", help="Hub dataset revision")
    configs: list[str] | None = option(None, group="data", help="comma-separated configurations to score "
                                                                "(default: all)")
    split: str | None = option(None, group="data", choices=split_names, metavar="SPLIT",
                               help="split to score, named as `swapbench build` names it: dev (= validation) and the "
                                    "others (default: the split the dataset was built from)")
    limit: int | None = option(None, ge=1, group="data",
                               help="score only the first N rows of each configuration (smoke runs). It limits "
                                    "scoring only: fine-tuning still reads its whole training data (--train-limit "
                                    "limits those). Recorded in the results (dataset.limit); the leaderboard refuses "
                                    "limited runs")

    template: Path | None = option(None, group="prompting", metavar="FILE",
                                   help="prompt template file naming {premise} and {hypothesis}, instead of "
                                        "--templates (verbalizers: --verbalizers, else True, Neither, False)")
    templates: list[str] | None = option(
        None, group="prompting", metavar="NAMES", choices=lambda: TEMPLATES.names(),
        help=lambda: "comma-separated named prompts, each scored; the first is the headline (its predictions make "
                     "every figure), the others' accuracies and their spread are reported beside it (default: mnli). "
                     + templates_help())
    verbalizers: str | None = option(None, group="prompting", metavar="MAP",
                                     help="the word scored for each label, each after a space, in every template "
                                          "(default: the template's own, e.g. entailment=True,neutral=Neither,"
                                          "contradiction=False)")
    # None first: typing caches `X | None` by X, and Literal["sum", "mean"] equals this one, so that `Literal[...] |
    # None` would be the results schema's union, its choices listed in the schema's order (unless importing torch
    # had evicted it from the cache)
    verbalizer_score: None | Literal["mean", "sum"] = option(
        None, group="prompting",
        help="a verbalizer's score: mean log-probability per token (length-normalised; the default, the same as sum "
             "when every verbalizer is one token) or the sum (lm-evaluation-harness's acc)")
    calibration: Literal["contextual", "pmi"] | None = option(
        None, group="prompting",
        help="correct the prompt's prior for some verbalizer: contextual (each label's probability divided by its "
             "probability after the content-free inputs N/A, '' and [MASK]) or pmi (each label's score less its "
             "score after the template's answer cue alone). Default: none, as lm-evaluation-harness's acc and the "
             "paper's figures, so that the figures stay comparable with theirs")
    shots: int = option(0, ge=0, group="prompting", metavar="K",
                        help="solved examples before each prompt, drawn with --seed from --train-source/"
                             "--train-split, never from the scored pairs")

    label_map: str | None = option(None, group="labels", metavar="MAP",
                                   help="model outputs to NLI labels when config.id2label cannot tell, e.g. "
                                        "0=entailment,1=neutral,2=contradiction or LABEL_0=entailment,LABEL_1="
                                        "not_entailment; refused for a model whose own label names map otherwise, "
                                        "unless --force")
    force: bool = option(False, group="labels", help="let --label-map override the labels the model names itself")

    finetune: bool = option(False, group="fine-tuning",
                            help="fine-tune even when MODEL already is a sequence classifier")
    hypothesis_only: bool = option(False, group="fine-tuning",
                                   help="remove the premise from every input, in training, validation and scoring: "
                                        "the model sees the hypothesis alone. A diagnostic of what the hypotheses "
                                        "give away (`swapbench leak` reads its results), not an NLI model: submit "
                                        "refuses it")
    epochs: int | None = option(None, ge=1, group="fine-tuning", help="default: 3")
    learning_rate: float | None = option(None, gt=0, flag="--lr", group="fine-tuning",
                                         help="learning rate (default: 2e-5)")
    train_batch_size: int | None = option(None, ge=1, group="fine-tuning", deprecated="--batch-size",
                                          help="training batch over all devices (default: 32)")
    train_max_length: int | None = option(None, ge=MIN_MAX_LENGTH, group="fine-tuning",
                                          help="truncate training and validation pairs to N tokens (default: 128); "
                                               "--max-length is the scoring's")
    train_precision: Literal["auto", "float32"] = option(
        "auto", group="fine-tuning",
        help="auto: bf16 autocast (float32 master weights) where the device runs bf16 fast (a CPU with AMX, a GPU), "
             "float32 elsewhere; float32: always. Recorded as fine_tuning.recipe.precision, with the validation "
             "labels' agreement with float32 (fine_tuning.validation_agreement)")
    seeds: list[int] | None = option(
        None, group="fine-tuning", metavar="A,B,...", parse=comma_separated(seed_number),
        help="fine-tune once per seed (two or more, each a checkpoint cached of its own) and score each: the "
             "results hold the mean over the seeds with their spread, and each seed's figures; the interval "
             "resamples seeds and pairs together. One fine-tuning says little of role sensitivity (McCoy et al. "
             "2020). Default: one fine-tuning, with --seed")
    stop_at_chance: bool = option(False, group="fine-tuning", keyed=False,
                                  help="stop before scoring when the fine-tuning learnt nothing (its training loss "
                                       "never left chance, or its best validation accuracy is not above the "
                                       "validation pairs' majority rate, by the rules of the results' health "
                                       "check); without it, eval warns and scores all the same")
    train_checkpoint_minutes: float | None = option(
        None, ge=0, group="fine-tuning", keyed=False, metavar="MINUTES",
        help="save the fine-tuning's state this often (default: 10), beside its cache folder, so that a run stopped "
             "(Ctrl-C, a crash) resumes from it with the same command, to the same weights; 0: never")
    cache_dir: Path | None = option(None, group="fine-tuning",
                                    help="fine-tuned checkpoints and the scores cache go here (default: "
                                         "$SWAPBENCH_CACHE_DIR or ~/.cache/swapbench)")

    max_length: int | None = option(None, ge=MIN_MAX_LENGTH, group="scoring",
                                    help=f"truncate scored pairs to N tokens (default: {DEFAULT_MAX_LENGTH}; --mode "
                                         "prompt: the model's context length, prompts cut from the left); "
                                         "--train-max-length is the fine-tuning's")
    eval_batch_size: int | None = option(None, ge=1, group="scoring",
                                         help="scoring batch size (default: automatic, halved on out-of-memory)")
    use_cache: bool = option(True, negative="--no-cache", group="scoring",
                             help="neither read nor write the scores and probe caches: score every pair and probe "
                                  "the model (a fine-tuned checkpoint is still cached)")
    device: str | None = option(None, parse=device_name, group="scoring",
                                help="cpu, cuda, cuda:1, mps (default: a GPU when there is one)")
    device_map: Literal["auto", "balanced", "sequential"] | None = option(
        None, group="scoring",
        help="spread a model too large for one device over the GPUs, then the CPU, then disk, as it loads "
             "(accelerate's big-model loading), for scoring and the probe; recorded in the results (model.device_map). "
             "auto and balanced share the layers out evenly, sequential fills each GPU in turn. In one process: not "
             "with --device, nor under torchrun")
    max_memory: str | None = option(None, group="scoring", metavar="MAP",
                                    help="with --device-map: the most each device may hold, e.g. 0=70GiB,1=70GiB,"
                                         "cpu=200GiB (default: what each has free)")
    offload_folder: Path | None = option(None, group="scoring",
                                         help="with --device-map: where the layers that fit on no device are kept "
                                              "(default: a temporary folder)")
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = option(
        "auto", group="scoring", help="auto: bfloat16 where the device runs it fast (a GPU that supports it; a CPU "
                                      "with AMX, Intel Xeon 4th generation and later, where it scores about 2-3x "
                                      "faster), else fp16 on other GPUs and float32 on a CPU; when fewer than 99% "
                                      "of the float32 sample's labels agree, auto scores again in float32 and says "
                                      "so. Any dtype but float32 also scores a sample of the pairs in float32 and "
                                      "records how many labels agree (provenance.scoring.dtype_agreement); "
                                      "provenance.dtype records the dtype the labels come from. float32: the "
                                      "exact labels, slower")
    threads: int | None = option(None, ge=1, group="scoring", keyed=False,
                                 help="torch's CPU threads (default: the cores that other processes leave free when "
                                      "the run starts, or OMP_NUM_THREADS when set); recorded in the results "
                                      "(provenance.torch_threads)")
    seed: int = option(0, ge=0, le=SEED_MAX, group="scoring",
                       help="seed of the bootstrap, the probe and, without --seeds, the fine-tuning")
    bootstrap: int = option(10_000, ge=1, group="scoring", help="bootstrap resamples")
    probe: bool = option(True, negative="--no-probe", group="scoring", help="skip the locality/symmetry probe")
    probe_words: int = option(100, ge=1, group="scoring", help="probe words")
    probe_length: int = option(128, ge=MIN_LENGTH, group="scoring", help="probe sequence length")
    probe_batch_size: int = option(PROBE_BATCH_SIZE, ge=1, group="scoring", help="probe sequences per forward pass")
    k_curve: bool = option(False, group="scoring",
                           help="also report UNLU's figures recomputed with the first K′ of each pair's K "
                                "permutations, K′ = 2 to K (results: permutation_acceptance.k_curve), to show how "
                                "far they move with K")
    slices: bool = option(False, group="scoring",
                          help="also print accuracy and Δ per slice tag (label:NP, moved:2: two constituents shuffled, "
                               "side:hypothesis, ...)")
    output: Path | None = option(None, group="scoring",
                                 help="results file (default: results/<model>/results_<data>_<time>.json, <model> "
                                      "naming the Hub id and revision, or the local folder by its name (by its "
                                      "parent's when its own is generic, such as model); the predictions go beside "
                                      "it")
    progress: bool = option(True, negative="--no-progress", group="scoring",
                            help="no progress bars at all (swapbench's, the datasets, weight-loading and download "
                                 "bars); messages and the training's log lines still go to stderr")
    command: list[str] | None = option(None, cli=False, help="the command line that ran, recorded in the results "
                                                            "(default: this process's)")

    @field_validator("split", mode="after")
    @classmethod
    def _canonical_split(cls, value):
        """dev is SNLI's validation split: the build names it so."""
        return canonical_split(value) if value else value

    @field_validator("seeds", mode="after")
    @classmethod
    def _distinct_seeds(cls, value):
        if value is None:
            return value
        if len(value) < 2:
            raise ValueError(f"{value[0] if value else 'nothing'} is one seed: --seeds takes two or more, and one "
                             "fine-tuning's seed is --seed")
        problem = seeds_problem(value)
        if problem:
            raise ValueError(problem)
        return value

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
            alone = [flag for flag, value in (("--max-memory", self.max_memory),
                                              ("--offload-folder", self.offload_folder)) if value is not None]
            if alone:
                raise ValueError(f"{' and '.join(alone)} {'is' if len(alone) == 1 else 'are'} only for --device-map")
        elif self.device:
            raise ValueError(f"--device-map {self.device_map} places the model itself: give it or --device "
                             f"{self.device}, not both")
        return self

    @property
    def placement(self) -> Placement | None:
        """How the model is spread over devices (--device-map); None: it is loaded on one device."""
        from ..models.loading import Placement

        if self.device_map is None:
            return None
        return Placement(self.device_map, memory_map(self.max_memory) if self.max_memory else None,
                         str(self.offload_folder) if self.offload_folder else None)

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
        """The seed of each fine-tuning of the model, in order: --seeds, else --seed alone."""
        return self.seeds or [self.seed]
