"""The model type of zoo checkpoints (config.json's model_type), free of torch so that anything may name it."""

MODEL_TYPE = "swapbench-zoo"
