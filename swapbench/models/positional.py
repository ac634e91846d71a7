"""The positional-encoding family of a model, read from its config, with the fields it was read from.

Each known model type is read by a rule registered in `swapbench.core.registry.FAMILIES` (DeBERTa's
`relative_attention`, Falcon's `alibi`, ...); a rule also says whether the model type is an encoder or a
decoder-only model. Model types no rule names are read by the generic fields that transformers configs use
(`position_embedding_type`, `rope_parameters`, `alibi`, T5-style bucket counts). What cannot be read is
"unknown", never a guess.

A model type defined outside this module (the zoo's, a user's) registers its own rule:

    from swapbench.models.positional import Family, ConfigReading
    from swapbench.core.registry import FAMILIES

    FAMILIES.add("my-model", Family(lambda r: r.info("rotary", "rope", ("rope_theta",))), help="...")
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from ..core.registry import FAMILIES
from ..results.schema import PositionalEncodingInfo

Architecture = Literal["encoder", "decoder", "encoder-decoder"]


@dataclass(frozen=True)
class ConfigReading:
    """A config being read: its model type and fields, and the record of a reading."""

    config: object
    model_type: str
    fields: dict

    @classmethod
    def of(cls, config) -> ConfigReading:
        return cls(config, getattr(config, "model_type", None) or "unknown", config.to_dict())

    def info(
        self, family: str, kind: str, keys: tuple[str, ...] = (), note: str | None = None
    ) -> PositionalEncodingInfo:
        """The family read, with the fields `keys` (those the config has) as evidence."""
        evidence = {"model_type": self.model_type, **{k: self.fields[k] for k in keys if k in self.fields}}
        return PositionalEncodingInfo(family=family, kind=kind, evidence=evidence, note=note)


@dataclass(frozen=True)
class Family:
    """How the configs of some model types give their positional encoding."""

    read: Callable[[ConfigReading], PositionalEncodingInfo | None]  # None: fall back on the generic fields
    architecture: Architecture = "encoder"
    # Why transformers' code for the model type would not run what the config asks for, or None.
    unimplemented: Callable[[ConfigReading], str | None] = lambda reading: None


FAMILIES.accepts(Family, "instance")  # what its entries must be: core/registry.py checks each


def register(
    name: str,
    types: Iterable[str] | None = None,
    *,
    architecture: Architecture = "encoder",
    help: str = "",
    unimplemented: Callable[[ConfigReading], str | None] | None = None,
):
    """Decorator registering a reading rule for the model type `name`, or for each of `types`."""
    pattern = "|".join(re.escape(t) for t in sorted(types)) if types is not None else None

    def decorate(read):
        family = Family(read, architecture) if unimplemented is None else Family(read, architecture, unimplemented)
        FAMILIES.add(name, family, help=help, pattern=pattern)
        return read

    return decorate


def family_rule(model_type: str) -> Family | None:
    return FAMILIES.get(model_type) if model_type in FAMILIES else None


# ---- learned or sinusoidal absolute positions --------------------------------------------------------------------

# Learned absolute position embeddings added to the input (transformers >= 5 implements no other kind for these).
LEARNED_ABSOLUTE = {
    "bert",
    "roberta",
    "xlm-roberta",
    "xlm-roberta-xl",
    "albert",
    "electra",
    "camembert",
    "data2vec-text",
    "megatron-bert",
    "ernie",
    "bart",
    "mbart",
    "layoutlm",
    "mobilebert",
    "squeezebert",
    "splinter",
    "rembert",
    "bert-generation",
    "big_bird",
    "convbert",
    "fnet",
    "ibert",
    "longformer",
    "luke",
    "mra",
    "mvp",
    "nystromformer",
    "perceiver",
    "roberta-prelayernorm",
    "roc_bert",
    "xmod",
    "yoso",
    "qdqbert",
}  # transformers 4 only
LEARNED_ABSOLUTE_DECODERS = {"gpt2", "opt", "gpt_neo", "biogpt", "xglm"}


def _declared_not_absolute(r: ConfigReading) -> str | None:
    declared = r.fields.get("position_embedding_type")
    if declared not in (None, "absolute"):
        return (
            f"the config asks for position_embedding_type={declared!r}, which transformers' "
            f"{r.model_type} code does not implement: it would run learned absolute positions instead"
        )
    return None


def _learned(r: ConfigReading) -> PositionalEncodingInfo:
    return r.info(
        "absolute",
        "learned",
        ("max_position_embeddings", "n_positions", "position_embedding_type"),
        _declared_not_absolute(r),
    )


register(
    "learned-absolute",
    LEARNED_ABSOLUTE,
    help="learned absolute embeddings (BERT, RoBERTa, ...)",
    unimplemented=_declared_not_absolute,
)(_learned)
register(
    "learned-absolute-decoders",
    LEARNED_ABSOLUTE_DECODERS,
    architecture="decoder",
    help="learned absolute embeddings of decoder-only models (GPT-2, OPT, GPT-Neo)",
    unimplemented=_declared_not_absolute,
)(_learned)


@register("sinusoidal-option", {"xlm", "flaubert"}, help="absolute positions, sinusoidal when sinusoidal_embeddings")
def _sinusoidal_option(r):
    kind = "sinusoidal" if r.fields.get("sinusoidal_embeddings") else "learned"
    return r.info("absolute", kind, ("max_position_embeddings", "sinusoidal_embeddings"))


@register("distilbert")
def _distilbert(r):
    kind = "sinusoidal" if r.fields.get("sinusoidal_pos_embds") else "learned"
    return r.info("absolute", kind, ("max_position_embeddings", "sinusoidal_pos_embds"))


@register("tapas")
def _tapas(r):
    return r.info(
        "absolute",
        "learned",
        ("max_position_embeddings", "reset_position_index_per_cell"),
        "positions restart in each table cell when reset_position_index_per_cell",
    )


@register("reformer")
def _reformer(r):
    kind = "axial" if r.fields.get("axial_pos_embds") else "learned"
    return r.info("absolute", kind, ("axial_pos_embds", "axial_pos_shape", "max_position_embeddings"))


# ---- relative ----------------------------------------------------------------------------------------------------


@register("funnel")
def _funnel(r):  # relative_shift (Transformer-XL style) and factorized are both relative attention
    return r.info("relative", str(r.fields.get("attention_type")), ("attention_type",))


@register("deberta", {"deberta", "deberta-v2"})
def _deberta(r):
    keys = (
        "relative_attention",
        "position_biased_input",
        "pos_att_type",
        "max_relative_positions",
        "position_buckets",
        "max_position_embeddings",
    )
    if r.fields.get("relative_attention"):
        note = (
            "also adds absolute position embeddings to the input (position_biased_input)"
            if r.fields.get("position_biased_input")
            else None
        )
        return r.info("relative", "disentangled", keys, note)
    if r.fields.get("position_biased_input", True):
        return r.info("absolute", "learned", keys)
    return r.info("none", "none", keys)


T5_BUCKETS = {"t5", "mt5", "umt5", "longt5", "switch_transformers"}


@register("t5-buckets", T5_BUCKETS, architecture="encoder-decoder")
def _t5(r):
    return r.info("relative", "t5-buckets", ("relative_attention_num_buckets", "relative_attention_max_distance"))


@register("mpnet")
def _mpnet(r):
    return r.info("relative", "absolute+relative", ("max_position_embeddings", "relative_attention_num_buckets"))


@register("xlnet")
def _xlnet(r):
    return r.info("relative", "xlnet", ("attn_type", "mem_len", "bi_data"))


# Model types that transformers 4 ships and 5 no longer does.


@register("nezha")
def _nezha(r):
    return r.info(
        "relative",
        "functional",
        ("max_relative_position",),
        "fixed sinusoids of the clipped distance j - i, in every layer; no absolute positions",
    )


@register("mega")
def _mega(r):
    keys = ("relative_positional_bias", "max_positions")
    note = "its moving-average (EMA) layers also mix in token order"
    if r.fields.get("relative_positional_bias") == "simple":
        return r.info("relative", "learned-bias", keys, note)
    return r.info("rotary", "rotary-bias", keys, note)


@register("wav2vec2")
def _wav2vec2(r):
    return r.info(
        "relative",
        "convolutional",
        ("num_conv_pos_embeddings", "num_conv_pos_embedding_groups"),
        "a convolution over the inputs, added to them, stands for relative positions",
    )


# ---- rotary ------------------------------------------------------------------------------------------------------

ROTARY_FIELDS = (
    "rope_parameters",
    "rope_theta",
    "rope_scaling",
    "rotary_emb_base",
    "rotary_pct",
    "rotary_dim",
    "partial_rotary_factor",
    "global_rope_theta",
    "local_rope_theta",
)


@register("roformer")
def _roformer(r):
    return r.info("rotary", "rope", ("rotary_value", "max_position_embeddings"))


@register("modernbert")
def _modernbert(r):
    return r.info("rotary", "rope", ("rope_parameters", "global_rope_theta", "local_rope_theta"))


def _rotary_fraction(r: ConfigReading) -> float | None:
    """The fraction of each head's dimensions that is rotated, where the config gives one."""
    parameters = r.fields.get("rope_parameters") or {}
    for value in (
        parameters.get("partial_rotary_factor") if isinstance(parameters, dict) else None,
        r.fields.get("partial_rotary_factor"),
        r.fields.get("rotary_pct"),
    ):
        if value is not None:
            return float(value)
    return None


ROTARY_DECODERS = {
    "llama",
    "qwen2",
    "qwen3",
    "mistral",
    "mixtral",
    "gemma",
    "gemma2",
    "phi",
    "phi3",
    "olmo",
    "olmo2",
    "stablelm",
    "starcoder2",
    "gptj",
    "gpt_neox",
    "gpt_neox_japanese",
    "persimmon",
    "cohere",
    "granite",
    "qwen2_moe",
    "qwen3_moe",
    "smollm3",
}


@register(
    "rotary-decoders",
    ROTARY_DECODERS,
    architecture="decoder",
    help="rotary embeddings of decoder-only models (Llama, Qwen2, Mistral, GPT-NeoX); none when the config "
    "rotates no dimension",
)
def _rotary_decoder(r):
    keys = tuple(k for k in ROTARY_FIELDS if k in r.fields)
    fraction = _rotary_fraction(r)
    if fraction == 0:
        return r.info(
            "none",
            "none",
            keys,
            "partial_rotary_factor 0: no dimension is rotated, so the model gets no position information (NoPE)",
        )
    return r.info("rotary", "rope", keys)


# ---- ALiBi -------------------------------------------------------------------------------------------------------


@register("bloom", architecture="decoder")
def _bloom(r):
    return r.info("alibi", "alibi", ("n_head",), "BLOOM always uses ALiBi")


def _mpt_alibi(r: ConfigReading):
    attn = r.fields.get("attn_config") or {}
    return attn.get("alibi") if isinstance(attn, dict) else getattr(attn, "alibi", None)


def _mpt_unimplemented(r: ConfigReading) -> str | None:
    if _mpt_alibi(r) is False:
        return (
            "the config turns ALiBi off (attn_config.alibi=False), but transformers' mpt code always adds ALiBi biases"
        )
    return None


@register("mpt", architecture="decoder", unimplemented=_mpt_unimplemented)
def _mpt(r):
    alibi = _mpt_alibi(r)
    evidence_note = f"attn_config.alibi={alibi}"
    if alibi or alibi is None:
        return r.info("alibi", "alibi", ("learned_pos_emb",), evidence_note)
    if r.fields.get("learned_pos_emb"):
        return r.info("absolute", "learned", ("learned_pos_emb",), evidence_note)
    return r.info("none", "none", ("learned_pos_emb",), evidence_note)


@register("falcon", architecture="decoder")
def _falcon(r):
    if r.fields.get("alibi"):
        return r.info("alibi", "alibi", ("alibi",))
    return r.info("rotary", "rope", ("alibi", "rope_parameters", "rope_theta"))


# ---- reading -----------------------------------------------------------------------------------------------------


def unimplemented_positional_encoding(config) -> str | None:
    """Why transformers' own code for this model type would not run the positional encoding its config asks for,
    or None."""
    reading = ConfigReading.of(config)
    rule = family_rule(reading.model_type)
    return rule.unimplemented(reading) if rule else None


def architecture_kind(config) -> Architecture:
    """Encoder, decoder-only or encoder-decoder: by the model type's rule, else by the config's own flags and the
    classes it names."""
    if getattr(config, "is_encoder_decoder", False):
        return "encoder-decoder"
    rule = family_rule(getattr(config, "model_type", None) or "")
    if rule is not None:
        return rule.architecture
    if getattr(config, "is_decoder", False):
        return "decoder"
    return architecture_of("", *(config.architectures or []))


def architecture_of(model_type: str, *class_names: str | None) -> Architecture:
    """The same from a model type and class names alone (a results file's model_type and architecture)."""
    rule = family_rule(model_type)
    if rule is not None:
        return rule.architecture
    if any(n and n.endswith(("ForCausalLM", "LMHeadModel")) for n in class_names):
        return "decoder"
    return "encoder"


GENERIC_DECLARED = {
    "absolute": ("absolute", "learned"),
    "rotary": ("rotary", "rope"),
    "alibi": ("alibi", "alibi"),
    "relative_key": ("relative", "relative_key"),
    "relative_key_query": ("relative", "relative_key_query"),
    "none": ("none", "none"),
}


def read_positional_encoding(config) -> PositionalEncodingInfo:
    r = ConfigReading.of(config)
    rule = family_rule(r.model_type)
    if rule is not None:
        found = rule.read(r)
        if found is not None:
            return found
    text_config = getattr(config, "text_config", None)
    if text_config is not None and r.model_type != getattr(text_config, "model_type", r.model_type):
        inner = read_positional_encoding(text_config)  # a multimodal model: its text encoder holds the positions
        evidence = {"model_type": r.model_type, **{f"text_config.{k}": v for k, v in inner.evidence.items()}}
        return PositionalEncodingInfo(
            family=inner.family,
            kind=inner.kind,
            evidence=evidence,
            note=f"read from the text encoder (text_config){'; ' + inner.note if inner.note else ''}",
        )
    return read_generic(r)


def read_generic(r: ConfigReading) -> PositionalEncodingInfo:
    """The family by the generic fields, for the model types no rule names."""
    declared = r.fields.get("position_embedding_type")
    if declared in GENERIC_DECLARED:
        return r.info(*GENERIC_DECLARED[declared], ("position_embedding_type", "max_position_embeddings"))
    if r.fields.get("alibi") is True:
        return r.info("alibi", "alibi", ("alibi",))
    rotary = tuple(k for k in ROTARY_FIELDS if r.fields.get(k) not in (None, False))
    if rotary:
        return r.info("rotary", "rope", rotary)
    if "relative_attention_num_buckets" in r.fields:
        return r.info("relative", "t5-buckets", ("relative_attention_num_buckets", "relative_attention_max_distance"))
    return r.info(
        "unknown",
        "unknown",
        ("max_position_embeddings",),
        "no known positional-encoding field in the config of this model type",
    )
