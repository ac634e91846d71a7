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

from ..evaluation.health import (
    ACCURACY_CHECK,
    COLLAPSE,
    COLLAPSE_CHECK,
    LOSS_CHECK,
    accuracy_reason,
    accuracy_test,
    loss_at_chance,
)
from ..evaluation.stats import holm
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
    data["health"] = {
        "at_chance": bool(reasons),
        "reasons": reasons,
        "checks": [LOSS_CHECK] if tuning else [],
        "accuracy_original": None,
        "majority_rate": None,
        "top_prediction_share": None,
        "min_train_loss": lowest,
    }
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


ROLE_NOTE = (
    "migrated from schema 2.1: the value is exact (the originals of a role configuration are all entailment, "
    "so the share predicted non-entailment is 1 - accuracy_original), but the interval and the test need "
    "the per-pair predictions, which the results file does not hold; rescoring gives them"
)


def _role_sensitivity_from_2_1(data: dict) -> None:
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
        result["role_sensitivity"] = {
            "value": (swapped - original) / n,
            "non_entailment_original": before,
            "non_entailment_perturbed": rate,
            "ci": None,
            "test": None,
            "note": ROLE_NOTE,
        }


# The gold labels of the whole split, by (source fingerprint, split), for the splits the board's files were scored
# on: a file before 2.2 does not hold them. SNLI 1.0 test's 9,824 labelled pairs; the committed MiniLM file, which
# scored every one of them, records the same majority rate (3,368 / 9,824).
SPLIT_LABELS = {
    ("sha256:1147550151ca8b16ddb31d8dc0e739a670a65f7c3e64aac5951eaeff103fb220", "test"): {
        "entailment": 3368,
        "neutral": 3219,
        "contradiction": 3237,
    },
}


def _health_from_2_1(data: dict) -> None:
    """2.2 judges accuracy against the majority rate of the whole split's originals, and collapse on every
    prediction. Before, both were judged on the originals scored, so a file scored on part of the data (--limit,
    or role configurations, whose originals are all entailment) was judged against a rate it inflated.

    The accuracy check is redone where the split's labels are known (SPLIT_LABELS), on the label-keeping
    configuration with the most pairs scored (a configuration reports its accuracy, not which pairs were right, so
    their union cannot be rebuilt). Collapse over every prediction needs the predictions file: a collapse 2.1 found
    on the originals is kept, else the check is marked as not run. Where the accuracy check cannot be redone, 2.1's
    verdict is kept, marked as such.
    """
    old, model, dataset = data["health"], data["model"], data["dataset"]
    keeping = {name: r for name, r in data["results"].items() if r.get("non_entailment_rate") is None}
    counts = SPLIT_LABELS.get((dataset.get("source_fingerprint"), dataset.get("split")))
    if counts and model["label_view"] == "binary":
        counts = {"entailment": counts["entailment"], "non-entailment": sum(counts.values()) - counts["entailment"]}
    checks, not_run, reasons = [], [], []
    accuracy = pairs = majority = p_value = source = None
    if not keeping:
        not_run.append(f"{ACCURACY_CHECK}: no configuration that keeps the source's labels was scored")
    elif counts is None:
        not_run.append(
            f"{ACCURACY_CHECK}: schema 2.1 judged accuracy against the originals scored, and the whole "
            "split's labels of this source are unknown to the migration; score the model again"
        )
    else:
        checks.append(ACCURACY_CHECK)
        rows = {c["name"]: c["rows"] for c in dataset["configurations"]}
        name, result = max(keeping.items(), key=lambda item: (item[1]["n"], rows.get(item[0], 0)))
        pairs, accuracy = result["n"], result["accuracy_original"]
        majority = max(counts.values()) / sum(counts.values())
        p_value = accuracy_test(round(accuracy * pairs), pairs, majority)
        reasons += accuracy_reason(accuracy, pairs, majority, p_value)
        source = (
            f"the {sum(counts.values()):,} labelled pairs of the split, counted from the source (migration "
            f"from 2.1; accuracy on the originals of {name})"
        )
    top = old.get("top_prediction_share")
    if top is not None and top >= COLLAPSE > (old.get("majority_rate") or 1):
        checks.append(COLLAPSE_CHECK)
        reasons.append(f"{top:.1%} of the predictions on the original pairs are one class (schema 2.1's check)")
    else:
        not_run.append(
            f"{COLLAPSE_CHECK}: a file before 2.2 holds the top prediction's share on the originals "
            "only, not on every prediction"
        )
    if ACCURACY_CHECK not in checks:
        # the loss and collapse reasons are judged again above
        reasons += [
            f"{reason} (schema 2.1's verdict)"
            for reason in old["reasons"]
            if not reason.startswith("the fine-tuning loss") and "are one class" not in reason
        ]
    tuning = model["fine_tuning"]
    loss_reason, lowest = loss_at_chance(tuning["history"] if tuning else [], len(model["label_names"]))
    checks += [LOSS_CHECK] if tuning else []
    reasons += loss_reason
    data["health"] = {
        "at_chance": bool(reasons),
        "reasons": reasons,
        "checks": checks,
        "not_run": not_run,
        "accuracy_original": accuracy,
        "accuracy_pairs": pairs,
        "majority_rate": majority,
        "majority_from": source,
        "p_value": p_value,
        "top_prediction_share": None,
        "min_train_loss": lowest,
    }


def _2_1_to_2_2(data: dict) -> dict:
    _role_sensitivity_from_2_1(data)
    _health_from_2_1(data)
    return data


def _2_2_to_2_3(data: dict) -> dict:
    """2.3 adjusts the slices' p-values for multiple comparisons within each configuration. Holm's adjustment is a
    function of the family's p-values alone, so a 2.2 file gets exactly the values eval writes today: the family
    is every test its slices carry, Δ's and role sensitivity's where it has one (schema.slice_tests)."""
    for result in data["results"].values():
        tests = []
        for tag in sorted(result.get("slices") or {}):
            slice_ = result["slices"][tag]
            tests.append(slice_["mcnemar"])
            role = slice_.get("role_sensitivity")
            if role and role.get("test"):
                tests.append(role["test"])
        for test, adjusted in zip(tests, holm([t["p_value"] for t in tests])):
            test["p_adjusted"] = adjusted
    return data


def _2_3_to_2_4(data: dict) -> dict:
    """2.4 records runs over several fine-tuning seeds (seed_variance, PairedResult.seeds, PredictionRow.seed). A
    2.3 file is one fine-tuning, or none: what 2.4 says when those keys are absent, so it reads as it is."""
    return data


# Version read -> (version written, step).
MIGRATIONS: dict[str, tuple[str, Step]] = {
    "1.0": ("2.0", _1_0_to_2_0),
    "2.0": ("2.1", _2_0_to_2_1),
    "2.1": ("2.2", _2_1_to_2_2),
    "2.2": ("2.3", _2_2_to_2_3),
    "2.3": ("2.4", _2_3_to_2_4),
}


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
