"""Locality and symmetry of a model's positional attention, measured by identical-word probing."""

from importlib import import_module

# Each name's module, imported when the name is first asked for: probe_model imports torch, the metrics numpy and
# the result the results schema, none of which the probe's options (what `swapbench probe --help`, `eval --help`
# and `zoo --help` read, importing this package) need.
_MODULES = {
    "attenuated_matrix": "attenuated",
    "MatrixError": "errors",
    "ProbeError": "errors",
    "decay_ratio": "metrics",
    "degree_symmetry": "metrics",
    "locality": "metrics",
    "relative_locality": "metrics",
    "symmetry": "metrics",
    "LayerMetrics": "result",
    "ProbeResult": "result",
    "probe_model": "run",
}


def __getattr__(name: str):
    if name in _MODULES:
        return getattr(import_module(f"{__name__}.{_MODULES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "LayerMetrics",
    "MatrixError",
    "ProbeError",
    "ProbeResult",
    "attenuated_matrix",
    "decay_ratio",
    "degree_symmetry",
    "locality",
    "probe_model",
    "relative_locality",
    "symmetry",
]
