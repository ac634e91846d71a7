"""shuffle-sr-premise: shuffle-sr in the reference paper's order (Algorithm 1): the premise tried first.

The premise's swappable verbs are tried first, then the hypothesis's, each swap through the same filters
(role_filters.py) and the same grounding (role_grounding.py) as shuffle-sr. A premise swap is kept only where the
hypothesis restates the swapped relation, which few SNLI hypotheses do, so most rows still fall back to the
hypothesis as Algorithm 1 does when the premise has no swap left; the `side:` tag tells them apart.

It is its own configuration, not an option of shuffle-sr, because the paper's reported shuffle-sr figures were
measured in this order: the board puts them beside this configuration's column and never beside shuffle-sr's.
"""

from __future__ import annotations

from ..core.registry import VARIANTS
from .role_shuffle import ANNOTATIONS, ORDERS, RoleOptions, RoleShuffle


@VARIANTS.register(
    "shuffle-sr-premise",
    help="shuffle-sr in the reference paper's order (Algorithm 1): the premise "
    "swapped first, the hypothesis where the premise has no grounded "
    "swap (--srl)",
)
class PremiseRoleShuffle(RoleShuffle):
    name = "shuffle-sr-premise"
    description = (
        "agent and patient of one verb exchanged in the premise when the hypothesis asserts the swapped "
        "relation, else in the hypothesis, of an entailment pair (the reference paper's Algorithm 1); "
        "label contradiction"
    )
    Options = RoleOptions  # shuffle-sr's, less --sr-selection: the curation files judge hypothesis-first swaps
    refused_without = ()
    order = ORDERS[1]
    board_note = "premise side first, the paper's order"
    validity_file = ANNOTATIONS / "shuffle-sr-premise-validity.json"  # shuffle-sr's sample judged other rows
    card_limitations = (
        *RoleShuffle.card_limitations,
        "shuffle-sr-premise follows the reference paper's order, but its premise swaps are kept "
        "only where the hypothesis restates the swapped relation (grounding): most of its rows "
        "swap the hypothesis, as Algorithm 1 does when the premise has no swap left, and those "
        "are shuffle-sr's rows; its side:premise slice is what differs from shuffle-sr.",
    )
