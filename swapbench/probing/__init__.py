"""Locality and symmetry of a model's positional attention, measured by identical-word probing."""

from .attenuated import attenuated_matrix
from .errors import MatrixError, ProbeError
from .metrics import degree_symmetry, locality, relative_locality, symmetry
from .result import LayerMetrics, ProbeResult


def __getattr__(name: str):
    """probe_model, imported when first asked for: it imports torch, which the probe's options (what `swapbench probe
    --help` and `swapbench eval --help` read) must not."""
    if name == "probe_model":
        from .run import probe_model

        return probe_model
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["LayerMetrics", "MatrixError", "ProbeError", "ProbeResult", "attenuated_matrix", "degree_symmetry",
           "locality", "probe_model", "relative_locality", "symmetry"]
