"""The NLI label set, in the order that SNLI on the Hub (and swapbench's ClassLabel) uses."""

LABEL_NAMES: tuple[str, ...] = ("entailment", "neutral", "contradiction")
