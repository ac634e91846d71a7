"""swapbench: word-swap probing benchmarks for natural-language-inference models.

For notebooks: `swapbench.build(...)`, `swapbench.evaluate(...)` and `swapbench.probe(...)` are the functions of
swapbench.api, re-exported here. Nothing is loaded until one is used, so that `import swapbench` stays cheap
(`__version__` too: reading the installed distributions' metadata costs a tenth of a second, which every `--help`
would pay).
"""

from importlib import import_module

API = ("build", "evaluate", "probe", "Built", "Evaluated", "Probed")


def __getattr__(name: str):
    if name == "__version__":
        return import_module("swapbench.core.version").__version__
    if name in API:
        return getattr(import_module("swapbench.api"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["__version__", *API]
