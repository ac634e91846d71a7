"""Results files, boards and references made up for the leaderboard tests (no SNLI text: made-up fingerprints)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from swapbench.leaderboard.reference import Reference, ReferenceConfiguration, write_reference
from swapbench.results.schema import (ConfidenceInterval, ConfigurationData, ConfigurationResult, DatasetInfo, EpochLog,
                                      EvalResults, FineTuningInfo, McNemar, ModelHealth, ModelInfo, OverlapCheck,
                                      PositionalEncodingInfo, PredictionsFile, ProbeInfo, ProbeSettings, Provenance,
                                      Recipe, RoleSensitivity, RoleTest, ScoringInfo, Seeds, SliceResult,
                                      Timings, TrainingData, dataset_fingerprint)

REPO = Path(__file__).resolve().parents[1]
ROWS = {"shuffle-3": 90, "shuffle-4": 70, "shuffle-5": 60, "shuffle-random": 100, "shuffle-sr": 20}


def fingerprint(name: str) -> str:
    return "sha256:" + f"{name}-reference".encode().hex().ljust(64, "0")[:64]


def make_reference() -> Reference:
    return Reference(description="test reference", split="test", source_fingerprint="sha256:" + "0" * 64,
                     parser="ptb", seed=0, shuffle_scope="all",
                     configurations={name: ReferenceConfiguration(fingerprint=fingerprint(name), rows=rows)
                                     for name, rows in ROWS.items()})


def figures(n: int, correct: int, original_only: int, perturbed_only: int) -> ConfigurationResult:
    delta = (perturbed_only - original_only) / n
    return ConfigurationResult(
        n=n, label_view="3-way", accuracy_original=correct / n,
        accuracy_perturbed=(correct - original_only + perturbed_only) / n, delta=delta,
        delta_ci=ConfidenceInterval(low=delta - 0.05, high=delta + 0.05, level=0.95, method="percentile bootstrap",
                                    resamples=100),
        mcnemar=McNemar(original_only=original_only, perturbed_only=perturbed_only, p_value=0.5, method="test"),
        clusters=n // 3, slices={})


def role_sensitivity(n: int, before: float, after: float) -> RoleSensitivity:
    """Role sensitivity of n pairs of which `before` were predicted non-entailment unswapped and `after` swapped,
    every change from entailment to non-entailment."""
    value = after - before
    return RoleSensitivity(
        value=value, non_entailment_original=before, non_entailment_perturbed=after,
        ci=ConfidenceInterval(low=value - 0.04, high=value + 0.04, level=0.95, method="percentile bootstrap",
                              resamples=100),
        test=RoleTest(became_non_entailment=round(value * n), became_entailment=0, p_value=0.03, method="test"))


def healthy(reasons: list[str] = ()) -> ModelHealth:
    return ModelHealth(at_chance=bool(reasons), reasons=list(reasons), checks=["test"], accuracy_original=0.8,
                       accuracy_pairs=100, majority_rate=0.34, majority_from="test", p_value=1e-9,
                       top_prediction_share=0.4, min_train_loss=None)


def make_results(model: str, *, family: str = "absolute", symmetry: float | None = 0.9, locality: float = 0.5,
                 degree_symmetry: float | None = 0.8, relative_locality: float | None = 0.3,
                 drops: dict[str, int] | None = None, trained_on: str | None = None, revision: str = "abc123",
                 skip: tuple[str, ...] = (), history: list[EpochLog] = ()) -> dict:
    """A valid results dict. `drops[config]`: pairs right on the original and wrong once perturbed (80% of the
    originals right); `trained_on`: the model was fine-tuned here on that SNLI file; `skip`: configurations left
    out."""
    drops = drops or {}
    names = [name for name in ROWS if name not in skip]
    results = {name: figures(ROWS[name], int(0.8 * ROWS[name]), drops.get(name, 5), 1) for name in names}
    for name in {"shuffle-sr", "shuffle-sr-premise"} & set(results):  # role swaps: eval reports the binary rate
        results[name] = results[name].model_copy(update={
            "non_entailment_rate": 0.25, "role_sensitivity": role_sensitivity(ROWS[name], 0.1, 0.25)})
    if "shuffle-3" in results:
        slice_ = figures(30, 24, 2, 1).model_dump(include=set(SliceResult.model_fields) - {"small"})
        slice_["mcnemar"]["p_adjusted"] = slice_["mcnemar"]["p_value"]  # Holm over a family of one
        results["shuffle-3"] = results["shuffle-3"].model_copy(
            update={"slices": {"label:NP": SliceResult(**slice_, small=True)}})
    configurations = [ConfigurationData(name=name, rows=ROWS[name], fingerprint=fingerprint(name), verified=True)
                      for name in names]
    scored = dataset_fingerprint({c.name: c.fingerprint for c in configurations})
    fine_tuning = None
    if trained_on:
        data = TrainingData(source=f"/data/snli_1.0/{trained_on}", split="train", fingerprint="sha256:" + "1" * 64,
                            n=1000, limit=None, held_out=False)
        fine_tuning = FineTuningInfo(
            base_model=model, base_revision=revision,
            recipe=Recipe(max_length=128, optimizer="adamw_torch", learning_rate=2e-5, lr_scheduler="linear",
                          warmup_ratio=0.0, weight_decay=0.0, batch_size=32, epochs=3, seed=0, best_by="accuracy"),
            train=data, validation=data.model_copy(update={"held_out": True, "n": 100}), best_epoch=3,
            best_validation_accuracy=0.7, history=list(history), cache_key=f"{trained_on}-key".encode().hex(),
            checkpoint="/cache/x", reused=False, train_seconds=60.0, devices=1,
            data_overlap=OverlapCheck(scored_dataset=scored, method="test", train_shared_pair_ids=0,
                                      train_shared_premises=0, validation_shared_pair_ids=0,
                                      validation_shared_premises=0))
    model_info = ModelInfo(
        name_or_path=model, revision=revision, model_type="bert", architecture="BertForSequenceClassification",
        architecture_kind="encoder", mode="fine-tuned",
        num_parameters=1000, label_names=["entailment", "neutral", "contradiction"], label_view="3-way",
        label_map_source="fine-tuned" if trained_on else "config",
        positional_encoding=PositionalEncodingInfo(family=family, kind="test", evidence={"model_type": "bert"}),
        fine_tuned=trained_on is not None, fine_tuning=fine_tuning,
        probe=None if symmetry is None else ProbeInfo(
            locality=locality, symmetry=symmetry, per_layer=[], degree_symmetry=degree_symmetry,
            relative_locality=relative_locality,
            settings=ProbeSettings(n_words=10, length=16, seed=0, add_special_tokens=False)))
    dataset = DatasetInfo(path="data/snli-test", revision=None, split="test", fingerprint=scored,
                          configurations=configurations, limit=None, source="snli_1.0_test.jsonl.gz",
                          source_fingerprint=None, build_seed=0, build_version="0.1.0")
    provenance = Provenance(
        swapbench_version="0.1.0", git_commit=None, git_dirty=None, packages={}, platform="test", device="cpu",
        device_name="test", dtype="float32", torch_threads=1,
        seeds=Seeds(bootstrap=0, fine_tuning=None, probe=0),
        scoring=ScoringInfo(unique_pairs=1, pairs=2, max_length=128, truncated=0, batch_size=8,
                            batch_size_requested=None),
        timings=Timings(fine_tuning=0, probe=0, scoring=0, total=0), command=["swapbench", "eval"],
        started_at=datetime(2026, 1, 1, tzinfo=timezone.utc))
    results = EvalResults(model=model_info, dataset=dataset, results=results, health=healthy(),
                          predictions=PredictionsFile(path="x.predictions.jsonl", sha256="0" * 64, rows=2),
                          provenance=provenance)
    return results.model_dump(mode="json")


def save(data: dict, path: Path) -> Path:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")  # json writes NaN as NaN, as Python reads it
    return path


def empty_board(folder: Path) -> Path:
    write_reference(folder, make_reference())
    return folder


def markdown_rows(text: str) -> list[list[str]]:
    table = [line for line in text.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in table]  # header first


COMMITTED = REPO / "leaderboard"
