"""Results files, boards and references made up for the leaderboard tests (no SNLI text: made-up fingerprints)."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from pathlib import Path

from swapbench.leaderboard.reference import Reference, ReferenceConfiguration, write_reference
from swapbench.results.files import predictions_path, render_predictions
from swapbench.results.schema import (
    ConfidenceInterval,
    ConfigurationData,
    ConfigurationResult,
    DatasetInfo,
    EpochLog,
    EvalResults,
    FineTuningInfo,
    McNemar,
    ModelHealth,
    ModelInfo,
    OverlapCheck,
    PositionalEncodingInfo,
    PredictionRow,
    PredictionsFile,
    ProbeInfo,
    ProbeSettings,
    Provenance,
    Recipe,
    RoleSensitivity,
    RoleTest,
    ScoringInfo,
    Seeds,
    SliceResult,
    Timings,
    TrainingData,
    dataset_fingerprint,
)

REPO = Path(__file__).resolve().parents[1]
ROWS = {"shuffle-3": 90, "shuffle-4": 70, "shuffle-5": 60, "shuffle-random": 100, "shuffle-sr": 20}


def fingerprint(name: str) -> str:
    return "sha256:" + f"{name}-reference".encode().hex().ljust(64, "0")[:64]


def make_reference() -> Reference:
    return Reference(
        description="test reference",
        split="test",
        source_fingerprint="sha256:" + "0" * 64,
        parser="ptb",
        seed=0,
        shuffle_scope="all",
        configurations={
            name: ReferenceConfiguration(fingerprint=fingerprint(name), rows=rows) for name, rows in ROWS.items()
        },
    )


def figures(n: int, correct: int, original_only: int, perturbed_only: int) -> ConfigurationResult:
    delta = (perturbed_only - original_only) / n
    return ConfigurationResult(
        n=n,
        label_view="3-way",
        accuracy_original=correct / n,
        accuracy_perturbed=(correct - original_only + perturbed_only) / n,
        delta=delta,
        delta_ci=ConfidenceInterval(
            low=delta - 0.05, high=delta + 0.05, level=0.95, method="percentile bootstrap", resamples=100
        ),
        mcnemar=McNemar(original_only=original_only, perturbed_only=perturbed_only, p_value=0.5, method="test"),
        clusters=n // 3,
        slices={},
    )


def role_sensitivity(n: int, before: float, after: float) -> RoleSensitivity:
    """Role sensitivity of n pairs of which `before` were predicted non-entailment unswapped and `after` swapped,
    every change from entailment to non-entailment."""
    value = after - before
    return RoleSensitivity(
        value=value,
        non_entailment_original=before,
        non_entailment_perturbed=after,
        ci=ConfidenceInterval(
            low=value - 0.04, high=value + 0.04, level=0.95, method="percentile bootstrap", resamples=100
        ),
        test=RoleTest(became_non_entailment=round(value * n), became_entailment=0, p_value=0.03, method="test"),
    )


def healthy(reasons: list[str] = ()) -> ModelHealth:
    return ModelHealth(
        at_chance=bool(reasons),
        reasons=list(reasons),
        checks=["test"],
        accuracy_original=0.8,
        accuracy_pairs=100,
        majority_rate=0.34,
        majority_from="test",
        p_value=1e-9,
        top_prediction_share=0.4,
        min_train_loss=None,
    )


def make_results(
    model: str,
    *,
    family: str = "absolute",
    symmetry: float | None = 0.9,
    locality: float = 0.5,
    degree_symmetry: float | None = 0.8,
    relative_locality: float | None = 0.3,
    drops: dict[str, int] | None = None,
    trained_on: str | None = None,
    revision: str = "abc123",
    skip: tuple[str, ...] = (),
    history: list[EpochLog] = (),
    accuracy: float = 0.8,
    seeds: tuple[int, ...] = (),
    reference: Reference | None = None,
) -> dict:
    """A valid results dict whose figures recompute from its predictions (`honest`; `save` writes them beside it).
    `drops[config]`: pairs right on the original and wrong once perturbed (5 unless given; one pair the other way);
    `accuracy`: the share of originals right; `trained_on`: the model was fine-tuned here on that SNLI file;
    `skip`: configurations left out; `seeds`: a run over these fine-tuning seeds (`honest` says how they differ);
    `reference`: scored on that board's reference dataset (its configurations, rows and fingerprints) rather than
    make_reference()'s."""
    reference = reference or make_reference()
    rows = {name: configuration.rows for name, configuration in reference.configurations.items()}
    drops = drops or {}
    names = [name for name in rows if name not in skip]
    results = {name: figures(rows[name], round(accuracy * rows[name]), drops.get(name, 5), 1) for name in names}
    for name in [name for name in results if name.startswith("shuffle-sr")]:  # role swaps: the binary rate too
        n = rows[name]  # 10% of the originals answered non-entailment, 25% of the swaps
        before, after = round(0.1 * n) / n, round(0.25 * n) / n
        results[name] = results[name].model_copy(
            update={"non_entailment_rate": after, "role_sensitivity": role_sensitivity(n, before, after)}
        )
    if "shuffle-3" in results:
        slice_ = figures(30, round(accuracy * 30), min(2, drops.get("shuffle-3", 5)), 1).model_dump(
            include=set(SliceResult.model_fields) - {"small"}
        )
        slice_["mcnemar"]["p_adjusted"] = slice_["mcnemar"]["p_value"]  # Holm over a family of one
        results["shuffle-3"] = results["shuffle-3"].model_copy(
            update={"slices": {"label:NP": SliceResult(**slice_, small=True)}}
        )
    configurations = [
        ConfigurationData(
            name=name, rows=rows[name], verified=True, fingerprint=reference.configurations[name].fingerprint
        )
        for name in names
    ]
    scored = dataset_fingerprint({c.name: c.fingerprint for c in configurations})
    fine_tuning = None
    if trained_on:
        data = TrainingData(
            source=f"/data/snli_1.0/{trained_on}",
            split="train",
            fingerprint="sha256:" + "1" * 64,
            n=1000,
            limit=None,
            held_out=False,
        )
        fine_tuning = FineTuningInfo(
            base_model=model,
            base_revision=revision,
            recipe=Recipe(
                max_length=128,
                optimizer="adamw_torch",
                learning_rate=2e-5,
                lr_scheduler="linear",
                warmup_ratio=0.0,
                weight_decay=0.0,
                batch_size=32,
                epochs=3,
                seed=0,
                best_by="accuracy",
            ),
            train=data,
            validation=data.model_copy(update={"held_out": True, "n": 100}),
            best_epoch=3,
            best_validation_accuracy=0.7,
            history=list(history),
            cache_key=f"{trained_on}-key".encode().hex(),
            checkpoint="/cache/x",
            reused=False,
            train_seconds=60.0,
            devices=1,
            data_overlap=OverlapCheck(
                scored_dataset=scored,
                method="test",
                train_shared_pair_ids=0,
                train_shared_premises=0,
                validation_shared_pair_ids=0,
                validation_shared_premises=0,
            ),
        )
    model_info = ModelInfo(
        name_or_path=model,
        revision=revision,
        model_type="bert",
        architecture="BertForSequenceClassification",
        architecture_kind="encoder",
        mode="fine-tuned",
        num_parameters=1000,
        label_names=["entailment", "neutral", "contradiction"],
        label_view="3-way",
        label_map_source="fine-tuned" if trained_on else "config",
        positional_encoding=PositionalEncodingInfo(family=family, kind="test", evidence={"model_type": "bert"}),
        fine_tuned=trained_on is not None,
        fine_tuning=fine_tuning,
        probe=None
        if symmetry is None
        else ProbeInfo(
            locality=locality,
            symmetry=symmetry,
            per_layer=[],
            degree_symmetry=degree_symmetry,
            relative_locality=relative_locality,
            settings=ProbeSettings(n_words=10, length=16, seed=0, add_special_tokens=False),
        ),
    )
    dataset = DatasetInfo(
        path="data/snli-test",
        revision=None,
        split="test",
        fingerprint=scored,
        configurations=configurations,
        limit=None,
        source="snli_1.0_test.jsonl.gz",
        source_fingerprint=reference.source_fingerprint,
        build_seed=0,
        build_version="0.1.0",
    )
    provenance = Provenance(
        swapbench_version="0.1.0",
        git_commit=None,
        git_dirty=None,
        packages={},
        platform="test",
        device="cpu",
        device_name="test",
        dtype="float32",
        torch_threads=1,
        seeds=Seeds(bootstrap=0, fine_tuning=None, probe=0),
        scoring=ScoringInfo(
            unique_pairs=1, pairs=2, max_length=128, truncated=0, batch_size=8, batch_size_requested=None
        ),
        timings=Timings(fine_tuning=0, probe=0, scoring=0, total=0),
        command=["swapbench", "eval"],
        started_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
    )
    results = EvalResults(
        model=model_info,
        dataset=dataset,
        results=results,
        health=healthy(),
        predictions=PredictionsFile(path="x.predictions.jsonl", sha256="0" * 64, rows=2),
        provenance=provenance,
    )
    return honest(results.model_dump(mode="json"), seeds=seeds)


def save(data: dict, path: Path) -> Path:
    """The results file at `path` and, beside it, its predictions (as eval writes them): the rows `honest` made its
    figures from, or, for a dict `honest` did not make, made-up rows of its own, so that two models' files never
    share predictions."""
    if isinstance(data, dict) and isinstance(data.get("predictions"), dict) and isinstance(data.get("model"), dict):
        rows = _HONEST_ROWS.get(data["predictions"].get("sha256")) or made_up_predictions(data)
        text, entry = render_predictions(rows, path)
        predictions_path(path).write_text(text, encoding="utf-8")
        data = {**data, "predictions": entry.model_dump(mode="json")}
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")  # json writes NaN as NaN, as Python reads it
    return path


def who(data: dict) -> str:
    """A short hash of the model's identity: the pair ids of its made-up predictions, so that no two models'
    predictions are the same file (the board refuses a relabelled copy)."""
    model = data["model"]
    return hashlib.sha256(
        json.dumps(
            [model.get("name_or_path"), model.get("revision"), (model.get("fine_tuning") or {}).get("cache_key")]
        ).encode()
    ).hexdigest()[:12]


def made_up_predictions(data: dict) -> list[PredictionRow]:
    """Two rows per configuration, their pair ids made from the model's identity."""
    results = data.get("results") if isinstance(data.get("results"), dict) else {}
    return [
        PredictionRow(
            pair_id=f"{who(data)}-{i}",
            configuration=str(name),
            gold="entailment",
            gold_original="entailment",
            prediction_original="entailment",
            prediction_perturbed="neutral",
            cluster=f"c{i}",
            tags=[],
        )
        for name in results
        for i in range(2)
    ]


# The rows `honest` made each file's figures from, by the sha256 of their predictions file: what `save` writes.
_HONEST_ROWS: dict[str, list[PredictionRow]] = {}


def outcomes(n: int, correct: int, original_only: int, perturbed_only: int) -> list[tuple[bool, bool]]:
    """(original right, perturbed right) of n pairs with these counts."""
    both, neither = correct - original_only, n - correct - perturbed_only
    if min(both, neither, original_only, perturbed_only) < 0:
        raise ValueError(
            f"no {n} pairs have {correct} originals right, {original_only} right on the original only "
            f"and {perturbed_only} on the perturbed only"
        )
    return (
        [(True, True)] * both
        + [(True, False)] * original_only
        + [(False, True)] * perturbed_only
        + [(False, False)] * neither
    )


def counts(result: dict, n: int | None = None) -> tuple[int, int, int, int]:
    n = result["n"] if n is None else n
    return (
        n,
        round(result["accuracy_original"] * n),
        result["mcnemar"]["original_only"],
        result["mcnemar"]["perturbed_only"],
    )


def configuration_rows(data: dict, name: str, *, extra_drops: int = 0) -> list[PredictionRow]:
    """Rows of configuration `name` that give the counts its figures in `data` say: n, originals right, the McNemar
    counts; each slice's own, on rows tagged with it (slices of the same counts on the same rows); a role
    configuration's non-entailment answers before and after the swap; a displacement summary's min, mean and max (two
    distances, in the mean's proportion). `extra_drops`: that many more pairs right on the original only (another
    seed's run)."""
    result = data["results"][name]
    labels = (
        ["entailment", "neutral", "contradiction"]
        if result["label_view"] == "3-way"
        else list(data["model"]["label_names"])
    )
    flags: list[tuple[bool, bool, list[str]]] = []
    n, correct, original_only, perturbed_only = counts(result)
    alike: dict[tuple[int, int, int, int], list[str]] = {}  # slices of the same counts share their rows
    for tag, slice_ in (result.get("slices") or {}).items():
        alike.setdefault(counts(slice_), []).append(tag)
    for (slice_n, slice_correct, slice_original_only, slice_perturbed_only), tags in alike.items():
        flags += [(a, b, tags) for a, b in outcomes(slice_n, slice_correct, slice_original_only, slice_perturbed_only)]
        n, correct = n - slice_n, correct - slice_correct
        original_only, perturbed_only = original_only - slice_original_only, perturbed_only - slice_perturbed_only
    flags += [(a, b, []) for a, b in outcomes(n, correct, original_only, perturbed_only)]
    for _ in range(extra_drops):  # the last pairs right on both become right on the original only
        last = max(j for j, (a, b, _) in enumerate(flags) if a and b)
        flags[last] = (True, False, flags[last][2])
    role = result.get("role_sensitivity")
    before, after = (
        (round(role["non_entailment_original"] * len(flags)), round(role["non_entailment_perturbed"] * len(flags)))
        if role
        else (None, None)
    )
    distances = two_distances(result.get("displacement"), len(flags))
    rows = []
    for i, (a, b, tags) in enumerate(flags):
        if role:  # the answer is entailment or not; gold makes it right or wrong
            entail, other = labels[0], labels[1]
            original = other if i < before else entail
            perturbed = other if i < after else entail
            gold_original = original if a else (entail if original == other else other)
            gold = perturbed if b else (entail if perturbed == other else other)
        else:
            gold = gold_original = labels[i % len(labels)]
            wrong = labels[(i + 1) % len(labels)]
            original, perturbed = (gold if a else wrong), (gold if b else wrong)
        distance = None if distances is None else distances[i]
        rows.append(
            PredictionRow(
                pair_id=f"{who(data)}-{name}-{i}",
                configuration=name,
                gold=gold,
                gold_original=gold_original,
                prediction_original=original,
                prediction_perturbed=perturbed,
                cluster=f"c{i // 3}",
                tags=tags,
                distance=distance,
                moved=distance,
            )
        )
    return rows


def two_distances(displacement: dict | None, n: int) -> list[int] | None:
    """n distances of the summary's min and max, as many of the max as give its mean."""
    if not displacement:
        return None
    low, high, mean = (displacement["distance"][key] for key in ("min", "max", "mean"))
    many = round((mean - low) / (high - low) * n) if high > low else 0
    return [low] * (n - many) + [high] * many


def honest(data: dict, *, seeds: tuple[int, ...] = ()) -> dict:
    """`data` (a one-seed make_results dict), its figures, health and predictions entry made, in place, from
    prediction rows that give its counts (configuration_rows), by eval's own functions, as the board recomputes
    them; `save` writes those rows. `seeds`: a run over these fine-tuning seeds instead, seed k's rows having k more
    pairs right on the original only, its fine-tuning seed k's (validation accuracy 0.7 + 0.02 k)."""
    results = EvalResults.model_validate(data)
    tuning = results.model.fine_tuning
    runs = (
        [(None, tuning)]
        if not seeds
        else [
            (
                seed,
                tuning.model_copy(
                    update={
                        "recipe": tuning.recipe.model_copy(update={"seed": seed}),
                        "cache_key": f"{who(data)}-seed-{seed}".encode().hex(),
                        "best_validation_accuracy": 0.7 + 0.02 * seed,
                    }
                ),
            )
            for seed in seeds
        ]
    )
    each = [
        {name: configuration_rows(data, name, extra_drops=index) for name in results.results}
        for index in range(len(runs))
    ]
    return rederived(data, [(seed, run_tuning, rows) for (seed, run_tuning), rows in zip(runs, each)])


def rederived(data: dict, runs: list[tuple[int | None, FineTuningInfo | None, dict[str, list[PredictionRow]]]]) -> dict:
    """`data` with its figures, health (and, over several seeds, seed_variance and fine_tuning) and predictions
    entry made, in place, from each run's rows by configuration, by eval's own functions, as the board recomputes
    them; `save` writes those rows beside it. `runs`: (seed, its fine-tuning, rows), one run of seed None for a
    one-seed file."""
    from swapbench.evaluation.figures import configuration_result
    from swapbench.evaluation.seeds import SeedScores, combined_health, pooled, seed_variance, with_seed
    from swapbench.leaderboard.recompute import run_health

    results = EvalResults.model_validate(data)
    roles = {name for name, result in results.results.items() if result.non_entailment_rate is not None}
    bootstrap = results.provenance.seeds.bootstrap
    resamples = next(iter(results.results.values())).delta_ci.resamples
    scores = []
    for seed, run_tuning, rows in runs:
        rows = rows if seed is None else with_seed(rows, seed)
        scores.append(SeedScores(seed, run_tuning, rows, run_health(results, rows, run_tuning, roles, results.health)))
    every_configuration = pooled(scores)
    for name, result in results.results.items():
        data["results"][name] = configuration_result(
            every_configuration[name],
            label_view=result.label_view,
            non_entailment_view=name in roles,
            seed=bootstrap,
            resamples=resamples,
            level=result.delta_ci.level,
        ).model_dump(mode="json")
    if runs[0][0] is not None:  # a run over seeds
        data["model"]["fine_tuning"] = runs[0][1].model_dump(mode="json")
        data["health"] = combined_health(scores).model_dump(mode="json")
        data["seed_variance"] = seed_variance(scores, roles, seed=bootstrap, resamples=resamples).model_dump(
            mode="json"
        )
    else:
        data["health"] = scores[0].health.model_dump(mode="json")
    every = [row for config_rows in every_configuration.values() for row in config_rows]
    data["provenance"]["scoring"]["pairs"] = 2 * len(every)
    _, entry = render_predictions(every, Path("results.json"))
    _HONEST_ROWS[entry.sha256] = every
    data["predictions"] = entry.model_dump(mode="json")
    EvalResults.model_validate(data)
    return data


def empty_board(folder: Path) -> Path:
    write_reference(folder, make_reference())
    return folder


def markdown_rows(text: str) -> list[list[str]]:
    table = [line for line in text.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in table]  # header first


COMMITTED = REPO / "leaderboard"


def recomputable(data: dict, path: Path) -> Path:
    """`data` made honest again (its figures re-derived from rows that give its counts, after a change to the model
    it names, say) and saved at `path` with those predictions beside it."""
    return save(honest(data), path)
