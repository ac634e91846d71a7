"""The scorers of `swapbench eval --mode`, one module each, registered in swapbench.core.registry.SCORERS when
this package is imported: classifier (also named finetune) and prompt. `base` says what a scorer is."""

from . import classifier, prompt  # noqa: F401  (registers them)
from .base import Prepared, Run, Scorer, Scores, mode_help, scorer_for

__all__ = ["Prepared", "Run", "Scorer", "Scores", "mode_help", "scorer_for"]
