"""The positional-encoding zoo: one small BERT-style encoder, every positional encoding, trained alike and scored
on every word-swap variant, so that differences in Δ accuracy come from the encoding alone.

Light on purpose (the CLI imports `swapbench.zoo.command` for `swapbench --help`). The model lives in
`swapbench.zoo.modeling`; importing it registers model_type "swapbench-zoo" with transformers' Auto classes, so
that a saved checkpoint loads with AutoModelForSequenceClassification.from_pretrained.
"""

from . import family  # noqa: F401  (registers the zoo's positional-encoding family)
from .names import ENCODINGS, MODEL_TYPE


def register_auto_classes() -> None:
    """Make transformers' Auto classes load zoo checkpoints (importing the model module registers it)."""
    from . import modeling  # noqa: F401


__all__ = ["ENCODINGS", "MODEL_TYPE", "register_auto_classes"]
