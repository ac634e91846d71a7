"""The zoo's model type in swapbench's registry of positional-encoding families: its config names the encoding."""

from __future__ import annotations

from ..evaluate.positional import ConfigReading, register
from .names import BY_NAME, MODEL_TYPE


@register(MODEL_TYPE, help="swapbench zoo encoder: the family of its position_encoding")
def read_zoo(r: ConfigReading):
    name = BY_NAME.get(r.fields.get("position_encoding"))
    if name is None:
        return None  # the generic fields, then "unknown"
    return r.info(name.family, name.kind, ("position_encoding", "max_position_embeddings"),
                  f"swapbench zoo encoder: {name.paper}")
