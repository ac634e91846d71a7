"""Loading the model to score: a Hub id or a local folder, on the chosen device, with its labels mapped.

A sequence-classification model is used as is; any other model (a base model such as roberta-base) has to be
fine-tuned first (finetune.py), which `is_classifier` tells the command.
"""

from __future__ import annotations

import contextlib
import functools
import os
from dataclasses import dataclass

import torch

from ..core.compat import TRANSFORMERS_VERSION, dtype_argument
from ..core.errors import SwapbenchError
from ..core.fingerprint import model_revision  # noqa: F401  (eval names models by it)
from ..core.hub_access import cache_only, check_model, load_failure
from ..core.options import device_problem
from ..results.schema import GGUFWeights, LoadedWeights
from .gguf import as_dense, cached_part, check_gguf, gguf_arguments, gguf_record, load_dense, quiet_dequantization
from .label_map import LabelMap, LabelMapError, from_config, from_option
from .positional import unimplemented_positional_encoding


@dataclass
class LoadedModel:
    model: torch.nn.Module
    tokenizer: object
    config: object
    labels: LabelMap
    device: torch.device
    dtype: torch.dtype
    weights: LoadedWeights | None = None  # what did not load, when --allow-missing let it be scored
    device_map: dict[str, str] | None = None  # with a Placement: each module's device (a GPU index, cpu, disk)
    gguf: GGUFWeights | None = None  # the GGUF file it was dequantized from, when it was


@dataclass(frozen=True)
class Placement:
    """A model spread over devices as it loads (--device-map: accelerate's big-model loading through
    from_pretrained): over the GPUs, then the CPU, then disk, each holding at most its `max_memory`."""

    device_map: str  # auto, balanced or sequential
    max_memory: dict[int | str, str] | None = None  # device (GPU index, cpu) -> its most, as "70GiB"
    offload_folder: str | None = None  # where modules that fit nowhere else lie; None: a temporary folder

    def arguments(self) -> dict:
        """from_pretrained's keywords."""
        import tempfile

        folder = self.offload_folder or tempfile.mkdtemp(prefix="swapbench-offload-")
        return {"device_map": self.device_map, "max_memory": self.max_memory, "offload_folder": folder}


def input_device(model: torch.nn.Module) -> torch.device:
    """Where a model's inputs go: its parameters' device; for a model spread by a device map, its first GPU, else
    the CPU (accelerate's hooks move each module's inputs to the module's own device, disk-offloaded ones too)."""
    placed = getattr(model, "hf_device_map", None)
    if not placed:
        return next(model.parameters()).device
    gpus = [place for place in placed.values() if place not in ("cpu", "disk", "meta")]
    return torch.device(f"cuda:{gpus[0]}" if isinstance(gpus[0], int) else gpus[0]) if gpus else torch.device("cpu")


def device_map_of(model: torch.nn.Module) -> dict[str, str]:
    """The modules' places, as the results record them: "0" for GPU 0, "cpu", "disk". transformers 5 sets no
    `hf_device_map` when the map puts the whole model on one device; the record then names that device."""
    placed = getattr(model, "hf_device_map", None)
    if not placed:
        return {"(whole model)": str(next(model.parameters()).device)}
    return {module or "(whole model)": str(place) for module, place in placed.items()}


@contextlib.contextmanager
def library_quiet():
    """transformers' and huggingface_hub's logging held to errors while a model loads. What they say then is
    chatter to a user of swapbench: a load report of the weights a checkpoint lacks or leaves unused (the new head
    of a base model, its pre-training heads), which weight_problems judges and swapbench reports in its own words,
    and a list of "layers not sharded" on a single device. A TRANSFORMERS_VERBOSITY the user set is kept. The bar
    that transformers' GGUF reader draws as it dequantizes a file, past its own progress setting, is held back
    always (gguf.quiet_dequantization): every load of a model goes through here, eval's, the probe's and
    fine-tuning's, so that none draws it under --no-progress or -q."""
    with quiet_dequantization():
        if os.environ.get("TRANSFORMERS_VERBOSITY"):
            yield
        else:
            with _library_logging_quiet():
                yield


@contextlib.contextmanager
def _library_logging_quiet():
    import huggingface_hub.utils
    from transformers.utils import logging as transformers_logging

    hub_logging = huggingface_hub.utils.logging
    before = transformers_logging.get_verbosity(), hub_logging.get_verbosity()
    transformers_logging.set_verbosity_error()
    hub_logging.set_verbosity_error()
    try:
        yield
    finally:
        transformers_logging.set_verbosity(before[0])
        hub_logging.set_verbosity(before[1])


def load_config(
    name_or_path: str, revision: str | None = None, trust_remote_code: bool = False, gguf_file: str | None = None
):
    """The model's config (a GGUF file's, with `gguf_file`); from the local cache alone when the Hub cannot be
    reached."""
    from transformers import AutoConfig

    check_model(name_or_path, revision, gguf_file or "config.json")
    check_gguf(name_or_path, gguf_file)
    load = functools.partial(AutoConfig.from_pretrained, revision=revision, trust_remote_code=trust_remote_code)
    try:
        if gguf_file:  # read from the file's metadata once, then from swapbench's cache (gguf.cached_part)
            return cached_part(
                "config",
                name_or_path,
                gguf_file,
                revision,
                lambda: load(name_or_path, local_files_only=cache_only(name_or_path), gguf_file=gguf_file),
                lambda folder: load(folder, local_files_only=True),
            )
        return load(name_or_path, local_files_only=cache_only(name_or_path))
    except (OSError, ValueError) as err:
        raise SwapbenchError(load_failure(name_or_path, err)) from err


def check_positional_support(name_or_path: str, config, trust_remote_code: bool) -> None:
    """Refuse a config whose positional encoding the code that would load it does not implement."""
    ships_code = bool(getattr(config, "auto_map", None))
    if trust_remote_code and ships_code:
        return  # the model's own code runs it
    reason = unimplemented_positional_encoding(config)
    if reason:
        hint = (
            "the model ships its own code (auto_map): --trust-remote-code loads it"
            if ships_code
            else "a model that needs its own code (JinaBERT's and MosaicBERT's ALiBi, for instance) has to ship it "
            "(auto_map in config.json) and be loaded with --trust-remote-code"
        )
        raise SwapbenchError(f"{name_or_path}: {reason}; refused, since its scores would not be the model's: {hint}")


def weight_problems(name_or_path: str, loading_info: dict, *, may_be_new=lambda key: False) -> LoadedWeights | None:
    """What did not load whole, from from_pretrained's loading info; keys for which `may_be_new` holds (a new
    classification head) are left out. None when everything loaded."""
    missing = sorted(k for k in loading_info.get("missing_keys", ()) if not may_be_new(k))
    unexpected = sorted(loading_info.get("unexpected_keys", ()))
    mismatched = sorted(
        k[0] if isinstance(k, tuple) else k
        for k in loading_info.get("mismatched_keys", ())
        if not may_be_new(k[0] if isinstance(k, tuple) else k)
    )
    if not (missing or unexpected or mismatched):
        return None
    return LoadedWeights(missing=missing, unexpected=unexpected, mismatched=mismatched, allowed=False)


def describe_weights(weights: LoadedWeights) -> str:
    parts = [
        f"{len(keys)} {what} ({', '.join(keys[:5])}{', ...' if len(keys) > 5 else ''})"
        for what, keys in (
            ("missing from the checkpoint, newly initialised", weights.missing),
            ("in the checkpoint but unused", weights.unexpected),
            ("of another shape, newly initialised", weights.mismatched),
        )
        if keys
    ]
    return "; ".join(parts)


def check_weights(name_or_path: str, weights: LoadedWeights | None, allow_missing: bool) -> LoadedWeights | None:
    """Refuse a checkpoint that did not load whole unless --allow-missing, which records it instead."""
    if weights is None:
        return None
    if not allow_missing:
        raise SwapbenchError(
            f"{name_or_path} does not load whole: {describe_weights(weights)}. Its scores would "
            "not be the published model's; --allow-missing scores it all the same and records this"
        )
    return weights.model_copy(update={"allowed": True})


def is_classifier(config) -> bool:
    return any(a.endswith("ForSequenceClassification") for a in (config.architectures or []))


def choose_device(requested: str | None) -> torch.device:
    if requested and requested != "auto":
        problem = device_problem(requested)
        if problem:
            raise SwapbenchError(f"--device {problem}")
        return torch.device(requested)
    if torch.cuda.is_available():
        return torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def choose_dtype(device: torch.device, requested: str | None = None) -> torch.dtype:
    """`requested`, or for auto: bf16 where the device runs it fast (precision.fast_bfloat16: a GPU that supports
    it, a CPU with AMX or AVX512-BF16), else fp16 on other GPUs and MPS, float32 on a CPU. Eval measures a reduced
    precision's agreement with float32 and falls back to float32 below its threshold (evaluation/agreement.py)."""
    from .precision import fast_bfloat16

    if requested and requested != "auto":
        return DTYPES[requested]
    if fast_bfloat16(device):
        return torch.bfloat16
    if device.type == "cuda":
        return torch.float16
    if device.type == "mps":
        return torch.float16
    return torch.float32


def map_labels(config, label_map: str | None, force: bool = False) -> LabelMap:
    """The model's outputs as NLI labels: from --label-map, else from config.id2label. A --label-map that would
    override labels the model names itself, differently, is refused unless `force`."""
    if not label_map:
        return from_config(config.id2label)
    mapped = from_option(label_map, config.id2label, config.num_labels)
    try:
        own = from_config(config.id2label).names
    except LabelMapError:
        return mapped  # the model's names do not tell: --label-map is what they need
    if own != mapped.names and not force:
        outputs = lambda names: ", ".join(f"{i}={name}" for i, name in enumerate(names))  # noqa: E731
        raise SwapbenchError(
            f"--label-map ({outputs(mapped.names)}) overrides the labels the model names itself in "
            f"config.id2label ({outputs(own)}); without --label-map its own names are used. Add "
            "--force to score it with your mapping all the same (the results record "
            "label_map_source: --label-map)"
        )
    return mapped


def prepare_tokenizer(tokenizer, config=None):
    """Make a tokenizer batch a decoder-only model correctly: a pad token where it has none (its end-of-text
    token, which the model then reads as padding; a classification head finds the last token that is not padding)
    and right padding, so that the real tokens keep positions 0..n-1 (left padding would shift them for models
    that number positions from the start of the row, as GPT-2 and Llama do). `config.pad_token_id` is set to match.
    """
    if tokenizer.pad_token is None:
        fallback = tokenizer.eos_token or tokenizer.unk_token
        if fallback is None:
            raise SwapbenchError(
                f"{type(tokenizer).__name__} has neither a pad token nor an end-of-text or unknown token to pad with"
            )
        tokenizer.pad_token = fallback
    tokenizer.padding_side = "right"
    if config is not None and getattr(config, "pad_token_id", None) is None:
        config.pad_token_id = tokenizer.pad_token_id
    return tokenizer


def load_classifier(
    name_or_path: str,
    config,
    labels: LabelMap,
    *,
    revision: str | None = None,
    device: torch.device,
    dtype: torch.dtype,
    trust_remote_code: bool = False,
    allow_missing: bool = False,
    placement: Placement | None = None,
    gguf_file: str | None = None,
) -> LoadedModel:
    """Load a sequence-classification model and its tokenizer, on `device` or spread as `placement` says;
    `config` is load_config's, `labels` mapped from it beforehand, so that a refusal costs no weight loading. Every
    weight must load and be used, unless `allow_missing`."""
    from transformers import AutoModelForSequenceClassification

    check_positional_support(name_or_path, config, trust_remote_code)
    tokenizer, model, info = _from_pretrained(
        AutoModelForSequenceClassification, name_or_path, revision, dtype, trust_remote_code, placement, gguf_file
    )
    weights = check_weights(name_or_path, weight_problems(name_or_path, info), allow_missing)
    prepare_tokenizer(tokenizer, model.config)
    gguf = gguf_record(name_or_path, gguf_file, dtype, revision)
    return _placed(
        LoadedModel(
            model=model,
            tokenizer=tokenizer,
            config=config,
            labels=labels,
            device=device,
            dtype=dtype,
            weights=weights,
            gguf=gguf,
        ),
        placement,
    )


def _placed(loaded: LoadedModel, placement: Placement | None) -> LoadedModel:
    """The model in evaluation mode, moved to its device, or where its device map put it (recorded)."""
    if placement is None:
        loaded.model.to(loaded.device)
    else:
        loaded.device_map = device_map_of(loaded.model)
        loaded.device = input_device(loaded.model)
    loaded.model.eval()
    return loaded


def _from_pretrained(
    auto_class,
    name_or_path: str,
    revision: str | None,
    dtype: torch.dtype,
    trust_remote_code: bool,
    placement: Placement | None = None,
    gguf_file: str | None = None,
):
    """(tokenizer, model, loading info) of `auto_class` (from a GGUF file, with `gguf_file`: dequantized to
    `dtype`), from the local cache alone when the Hub cannot be reached, with the libraries' loading chatter held
    back (library_quiet)."""
    from transformers import AutoTokenizer

    local = cache_only(name_or_path)
    with library_quiet():
        tokenize = functools.partial(
            AutoTokenizer.from_pretrained, revision=revision, trust_remote_code=trust_remote_code
        )
        if gguf_file is None:
            tokenizer = tokenize(name_or_path, local_files_only=local)
        else:
            tokenizer = cached_part(
                "tokenizer",
                name_or_path,
                gguf_file,
                revision,
                lambda: tokenize(name_or_path, local_files_only=local, gguf_file=gguf_file),
                lambda folder: tokenize(folder, local_files_only=True),
            )
        load = functools.partial(
            auto_class.from_pretrained,
            revision=revision,
            **dtype_argument(dtype),
            trust_remote_code=trust_remote_code,
            output_loading_info=True,
            **(placement.arguments() if placement else {}),
        )
        # transformers 4 sets torch's default dtype to `dtype` while it builds the model and leaves it there when
        # the load raises (a model class it cannot spread): every model built later in the process would be bf16
        default_dtype = torch.get_default_dtype()
        try:
            if gguf_file is None:
                model, info = load(name_or_path, local_files_only=local)
            else:  # dequantized once, then read from swapbench's cache (gguf.load_dense)
                model, info = load_dense(
                    auto_class,
                    name_or_path,
                    gguf_file,
                    revision,
                    dtype,
                    lambda: load(
                        name_or_path, local_files_only=local, **gguf_arguments(name_or_path, gguf_file, revision)
                    ),
                    lambda folder: load(folder, local_files_only=True),
                    cacheable=placement is None,
                )
        except ValueError as err:
            if placement is None or "_no_split_modules" not in str(err):
                raise
            # transformers 4 spreads only model classes that name the blocks it must not split
            raise SwapbenchError(
                f"--device-map {placement.device_map}: transformers {TRANSFORMERS_VERSION} cannot "
                f"spread {name_or_path} over devices: {err} Load it on one device, or with a "
                "transformers release that can spread this model class"
            ) from None
        finally:
            torch.set_default_dtype(default_dtype)
    return tokenizer, as_dense(model), info


def load_causal_lm(
    name_or_path: str,
    config,
    *,
    revision: str | None = None,
    device: torch.device,
    dtype: torch.dtype,
    trust_remote_code: bool = False,
    placement: Placement | None = None,
    gguf_file: str | None = None,
) -> LoadedModel:
    """A decoder-only language model with its language-modelling head, for prompted scoring, on `device` or spread
    as `placement` says; every weight of it must load. Its labels are the 3-way NLI labels, in the order the
    verbalizers are scored."""
    from transformers import AutoModelForCausalLM

    from ..core.labels import LABEL_NAMES
    from .label_map import LabelMap

    check_positional_support(name_or_path, config, trust_remote_code)
    try:
        tokenizer, model, info = _from_pretrained(
            AutoModelForCausalLM, name_or_path, revision, dtype, trust_remote_code, placement, gguf_file
        )
    except ValueError as err:  # no causal-LM class for this config
        raise SwapbenchError(f"{name_or_path}: --mode prompt needs a decoder-only language model ({err})") from err
    check_weights(name_or_path, weight_problems(name_or_path, info), allow_missing=False)
    prepare_tokenizer(tokenizer, model.config)
    return _placed(
        LoadedModel(
            model=model,
            tokenizer=tokenizer,
            config=config,
            labels=LabelMap(LABEL_NAMES, source="prompt"),
            device=device,
            dtype=dtype,
            gguf=gguf_record(name_or_path, gguf_file, dtype, revision),
        ),
        placement,
    )


def is_head(model, key: str) -> bool:
    """Whether a weight belongs to the task head, outside the base model (bert., roberta., ...). The model's own
    names are asked: transformers 4.45 reports the weights a base checkpoint lacks without the base model's
    prefix."""
    return not key.startswith(f"{model.base_model_prefix}.") and key in model.state_dict()
