"""The zoo's model type in swapbench's registry of positional-encoding families: its config names the encoding."""

from __future__ import annotations

from ..core.registry import ENCODINGS
from ..models.positional import ConfigReading, register
from .names import MODEL_TYPE


@register(MODEL_TYPE, help="swapbench zoo encoder: the family of its position_encoding")
def read_zoo(r: ConfigReading):
    name = r.fields.get("position_encoding")
    if name not in ENCODINGS:
        return None  # the generic fields, then "unknown"
    encoding = ENCODINGS.get(name)
    return r.info(
        encoding.family,
        encoding.kind,
        ("position_encoding", *encoding.fields),
        f"swapbench zoo encoder: {encoding.paper}",
    )
