"""Older results files, brought up to the current schema version one explicit step at a time.

A step is registered under the version it reads and names the version it writes; `migrate` follows the steps
until it reaches swapbench.results.schema.SCHEMA_VERSION. When the schema changes, add the step that turns a
file of the old version into one of the new, e.g.

    def _1_0_to_1_1(data: dict) -> dict:
        for result in data["results"].values():
            result["new_key"] = ...
        return data

    MIGRATIONS = {"1.0": ("1.1", _1_0_to_1_1)}

Files are stored on the board as submitted and migrated each time they are read.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping

from ..evaluation.health import LOSS_CHECK, loss_at_chance
from ..results.schema import SCHEMA_VERSION

Step = Callable[[dict], dict]

UNCLUSTERED = "exact McNemar over pairs, not clustered (schema 1.0)"


def _1_0_to_2_0(data: dict) -> dict:
    """2.0 clusters the intervals and the test, breaks figures down by slice and flags models at chance.

    A 1.0 file keeps its unclustered figures, marked as such (clusters null, the test named); its slices were
    not computed (null). Of the health checks, only the fine-tuning loss can be read from it: the others need the
    per-pair predictions, which the file does not hold.
    """
    for result in data["results"].values():
        result["clusters"] = None
        result["slices"] = None
        result["mcnemar"]["method"] = UNCLUSTERED
    tuning = data["model"]["fine_tuning"]
    reasons, lowest = loss_at_chance(tuning["history"] if tuning else [], len(data["model"]["label_names"]))
    data["health"] = {"at_chance": bool(reasons), "reasons": reasons, "checks": [LOSS_CHECK] if tuning else [],
                      "accuracy_original": None, "majority_rate": None, "top_prediction_share": None,
                      "min_train_loss": lowest}
    return data


def _2_0_to_2_1(data: dict) -> dict:
    """2.1 records the architecture (encoder or decoder) and the mode (fine-tuned or prompted). Every 2.0 file
    scored a classification head; its architecture is read from its model type as 2.1 reads it."""
    from ..models.positional import architecture_of

    model = data["model"]
    model["architecture_kind"] = architecture_of(model["model_type"], model.get("architecture"))
    model["mode"] = "fine-tuned"
    model["prompt"] = None
    return data


ROLE_NOTE = ("migrated from schema 2.1: the value is exact (the originals of a role configuration are all entailment, "
             "so the share predicted non-entailment is 1 - accuracy_original), but the interval and the test need "
             "the per-pair predictions, which the results file does not hold; rescoring gives them")


def _2_1_to_2_2(data: dict) -> dict:
    """2.2 gives every role configuration (those with a non_entailment_rate) its role sensitivity. From a 2.1 file
    its value is exact: every original of a role configuration is entailment, in either label view, so the share of
    originals predicted non-entailment is 1 - accuracy_original. Its interval and test, and the figures of the
    slices (3-way files hold no per-slice non-entailment rate), need the predictions: null, with the reason."""
    for result in data["results"].values():
        rate = result.get("non_entailment_rate")
        if rate is None:
            continue
        n = result["n"]  # from the counts the fractions were made of, so that a role-blind model reads exactly 0
        swapped, original = round(rate * n), n - round(result["accuracy_original"] * n)
        before = original / n
        result["role_sensitivity"] = {"value": (swapped - original) / n, "non_entailment_original": before,
                                      "non_entailment_perturbed": rate, "ci": None, "test": None, "note": ROLE_NOTE}
    return data


# Version read -> (version written, step).
MIGRATIONS: dict[str, tuple[str, Step]] = {"1.0": ("2.0", _1_0_to_2_0), "2.0": ("2.1", _2_0_to_2_1),
                                           "2.1": ("2.2", _2_1_to_2_2)}


class UnknownVersion(ValueError):
    pass


def known_versions(migrations: Mapping[str, tuple[str, Step]] = MIGRATIONS) -> list[str]:
    return sorted({SCHEMA_VERSION, *migrations})


def migrate(data: dict, migrations: Mapping[str, tuple[str, Step]] = MIGRATIONS) -> tuple[dict, list[str]]:
    """A copy of `data` at SCHEMA_VERSION, and the steps taken ("0.9 -> 1.0"); the input is left as it was."""
    version = data.get("schema_version")
    steps: list[str] = []
    while version != SCHEMA_VERSION:
        if version not in migrations:
            raise UnknownVersion(f"unknown schema version {version!r} (known: {', '.join(known_versions(migrations))})")
        target, step = migrations[version]
        data = step(copy.deepcopy(data))
        data["schema_version"] = target
        steps.append(f"{version} -> {target}")
        version = target
        if len(steps) > len(migrations):
            raise UnknownVersion(f"the migrations loop at schema version {version!r}")
    return data, steps
