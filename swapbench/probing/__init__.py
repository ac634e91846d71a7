"""Locality and symmetry of a model's positional attention, measured by identical-word probing."""

from .attenuated import attenuated_matrix
from .errors import MatrixError, ProbeError
from .metrics import degree_symmetry, locality, relative_locality, symmetry
from .result import LayerMetrics, ProbeResult
from .run import probe_model

__all__ = ["LayerMetrics", "MatrixError", "ProbeError", "ProbeResult", "attenuated_matrix", "degree_symmetry",
           "locality", "probe_model", "relative_locality", "symmetry"]
