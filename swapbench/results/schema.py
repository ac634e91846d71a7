"""The results file of `swapbench eval`: a typed, versioned schema, after lm-evaluation-harness's results files.

Every key carries a description (`EvalResults.model_json_schema()` shows them). The validators check what a
reader would otherwise have to trust: fractions lie in [0, 1], delta is perturbed minus original and agrees with
the McNemar counts, the dataset fingerprint is the one its configurations give, a model at chance says why.
Fractions are fractions here (0.069, not 6.9%); the terminal prints percentages and points. Bump SCHEMA_VERSION on any
change that a reader of older files would notice.

    python -m swapbench.results.schema > eval-results.schema.json
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Literal

from pydantic import Field, model_validator

from ..core.strict import Strict
from .build_record import settings_model
from .displacement import Displacement

SCHEMA_VERSION = "2.4"  # 2.4: seed_variance and PairedResult.seeds of a run over several fine-tuning seeds
# (`eval --seeds`), the seed of each predictions row. 2.3: p_adjusted on every slice test. 2.2: role_sensitivity of
# every role configuration and its slices; health against the whole split. 2.1: model.architecture_kind, model.mode,
# model.prompt; null symmetry under a causal mask
TOLERANCE = 1e-9  # rounding slack when checking derived figures
# model.revision of a model handed to swapbench.evaluate as an object: "in-memory:sha256:..." of its saved files.
IN_MEMORY = "in-memory:"

LabelView = Literal["3-way", "binary"]


# ---- integrity records --------------------------------------------------------------------------------------------
# Keys added after schema 2.0's first files were written: each is optional with a null default, so that those files
# still read; a key marked "added later" below is one of them.


class OverlapCheck(Strict):
    scored_dataset: str = Field(
        description="dataset.fingerprint of the data scored, which the training and validation pairs were compared with"
    )
    method: str = Field(description="what was compared")
    train_shared_pair_ids: int = Field(ge=0, description="training pairs whose pairID is a scored pair's")
    train_shared_premises: int = Field(ge=0, description="training pairs whose premise is a scored premise")
    validation_shared_pair_ids: int = Field(ge=0, description="validation pairs whose pairID is a scored pair's")
    validation_shared_premises: int = Field(ge=0, description="validation pairs whose premise is a scored premise")
    train_set_apart: int = Field(
        default=0,
        ge=0,
        description="training pairs left out before training because "
        "their premise text is also a scored premise (SNLI's splits repeat a few captions)",
    )
    validation_set_apart: int = Field(default=0, ge=0, description="validation pairs left out for the same reason")
    train_shared_images: int | None = Field(  # added later, null in older files
        default=None,
        ge=0,
        description="Flickr images (an SNLI pairID before '#') that training pairs and scored "
        "pairs were both written about: near pairs, reported, not refused",
    )
    validation_shared_images: int | None = Field(  # added later, null in older files
        default=None, ge=0, description="the same for the validation pairs (SNLI's dev and test share 122)"
    )

    @property
    def clean(self) -> bool:
        return not (
            self.train_shared_pair_ids
            or self.train_shared_premises
            or self.validation_shared_pair_ids
            or self.validation_shared_premises
        )


class LoadedWeights(Strict):
    missing: list[str] = Field(description="weights the model has and the checkpoint lacks: newly initialised")
    unexpected: list[str] = Field(description="weights the checkpoint has and the model does not use")
    mismatched: list[str] = Field(description="weights whose shape differs from the model's: newly initialised")
    allowed: bool = Field(description="true when --allow-missing let the model be scored all the same")


class GGUFWeights(Strict):
    """A checkpoint read from a GGUF file (llama.cpp's format), whose quantized weights transformers dequantized as
    it loaded them: the model scored is the dense one, not llama.cpp's quantized arithmetic."""

    file: str = Field(description="the GGUF file's name, in the folder or Hub repository name_or_path names")
    quantization: str = Field(
        description="the file's weight format, from its metadata: general.file_type as "
        "llama.cpp names it (Q4_1, Q8_0, F16, ...), else its most common "
        "quantized tensor type"
    )
    tensor_types: dict[str, int] = Field(
        description="the file's tensors counted by type (a Q4_1 file keeps its "
        "norms in F32, and may keep the embeddings in Q8_0)"
    )
    dequantized_to: str = Field(
        description="the dtype the weights were dequantized to as they loaded: the "
        "scoring's (provenance.dtype) for a model scored as loaded; for a base "
        "fine-tuned here, the training's (float32), its fine-tuned checkpoint "
        "then being scored in provenance.dtype"
    )


BuildRecord = settings_model(
    "BuildRecord",
    ("parser", "parser_version", "shuffle_scope", "limit", "role_labeler", "spacy_pipelines", "sr_selection"),
    Strict,
    "How the scored dataset was built, as its build_info.json says.",
)


# ---- model -------------------------------------------------------------------------------------------------------


class PositionalEncodingInfo(Strict):
    family: Literal["absolute", "relative", "rotary", "alibi", "none", "unknown"] = Field(
        description="how the model encodes positions: learned or sinusoidal absolute embeddings, relative "
        "attention, rotary embeddings, ALiBi biases, none, or unknown"
    )
    kind: str = Field(
        description="the variant within the family, e.g. learned, disentangled (DeBERTa), "
        "t5-buckets, absolute+relative (MPNet), xlnet"
    )
    evidence: dict[str, object] = Field(
        description="the exact config fields the family was read from, with their values (model_type included)"
    )
    note: str | None = Field(default=None, description="a caveat about the reading, when there is one")


class Recipe(Strict):
    max_length: int = Field(description="pairs truncated to this many tokens")
    optimizer: str = Field(description="Trainer optimizer name (AdamW)")
    learning_rate: float = Field(description="peak learning rate")
    lr_scheduler: str = Field(description="learning-rate schedule")
    warmup_ratio: float = Field(description="fraction of steps spent warming up")
    weight_decay: float = Field(description="AdamW weight decay")
    batch_size: int = Field(description="examples per optimizer step, over all devices")
    epochs: int = Field(description="passes over the training data")
    seed: int = Field(description="Trainer seed: classifier-head initialisation, data order, dropout")
    best_by: str = Field(description="the checkpoint kept: best of the per-epoch checkpoints by this metric")
    batch_order: Literal["random", "length-grouped"] = Field(  # added later: older files trained in random order
        default="random",
        description="how the training pairs were put into batches, drawn anew each epoch with the "
        "seed: random (each batch padded to its longest pair), or length-grouped "
        "(pairs of like length batched together, the batches in random order)",
    )
    precision: Literal["float32", "bfloat16-autocast"] = Field(  # added later: older files trained in float32
        default="float32",
        description="the arithmetic of the training: float32, or bfloat16 autocast (matmuls in "
        "bfloat16, master weights, optimiser state and loss in float32)",
    )


# Settings that change how fast a recipe trains, not what it is: a board row does not depart from the reference for
# them (their effect on the validation accuracy stays within seed noise: scripts/bench_finetune.py --recipe-seeds).
SPEED_SETTINGS = ("batch_order", "precision")
# Optimisers that are one update rule computed by different kernels, by the name the reference recipe gives it.
SAME_OPTIMIZER = {"adamw_torch_fused": "adamw_torch", "adamw_torch_foreach": "adamw_torch"}

# The reference paper's fine-tuning recipe (AdamW, lr 2e-5, batch 32, 3 epochs), run as fast as the device allows:
# length-grouped batches and the fused AdamW kernel; its precision is chosen for the device (finetune.on_device).
# A board row names every setting that departs from it.
REFERENCE_RECIPE = Recipe(
    max_length=128,
    optimizer="adamw_torch_fused",
    learning_rate=2e-5,
    lr_scheduler="linear",
    warmup_ratio=0.0,
    weight_decay=0.0,
    batch_size=32,
    epochs=3,
    seed=0,
    best_by="validation accuracy, checked after every epoch",
    batch_order="length-grouped",
    precision="float32",
)


def recipe_departures(recipe: Recipe, reference: Recipe = REFERENCE_RECIPE) -> list[str]:
    """The settings of `recipe` that depart from `reference`: its seed, how the best epoch is named, the speed
    settings and the kernel of one optimiser (adamw_torch or adamw_torch_fused) are not departures."""

    def optimizer(name: str) -> str:
        return SAME_OPTIMIZER.get(name, name)

    return [
        name
        for name in Recipe.model_fields
        if name not in ("seed", "best_by", *SPEED_SETTINGS)
        and (
            optimizer(recipe.optimizer) != optimizer(reference.optimizer)
            if name == "optimizer"
            else getattr(recipe, name) != getattr(reference, name)
        )
    ]


REFERENCE_TRAIN_SPLIT = "train"  # the whole of SNLI's training split


class TrainingData(Strict):
    source: str = Field(
        description="SNLI file or Hub id read (a path: from the working folder, ./x, or by its last parts, …/a/b)"
    )
    split: str = Field(description="split read from the source (Hub name: train, validation, test)")
    fingerprint: str = Field(description="content_fingerprint of the (pair_id, premise, hypothesis, label) used")
    n: int = Field(ge=1, description="pairs used")
    limit: int | None = Field(description="--train-limit / --val-limit, when given")
    held_out: bool = Field(
        description="true when these pairs were held out of the training source "
        "(--val-holdout) rather than read from a split of their own"
    )


class EpochLog(Strict):
    epoch: int = Field(description="epoch number, from 1")
    train_loss: float | None = Field(description="mean training loss over the epoch")
    validation_accuracy: float = Field(ge=0, le=1, description="accuracy on the validation pairs at its end")


class DtypeAgreement(Strict):
    """How far scoring in a dtype other than float32 moved the labels: a fixed sample of the distinct pairs scored
    again by a float32 copy of the same model."""

    dtype: str = Field(description="torch dtype the pairs were scored in (provenance.dtype)")
    reference_dtype: Literal["float32"] = Field(default="float32", description="dtype of the copy compared with")
    sample: str = Field(description="which distinct pairs were scored again")
    pairs: int | None = Field(ge=0, description="sampled pairs scored in both dtypes; null when not measured")
    agreeing: int | None = Field(ge=0, description="of them, pairs given the same label in both")
    fraction: float | None = Field(ge=0, le=1, description="agreeing / pairs (1 when no pair was sampled)")
    not_measured: str | None = Field(
        default=None,
        description="why the agreement was not measured (the model "
        "spread over devices, a float32 copy out of memory, a "
        "scorer with no float32 path); null when it was",
    )

    @model_validator(mode="after")
    def _counts(self):
        measured = (self.pairs, self.agreeing, self.fraction)
        if self.not_measured is not None:
            if any(value is not None for value in measured):
                raise ValueError("not_measured: pairs, agreeing and fraction must be null")
            return self
        if any(value is None for value in measured):
            raise ValueError("pairs, agreeing and fraction are null only with not_measured")
        if self.agreeing > self.pairs:
            raise ValueError("agreeing exceeds pairs")
        if abs(self.fraction - (self.agreeing / self.pairs if self.pairs else 1.0)) > TOLERANCE:
            raise ValueError("fraction must be agreeing / pairs")
        return self


class FineTuningInfo(Strict):
    base_model: str = Field(
        description="the base model fine-tuned (a Hub id, or a path named as in `source`); "
        "for a model trained from scratch, the model type it was built from"
    )
    base_revision: str | None = Field(description="its Hub commit, or sha256 of a local folder's files")
    recipe: Recipe = Field(description="the training settings")
    train: TrainingData = Field(description="the training pairs")
    validation: TrainingData = Field(description="the pairs the best checkpoint was chosen on")
    best_epoch: int = Field(description="epoch of the checkpoint kept")
    best_validation_accuracy: float = Field(ge=0, le=1, description="its validation accuracy")
    history: list[EpochLog] = Field(description="per-epoch training loss and validation accuracy")
    cache_key: str = Field(description="sha256 of base model, revision, recipe and data fingerprints")
    checkpoint: str = Field(description="folder of the fine-tuned model in the cache, by its last parts")
    reused: bool = Field(description="true when this run found the checkpoint in the cache and did not train")
    train_seconds: float = Field(description="wall time of the training that made the checkpoint")
    devices: int = Field(description="processes (GPUs) the training ran on")
    from_scratch: bool = Field(  # added later: a zoo encoder is trained, not fine-tuned
        default=False,
        description="true when the model was trained from randomly initialised weights (a zoo "
        "encoder), not fine-tuned: then model.fine_tuned is false",
    )
    data_overlap: OverlapCheck | None = Field(  # added later, null in older files
        default=None,
        description="the check that neither the training nor the validation pairs share a pairID or "
        "a premise with the scored data; null when it could not be made",
    )
    hypothesis_only: bool = Field(  # added later: a diagnostic model, trained without the premise
        default=False,
        description="true when the model was trained and validated on the hypotheses alone, the "
        "premise removed (`swapbench eval --hypothesis-only`)",
    )
    validation_agreement: DtypeAgreement | None = Field(  # added later, null in older files
        default=None,
        description="trained under bfloat16 autocast (recipe.precision): the validation pairs labelled "
        "by the weights kept under autocast and in float32, and how many labels agree; "
        "null in float32",
    )


class ProbeSettings(Strict):
    n_words: int = Field(description="words drawn from the vocabulary")
    length: int = Field(description="copies of each word in a probe sequence")
    seed: int = Field(description="seed of the word draw")
    add_special_tokens: bool = Field(
        description="framing: whether the sequences were framed by the tokenizer's "
        "special tokens; the board compares only rows probed without"
    )


class ProbeLayer(Strict):
    layer: int = Field(description="1-based layer number, nearest the embeddings first")
    decay_ratio: float | None = Field(  # added later; left out when null, so older files read alike
        default=None,
        gt=0,
        exclude_if=lambda value: value is None,
        description="swapbench figure: swapbench.probing.metrics.decay_ratio of that layer (ProbeInfo.decay_ratio)",
    )
    locality: float = Field(ge=0, le=1, description="the paper's locality of that layer's averaged attention")
    symmetry: float | None = Field(
        ge=0,
        le=1,
        description="the paper's symmetry of that layer's averaged "
        "attention; null under a causal mask (see "
        "ProbeInfo.symmetry_note)",
    )
    relative_locality: float | None = Field(  # added later, null in older files
        default=None,
        le=1,
        description="relative locality of that layer's averaged attention (see "
        "ProbeInfo.relative_locality); null in files written before it was recorded",
    )
    degree_symmetry: float | None = Field(  # added later, null in older files
        default=None,
        ge=0,
        le=1,
        description="degree symmetry of that layer's averaged attention (see "
        "ProbeInfo.degree_symmetry); null under a causal mask, for a flat "
        "layer, and in files written before it was recorded",
    )


class ProbeInfo(Strict):
    locality: float = Field(
        ge=0,
        le=1,
        description="the paper's locality of the positional attention "
        "(swapbench.probing.metrics.locality, after the authors' "
        "calculate.py), averaged over layers, heads and words: 1 = "
        "itself only; its value for uniform attention depends on the mask",
    )
    symmetry: float | None = Field(
        ge=0,
        le=1,
        description="the paper's symmetry of the same matrix (min-max scaled "
        "within each row, so nearly on/off): 1 = left and right "
        "alike; null under a causal mask, where it is undefined",
    )
    relative_locality: float | None = Field(  # added later, null in older files
        default=None,
        le=1,
        description="swapbench figure, not the paper's: (locality - baseline) / (1 - baseline), "
        "baseline the paper's locality of uniform attention under the same mask "
        "(causal or full); 0 = no positional preference, 1 = itself only, negative "
        "= avoids its neighbours; comparable between encoders and decoders. Null in "
        "files written before it was recorded",
    )
    degree_symmetry: float | None = Field(  # added later, null in older files
        default=None,
        ge=0,
        le=1,
        description="swapbench figure, not the paper's: 1 minus the total-variation "
        "distance between the attention at offsets 1..m left and right of each "
        "row's diagonal and its mirror image, pooled over rows; 1 = exactly "
        "symmetric, falling continuously with the gap. Null under a causal "
        "mask, for flat attention (degree_symmetry_note), and in files written "
        "before it was recorded",
    )
    degree_symmetry_note: str | None = Field(
        default=None, description="why degree_symmetry is null, when the probe recorded it so"
    )
    per_layer: list[ProbeLayer] = Field(description="the same figures layer by layer")
    settings: ProbeSettings = Field(description="probe_model arguments")
    spread: float | None = Field(  # added later, null in older files
        default=None,
        ge=0,
        description="(max - min) of the averaged attention in units of the uniform weight "
        "1/positions; null in files written before it was recorded",
    )
    flat: bool | None = Field(  # added later, null in older files
        default=None,
        description="true when the spread is under swapbench.probing.metrics.FLAT_SPREAD: nearly uniform "
        "attention, on which the paper's symmetry measures noise and degree_symmetry is null",
    )
    causal: bool | None = Field(  # added with decoder-only models, null in older files
        default=None,
        description="true when every position attends only to itself and those on its left (a "
        "decoder's causal mask); null in files written before it was recorded",
    )
    symmetry_note: str | None = Field(default=None, description="why symmetry is null, when it is")
    decay_ratio: float | None = Field(  # added later; left out when null, so older files read alike
        default=None,
        gt=0,
        exclude_if=lambda value: value is None,
        description="swapbench figure, not the paper's: the attenuated encoding's s fitted with its w, the decay "
        "with distance to the right over that to the left (swapbench.probing.metrics.decay_ratio), 1 "
        "for symmetric decay; unlike symmetry and degree_symmetry it does not move with locality. "
        "Absent under a causal mask, for flat attention and in older files",
    )
    left_decay: float | None = Field(  # added with decoder-only models, null in older files
        default=None,
        ge=0,
        description="swapbench extension, not the paper's metric: the attenuated encoding's w "
        "fitted to the attention on and left of the diagonal, rows renormalised "
        "(swapbench.probing.metrics.left_decay); larger = steeper decay to the left",
    )

    @model_validator(mode="after")
    def _symmetry(self):
        if (self.symmetry is None) != bool(self.causal) and self.causal is not None:
            raise ValueError("symmetry is null exactly when the attention is causal")
        if self.symmetry is None and not self.symmetry_note:
            raise ValueError("a null symmetry needs its symmetry_note")
        if self.degree_symmetry is not None and (self.causal or self.flat):
            raise ValueError("degree_symmetry is null under a causal mask and for flat attention")
        return self


class TemplateAccuracy(Strict):
    accuracy_original: float = Field(ge=0, le=1, description="accuracy on the original pairs under this template")
    accuracy_perturbed: float = Field(ge=0, le=1, description="accuracy on the perturbed pairs under this template")
    delta: float = Field(ge=-1, le=1, description="accuracy_perturbed - accuracy_original")


class TemplateResult(Strict):
    name: str = Field(description="the template's name in the registry")
    template: str = Field(description="its text, {premise} and {hypothesis} filled in")
    verbalizers: dict[str, str] = Field(description="NLI label -> the continuation scored after it")
    results: dict[str, TemplateAccuracy] = Field(
        description="figures per configuration under this template (point estimates)"
    )


class RunSpread(Strict):
    """A figure over runs of one model that differ in one setting: its prompt templates, its fine-tuning seeds."""

    mean: float = Field(description="mean over the runs")
    std: float = Field(ge=0, description="standard deviation over the runs (n - 1 in the denominator)")
    low: float = Field(description="lowest over the runs")
    high: float = Field(description="highest over the runs")

    @classmethod
    def of(cls, values: list[float]) -> RunSpread:
        import numpy as np

        array = np.asarray(values, dtype=np.float64)
        return cls(
            mean=float(array.mean()), std=float(array.std(ddof=1)), low=float(array.min()), high=float(array.max())
        )


class ConfigurationSpread(Strict):
    accuracy_original: RunSpread = Field(description="spread of the original accuracy across templates")
    delta: RunSpread = Field(description="spread of delta across templates")


class PromptInfo(Strict):
    template: str = Field(description="the prompt of each pair, {premise} and {hypothesis} filled in")
    template_source: str = Field(
        description="where the template came from: the default (lm-evaluation-harness "
        "MNLI) or the file given to --template, named as in `source`"
    )
    verbalizers: dict[str, str] = Field(description="NLI label -> the continuation scored after the prompt")
    score: str = Field(description="how a verbalizer is scored")
    shots: int = Field(ge=0, description="k: solved examples before each prompt")
    seed: int = Field(description="seed of the examples' draw")
    separator: str = Field(description="text between the examples and before the prompt")
    examples: list[str] = Field(description="pairIDs of the examples, in prompt order")
    example_source: TrainingData | None = Field(
        description="the pairs the examples were drawn from (a training split, never the scored data); null when k is 0"
    )
    cache_key: str = Field(
        description="sha256 of model, revision, dtype, device type, template, verbalizers, k, "
        "seed, examples, length limit, verbalizer score and rendering: the scores' "
        "cache entry of the headline template, which holds each pair's scores "
        "before calibration (empty when they are not cached)"
    )
    reused: bool = Field(description="true when every pair's scores came from the cache")
    # Added later, each null in older files (one template, summed log-probabilities, no calibration, one draw).
    score_normalization: Literal["sum", "mean"] | None = Field(
        default=None,
        description="a verbalizer's score from its tokens' log-probabilities: sum (lm-eval's acc) or "
        "mean per token (length-normalised); null in older files, where it is sum",
    )
    calibration: Literal["none", "contextual", "pmi"] | None = Field(
        default=None,
        description="none; contextual (Zhao et al. 2021: each label's probability divided by its "
        "probability after content-free inputs, calibration_inputs); or pmi (domain-"
        "conditional PMI, Holtzman et al. 2021: a label's score less its score after the "
        "template's answer cue alone, calibration_inputs); null in older files: none",
    )
    calibration_inputs: list[str] | None = Field(
        default=None,
        description="the content-free premises and hypotheses (contextual), or the answer cue (pmi), "
        "each label's reference scores were read after",
    )
    shot_draw: str | None = Field(default=None, description="how the examples were drawn and ordered")
    headline_template: str | None = Field(
        default=None,
        description="the template whose predictions make the predictions file and every figure of "
        "`results`: the first named (--templates), or the name of the --template file",
    )
    templates: list[TemplateResult] | None = Field(
        default=None,
        description="every template scored, the headline first, with its figures per configuration; "
        "null when only one was",
    )
    spread: dict[str, ConfigurationSpread] | None = Field(
        default=None,
        description="per configuration, the spread of the figures across `templates` (lm-evaluation-"
        "harness's multi-prompt tasks); null when only one template was scored",
    )


Mode = Literal["fine-tuned", "prompted"]


class ModelInfo(Strict):
    name_or_path: str = Field(
        description="Hub id, or a local folder from the working folder (./x) or by its "
        "last parts (…/a/b); for a model fine-tuned here, the base model; for a "
        "model object, the name it was loaded under (config._name_or_path) or its "
        "class"
    )
    revision: str | None = Field(
        description="Hub commit of the model, or sha256 of a local folder's files; for a "
        "model handed to swapbench.evaluate as an object, in-memory:sha256:... "
        "of the files it was saved as (the board refuses it)"
    )
    model_type: str = Field(description="config.model_type")
    architecture: str = Field(description="class of the model that was scored")
    num_parameters: int = Field(ge=1, description="parameters of the scored model, classifier head included")
    label_names: list[str] = Field(description="NLI label of each model output, in output order")
    label_view: LabelView = Field(
        description="3-way (entailment/neutral/contradiction) or binary (entailment/non-entailment)"
    )
    label_map_source: Literal["config", "--label-map", "fine-tuned", "prompt"] = Field(
        description="where label_names came from: config.id2label, the --label-map option, the fine-tuning, or "
        "the prompt's verbalizers"
    )
    architecture_kind: Literal["encoder", "decoder", "encoder-decoder"] = Field(  # schema 2.1: decoders too
        description="encoder (bidirectional attention), decoder (decoder-only, causal attention) or encoder-decoder, "
        "by the model type (swapbench.models.positional.architecture_kind)"
    )
    mode: Mode = Field(
        description="fine-tuned: a classification head scored the pairs (fine-tuned here or by "
        "its publisher); prompted: the language model scored each label's verbalizer "
        "after a prompt, with prompt.shots examples"
    )
    prompt: PromptInfo | None = Field(default=None, description="the prompt, when mode is prompted")
    positional_encoding: PositionalEncodingInfo = Field(description="positional-encoding family, from the config")
    fine_tuned: bool = Field(
        description="true when swapbench fine-tuned the model on SNLI for this run (or reused its cached fine-tuning)"
    )
    fine_tuning: FineTuningInfo | None = Field(description="how, when fine_tuned or trained from scratch here")
    probe: ProbeInfo | None = Field(description="locality and symmetry of the attention; null with --no-probe")
    weights: LoadedWeights | None = Field(  # added later, null in older files
        default=None,
        description="checkpoint weights that did not load (only with --allow-missing); null when "
        "every weight loaded and none was left unused",
    )
    hypothesis_only: bool = Field(  # added later, false in older files
        default=False,
        description="true when the premise was removed from every input, in training, validation and "
        "scoring (`swapbench eval --hypothesis-only`): the figures say what the hypotheses "
        "alone give away. A diagnostic, not an NLI model: the board refuses it",
    )
    device_map: dict[str, str] | None = Field(  # added later, null in older files
        default=None,
        description="where each module of the model ran when --device-map spread it over devices: a "
        "GPU index, cpu or disk (accelerate's big-model loading); null: on one device, "
        "provenance.device",
    )
    pair_template: str | None = Field(  # added later, null in older files
        default=None,
        description="how premise and hypothesis were joined into one text, {premise} and {hypothesis} "
        "filled in, in fine-tuning and scoring alike, for a tokenizer with no pair template "
        "of its own (a decoder's: GPT-2, Llama, Qwen); null: the tokenizer's own pair "
        "template ([CLS] a [SEP] b [SEP] of an encoder), the hypothesis alone, or a prompt",
    )
    gguf: GGUFWeights | None = Field(  # added later, null in older files
        default=None,
        description="the GGUF file the weights were read from (--gguf-file, or MODEL naming a .gguf "
        "file), its quantization, and the dtype it was dequantized to; null for any other "
        "checkpoint",
    )

    @model_validator(mode="after")
    def _consistent(self):
        if self.fine_tuned != (self.fine_tuning is not None and not self.fine_tuning.from_scratch):
            raise ValueError(
                "fine_tuning must be given exactly when fine_tuned is true, or for a model trained from scratch"
            )
        if self.hypothesis_only and not (self.fine_tuning and self.fine_tuning.hypothesis_only):
            raise ValueError(
                "hypothesis_only needs a model trained on the hypotheses alone (fine_tuning.hypothesis_only)"
            )
        if (self.mode == "prompted") != (self.prompt is not None):
            raise ValueError("prompt must be given exactly when mode is prompted")
        expected = {"3-way": {"entailment", "neutral", "contradiction"}, "binary": {"entailment", "non-entailment"}}
        if set(self.label_names) != expected[self.label_view]:
            raise ValueError(f"label_names {self.label_names} do not form the {self.label_view} view")
        return self


# ---- dataset -----------------------------------------------------------------------------------------------------


class ConfigurationData(Strict):
    name: str = Field(description="configuration name, e.g. shuffle-3")
    rows: int = Field(ge=1, description="rows in the configuration (before --limit)")
    fingerprint: str = Field(description="swapbench.dataset.output.content_fingerprint over all its rows")
    verified: bool = Field(description="true when the fingerprint matched the one build_info.json records")


class DatasetInfo(Strict):
    path: str = Field(description="Hub dataset id, or a local folder named as in model.name_or_path")
    revision: str | None = Field(description="Hub commit of the dataset; null for a local folder")
    split: str = Field(description="split scored")
    fingerprint: str = Field(description="dataset_fingerprint() of the configurations scored")
    configurations: list[ConfigurationData] = Field(min_length=1, description="the configurations scored")
    limit: int | None = Field(description="--limit: only the first rows of each configuration were scored")
    source: str | None = Field(description="the SNLI source the dataset was built from (build_info.json)")
    source_fingerprint: str | None = Field(description="its fingerprint (build_info.json)")
    build_seed: int | None = Field(description="the seed of the build's shuffles (build_info.json)")
    build_version: str | None = Field(description="swapbench version that built the dataset (build_info.json)")
    build: BuildRecord | None = Field(
        default=None, description="how the dataset was built (build_info.json); null when it has none"
    )  # added later

    @model_validator(mode="after")
    def _fingerprint(self):
        names = [c.name for c in self.configurations]
        if len(set(names)) != len(names):
            raise ValueError("a configuration is listed twice")
        if self.fingerprint != dataset_fingerprint({c.name: c.fingerprint for c in self.configurations}):
            raise ValueError("dataset fingerprint does not match its configurations' fingerprints")
        return self


def dataset_fingerprint(config_fingerprints: dict[str, str]) -> str:
    """sha256 over the (name, fingerprint) of each configuration, in name order."""
    digest = hashlib.sha256()
    for name in sorted(config_fingerprints):
        digest.update(f"{name}\t{config_fingerprints[name]}\n".encode())
    return "sha256:" + digest.hexdigest()


# ---- results -----------------------------------------------------------------------------------------------------


class ConfidenceInterval(Strict):
    low: float = Field(ge=-1, le=1, description="lower bound")
    high: float = Field(ge=-1, le=1, description="upper bound")
    level: float = Field(gt=0, lt=1, description="coverage, e.g. 0.95")
    method: str = Field(description="how it was computed")
    resamples: int = Field(ge=1, description="bootstrap resamples")

    @model_validator(mode="after")
    def _ordered(self):
        if self.low > self.high:
            raise ValueError("low > high")
        return self


class AdjustedTest(Strict):
    """A test that may stand in a family of tests (the slices of a configuration), and its adjusted p-value."""

    p_value: float = Field(ge=0, le=1, description="two-sided p-value of `method`")
    p_adjusted: float | None = Field(  # schema 2.3
        default=None,
        ge=0,
        le=1,
        description="on a slice: p_value adjusted for multiple comparisons over every test "
        "the slices of its configuration carry (Holm: "
        "swapbench.evaluation.stats.holm); the slices are exploratory, and "
        "this is the p to read one by. Null on a configuration's own test",
    )

    @model_validator(mode="after")
    def _adjusted(self):
        if self.p_adjusted is not None and self.p_adjusted < self.p_value - TOLERANCE:
            raise ValueError("p_adjusted is below p_value: an adjustment never lowers a p-value")
        return self


class McNemar(AdjustedTest):
    original_only: int = Field(ge=0, description="pairs right on the original and wrong on the perturbed pair")
    perturbed_only: int = Field(ge=0, description="pairs wrong on the original and right on the perturbed pair")
    p_value: float = Field(ge=0, le=1, description="two-sided p-value of `method`")
    method: str = Field(
        description="the test: since schema 2.0 a clustered exact McNemar test (an exact "
        "sign-flip test over clusters of pairs sharing a premise); the plain exact "
        "McNemar test over pairs in files migrated from 1.0"
    )


class RoleTest(AdjustedTest):
    became_non_entailment: int = Field(
        ge=0, description="pairs predicted entailment before the swap and non-entailment after it"
    )
    became_entailment: int = Field(
        ge=0, description="pairs predicted non-entailment before the swap and entailment after it"
    )
    p_value: float = Field(
        ge=0,
        le=1,
        description="two-sided p-value of `method`, under the null hypothesis that "
        "the model is role-blind: its prediction on a pair and on its "
        "swap are exchangeable, whatever its label prior",
    )
    method: str = Field(
        description="the test: the clustered exact sign-flip (McNemar) test of the per-cluster "
        "sums of d, clustered by premise as Δ's test is"
    )


class RoleSensitivity(Strict):
    """What a role swap changes in the model's answers, whatever the gold labels say.

    On a role configuration the gold label of every original is entailment and of every swap non-entailment, so
    Δ accuracy = (share of swaps predicted as their gold label) - (share of originals predicted entailment): a
    model that answers alike before and after the swap scores a Δ of its label prior, not 0. Role sensitivity
    compares the model with itself: for each pair, d = [swap predicted non-entailment] - [original predicted
    non-entailment], and role sensitivity is the mean of d. It is 0 for a role-blind model whatever its prior,
    and 1 for a model that turns every entailment into a non-entailment once the roles are swapped."""

    value: float = Field(
        ge=-1,
        le=1,
        description="non_entailment_perturbed - non_entailment_original, a fraction "
        "(the board shows points): 0 = the swap changes nothing the "
        "model says, 1 = every swap turns an entailment answer into "
        "non-entailment",
    )
    non_entailment_original: float = Field(
        ge=0, le=1, description="share of the original pairs predicted non-entailment (any label but entailment)"
    )
    non_entailment_perturbed: float = Field(
        ge=0, le=1, description="share of the swapped pairs predicted non-entailment"
    )
    ci: ConfidenceInterval | None = Field(
        description="bootstrap confidence interval of value, paired by example "
        "and resampled by cluster as delta_ci is; null in files "
        "migrated from 2.1 (see note)"
    )
    test: RoleTest | None = Field(
        description="test of the null hypothesis that the model is role-blind; null in "
        "files migrated from 2.1 (see note)"
    )
    note: str | None = Field(default=None, description="why the interval and the test are null, when they are")

    @model_validator(mode="after")
    def _consistent(self):
        if abs(self.value - (self.non_entailment_perturbed - self.non_entailment_original)) > TOLERANCE:
            raise ValueError("value is not non_entailment_perturbed - non_entailment_original")
        if (self.ci is None or self.test is None) and not self.note:
            raise ValueError("a null interval or test needs its note")
        return self


# Fewer pairs or clusters than these and a slice's interval is too wide to read.
MIN_SLICE_PAIRS = 100
MIN_SLICE_CLUSTERS = 30


class PairedResult(Strict):
    """Original-vs-perturbed figures over a set of pairs: a configuration, or one slice of it."""

    n: int = Field(ge=1, description="pairs scored (by each fine-tuning, when `seeds` is more than 1)")
    seeds: int = Field(  # schema 2.4; left out of the file when 1, so that a one-seed file reads as before
        default=1,
        ge=1,
        exclude_if=lambda value: value == 1,
        description="fine-tunings of the model (`eval --seeds`) that scored the pairs: with more than one, every "
        "figure is the mean over them, the interval resamples seeds and clusters together, and the "
        "test's counts are summed over them, a premise's pairs under every seed forming one cluster",
    )
    clusters: int | None = Field(
        ge=1,
        description="clusters the interval and the test resample: pairs sharing a "
        "premise form one; null in files migrated from 1.0 (unclustered)",
    )
    accuracy_original: float = Field(
        ge=0, le=1, description="accuracy on the unperturbed pairs (original_premise, original_hypothesis)"
    )
    accuracy_perturbed: float = Field(
        ge=0, le=1, description="accuracy on the perturbed pairs (premise, hypothesis) against label"
    )
    delta: float = Field(ge=-1, le=1, description="accuracy_perturbed - accuracy_original, a fraction")
    delta_ci: ConfidenceInterval = Field(
        description="bootstrap confidence interval of delta, paired by example and resampled by cluster"
    )
    mcnemar: McNemar = Field(description="test of original vs perturbed correctness")
    role_sensitivity: RoleSensitivity | None = Field(  # schema 2.2
        default=None,
        description="on a role configuration (one that swaps agent and patient, its swaps labelled "
        "non-entailment): how far the swap moves the model's answers from entailment to "
        "non-entailment, the headline of the configuration; delta there mixes in the "
        "model's label prior, role sensitivity does not. Null on other configurations, "
        "and on the slices of files migrated from 2.1",
    )

    @model_validator(mode="after")
    def _consistent(self):
        if abs(self.delta - (self.accuracy_perturbed - self.accuracy_original)) > TOLERANCE:
            raise ValueError("delta is not accuracy_perturbed - accuracy_original")
        m = self.mcnemar
        if m.original_only + m.perturbed_only > self.n * self.seeds:
            raise ValueError("more discordant pairs than pairs")
        if abs(self.delta - (m.perturbed_only - m.original_only) / (self.n * self.seeds)) > TOLERANCE:
            raise ValueError("delta disagrees with the McNemar counts")
        if self.clusters is not None and self.clusters > self.n:
            raise ValueError("more clusters than pairs")
        role = self.role_sensitivity
        if (
            role
            and role.test
            and abs(
                role.value - (role.test.became_non_entailment - role.test.became_entailment) / (self.n * self.seeds)
            )
            > TOLERANCE
        ):
            raise ValueError("role_sensitivity disagrees with the counts of its test")
        return self


class AcceptanceFigure(Strict):
    value: float = Field(ge=0, le=1, description="the figure, a fraction")
    ci: ConfidenceInterval = Field(
        description="bootstrap confidence interval, resampled by cluster of pairs sharing a premise"
    )


class AcceptancePoint(Strict):
    """UNLU's figures recomputed with the first K′ of each pair's K permutations (permutation_index below K′): a
    point of the K-curve, without intervals. P^c and P^f average over the pairs with some correct permutation among
    those K′, a set that grows with K′, so each point records its own counts."""

    permutations: int = Field(ge=1, description="K′: the first K′ permutations of each pair")
    omega_max: float = Field(ge=0, le=1, description="Ω_max at K′")
    omega_rand: float = Field(ge=0, le=1, description="Ω_rand at K′")
    p_c: float | None = Field(ge=0, le=1, description="P^c at K′; null when no pair qualifies")
    p_f: float | None = Field(ge=0, le=1, description="P^f at K′; null when no pair qualifies")
    p_c_pairs: int = Field(ge=0, description="pairs P^c averages over at K′")
    p_f_pairs: int = Field(ge=0, description="pairs P^f averages over at K′")


class PermutationAcceptance(Strict):
    """UNLU's permutation acceptance (Sinha et al., "UnNatural Language Inference", ACL 2021), from the K
    permutations of each pair (swapbench.evaluation.acceptance defines each figure after UNLU's code). A pair's
    share correct is the share of its permutations predicted as the gold label."""

    permutations: int = Field(ge=1, description="K: permutations per pair (UNLU drew 100; omega_max grows with K)")
    pairs: int = Field(ge=1, description="pairs, each with its K permutations")
    clusters: int = Field(ge=1, description="clusters the intervals resample: pairs sharing a premise")
    accuracy: AcceptanceFigure = Field(description="accuracy on the same pairs unpermuted")
    omega_max: AcceptanceFigure = Field(
        description="Ω_max: share of pairs for which some permutation is predicted as the gold label"
    )
    omega_rand: AcceptanceFigure = Field(
        description="Ω_rand: share of pairs for which more than a third of the "
        "permutations are predicted as the gold label"
    )
    p_c: AcceptanceFigure | None = Field(
        description="P^c: mean share correct over the pairs predicted right "
        "unpermuted that have some correct permutation (UNLU's "
        "orig_correct_cor_mean); null when there are none"
    )
    p_f: AcceptanceFigure | None = Field(
        description="P^f: the same over the pairs predicted wrong unpermuted "
        "(UNLU's flipped_cor_mean); null when there are none"
    )
    p_c_pairs: int = Field(ge=0, description="pairs P^c averages over")
    p_f_pairs: int = Field(ge=0, description="pairs P^f averages over")
    definition: str = Field(description="whose definitions the figures follow")
    k_curve: list[AcceptancePoint] = Field(
        default_factory=list,
        exclude_if=lambda value: not value,
        description="with `eval --k-curve`: the figures recomputed with the first K′ of each pair's permutations, "
        "K′ = 2 to K (the last point is the figures above); empty otherwise",
    )

    @model_validator(mode="after")
    def _consistent(self):
        if self.k_curve and [p.permutations for p in self.k_curve] != list(range(2, self.permutations + 1)):
            raise ValueError("k_curve does not hold K′ = 2 to K once each")
        if (self.p_c is None) != (self.p_c_pairs == 0) or (self.p_f is None) != (self.p_f_pairs == 0):
            raise ValueError("p_c and p_f are null exactly when no pair qualifies")
        if self.p_c_pairs + self.p_f_pairs > self.pairs or self.clusters > self.pairs:
            raise ValueError("more pairs counted than there are")
        if abs(self.omega_max.value * self.pairs - (self.p_c_pairs + self.p_f_pairs)) > 1e-6:
            raise ValueError("omega_max disagrees with the pairs P^c and P^f average over")
        if self.omega_rand.value > self.omega_max.value + TOLERANCE:
            raise ValueError("omega_rand exceeds omega_max")
        return self


# The four figures of permutation acceptance, PermutationAcceptance's fields, with the symbol each is shown by: the
# terminal, the API's columns and the board name them from here.
ACCEPTANCE_FIGURES = {"omega_max": "Ω_max", "omega_rand": "Ω_rand", "p_c": "P^c", "p_f": "P^f"}


# The four pairs of a role quartet (role-quartets), the two entailed ones first: (P, H) and (P′, H′) entailment,
# (P, H′) and (P′, H) non-entailment, ′ exchanging agent and patient. (P′, H) is the reference paper's Shuffle-SR
# cell. What any premise-blind or word-order-blind model scores on them, exactly (evaluation/quartets.py says why).
QUARTET_CELLS = ("PH", "P'H'", "PH'", "P'H")
SHUFFLE_SR_CELL = "P'H"
QUARTET_CHANCE = {"pair_accuracy": 0.5, "quartet_accuracy": 0.0}


EXACT_NULL_TEST = (
    "each sentence tokenized alone by the model's tokenizer, without special tokens (as a sequence pair is "
    "encoded): P′ and H′ hold the same token ids as P and H, in another order"
)


class ExactNullFigures(Strict):
    """Pair and quartet accuracy on the quartets where the model's own tokenizer reads the exchanged sentences P′
    and H′ as permutations of P's and H's tokens: there an order-blind model's 0.5 and 0 are exact. Under an
    uncased WordPiece every quartet is one; under a cased or byte-level tokenizer a quartet whose exchange moved a
    capital, or moved a word to the sentence's start, may not be, and a bag of its tokens can then tell its pairs
    apart without reading roles."""

    quartets: int = Field(ge=0, description="whole quartets whose null is exact under the model's tokenizer")
    of: int = Field(ge=1, description="whole quartets scored")
    test: str = Field(default=EXACT_NULL_TEST, description="how a quartet's null was found exact")
    pair_accuracy: float | None = Field(
        default=None, ge=0, le=1, description="pair accuracy on those quartets; null when there are none"
    )
    pair_accuracy_ci: ConfidenceInterval | None = Field(default=None, description="its interval, as the headline's")
    quartet_accuracy: float | None = Field(
        default=None, ge=0, le=1, description="quartet accuracy on those quartets; null when there are none"
    )
    quartet_accuracy_ci: ConfidenceInterval | None = Field(default=None, description="its interval")

    @model_validator(mode="after")
    def _consistent(self):
        if self.quartets > self.of:
            raise ValueError("more exact quartets than quartets")
        figures = (self.pair_accuracy, self.pair_accuracy_ci, self.quartet_accuracy, self.quartet_accuracy_ci)
        missing = [f is None for f in figures]
        if (self.quartets == 0 and not all(missing)) or (self.quartets > 0 and any(missing)):
            raise ValueError("figures are given exactly when some quartet's null is exact")
        return self


class QuartetResult(Strict):
    """Pair and quartet accuracy of a quartet configuration (role-quartets), in the binary view, from its rows put
    back together four pairs a quartet (swapbench.evaluation.quartets)."""

    quartets: int = Field(
        ge=1,
        description="whole quartets scored (by each fine-tuning, when `seeds` is more than "
        "1); one cut in half by --limit is left out",
    )
    seeds: int = Field(
        default=1,
        ge=1,
        exclude_if=lambda value: value == 1,
        description="fine-tunings that scored them: with more than one, each figure is the mean over "
        "them, and the intervals resample seeds and clusters together",
    )
    clusters: int = Field(ge=1, description="clusters the intervals resample: quartets sharing a source premise P")
    pair_accuracy: float = Field(
        ge=0,
        le=1,
        description="share of the quartets' four pairs answered right (binary "
        "view); exactly 0.5 for any model that ignores the premise "
        "or word order (chance)",
    )
    pair_accuracy_ci: ConfidenceInterval = Field(
        description="bootstrap interval of pair_accuracy, a quartet's four pairs resampled together by cluster"
    )
    quartet_accuracy: float = Field(
        ge=0,
        le=1,
        description="share of the quartets whose four pairs are all answered "
        "right, the role headline: exactly 0 for any model that "
        "ignores the premise or word order (chance)",
    )
    quartet_accuracy_ci: ConfidenceInterval = Field(
        description="bootstrap interval of quartet_accuracy, resampled by cluster"
    )
    cells: dict[str, float] = Field(
        description="accuracy on each pair of the quartets: PH and P'H' (entailment), "
        "PH' and P'H (non-entailment; P'H, the premise exchanged and the "
        "hypothesis kept, is the reference paper's Shuffle-SR)"
    )
    chance: dict[str, float] = Field(
        description="what a premise-blind or word-order-blind model scores, exactly: "
        "pair_accuracy 0.5, quartet_accuracy 0"
    )
    exact_null: ExactNullFigures | None = Field(  # added later; left out of the file when null
        default=None,
        exclude_if=lambda value: value is None,
        description="the figures on the quartets where the chance levels are exact for this model (its "
        "tokenizer reads P′ and H′ as permutations of P's and H's tokens); absent when not measured (a file "
        "written before, or predictions that do not say)",
    )

    @property
    def shuffle_sr(self) -> float:
        """The accuracy of the paper's Shuffle-SR cell, (P′, H)."""
        return self.cells[SHUFFLE_SR_CELL]

    @property
    def shuffle_sr_chance(self) -> float:
        """What a model that ignores the premise or word order scores on the Shuffle-SR cell, given its answers on
        the control (P, H): it answers (P′, H) as it answers (P, H), and the gold labels differ, so exactly one
        minus its accuracy there."""
        return 1 - self.cells[QUARTET_CELLS[0]]

    @model_validator(mode="after")
    def _consistent(self):
        if tuple(self.cells) != QUARTET_CELLS or not all(0 <= v <= 1 for v in self.cells.values()):
            raise ValueError(f"cells are the accuracies of {', '.join(QUARTET_CELLS)}, in that order")
        if abs(self.pair_accuracy - sum(self.cells.values()) / len(QUARTET_CELLS)) > TOLERANCE:
            raise ValueError("pair_accuracy is not the mean of the cells' accuracies")
        if self.quartet_accuracy > min(self.cells.values()) + TOLERANCE:
            raise ValueError("more quartets right than pairs right in one of their cells")
        if self.chance != QUARTET_CHANCE:
            raise ValueError(f"chance is {QUARTET_CHANCE}")
        if self.clusters > self.quartets:
            raise ValueError("more clusters than quartets")
        return self


# Distance bins of the locality curve: upper bounds, inclusive, in positions travelled (results/displacement.py); a
# last bin takes every larger distance. Doubling widths, fixed, so that curves of two models or configurations share
# their bins (a shuffle of n words travels about (n² - 1) / 3 positions).
LOCALITY_BINS = (2, 4, 8, 16, 32, 64)
# The slope is stored per position of distance, and shown per LOCALITY_SLOPE_SCALE positions, in points.
LOCALITY_SLOPE_SCALE = 10
LOCALITY_NULL = "slope = 0: changes do not grow with displacement"


class LocalityBin(Strict):
    """The rows of a configuration whose shuffle's distance lies in [distance_min, distance_max]."""

    distance_min: int = Field(ge=0, description="smallest distance of the bin (inclusive)")
    distance_max: int | None = Field(
        ge=0, description="largest distance of the bin (inclusive); null for the last, open bin"
    )
    rows: int = Field(ge=1, description="rows in the bin (of every fine-tuning, when seeds is more than 1)")
    changed: float = Field(
        ge=0, le=1, description="share of the rows whose perturbed pair's prediction differs from the original pair's"
    )
    delta: float = Field(ge=-1, le=1, description="accuracy_perturbed - accuracy_original over the bin's rows")


class Locality(Strict):
    """Locality as a curve (swapbench.evaluation.locality): whether a shuffle changes the model's answer more often
    the farther it moves the premise's words. Each row's distance (results/displacement.py) against whether its
    prediction changed, binned (LOCALITY_BINS), and the linear-probability slope of "changed" on distance with a
    percentile bootstrap interval over premises (clusters). Null hypothesis: slope = 0, changes do not grow with
    displacement. A model whose interval covers 0 shows no gradient; `gradient` is true exactly when the interval
    lies wholly above or below 0."""

    rows: int = Field(ge=1, description="rows with a distance (of every fine-tuning, when seeds is more than 1)")
    clusters: int = Field(ge=1, description="clusters the interval resamples: rows sharing a premise")
    bins: list[LocalityBin] = Field(description="the non-empty distance bins, in order of distance")
    slope: float | None = Field(
        ge=-1,
        le=1,
        description="least-squares slope of changed (0 or 1) on distance: the "
        "share changed gained per position travelled (a fraction; "
        f"shown in points per {LOCALITY_SLOPE_SCALE} positions); "
        "null when the rows hold fewer than two distances",
    )
    slope_ci: ConfidenceInterval | None = Field(
        description="percentile bootstrap interval of slope, resampling "
        "premises (clusters) with replacement; null as slope is"
    )
    gradient: bool = Field(
        description="true when slope_ci excludes 0; a model whose interval covers 0 (or that has "
        "no slope) shows no gradient"
    )
    null: str = Field(default=LOCALITY_NULL, description="the null hypothesis the interval tests")

    @model_validator(mode="after")
    def _consistent(self):
        if (self.slope is None) != (self.slope_ci is None):
            raise ValueError("slope and slope_ci are null together")
        if self.gradient != shows_gradient(self.slope_ci):
            raise ValueError("gradient is true exactly when slope_ci excludes 0")
        if sum(b.rows for b in self.bins) != self.rows or self.clusters > self.rows:
            raise ValueError("the bins' rows do not add up to rows, or more clusters than rows")
        return self


def shows_gradient(slope_ci: ConfidenceInterval | None) -> bool:
    """The one definition of a locality gradient: the slope's interval excludes 0. One that covers 0, or no
    interval, is no gradient."""
    return slope_ci is not None and (slope_ci.low > 0 or slope_ci.high < 0)


class SliceResult(PairedResult):
    small: bool = Field(
        description=f"true when the slice is too small to read: fewer than {MIN_SLICE_PAIRS} "
        f"pairs or {MIN_SLICE_CLUSTERS} clusters"
    )


class ConfigurationResult(PairedResult):
    label_view: LabelView = Field(description="labels compared on: 3-way, or binary for a two-label model")
    non_entailment_rate: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="fraction of perturbed pairs predicted not-entailment (binary view); for configurations "
        "whose perturbation makes every pair non-entailment (the role configurations)",
    )
    slices: dict[str, SliceResult] | None = Field(
        description="the same figures per slice tag of the rows (label:NP, moved:2 for two constituents shuffled, "
        "side:hypothesis, ...), a row counted under each of its tags; null in files migrated from 1.0"
    )
    displacement: Displacement | None = Field(  # added later, null in older files
        default=None,
        description="how far the scored rows' shuffles move words (swapbench.results.displacement), "
        "from their predictions rows' distance and moved; null for a configuration that "
        "reorders no premise (a role swap) and in files written before it was recorded",
    )
    permutation_acceptance: PermutationAcceptance | None = Field(  # added later, null in older files
        default=None,
        description="on a configuration of K permutations per pair (unlu): UNLU's Ω_max, Ω_rand, P^c "
        "and P^f; null on the others. Of a multi-seed run: over every (seed, pair), so "
        "that Ω_max, Ω_rand and accuracy are the means over the seeds and P^c, P^f their "
        "pooled ratios; pairs counts (seed, pair) units, and the intervals resample "
        "premises, not seeds (seed_variance gives each seed's figures)",
    )
    locality: Locality | None = Field(  # added later; left out of the file when null, so older files read alike
        default=None,
        exclude_if=lambda value: value is None,
        description="on a configuration whose rows record a distance (shuffle-N, shuffle-random, unlu): the share "
        "of predictions changed and Δ per distance bin, and the slope of changed on distance with its "
        "interval clustered by premise (swapbench.evaluation.locality); absent on the others and in "
        "files written before it was recorded",
    )
    holm_families: Literal["per-metric"] | None = Field(  # added later; left out when null, so older files read alike
        default=None,
        exclude_if=lambda value: value is None,
        description="how the slices' tests were grouped for Holm's adjustment (p_adjusted): per-metric, one family "
        "of the slices' Δ tests and another of their role-sensitivity tests; absent (files written "
        "before it), one family of every test the slices carry, Δ's and role sensitivity's mixed",
    )
    quartets: QuartetResult | None = Field(  # added later; left out of the file when null, so older files read alike
        default=None,
        exclude_if=lambda value: value is None,
        description="on a quartet configuration (role-quartets, its rows tagged cell:P'H and cell:PH'): pair and "
        "quartet accuracy with their intervals and chance levels, and each cell's accuracy; absent on "
        "the others",
    )

    @model_validator(mode="after")
    def _role(self):
        role = self.role_sensitivity
        if (role is None) != (self.non_entailment_rate is None):
            raise ValueError("role_sensitivity is given exactly for configurations with a non_entailment_rate")
        if role and abs(role.non_entailment_perturbed - self.non_entailment_rate) > TOLERANCE:
            raise ValueError("role_sensitivity.non_entailment_perturbed is not non_entailment_rate")
        if self.quartets and self.quartets.seeds != self.seeds:
            raise ValueError("quartets are not over the configuration's seeds")
        if self.mcnemar.p_adjusted is not None or (role and role.test and role.test.p_adjusted is not None):
            raise ValueError("p_adjusted belongs to the slices' tests, not to the configuration's own")
        adjusted = {test.p_adjusted is None for family in slice_families(self) for test in family}
        if len(adjusted) > 1:
            raise ValueError("some slice tests carry p_adjusted and others do not: the adjustment is over all of them")
        return self


def slice_tests(result: ConfigurationResult) -> list[McNemar | RoleTest]:
    """Every test the slices of a configuration carry, in tag order: the one family of files written before
    holm_families (schema 2.3's)."""
    tests = []
    for tag in sorted(result.slices or {}):
        s = result.slices[tag]
        tests.append(s.mcnemar)
        if s.role_sensitivity and s.role_sensitivity.test:
            tests.append(s.role_sensitivity.test)
    return tests


def slice_families(result: ConfigurationResult) -> list[list[McNemar | RoleTest]]:
    """The families the slices' p-values are adjusted in, each in tag order. Per metric (holm_families
    "per-metric"): the Δ tests, then the role-sensitivity tests, so that a role configuration's role figures are not
    adjusted against Δ tests its docs call meaningless there (every swap is non-entailment), nor the Δ's against
    them; otherwise every test in one family (slice_tests)."""
    if result.holm_families != "per-metric":
        return [slice_tests(result)]
    slices = [result.slices[tag] for tag in sorted(result.slices or {})]
    roles = [s.role_sensitivity.test for s in slices if s.role_sensitivity and s.role_sensitivity.test]
    return [family for family in ([s.mcnemar for s in slices], roles) if family]


# ---- model health ------------------------------------------------------------------------------------------------

# The accuracy check (evaluation/health.py says why these): a one-sided exact binomial test at level CHANCE_LEVEL
# against the majority rate plus CHANCE_GAIN of the way from it to perfect accuracy.
CHANCE_GAIN = 0.10
CHANCE_LEVEL = 0.01


class ModelHealth(Strict):
    at_chance: bool = Field(
        description="true when the model is degenerate: its figures are no result to report, "
        "and the board refuses the file"
    )
    reasons: list[str] = Field(description="why, in words; empty when at_chance is false")
    checks: list[str] = Field(description="the checks run")
    not_run: list[str] = Field(
        default_factory=list,
        description="the checks that could not run, each with why (no configuration that "
        "keeps the source's labels was scored; a file migrated from an older "
        "schema holds too little)",
    )
    accuracy_original: float | None = Field(
        ge=0,
        le=1,
        description="accuracy on the distinct original pairs scored "
        "of the configurations that keep the source's "
        "labels (not a role configuration's, whose "
        "originals are selected entailment pairs)",
    )
    accuracy_pairs: int | None = Field(
        default=None, ge=0, description="how many original pairs accuracy_original is over"
    )
    majority_rate: float | None = Field(
        ge=0,
        le=1,
        description="share of the most frequent gold label, in the "
        "label view, among the whole split's originals: "
        "every row of the configurations that keep the "
        "source's labels, scored or not, so that it does "
        "not depend on which configurations were scored",
    )
    majority_from: str | None = Field(
        default=None,
        description="where majority_rate was computed from: the "
        "configurations read and their distinct pairs, or "
        "the migration that supplied it",
    )
    p_value: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description=f"one-sided exact binomial test of accuracy_original against the "
        f"majority rate plus {CHANCE_GAIN:g} of the way from it to 1 (the "
        f"accuracy check: above chance when under {CHANCE_LEVEL:g})",
    )
    top_prediction_share: float | None = Field(
        ge=0,
        le=1,
        description="share of the most frequent label among every "
        "prediction scored, originals and perturbed "
        "pairs of every configuration",
    )
    min_train_loss: float | None = Field(description="lowest per-epoch training loss, when fine-tuned here")

    @model_validator(mode="after")
    def _consistent(self):
        if self.at_chance != bool(self.reasons):
            raise ValueError("at_chance must be true exactly when there are reasons")
        return self


# ---- fine-tuning seeds (schema 2.4) -------------------------------------------------------------------------------
# One fine-tuning of a model says little of its sensitivity to roles: across 100 fine-tunings of BERT on MNLI,
# McCoy et al. (2020) saw HANS subject/object-swap accuracy range from 0 to 66% while MNLI accuracy moved by a
# quarter point. `eval --seeds` fine-tunes once per seed; its file's `results` hold the means over the seeds, and
# seed_variance each seed's figures and their spread.


class SeedFigures(Strict):
    """One fine-tuning's figures of one configuration, as its own run would report them (its slices aside: the
    predictions file holds every seed's rows)."""

    accuracy_original: float = Field(ge=0, le=1, description="accuracy on the unperturbed pairs")
    accuracy_perturbed: float = Field(ge=0, le=1, description="accuracy on the perturbed pairs")
    delta: float = Field(ge=-1, le=1, description="accuracy_perturbed - accuracy_original")
    delta_ci: ConfidenceInterval = Field(
        description="this fine-tuning's interval of delta, over the clusters of pairs alone"
    )
    p_value: float = Field(ge=0, le=1, description="this fine-tuning's clustered exact McNemar test")
    role_sensitivity: float | None = Field(description="role sensitivity on a role configuration; null elsewhere")
    role_sensitivity_ci: ConfidenceInterval | None = Field(
        description="this fine-tuning's interval of role sensitivity, over the clusters of pairs alone; null where "
        "role_sensitivity is"
    )
    permutation_acceptance: PermutationAcceptance | None = Field(
        default=None,
        description="this fine-tuning's permutation acceptance (UNLU), on a configuration of K "
        "permutations per pair; null elsewhere",
    )
    quartets: QuartetResult | None = Field(  # added later; left out of the file when null
        default=None,
        exclude_if=lambda value: value is None,
        description="this fine-tuning's pair and quartet accuracy, on a quartet configuration (role-quartets); "
        "absent elsewhere",
    )

    @model_validator(mode="after")
    def _consistent(self):
        if abs(self.delta - (self.accuracy_perturbed - self.accuracy_original)) > TOLERANCE:
            raise ValueError("delta is not accuracy_perturbed - accuracy_original")
        if (self.role_sensitivity is None) != (self.role_sensitivity_ci is None):
            raise ValueError("role_sensitivity and its interval are given together")
        return self


class SeedResult(Strict):
    """One of the fine-tunings of a multi-seed run."""

    seed: int = Field(ge=0, description="its seed: recipe.seed of its fine-tuning")
    fine_tuning: FineTuningInfo = Field(
        description="its training: checkpoint, cache key, history and best validation accuracy"
    )
    health: ModelHealth = Field(description="whether this fine-tuning is at chance, and why")
    results: dict[str, SeedFigures] = Field(description="its figures per configuration")


class ConfigurationSeedSpread(Strict):
    accuracy_original: RunSpread = Field(description="accuracy on the unperturbed pairs over the seeds")
    accuracy_perturbed: RunSpread = Field(description="accuracy on the perturbed pairs over the seeds")
    delta: RunSpread = Field(description="delta over the seeds")
    role_sensitivity: RunSpread | None = Field(
        description="role sensitivity over the seeds, on a role configuration; null elsewhere"
    )
    permutation_acceptance: dict[str, RunSpread | None] | None = Field(
        default=None,
        description="each figure of permutation acceptance (omega_max, omega_rand, p_c, p_f) over the "
        "seeds, on a configuration of K permutations per pair (a figure undefined for "
        "some seed is null); null elsewhere",
    )
    quartet_accuracy: RunSpread | None = Field(  # added later; left out of the file when null
        default=None,
        exclude_if=lambda value: value is None,
        description="quartet accuracy over the seeds, on a quartet configuration (role-quartets); absent elsewhere",
    )
    pair_accuracy: RunSpread | None = Field(  # added later; left out of the file when null
        default=None,
        exclude_if=lambda value: value is None,
        description="pair accuracy over the seeds, on a quartet configuration; absent elsewhere",
    )


class SeedVariance(Strict):
    """Every fine-tuning of a run over several seeds (`eval --seeds`), and the spread of its figures over them.
    The file's `results` hold the means over the seeds, in the shape of a one-seed run's."""

    runs: list[SeedResult] = Field(
        min_length=2, description="each fine-tuning, in the order of --seeds; model.fine_tuning is the first's"
    )
    validation_accuracy: RunSpread = Field(description="best_validation_accuracy of the fine-tunings over the seeds")
    spread: dict[str, ConfigurationSeedSpread] = Field(
        description="per configuration, its figures over the seeds (point estimates)"
    )

    @property
    def seeds(self) -> list[int]:
        return [run.seed for run in self.runs]

    @model_validator(mode="after")
    def _consistent(self):
        if len(set(self.seeds)) != len(self.seeds):
            raise ValueError("a seed is listed twice")
        if any(set(run.results) != set(self.spread) for run in self.runs):
            raise ValueError("every seed's results and the spread name the same configurations")
        return self


# ---- provenance --------------------------------------------------------------------------------------------------


class Seeds(Strict):
    bootstrap: int = Field(description="seed of the bootstrap's generator")
    fine_tuning: int | None = Field(
        description="Trainer seed, when the model was fine-tuned; of a multi-seed "
        "run, its first (seed_variance.runs lists every seed)"
    )
    probe: int | None = Field(description="seed of the probe, when it ran")


class Timings(Strict):
    fine_tuning: float = Field(description="seconds spent fine-tuning in this run (0 when reused or not needed)")
    probe: float = Field(description="seconds spent in the probe")
    scoring: float = Field(description="seconds spent scoring pairs")
    total: float = Field(description="seconds from start to the results file")


class ScoringInfo(Strict):
    unique_pairs: int = Field(
        description="distinct (premise, hypothesis) pairs run through the model; pairs "
        "shared by configurations (the originals) are scored once"
    )
    pairs: int = Field(description="pair scorings the figures use (2 per row)")
    max_length: int = Field(description="pairs truncated to this many tokens")
    truncated: int = Field(description="distinct pairs longer than max_length, truncated")
    batch_size: int = Field(description="batch size actually used (after any out-of-memory back-off)")
    batch_size_requested: int | None = Field(description="--eval-batch-size; null: automatic")
    forward_passes: int | None = Field(
        default=None, description="forward passes run (prompted scoring); by the main process alone when processes > 1"
    )
    processes: int = Field(  # added later, 1 in older files
        default=1,
        ge=1,
        description="processes that scored the pairs, each a disjoint shard (`torchrun`, "
        "`accelerate launch`); batch_size is the main process's",
    )
    dtype_agreement: DtypeAgreement | None = Field(  # added later, null in older files
        default=None,
        description="with a dtype other than float32: the labels of a sample of the distinct pairs "
        "against a float32 copy's (the main process's, after the scoring); null in "
        "float32",
    )


class Provenance(Strict):
    swapbench_version: str = Field(description="version of swapbench that wrote the file")
    git_commit: str | None = Field(description="commit of the swapbench source tree, when run from a git checkout")
    git_dirty: bool | None = Field(description="true when that checkout had uncommitted changes")
    packages: dict[str, str] = Field(description="versions of python and the packages that shape the figures")
    platform: str = Field(description="operating system and machine")
    device: str = Field(description="torch device the pairs were scored on")
    device_name: str = Field(description="the processor or GPU model")
    dtype: str = Field(description="torch dtype of the scored model")
    torch_threads: int = Field(description="torch intra-op CPU threads")
    seeds: Seeds = Field(description="every seed used")
    scoring: ScoringInfo = Field(description="how the pairs were run")
    timings: Timings = Field(description="wall times")
    command: list[str] = Field(description="the command line, its paths named as in model.name_or_path")
    started_at: datetime = Field(description="UTC start time")


class PredictionsFile(Strict):
    path: str = Field(description="the per-example predictions (JSON lines), relative to the results file")
    sha256: str = Field(description="sha256 of that file")
    rows: int = Field(description="lines in it: one per (configuration, pair)")


class RoleFreeControl(RoleSensitivity):
    """The role score on pairs whose word order changed without a role change: the entailment pairs of a
    configuration that reorders words but swaps no roles (shuffle-random, unlu), the share predicted
    non-entailment after the reordering minus before it. A role figure is read against it: how much of a role
    configuration's score any reordering gives, with no role swapped."""

    configuration: str = Field(description="the configuration whose entailment pairs were compared")
    n: int = Field(ge=1, description="its entailment pairs (each seed's, of a multi-seed run)")


class EvalResults(Strict):
    schema_version: Literal["2.4"] = Field(default=SCHEMA_VERSION, description="version of this schema")
    model: ModelInfo = Field(description="the model scored")
    dataset: DatasetInfo = Field(description="the benchmark data scored")
    results: dict[str, ConfigurationResult] = Field(min_length=1, description="figures per configuration")
    health: ModelHealth = Field(
        description="whether the model is at chance, and why; of a multi-seed run, the first "
        "fine-tuning's figures and a verdict over every one, at chance when one "
        "is (seed_variance.runs[].health has each)"
    )
    predictions: PredictionsFile = Field(description="where every figure can be recomputed from")
    provenance: Provenance = Field(description="what produced the file")
    seed_variance: SeedVariance | None = Field(  # schema 2.4
        default=None,
        description="a run over several fine-tuning seeds (`eval --seeds`): each seed's figures and "
        "their spread; `results` then hold the means over the seeds. Null for one "
        "fine-tuning, or none",
    )
    role_free_controls: list[RoleFreeControl] | None = Field(  # added later; left out when null (older files)
        default=None,
        exclude_if=lambda value: value is None,
        description="beside the role figures of a run with role configurations: the same score on the entailment "
        "pairs of each configuration that reorders words without swapping roles (shuffle-random, unlu) "
        "that the run scored, so that a reader sees how much of a role figure any reordering gives; "
        "absent where the run has no role configuration or none of those, and in older files",
    )

    @model_validator(mode="after")
    def _configurations(self):
        if set(self.results) != {c.name for c in self.dataset.configurations}:
            raise ValueError("results and dataset.configurations name different configurations")
        for name, result in self.results.items():
            if result.label_view != self.model.label_view:
                raise ValueError(f"{name}: label_view differs from the model's")
        return self

    @model_validator(mode="after")
    def _seeds(self):
        variance = self.seed_variance
        seeds = len(variance.runs) if variance else 1
        if any(
            figures.seeds != seeds
            for result in self.results.values()
            for figures in [result, *(result.slices or {}).values()]
        ):
            raise ValueError(f"the results are not over the {seeds} seed(s) that seed_variance lists")
        if variance is None:
            return self
        if set(variance.spread) != set(self.results):
            raise ValueError("seed_variance and results name different configurations")
        for name, result in self.results.items():
            mean = variance.spread[name].delta.mean
            if abs(result.delta - mean) > TOLERANCE:
                raise ValueError(f"{name}: delta {result.delta!r} is not the mean over the seeds {mean!r}")
            quartets, spread = result.quartets, variance.spread[name].quartet_accuracy
            if (
                (quartets is None) != (spread is None)
                or quartets
                and abs(quartets.quartet_accuracy - spread.mean) > TOLERANCE
            ):
                raise ValueError(f"{name}: quartet accuracy is not the mean over the seeds")
        if self.model.fine_tuning != variance.runs[0].fine_tuning:
            raise ValueError("model.fine_tuning is not the first seed's")
        return self


class PredictionRow(Strict):
    """One line of the predictions file."""

    pair_id: str = Field(description="SNLI pairID")
    configuration: str = Field(description="configuration name")
    gold: str = Field(description="gold label of the perturbed pair, in the results' label view")
    gold_original: str = Field(description="gold label of the original pair, in the label view")
    prediction_original: str = Field(description="the model's label for the original pair")
    prediction_perturbed: str = Field(description="the model's label for the perturbed pair")
    cluster: str = Field(
        description="the pair's cluster for the interval and the test: pairs sharing a premise "
        "(their original premise; in a quartet configuration the source premise P, so "
        "that a quartet's four pairs form one cluster)"
    )
    tags: list[str] = Field(description="the row's slice tags")
    distance: int | None = Field(  # added later, null in older files
        default=None,
        ge=0,
        description="the premise shuffle's distance: sum over its tokens of |new position - old "
        "position| (swapbench.results.displacement); null where the row reorders "
        "no premise",
    )
    moved: int | None = Field(  # added later, null in older files
        default=None,
        ge=0,
        description="the premise's tokens whose position changed (tokens, not the shuffled "
        "constituents the slice tag moved:N counts); null as distance is",
    )
    permutation: int | None = Field(  # added later; left out of the line when null, as seed is
        default=None,
        ge=0,
        exclude_if=lambda value: value is None,
        description="in a configuration of K permutations per pair (unlu): which permutation "
        "of the pair the row is, 0 to K - 1 (a row is keyed by pair_id and "
        "permutation); null in the others",
    )
    exact_null: bool | None = Field(  # added later; left out of the line when null
        default=None,
        exclude_if=lambda value: value is None,
        description="in a quartet configuration, whether the model's tokenizer reads the quartet's exchanged "
        "sentences as permutations of its originals' tokens (QuartetResult.exact_null); absent elsewhere",
    )
    seed: int | None = Field(  # schema 2.4; left out of the line when null, so that a one-seed file reads as before
        default=None,
        ge=0,
        exclude_if=lambda value: value is None,
        description="of a multi-seed run (`eval --seeds`), the seed of the fine-tuning that made the predictions: "
        "the file holds every seed's rows; absent otherwise",
    )


if __name__ == "__main__":
    import json

    print(json.dumps(EvalResults.model_json_schema(), indent=2))
