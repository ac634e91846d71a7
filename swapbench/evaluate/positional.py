"""The positional-encoding family of a model, read from its config, with the fields it was read from.

Known model types are read by rule (DeBERTa's `relative_attention`, Falcon's `alibi`, ...); other models by the
generic fields that transformers configs use (`position_embedding_type`, `rope_parameters`, `alibi`, T5-style
bucket counts). What cannot be read is "unknown", never a guess.
"""

from __future__ import annotations

from ..registry import FAMILIES
from .schema import PositionalEncodingInfo

# Learned absolute position embeddings added to the input (transformers >= 5 implements no other kind for these).
LEARNED_ABSOLUTE = {"bert", "roberta", "xlm-roberta", "xlm-roberta-xl", "albert", "electra", "camembert",
                    "data2vec-text", "megatron-bert", "ernie", "bart", "mbart", "gpt2", "opt", "layoutlm",
                    "mobilebert", "squeezebert", "splinter", "rembert", "bert-generation", "big_bird", "convbert",
                    "fnet", "ibert", "longformer", "luke", "mra", "mvp", "nystromformer", "perceiver",
                    "roberta-prelayernorm", "roc_bert", "xmod", "yoso"}
# Absolute positions with a sinusoidal option (XLM, FlauBERT: `sinusoidal_embeddings`).
SINUSOIDAL_OPTION = {"xlm", "flaubert"}
T5_BUCKETS = {"t5", "mt5", "umt5", "longt5", "switch_transformers"}
ROTARY_FIELDS = ("rope_parameters", "rope_theta", "rope_scaling", "rotary_emb_base", "rotary_pct", "rotary_dim",
                 "partial_rotary_factor", "global_rope_theta", "local_rope_theta")


def unimplemented_positional_encoding(config) -> str | None:
    """Why transformers' own code for this model type would not run the positional encoding its config asks for
    (it would run learned absolute positions, from a table the checkpoint may not have), or None."""
    declared = getattr(config, "position_embedding_type", None)
    if getattr(config, "model_type", None) in LEARNED_ABSOLUTE and declared not in (None, "absolute"):
        return (f"the config asks for position_embedding_type={declared!r}, which transformers' "
                f"{config.model_type} code does not implement: it would run learned absolute positions instead")
    return None


def read_positional_encoding(config) -> PositionalEncodingInfo:
    model_type = getattr(config, "model_type", None) or "unknown"
    fields = config.to_dict()

    def info(family: str, kind: str, keys: tuple[str, ...] = (), note: str | None = None) -> PositionalEncodingInfo:
        evidence = {"model_type": model_type, **{k: fields[k] for k in keys if k in fields}}
        return PositionalEncodingInfo(family=family, kind=kind, evidence=evidence, note=note)

    declared = fields.get("position_embedding_type")

    if model_type in LEARNED_ABSOLUTE:
        return info("absolute", "learned", ("max_position_embeddings", "position_embedding_type"),
                    unimplemented_positional_encoding(config))
    if model_type in SINUSOIDAL_OPTION:
        kind = "sinusoidal" if fields.get("sinusoidal_embeddings") else "learned"
        return info("absolute", kind, ("max_position_embeddings", "sinusoidal_embeddings"))
    if model_type == "tapas":
        return info("absolute", "learned", ("max_position_embeddings", "reset_position_index_per_cell"),
                    "positions restart in each table cell when reset_position_index_per_cell")
    if model_type == "reformer":
        kind = "axial" if fields.get("axial_pos_embds") else "learned"
        return info("absolute", kind, ("axial_pos_embds", "axial_pos_shape", "max_position_embeddings"))
    if model_type == "funnel":  # relative_shift (Transformer-XL style) and factorized are both relative attention
        return info("relative", str(fields.get("attention_type")), ("attention_type",))
    text_config = getattr(config, "text_config", None)
    if text_config is not None and model_type != getattr(text_config, "model_type", model_type):
        inner = read_positional_encoding(text_config)  # a multimodal model: its text encoder holds the positions
        evidence = {"model_type": model_type, **{f"text_config.{k}": v for k, v in inner.evidence.items()}}
        return PositionalEncodingInfo(family=inner.family, kind=inner.kind, evidence=evidence,
                                      note=f"read from the text encoder (text_config){'; ' + inner.note if inner.note else ''}")
    if model_type == "distilbert":
        kind = "sinusoidal" if fields.get("sinusoidal_pos_embds") else "learned"
        return info("absolute", kind, ("max_position_embeddings", "sinusoidal_pos_embds"))
    if model_type in ("deberta", "deberta-v2"):
        keys = ("relative_attention", "position_biased_input", "pos_att_type", "max_relative_positions",
                "position_buckets", "max_position_embeddings")
        if fields.get("relative_attention"):
            note = ("also adds absolute position embeddings to the input (position_biased_input)"
                    if fields.get("position_biased_input") else None)
            return info("relative", "disentangled", keys, note)
        if fields.get("position_biased_input", True):
            return info("absolute", "learned", keys)
        return info("none", "none", keys)
    if model_type in T5_BUCKETS:
        return info("relative", "t5-buckets", ("relative_attention_num_buckets", "relative_attention_max_distance"))
    if model_type == "mpnet":
        return info("relative", "absolute+relative", ("max_position_embeddings", "relative_attention_num_buckets"))
    if model_type == "xlnet":
        return info("relative", "xlnet", ("attn_type", "mem_len", "bi_data"))
    if model_type == "roformer":
        return info("rotary", "rope", ("rotary_value", "max_position_embeddings"))
    if model_type == "modernbert":
        return info("rotary", "rope", ("rope_parameters", "global_rope_theta", "local_rope_theta"))
    if model_type == "bloom":
        return info("alibi", "alibi", ("n_head",), "BLOOM always uses ALiBi")
    if model_type == "mpt":
        attn = fields.get("attn_config") or {}
        alibi = attn.get("alibi") if isinstance(attn, dict) else getattr(attn, "alibi", None)
        evidence_note = f"attn_config.alibi={alibi}"
        if alibi:
            return info("alibi", "alibi", ("learned_pos_emb",), evidence_note)
        if fields.get("learned_pos_emb"):
            return info("absolute", "learned", ("learned_pos_emb",), evidence_note)
        return info("none", "none", ("learned_pos_emb",), evidence_note)
    if model_type == "falcon":
        if fields.get("alibi"):
            return info("alibi", "alibi", ("alibi",))
        return info("rotary", "rope", ("alibi", "rope_parameters", "rope_theta"))

    if model_type in FAMILIES:  # a model type that registered its own detector (the zoo's)
        return FAMILIES.get(model_type)(config)

    # Generic fields, for the model types not named above.
    if declared is not None:
        by_declared = {"absolute": ("absolute", "learned"), "rotary": ("rotary", "rope"), "alibi": ("alibi", "alibi"),
                       "relative_key": ("relative", "relative_key"),
                       "relative_key_query": ("relative", "relative_key_query"), "none": ("none", "none")}
        if declared in by_declared:
            return info(*by_declared[declared], ("position_embedding_type", "max_position_embeddings"))
    if fields.get("alibi") is True:
        return info("alibi", "alibi", ("alibi",))
    rotary = tuple(k for k in ROTARY_FIELDS if fields.get(k) not in (None, False))
    if rotary:
        return info("rotary", "rope", rotary)
    if "relative_attention_num_buckets" in fields:
        return info("relative", "t5-buckets", ("relative_attention_num_buckets", "relative_attention_max_distance"))
    return info("unknown", "unknown", ("max_position_embeddings",),
                "no known positional-encoding field in the config of this model type")
