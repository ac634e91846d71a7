"""Every reason a results file cannot go on the board, each named with where it is in the file.

A file is refused when it is not JSON, or JSON nested deeper than any results file; a required key is missing or a
key is unknown; a string that names the model is longer than MAX_NAME or holds characters that hide or reorder
text; its schema version is neither the current one nor one that migrate.py can bring up to it; `swapbench eval`
found the model at chance (health.at_chance), or a health block's own figures put it at chance by eval's rule where
its flag says not; the model saw the hypotheses alone (model.hypothesis_only); a number is NaN, infinite or out of its
range; a delta is not accuracy_perturbed - accuracy_original; it was scored on other data than the board's
reference dataset (another split, --limit at eval or build, fewer rows than the reference's, a configuration
whose fingerprint differs, a configuration of the reference left out) or on data
not verified against their build_info.json; its training data were not checked against the scored data, or overlap
them; pairs were truncated under the reference max length; the probe was framed otherwise than the board's rows; the
model was scored from memory, not from files anyone can find again; or the same model and revision is on the board
already (unless replace is asked for).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from ..core.display import plain_text
from ..evaluation.health import chance_reasons
from ..results.schema import IN_MEMORY, REFERENCE_RECIPE, TOLERANCE, EvalResults
from ..sources import DEFAULT_SOURCE, default_source
from .migrate import UnknownVersion, migrate
from .reference import Reference
from .store import Identity

# A results file of `swapbench eval` nests about ten levels (results.shuffle-3.slices.TAG.role_sensitivity.ci...); a
# config's fields in model.positional_encoding.evidence add a few. Deeper JSON is no results file, and walking it
# would exhaust Python's recursion.
MAX_DEPTH = 64
# A model's name, revision or cache key longer than this is no name: a Hub id is at most 96 characters, a revision
# or cache key about 71.
MAX_NAME = 200

BUILD_HINT = (
    f"build it with `swapbench build --source {DEFAULT_SOURCE} --split test` (defaults: the "
    f"{default_source().release} release archive, ptb parses, seed 0)"
)


@dataclass(frozen=True)
class Problem:
    where: str  # dotted path of the key, e.g. results.shuffle-3.delta; "" for the whole file
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


@dataclass
class Verdict:
    problems: list[Problem] = field(default_factory=list)
    results: EvalResults | None = None
    migrated: list[str] = field(default_factory=list)
    replaces: list[Path] = field(default_factory=list)  # board files the submission takes the place of

    @property
    def accepted(self) -> bool:
        return not self.problems


def validate(
    text: str,
    reference: Reference,
    board: list[tuple[Path, Identity]],
    *,
    replace: bool = False,
    itself: Path | None = None,
) -> Verdict:
    """Check a results file's text. `board` is who the stored files are about; `itself` is the file's own place
    on the board when a stored file is re-checked, so that it is not its own duplicate."""
    verdict = Verdict()
    problems = verdict.problems
    try:
        data = json.loads(text)
    except ValueError as err:
        problems.append(Problem("", f"not JSON: {err}"))
        return verdict
    except RecursionError:
        problems.append(Problem("", f"JSON nested too deeply to read: a results file nests at most {MAX_DEPTH} levels"))
        return verdict
    if not isinstance(data, dict):
        problems.append(Problem("", "not a JSON object"))
        return verdict
    if (found := depth(data)) > MAX_DEPTH:
        problems.append(Problem("", f"JSON nested {found} levels deep: a results file nests at most {MAX_DEPTH}"))
        return verdict
    problems += non_finite(data)
    if "schema_version" not in data:
        problems.append(Problem("schema_version", "required key missing"))
        return verdict
    try:
        data, verdict.migrated = migrate(data)
    except UnknownVersion as err:
        problems.append(Problem("schema_version", str(err)))
        return verdict
    except (KeyError, TypeError, ValueError) as err:  # a migration step met a file it cannot read
        problems.append(Problem("schema_version", f"cannot migrate from {data['schema_version']!r}: {err!r}"))
        return verdict
    problems += wrong_deltas(data)
    problems += at_chance(data)
    problems += hidden_names(data)
    problems += hypothesis_only(data)
    try:
        verdict.results = EvalResults.model_validate(data)
    except ValidationError as err:
        problems += schema_problems(err, problems)
    problems += against_reference(data, reference)
    problems += training_overlap(data)
    problems += truncation(data)
    problems += probe_framing(data)
    problems += in_memory(data)
    itself = itself.resolve() if itself else None
    identity = Identity.of(data)
    duplicates = [path for path, other in board if other == identity and path.resolve() != itself]
    if duplicates and not replace:
        problems.append(
            Problem(
                "model",
                f"{identity.describe()} is already on the board as "
                f"{', '.join(map(str, duplicates))}; --replace replaces it",
            )
        )
    verdict.replaces = duplicates
    return verdict


def _path(loc) -> str:
    return ".".join(str(part) for part in loc)


def depth(value) -> int:
    """How many arrays and objects deep a JSON value nests, counted without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in children)
    return deepest


def non_finite(value, where: tuple = ()) -> list[Problem]:
    """NaN and infinities anywhere in the file (Python's json module reads them; no figure may be one)."""
    if isinstance(value, float) and not math.isfinite(value):
        return [Problem(_path(where), f"{value} is not a number in range")]
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in non_finite(item, (*where, key))]
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in non_finite(item, (*where, i))]
    return []


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def wrong_deltas(data: dict) -> list[Problem]:
    problems = []
    results = data.get("results")
    for name, result in results.items() if isinstance(results, dict) else ():
        if not isinstance(result, dict):
            continue
        delta, perturbed, original = (result.get(k) for k in ("delta", "accuracy_perturbed", "accuracy_original"))
        if all(map(is_number, (delta, perturbed, original))) and abs(delta - (perturbed - original)) > TOLERANCE:
            problems.append(
                Problem(
                    f"results.{name}.delta",
                    f"{delta!r} differs from accuracy_perturbed - accuracy_original = "
                    f"{perturbed!r} - {original!r} = {perturbed - original!r}",
                )
            )
    return problems


def health_blocks(data: dict) -> list[tuple[str, dict]]:
    """Every health record of the file by where it is: the model's, and each seed's of a multi-seed run."""
    variance = data.get("seed_variance") if isinstance(data.get("seed_variance"), dict) else {}
    runs = variance.get("runs") if isinstance(variance.get("runs"), list) else []
    found = [("health", data.get("health"))]
    found += [
        (f"seed_variance.runs.{i}.health", run.get("health")) for i, run in enumerate(runs) if isinstance(run, dict)
    ]
    return [(where, health) for where, health in found if isinstance(health, dict)]


def at_chance(data: dict) -> list[Problem]:
    """A model that `swapbench eval` found degenerate is no result to rank; nor is one whose health figures say so by
    eval's own rule (health.chance_reasons) where the file's flag says not: the flag is re-derived, never believed."""
    model = data.get("model") if isinstance(data.get("model"), dict) else {}
    labels = model.get("label_names")
    classes = len(labels) if isinstance(labels, list) and len(labels) > 1 else None
    problems = []
    for where, health in health_blocks(data):
        if health.get("at_chance") is True:
            reasons = "; ".join(map(str, health.get("reasons") or [])) or "no reason given"
            problems.append(Problem(where, f"the model is at chance, its figures are no result to rank: {reasons}"))
            continue
        reasons = rederived_reasons(health, classes)
        if reasons:
            problems.append(
                Problem(
                    f"{where}.at_chance",
                    f"{health.get('at_chance')!r}, but the block's own figures put the model at "
                    f"chance by the rule `swapbench eval` applies: {'; '.join(reasons)}",
                )
            )
    return problems


def rederived_reasons(health: dict, classes: int | None) -> list[str]:
    """eval's reasons for a model at chance, from a health block's figures (each check its figures allow). The
    block does not record how far the gold labels collapse onto the top prediction: the majority class's share of
    the originals stands in for it, so that a source of one label still excuses a collapse."""

    def fraction(key: str) -> float | None:  # out of range is the schema's problem to name, not a figure to judge
        value = health.get(key)
        return value if is_number(value) and 0 <= value <= 1 else None

    pairs, loss = health.get("accuracy_pairs"), health.get("min_train_loss")
    reasons, _ = chance_reasons(
        accuracy=fraction("accuracy_original"),
        pairs=pairs if isinstance(pairs, int) and pairs > 0 else None,
        majority_rate=fraction("majority_rate"),
        top_share=fraction("top_prediction_share"),
        gold_share=fraction("majority_rate"),
        min_train_loss=loss if is_number(loss) and classes else None,
        classes=classes or 3,
    )
    return reasons


def hidden_names(data: dict) -> list[Problem]:
    """The strings that say which model a row is must read as what they are: no control, format or bidirectional
    character (which hide or reorder text, so that one name passes for another), no line break, no run of white
    space (core.display.plain_text drops or folds each where the board shows a string), and at most MAX_NAME
    characters."""
    model = data.get("model") if isinstance(data.get("model"), dict) else {}
    found = [(f"model.{key}", model.get(key)) for key in ("name_or_path", "display_name", "revision")]
    found += [
        (f"{where}.{key}", tuning.get(key)) for where, tuning in trainings(data) for key in ("cache_key", "base_model")
    ]
    problems = []
    for where, value in found:
        if not isinstance(value, str):
            continue
        if len(value) > MAX_NAME:
            problems.append(
                Problem(
                    where,
                    f"{len(value)} characters ({value[:40]!r}...): a name, revision or cache key is at most {MAX_NAME}",
                )
            )
        if plain_text(value) != value:
            hidden = sorted({char for char in value if char != " " and plain_text(char) != char})
            codes = ", ".join(f"U+{ord(char):04X}" for char in hidden) or "leading, trailing or repeated spaces"
            problems.append(
                Problem(
                    where,
                    f"{ascii(value[:80])} holds characters that hide or reorder text, or "
                    f"break its line ({codes}): name the model in plain text",
                )
            )
    return problems


def hypothesis_only(data: dict) -> list[Problem]:
    """A model that never saw a premise measures the hypotheses, not NLI: it belongs on no board."""
    model = data.get("model") if isinstance(data.get("model"), dict) else {}
    if model.get("hypothesis_only") is not True:
        return []
    return [
        Problem(
            "model.hypothesis_only",
            "the model saw the hypotheses alone (--hypothesis-only): it is a "
            "diagnostic of what the hypotheses give away, not an NLI model. "
            "`swapbench leak` reads it; score the model without --hypothesis-only "
            "to submit it",
        )
    ]


def schema_problems(err: ValidationError, found: list[Problem]) -> list[Problem]:
    """The schema's complaints, worded for people, less those already named at the same key or more precisely
    below it (a NaN, a wrong delta)."""
    problems = []
    for error in err.errors(include_url=False):
        where = _path(error["loc"])
        if any(p.where == where or (where and p.where.startswith(where + ".")) for p in found):
            continue
        if error["type"] == "missing":
            message = "required key missing"
        elif error["type"] == "extra_forbidden":
            message = "unknown key"
        elif error["type"].startswith(("greater_than", "less_than")):
            message = f"{error['input']!r} is out of range: {error['msg'].lower()}"
        else:
            message = error["msg"].removeprefix("Value error, ")
        problems.append(Problem(where, message))
    return problems


def against_reference(data: dict, reference: Reference) -> list[Problem]:
    """The file must have been scored on the reference dataset: every configuration of it, every pair of each."""
    dataset = data.get("dataset")
    if not isinstance(dataset, dict):
        return []
    problems = []
    if "split" in dataset and dataset["split"] != reference.split:
        problems.append(
            Problem(
                "dataset.split",
                f"{dataset['split']!r} was scored; the board's reference dataset is the {reference.split!r} split",
            )
        )
    if dataset.get("limit") is not None:
        problems.append(
            Problem(
                "dataset.limit",
                f"only the first {dataset['limit']} rows of each configuration "
                "were scored (--limit); the board takes full runs",
            )
        )
    build = dataset.get("build")
    if isinstance(build, dict) and build.get("limit") is not None:
        problems.append(
            Problem(
                "dataset.build.limit",
                f"built with --limit {build['limit']}: the dataset holds only "
                f"the first {build['limit']} pairs of the split; {BUILD_HINT}",
            )
        )
    configurations = [c for c in dataset.get("configurations") or [] if isinstance(c, dict) and "name" in c]
    differing = []
    for i, config in enumerate(configurations):
        name = config["name"]
        if config.get("verified") is False:
            where = (
                f"the Hub dataset {dataset.get('path')} at commit {dataset['revision']}"
                if dataset.get("revision")
                else "their folder"
            )
            problems.append(
                Problem(
                    f"dataset.configurations.{i}.verified",
                    f"the {name} data were unverified when scored: {where} had no "
                    "build_info.json listing them, so nothing checked that they are what the build "
                    f"wrote. Score the folder `swapbench build` wrote, or a Hub dataset it pushed "
                    f"(--push-to-hub); {BUILD_HINT}",
                )
            )
        expected = reference.configurations.get(name)
        if expected is None:
            problems.append(
                Problem(
                    f"dataset.configurations.{i}.name",
                    f"{name!r} is not a configuration of the reference dataset "
                    f"(it has {', '.join(reference.configurations)})",
                )
            )
            continue
        if config.get("fingerprint") != expected.fingerprint:
            differing.append(f"{name} ({config.get('fingerprint')}, reference {expected.fingerprint})")
        if config.get("rows") != expected.rows:
            problems.append(
                Problem(
                    f"dataset.configurations.{i}.rows",
                    f"{config.get('rows')!r} rows; the reference {name} has {expected.rows}",
                )
            )
        result = (data.get("results") or {}).get(name)
        if isinstance(result, dict) and dataset.get("limit") is None and result.get("n") != expected.rows:
            problems.append(
                Problem(
                    f"results.{name}.n", f"{result.get('n')!r} pairs scored; the reference {name} has {expected.rows}"
                )
            )
    scored = {c["name"] for c in configurations}
    missing = [name for name in reference.configurations if name not in scored]
    if missing:
        problems.append(
            Problem(
                "dataset.configurations",
                f"{', '.join(missing)} not scored: the board shows every configuration of its "
                f"reference dataset ({', '.join(reference.configurations)}), so a file must score "
                "them all; leave out --configs",
            )
        )
    names = [c["name"] for c in configurations if c["name"] in reference.configurations]
    if differing or (names and dataset.get("fingerprint") != reference.fingerprint_of(names)):
        detail = f"; configurations that differ: {'; '.join(differing)}" if differing else ""
        problems.append(
            Problem(
                "dataset.fingerprint",
                f"{dataset.get('fingerprint')} is not the fingerprint of the board's reference "
                f"dataset ({reference.fingerprint_of(names) if names else 'none'} for these "
                f"configurations){detail}. The reference is SNLI 1.0 {reference.split}: "
                f"{BUILD_HINT}",
            )
        )
    return problems


def truncation(data: dict) -> list[Problem]:
    """Pairs cut by a --max-length under the reference's: the model was not shown what the reference shows it."""
    provenance = data.get("provenance") if isinstance(data.get("provenance"), dict) else {}
    scoring = provenance.get("scoring") if isinstance(provenance.get("scoring"), dict) else {}
    max_length, truncated = scoring.get("max_length"), scoring.get("truncated")
    reference = REFERENCE_RECIPE.max_length
    if not (is_number(max_length) and is_number(truncated) and truncated > 0 and max_length < reference):
        return []
    return [
        Problem(
            "provenance.scoring.truncated",
            f"{truncated} pairs were truncated at --max-length {max_length}; "
            f"the board scores pairs up to {reference} tokens",
        )
    ]


def probe_framing(data: dict) -> list[Problem]:
    """Symmetry and locality change with the probe's framing: the board compares rows probed the default way."""
    model = data.get("model") if isinstance(data.get("model"), dict) else {}
    probe = model.get("probe") if isinstance(model.get("probe"), dict) else {}
    settings = probe.get("settings") if isinstance(probe.get("settings"), dict) else {}
    framed = settings.get("add_special_tokens")
    if framed is None:
        return []
    from ..probing.run import ADD_SPECIAL_TOKENS  # here: the probe's package loads torch, which the board needs not

    if framed == ADD_SPECIAL_TOKENS:
        return []
    return [
        Problem(
            "model.probe.settings.add_special_tokens",
            f"probed {'with' if framed else 'without'} the tokenizer's special tokens; the board's rows are "
            f"probed {'with' if ADD_SPECIAL_TOKENS else 'without'} them, and the framing changes symmetry "
            "and locality: probe again with `swapbench eval` defaults, or --no-probe",
        )
    ]


def in_memory(data: dict) -> list[Problem]:
    """A model scored from a Python object: its revision identifies the weights, but nothing says where they are."""
    model = data.get("model") if isinstance(data.get("model"), dict) else {}
    revision = model.get("revision")
    if not (isinstance(revision, str) and revision.startswith(IN_MEMORY)):
        return []
    return [
        Problem(
            "model.revision",
            f"{revision}: the model was handed to swapbench.evaluate as an object, so "
            "nobody can load what was scored again. Save it (save_pretrained) or push it "
            "to the Hub, and evaluate that folder or Hub id",
        )
    ]


def unchecked_because(model: dict, tuning: dict) -> str:
    """Why a model trained here has no check of its training data, and what gets one."""
    if tuning.get("checkpoint") != model.get("name_or_path"):  # trained in the run that scored it
        return "score the model again with this version of `swapbench eval`"
    if tuning.get("from_scratch"):
        return (
            f"the zoo encoder {model.get('name_or_path')} was scored by its folder, and was trained without "
            "--data naming these data (or on other data): train it again with `swapbench zoo train ... --data "
            "DATA`, DATA being what you score, or score it within `swapbench zoo run`"
        )
    return (
        f"the checkpoint {model.get('name_or_path')}, which swapbench fine-tuned from "
        f"{tuning.get('base_model')}, was scored by its folder, and its training data were checked against "
        "other data than these when it was trained (or against none: the swapbench that trained it did not keep "
        "that check with the checkpoint). Score the base "
        f"model instead, `swapbench eval {tuning.get('base_model')}` with the same recipe: the cached checkpoint "
        "is reused and its training data are checked against the scored data"
    )


def trainings(data: dict) -> list[tuple[str, dict]]:
    """Every training record of the file by where it is: the model's, and each seed's of a multi-seed run."""
    model = data.get("model") if isinstance(data.get("model"), dict) else {}
    found = [("model.fine_tuning", model.get("fine_tuning"))]
    variance = data.get("seed_variance") if isinstance(data.get("seed_variance"), dict) else {}
    runs = variance.get("runs") if isinstance(variance.get("runs"), list) else []
    found += [
        (f"seed_variance.runs.{i}.fine_tuning", run.get("fine_tuning"))
        for i, run in enumerate(runs)
        if isinstance(run, dict)
    ]
    return [(where, tuning) for where, tuning in found if isinstance(tuning, dict)]


def training_overlap(data: dict) -> list[Problem]:
    """A model trained here (each of its fine-tunings, of a multi-seed run) must have been checked against the data
    it was scored on, and found apart from them."""
    model = data.get("model") if isinstance(data.get("model"), dict) else {}
    scored = (data.get("dataset") or {}).get("fingerprint") if isinstance(data.get("dataset"), dict) else None
    problems = []
    for place, tuning in trainings(data):
        where = f"{place}.data_overlap"
        check = tuning.get("data_overlap")
        if not isinstance(check, dict):
            problems.append(
                Problem(
                    where,
                    "the training data were not checked against the scored data (pairIDs and "
                    "premises); " + unchecked_because(model, tuning),
                )
            )
            continue
        if check.get("scored_dataset") != scored:
            problems.append(
                Problem(
                    f"{where}.scored_dataset", f"{check.get('scored_dataset')} is not the dataset scored ({scored})"
                )
            )
        shared = {key: value for key, value in check.items() if key.endswith(("_pair_ids", "_premises")) and value}
        if shared:
            problems.append(
                Problem(
                    where,
                    "the training data overlap the reference data: "
                    + ", ".join(f"{key} {value}" for key, value in shared.items()),
                )
            )
    return problems
