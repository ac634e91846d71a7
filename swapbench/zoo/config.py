"""The configuration of the zoo encoder: a BERT-style encoder whose positional encoding is one field."""

from __future__ import annotations

from huggingface_hub.errors import StrictDataclassClassValidationError

from ..core.registry import ENCODINGS
from .encodings import encoding_of
from .names import MODEL_TYPE

try:
    from transformers import PreTrainedConfig  # transformers 5: configs are strict dataclasses
except ImportError:  # transformers 4: configs are plain classes that take their fields as keywords
    PreTrainedConfig = None

DESCRIPTION = """A compact BERT-style encoder for sequence-pair classification.

    `position_encoding` names one of `swapbench.core.registry.ENCODINGS`; the fields after it set that encoding's own
    hyper-parameters and are ignored by the others. Everything else is the same for every encoding.
    """

# The config's fields, (type, default), written once for both transformers versions.
FIELDS: dict[str, tuple[object, object]] = {
    "vocab_size": (int, 30522),
    "hidden_size": (int, 64),
    "num_hidden_layers": (int, 2),
    "num_attention_heads": (int, 2),
    "intermediate_size": (int, 256),
    "hidden_act": (str, "gelu"),
    "hidden_dropout_prob": (float | int, 0.1),
    "attention_probs_dropout_prob": (float | int, 0.1),
    "max_position_embeddings": (int, 128),  # learned_absolute and tupe learn this many positions
    "type_vocab_size": (int, 2),
    "initializer_range": (float, 0.02),
    "layer_norm_eps": (float, 1e-12),
    "pad_token_id": (int | None, 0),
    "classifier_dropout": (float | int | None, None),
    "position_encoding": (str, "learned_absolute"),
    "sinusoidal_base": (float, 10000.0),  # sinusoidal and rope: the base of the wavelengths
    "max_relative_distance": (int, 16),  # shaw and huang_m4: relative distances are clipped to [-k, k]
    "t5_num_buckets": (int, 32),
    "t5_max_distance": (int, 128),
    "tisa_kernels": (int, 5),  # S radial-basis kernels per head and layer
    # w > 0 of equation 8 (its initial value when learnable). Small: with w = 0.1, [CLS] sees only its first
    # few neighbours (-w*l^2 = -10 at l = 10) and a 2-layer encoder never reaches the hypothesis; it stays at
    # chance on SNLI, while w = 0.001 trains like the other encodings.
    "attenuated_locality": (float, 0.001),
    "attenuated_symmetry": (float, 1.0),  # s of equation 8
    "attenuated_learnable": (bool, True),
}
FIELD_DEFAULTS = {name: default for name, (_, default) in FIELDS.items()}


def check_architecture(config) -> None:
    """ValueError when the fields do not make a model; each encoding checks its own (Encoding.check)."""
    if config.position_encoding not in ENCODINGS:
        raise ValueError(f"position_encoding {config.position_encoding!r} is not one of {', '.join(ENCODINGS.names())}")
    if config.hidden_size % config.num_attention_heads:
        raise ValueError(
            f"hidden_size {config.hidden_size} is not a multiple of num_attention_heads {config.num_attention_heads}"
        )
    encoding = encoding_of(config)
    encoding.positions.check(config)
    encoding.scores.check(config)
    if config.max_relative_distance < 1:
        raise ValueError(f"max_relative_distance must be at least 1, got {config.max_relative_distance}")
    if config.t5_num_buckets < 4 or config.t5_num_buckets % 2 or config.t5_max_distance <= config.t5_num_buckets // 4:
        raise ValueError("t5_num_buckets must be even and at least 4, and t5_max_distance larger than a quarter of it")
    if config.tisa_kernels < 1:
        raise ValueError(f"tisa_kernels must be at least 1, got {config.tisa_kernels}")
    if not config.attenuated_locality > 0:
        raise ValueError(f"attenuated_locality w must be positive, got {config.attenuated_locality}")


if PreTrainedConfig is not None:
    from huggingface_hub.dataclasses import strict

    def validate_architecture(self):
        PreTrainedConfig.validate_architecture(self)
        check_architecture(self)

    # The class statement, with the fields of FIELDS: transformers makes it a dataclass, @strict checks the types
    # and runs validate_architecture on every instance.
    ZooConfig = strict(
        type(
            "ZooConfig",
            (PreTrainedConfig,),
            {
                "__module__": __name__,
                "__qualname__": "ZooConfig",
                "__doc__": DESCRIPTION,
                "model_type": MODEL_TYPE,
                "__annotations__": {name: kind for name, (kind, _) in FIELDS.items()},
                **FIELD_DEFAULTS,
                "validate_architecture": validate_architecture,
            },
        )
    )
else:
    from transformers import PretrainedConfig

    class ZooConfig(PretrainedConfig):
        __doc__ = DESCRIPTION
        model_type = MODEL_TYPE

        def __init__(self, **kwargs):
            own = {name: kwargs.pop(name, default) for name, default in FIELD_DEFAULTS.items()}
            super().__init__(pad_token_id=own.pop("pad_token_id"), **kwargs)
            for name, value in own.items():
                setattr(self, name, value)
            try:  # refused as transformers 5's strict config refuses it
                check_architecture(self)
            except ValueError as err:
                raise StrictDataclassClassValidationError(validator="validate_architecture", cause=err) from err


def encoding_fields() -> tuple[str, ...]:
    """The fields that tune one registered encoding or another: `swapbench zoo --encoding-option KEY=VALUE` may
    set these (max_position_embeddings comes from --max-length)."""
    fields = (f for entry in ENCODINGS for f in entry.value.fields if f != "max_position_embeddings")
    return tuple(dict.fromkeys(fields))


def parse_encoding_option(text: str) -> tuple[str, bool | int | float]:
    """KEY=VALUE, typed by the field's default: attenuated_learnable=false, tisa_kernels=3, ..."""
    key, sep, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not sep or key not in encoding_fields():
        raise ValueError(f"expected KEY=VALUE with KEY one of {', '.join(encoding_fields())}, got {text!r}")
    default = FIELD_DEFAULTS[key]
    if isinstance(default, bool):
        if value.lower() not in ("true", "false"):
            raise ValueError(f"{key} takes true or false, got {value!r}")
        return key, value.lower() == "true"
    try:
        return key, int(value) if isinstance(default, int) else float(value)
    except ValueError as err:
        raise ValueError(
            f"{key} takes a{'n integer' if isinstance(default, int) else ' number'}, got {value!r}"
        ) from err


def positional_encoding_fields(config: ZooConfig) -> dict[str, object]:
    """The config fields that define the encoding, with their values: the evidence of a results file."""
    return {
        "model_type": config.model_type,
        "position_encoding": config.position_encoding,
        **{key: getattr(config, key) for key in encoding_of(config).fields},
    }
