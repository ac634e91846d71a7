"""The probe's figures as the terminal prints them: the paper's named as the paper's, swapbench's beside them."""

from __future__ import annotations


def probe_figures(figures, causal: bool | None = None) -> str:
    """The four figures of a probe, its average or one layer's (anything with locality, symmetry,
    relative_locality and degree_symmetry; `causal` for a layer, which does not say), the paper's named as such,
    for a terminal line."""
    causal = getattr(figures, "causal", None) if causal is None else causal
    relative = figures.relative_locality
    degree = figures.degree_symmetry
    if degree is not None:
        degree_text = f"{degree:.1%}"
    else:  # a file written before the swapbench figures were recorded has neither
        degree_text = "null (causal mask)" if causal else "null (flat)" if relative is not None else "not recorded"
    return (
        f"locality (paper) {figures.locality:.1%}, symmetry (paper) "
        f"{'null (causal mask)' if figures.symmetry is None else f'{figures.symmetry:.1%}'}, "
        f"relative locality {'not recorded' if relative is None else f'{relative:.1%}'}, "
        f"degree symmetry {degree_text}"
    )
