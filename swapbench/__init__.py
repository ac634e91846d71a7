"""swapbench: word-swap probing benchmarks for natural-language-inference models.

For notebooks: `swapbench.build(...)`, `swapbench.evaluate(...)` and `swapbench.probe(...)` run the functions of
the same names in swapbench.api. Nothing is loaded until one is used, so that `import swapbench` stays cheap.
"""

import sys
import types
from importlib import import_module

from .version import __version__

# Each of these names is both a subpackage (or module) of swapbench and a function of the API: the import system
# sets `swapbench.evaluate` to the package once it is imported, so the package itself is made callable.
FUNCTIONS = ("build", "evaluate", "probe")
RESULTS = ("Built", "Evaluated", "Probed")


class _CallableModule(types.ModuleType):
    """swapbench.build, .evaluate, .probe: the module as ever, and called, the API function of its name."""

    def __call__(self, *args, **kwargs):
        return getattr(import_module("swapbench.api"), self.__name__.rpartition(".")[2])(*args, **kwargs)


class _Package(types.ModuleType):
    def __setattr__(self, name, value):
        if name in FUNCTIONS and type(value) is types.ModuleType:
            value.__class__ = _CallableModule
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str):
    if name in FUNCTIONS:
        return import_module(f"{__name__}.{name}")  # made callable as the import sets the attribute
    if name in RESULTS:
        return getattr(import_module("swapbench.api"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["__version__", *FUNCTIONS, *RESULTS]
