"""Mapping a classifier's outputs onto NLI labels, by name.

Models order their labels differently (roberta-large-mnli is contradiction-first), so outputs are mapped from
config.id2label by name, case-insensitive, with the usual aliases. A model whose names do not map (LABEL_0, ...)
needs --label-map. Two-label models (entailment vs not) are scored on the binary view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.errors import SwapbenchError
from ..core.labels import LABEL_NAMES

NON_ENTAILMENT = "non-entailment"
BINARY_NAMES = ("entailment", NON_ENTAILMENT)

ALIASES = {
    "entailment": {"entailment", "entail", "entails", "entailed", "e"},
    "neutral": {"neutral", "neither", "n"},
    "contradiction": {"contradiction", "contradict", "contradicts", "contradictory", "c"},
    NON_ENTAILMENT: {"non_entailment", "not_entailment", "nonentailment", "not_entailed", "no_entailment"},
}
_BY_ALIAS = {alias: label for label, aliases in ALIASES.items() for alias in aliases}


class LabelMapError(SwapbenchError):
    pass


@dataclass(frozen=True)
class LabelMap:
    names: tuple[str, ...]  # NLI label of each model output, in output order
    source: str  # "config", "--label-map" or "fine-tuned"

    @property
    def view(self) -> str:
        return "binary" if NON_ENTAILMENT in self.names else "3-way"

    def to_view(self, label: str) -> str:
        """A gold label (entailment/neutral/contradiction) in this map's view."""
        if self.view == "binary" and label != "entailment":
            return NON_ENTAILMENT
        return label


def canonical(name: str) -> str | None:
    return _BY_ALIAS.get(re.sub(r"[\s\-]+", "_", str(name).strip().lower()))


def check_complete(names: list[str | None], described: str) -> tuple[str, ...]:
    """The names must be entailment/neutral/contradiction or entailment/non-entailment, each once."""
    if sorted(map(str, names)) in (sorted(LABEL_NAMES), sorted(BINARY_NAMES)):
        return tuple(names)
    raise LabelMapError(
        f"cannot map the model's labels to NLI labels: {described}. Give the mapping with --label-map, e.g. "
        "--label-map 0=entailment,1=neutral,2=contradiction (or 0=entailment,1=not_entailment), or fine-tune "
        "the model as a base model with --finetune."
    )


def from_config(id2label: dict) -> LabelMap:
    ordered = [id2label[i] for i in sorted(id2label, key=int)]
    names = [canonical(name) for name in ordered]
    return LabelMap(check_complete(names, f"id2label is {dict(enumerate(ordered))}"), source="config")


def from_option(text: str, id2label: dict, num_labels: int) -> LabelMap:
    """Parse --label-map: comma-separated OUTPUT=LABEL, OUTPUT being an output index or its id2label name."""
    by_name = {str(name).lower(): int(i) for i, name in id2label.items()}
    names: list[str | None] = [None] * num_labels
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise LabelMapError(f"--label-map item {item!r} is not OUTPUT=LABEL")
        key = key.strip()
        index = int(key) if key.isdigit() else by_name.get(key.lower())
        if index is None or not 0 <= index < num_labels:
            raise LabelMapError(
                f"--label-map: the model has no output {key!r} (outputs: "
                f"{', '.join(f'{i}={n}' for i, n in sorted(id2label.items()))})"
            )
        label = canonical(value)
        if label is None:
            raise LabelMapError(f"--label-map: {value.strip()!r} is not an NLI label")
        names[index] = label
    outputs = ", ".join(f"{i}={id2label.get(i, id2label.get(str(i), i))}" for i in range(num_labels))
    unmapped = [str(i) for i, name in enumerate(names) if name is None]
    if unmapped:
        raise LabelMapError(
            f"--label-map names no NLI label for output{'s' * (len(unmapped) > 1)} "
            f"{', '.join(unmapped)}: the model has {num_labels} outputs ({outputs}), "
            "and each needs one, e.g. --label-map 0=entailment,1=neutral,2=contradiction "
            "(or 0=entailment,1=not_entailment for two outputs)"
        )
    return LabelMap(
        check_complete(names, f"--label-map gives {', '.join(f'{i}={n}' for i, n in enumerate(names))}"),
        source="--label-map",
    )
