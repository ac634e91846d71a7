"""The positional-encoding zoo: one small BERT-style encoder, every positional encoding, trained alike and scored
on every word-swap variant, so that differences between encoders come from the encoding alone.

Importing this package registers the zoo with the rest of swapbench and with transformers, so that nothing else
names it: model_type "swapbench-zoo" with transformers' Auto classes (a saved checkpoint loads with
AutoModelForSequenceClassification.from_pretrained), its positional-encoding family in
`swapbench.core.registry.FAMILIES`, and the built-in encodings in `swapbench.core.registry.ENCODINGS` (a new
encoding is one module that calls `swapbench.zoo.encodings.register`).
"""

from .names import MODEL_TYPE


def encoding_names() -> list[str]:
    """The registered encodings, in the order the zoo lists them (importing them registers the built-in ones)."""
    from ..core.registry import ENCODINGS
    from . import encodings  # noqa: F401

    return ENCODINGS.names()


__all__ = ["MODEL_TYPE", "encoding_names"]
