"""swapbench: word-swap probing benchmarks for natural-language-inference models.

For notebooks: `swapbench.build(...)`, `swapbench.evaluate(...)` and `swapbench.probe(...)` are the functions of
swapbench.api, re-exported here. Nothing is loaded until one is used, so that `import swapbench` stays cheap
(`__version__` too: reading the installed distributions' metadata costs a tenth of a second, which every `--help`
would pay).

swapbench logs on the "swapbench" logger and its children (swapbench/core/logs.py); as a library it installs no
handler but a NullHandler, so that the program that imports it decides where its messages go.
"""

import logging
from importlib import import_module

logging.getLogger(__name__).addHandler(logging.NullHandler())

API = ("build", "evaluate", "probe", "Built", "Evaluated", "Probed")


def __getattr__(name: str):
    if name == "__version__":
        return import_module("swapbench.core.version").__version__
    if name in API:
        return getattr(import_module("swapbench.api"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["__version__", *API]
