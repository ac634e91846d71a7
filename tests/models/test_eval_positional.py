"""The positional-encoding family read from model configs, with the fields it was read from."""

from __future__ import annotations

import pytest
from transformers import (
    AlbertConfig,
    BertConfig,
    BloomConfig,
    DebertaV2Config,
    DistilBertConfig,
    FalconConfig,
    LlamaConfig,
    MPNetConfig,
    PretrainedConfig,
    RobertaConfig,
    RoFormerConfig,
    T5Config,
    XLNetConfig,
)

from swapbench.core.compat import TRANSFORMERS_MAJOR
from swapbench.models.positional import read_positional_encoding


def rope_field(field_in_4: str) -> str:
    """The field a config keeps its rotary settings in: transformers 5 gathers them in rope_parameters."""
    return "rope_parameters" if TRANSFORMERS_MAJOR >= 5 else field_in_4


def modernbert_case():
    try:
        from transformers import ModernBertConfig
    except ImportError:
        return pytest.param(
            None,
            "rotary",
            "rope",
            "",
            marks=pytest.mark.skip(reason="ModernBERT is in transformers 4.48 and later only"),
        )
    return ModernBertConfig(), "rotary", "rope", rope_field("global_rope_theta")


@pytest.mark.parametrize(
    "config, family, kind, field",
    [
        (BertConfig(), "absolute", "learned", "max_position_embeddings"),
        (RobertaConfig(), "absolute", "learned", "max_position_embeddings"),
        (AlbertConfig(), "absolute", "learned", "max_position_embeddings"),
        (DistilBertConfig(sinusoidal_pos_embds=True), "absolute", "sinusoidal", "sinusoidal_pos_embds"),
        (
            DebertaV2Config(relative_attention=True, position_biased_input=False, pos_att_type=["p2c", "c2p"]),
            "relative",
            "disentangled",
            "relative_attention",
        ),
        (
            DebertaV2Config(relative_attention=False, position_biased_input=True),
            "absolute",
            "learned",
            "position_biased_input",
        ),
        (T5Config(), "relative", "t5-buckets", "relative_attention_num_buckets"),
        (MPNetConfig(), "relative", "absolute+relative", "relative_attention_num_buckets"),
        (XLNetConfig(), "relative", "xlnet", "attn_type"),
        (RoFormerConfig(), "rotary", "rope", "rotary_value"),
        modernbert_case(),
        (LlamaConfig(), "rotary", "rope", rope_field("rope_theta")),
        (FalconConfig(alibi=True), "alibi", "alibi", "alibi"),
        (FalconConfig(alibi=False), "rotary", "rope", "alibi"),
        (BloomConfig(), "alibi", "alibi", "model_type"),
    ],
)
def test_family_and_evidence(config, family, kind, field):
    info = read_positional_encoding(config)
    assert (info.family, info.kind) == (family, kind)
    assert info.evidence["model_type"] == config.model_type
    assert field in info.evidence
    assert info.evidence[field] == getattr(config, field, config.model_type)


def test_deberta_with_both_kinds_says_so():
    info = read_positional_encoding(DebertaV2Config(relative_attention=True, position_biased_input=True))
    assert info.family == "relative"
    assert "position_biased_input" in info.note


def test_old_bert_config_asking_for_relative_positions_is_flagged():
    info = read_positional_encoding(BertConfig(position_embedding_type="relative_key_query"))
    assert info.family == "absolute"
    assert info.evidence["position_embedding_type"] == "relative_key_query"
    assert "does not implement" in info.note


def test_unknown_model_type_is_unknown_not_guessed():
    config = PretrainedConfig(max_position_embeddings=512)
    config.model_type = "mystery"
    info = read_positional_encoding(config)
    assert info.family == "unknown"
    assert info.evidence == {"model_type": "mystery", "max_position_embeddings": 512}


def test_generic_fields_of_unlisted_model_types():
    rotary = PretrainedConfig(rope_theta=10000.0)
    rotary.model_type = "new-rope-model"
    alibi = PretrainedConfig(position_embedding_type="alibi")
    alibi.model_type = "jina-bert"
    assert read_positional_encoding(rotary).family == "rotary"
    assert read_positional_encoding(alibi).family == "alibi"


# Encoder model types whose family cannot be read from their config, and why.
UNKNOWN_BY_DESIGN: dict[str, str] = {}


def encoder_model_types() -> list[str]:
    """Every encoder that transformers ships: the model types of its masked-language-model mapping."""
    from transformers.models.auto.modeling_auto import MODEL_FOR_MASKED_LM_MAPPING_NAMES

    return sorted(MODEL_FOR_MASKED_LM_MAPPING_NAMES)


@pytest.mark.parametrize("model_type", encoder_model_types())
def test_every_encoder_config_transformers_ships_has_a_family(model_type):
    from transformers import AutoConfig

    config = AutoConfig.for_model(model_type)
    info = read_positional_encoding(config)
    assert info.evidence["model_type"] == model_type
    if model_type in UNKNOWN_BY_DESIGN:
        assert info.family == "unknown"
    else:
        assert info.family != "unknown", f"{model_type}: {config.to_dict()}"
    for key, value in info.evidence.items():  # the fields it was read from, with their values
        if key != "model_type" and "." not in key:
            assert config.to_dict()[key] == value


@pytest.mark.parametrize(
    "model_type, family, kind",
    [
        ("longformer", "absolute", "learned"),
        ("big_bird", "absolute", "learned"),
        ("funnel", "relative", "relative_shift"),
        ("roberta-prelayernorm", "absolute", "learned"),
        ("xmod", "absolute", "learned"),
        ("ibert", "absolute", "learned"),
        ("convbert", "absolute", "learned"),
    ],
)
def test_the_issue_s_families(model_type, family, kind):
    from transformers import AutoConfig

    info = read_positional_encoding(AutoConfig.for_model(model_type))
    assert (info.family, info.kind) == (family, kind)
