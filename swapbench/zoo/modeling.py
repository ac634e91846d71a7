"""The zoo encoder: BERT's architecture (post-layer-norm blocks, [CLS] pooler), with the positional encoding
plugged in where the config says (encodings/).

Attention is computed explicitly, so it can always return its probabilities (output_attentions=True), which the
probe needs. Importing this module registers the model with transformers' Auto classes.
"""

from __future__ import annotations

import torch
from torch import nn
from transformers import AutoConfig, AutoModel, AutoModelForSequenceClassification, PreTrainedModel
from transformers.activations import ACT2FN
from transformers.modeling_outputs import BaseModelOutputWithPooling, SequenceClassifierOutput

from . import family  # noqa: F401  (registers the zoo's positional-encoding family for eval and the probe)
from .config import ZooConfig
from .encodings import LayerScores, ModelPositions, layer_scores, model_positions
from .encodings.base import init
from .names import MODEL_TYPE


class ZooEmbeddings(nn.Module):
    """Token and segment embeddings, plus the absolute position vectors when the encoding has them."""

    def __init__(self, config: ZooConfig):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(
        self, input_ids: torch.Tensor, token_type_ids: torch.Tensor, position_vectors: torch.Tensor | None
    ) -> torch.Tensor:
        embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        if position_vectors is not None:
            embeddings = embeddings + position_vectors[None]
        return self.dropout(self.LayerNorm(embeddings))


class ZooSelfAttention(nn.Module):
    def __init__(self, config: ZooConfig):
        super().__init__()
        self.num_heads = config.num_attention_heads
        self.head_size = config.hidden_size // config.num_attention_heads
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(config.hidden_size, config.hidden_size)
        self.value = nn.Linear(config.hidden_size, config.hidden_size)
        self.scores = layer_scores(config)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def split_heads(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, _ = x.shape
        return x.view(batch, length, self.num_heads, self.head_size).transpose(1, 2)

    def forward(
        self, hidden: torch.Tensor, mask_bias: torch.Tensor, shared_bias: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Context vectors (batch, length, hidden) and attention probabilities (batch, heads, length, length)."""
        query, key, value = (self.split_heads(layer(hidden)) for layer in (self.query, self.key, self.value))
        logits = self.scores(query, key, shared_bias) + mask_bias
        probabilities = torch.softmax(logits, dim=-1)
        context = torch.matmul(self.dropout(probabilities), value)
        batch, _, length, _ = context.shape
        return context.transpose(1, 2).reshape(batch, length, -1), probabilities


class ZooLayer(nn.Module):
    """A post-layer-norm transformer block, as in BERT."""

    def __init__(self, config: ZooConfig):
        super().__init__()
        self.attention = ZooSelfAttention(config)
        self.attention_output = nn.Linear(config.hidden_size, config.hidden_size)
        self.attention_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.intermediate = nn.Linear(config.hidden_size, config.intermediate_size)
        self.activation = ACT2FN[config.hidden_act]
        self.output = nn.Linear(config.intermediate_size, config.hidden_size)
        self.output_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, hidden, mask_bias, shared_bias):
        context, probabilities = self.attention(hidden, mask_bias, shared_bias)
        hidden = self.attention_norm(hidden + self.dropout(self.attention_output(context)))
        feed_forward = self.output(self.activation(self.intermediate(hidden)))
        return self.output_norm(hidden + self.dropout(feed_forward)), probabilities


class ZooPreTrainedModel(PreTrainedModel):
    config_class = ZooConfig
    config: ZooConfig
    base_model_prefix = "zoo"
    main_input_name = "input_ids"

    @torch.no_grad()
    def _init_weights(self, module):
        """BERT's init: normal(0, initializer_range) linears and embeddings, unit norms (transformers 4.45's own
        _init_weights does nothing), and each encoding's parameters."""
        std = self.config.initializer_range
        if isinstance(module, (nn.Linear, nn.Embedding)):
            init.normal_(module.weight, mean=0.0, std=std)
        if isinstance(module, nn.Linear) and module.bias is not None:
            init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding) and module.padding_idx is not None:
            # transformers 5: a row sliced off a weight a checkpoint filled loses the mark that spares it
            if not getattr(module.weight, "_is_hf_initialized", False):
                init.zeros_(module.weight[module.padding_idx])
        elif isinstance(module, nn.LayerNorm):
            init.ones_(module.weight)
            init.zeros_(module.bias)
        elif isinstance(module, (ModelPositions, LayerScores)):
            module.init_parameters(std)


class ZooModel(ZooPreTrainedModel):
    """The bare encoder: last hidden states, the pooled [CLS] vector, and on request every layer's attention."""

    def __init__(self, config: ZooConfig):
        super().__init__(config)
        self.embeddings = ZooEmbeddings(config)
        self.positions = model_positions(config)
        self.layers = nn.ModuleList(ZooLayer(config) for _ in range(config.num_hidden_layers))
        self.pooler = nn.Linear(config.hidden_size, config.hidden_size)
        self.post_init()

    def get_input_embeddings(self):
        return self.embeddings.word_embeddings

    def set_input_embeddings(self, value):
        self.embeddings.word_embeddings = value

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        output_attentions: bool | None = None,
        output_hidden_states: bool | None = None,
        **kwargs,
    ) -> BaseModelOutputWithPooling:
        output_attentions = self.config.output_attentions if output_attentions is None else output_attentions
        output_hidden_states = (
            self.config.output_hidden_states if output_hidden_states is None else output_hidden_states
        )
        length = input_ids.shape[1]
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        dtype = self.embeddings.word_embeddings.weight.dtype
        position_vectors = self.positions.input_embeddings(length, input_ids.device, dtype)
        hidden = self.embeddings(input_ids, token_type_ids, position_vectors)
        # Padding keys get the most negative logit, so their probability underflows to exactly 0.
        mask_bias = (1.0 - attention_mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min
        shared_bias = self.positions.shared_bias(length, input_ids.device, dtype)

        all_hidden, all_attentions = [hidden], []
        for layer in self.layers:
            hidden, probabilities = layer(hidden, mask_bias, shared_bias)
            all_hidden.append(hidden)
            all_attentions.append(probabilities)
        pooled = torch.tanh(self.pooler(hidden[:, 0]))
        return BaseModelOutputWithPooling(
            last_hidden_state=hidden,
            pooler_output=pooled,
            hidden_states=tuple(all_hidden) if output_hidden_states else None,
            attentions=tuple(all_attentions) if output_attentions else None,
        )


class ZooForSequenceClassification(ZooPreTrainedModel):
    """The encoder with a linear classifier on the pooled [CLS] vector, trained with cross-entropy."""

    def __init__(self, config: ZooConfig):
        super().__init__(config)
        self.num_labels = config.num_labels
        self.zoo = ZooModel(config)
        dropout = config.classifier_dropout if config.classifier_dropout is not None else config.hidden_dropout_prob
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(config.hidden_size, config.num_labels)
        self.post_init()

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
        output_attentions: bool | None = None,
        output_hidden_states: bool | None = None,
        **kwargs,
    ) -> SequenceClassifierOutput:
        outputs = self.zoo(
            input_ids,
            attention_mask=attention_mask,
            token_type_ids=token_type_ids,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
        )
        logits = self.classifier(self.dropout(outputs.pooler_output))
        loss = None if labels is None else nn.functional.cross_entropy(logits, labels)
        return SequenceClassifierOutput(
            loss=loss, logits=logits, hidden_states=outputs.hidden_states, attentions=outputs.attentions
        )


def count_parameters(model: nn.Module) -> dict[str, int]:
    """Parameters in all, in the positional encoding alone, and outside the word embeddings."""
    base = model.base_model
    positional = sum(p.numel() for p in base.positions.parameters())
    positional += sum(p.numel() for layer in base.layers for p in layer.attention.scores.parameters())
    total = sum(p.numel() for p in model.parameters())
    return {
        "total": total,
        "positional": positional,
        "non_embedding": total - base.embeddings.word_embeddings.weight.numel(),
    }


AutoConfig.register(MODEL_TYPE, ZooConfig, exist_ok=True)
AutoModel.register(ZooConfig, ZooModel, exist_ok=True)
AutoModelForSequenceClassification.register(ZooConfig, ZooForSequenceClassification, exist_ok=True)

__all__ = ["ZooConfig", "ZooForSequenceClassification", "ZooModel", "count_parameters"]
