"""Models as eval and the probe load them: loading (GGUF files too) and its checks, the mapping of a model's labels
to NLI labels by name, and the positional-encoding family read from a model's config."""
