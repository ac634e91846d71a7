"""One Holm family per metric (issue 44, item 5): a role configuration's slices carry Δ tests and role-sensitivity
tests; each is adjusted within its own metric's family, never the one against the other. Files written before
(holm_families absent) keep their single family, so the committed board recomputes them as they are."""

from __future__ import annotations

import pytest

from swapbench.evaluation.figures import configuration_result
from swapbench.evaluation.stats import holm
from swapbench.results.schema import ConfigurationResult, PredictionRow

LABELS = ["entailment", "neutral", "contradiction"]


def role_rows(n: int = 240) -> list[PredictionRow]:
    """A role configuration's rows over three slice tags, answers varied so that every test has its own p."""
    return [
        PredictionRow(
            pair_id=f"p{i}",
            configuration="roles",
            gold="contradiction",
            gold_original="entailment",
            prediction_original=LABELS[i % 3],
            prediction_perturbed=LABELS[(i + (i % (3 + i % 4) == 0)) % 3],
            cluster=f"c{i // 3}",
            tags=[f"side:{i % 2}", f"construction:{'ab'[i % 5 == 0]}"],
        )
        for i in range(n)
    ]


def families(result: ConfigurationResult):
    slices = [result.slices[tag] for tag in sorted(result.slices)]
    return [s.mcnemar for s in slices], [s.role_sensitivity.test for s in slices]


def test_each_metric_is_adjusted_in_its_own_family():
    result = configuration_result(role_rows(), label_view="3-way", non_entailment_view=True, seed=0, resamples=50)
    deltas, roles = families(result)
    assert result.holm_families == "per-metric" and len(deltas) == len(roles) == 4
    assert [t.p_adjusted for t in deltas] == pytest.approx(holm([t.p_value for t in deltas]), abs=1e-12)
    assert [t.p_adjusted for t in roles] == pytest.approx(holm([t.p_value for t in roles]), abs=1e-12)
    mixed = holm([t.p_value for t in deltas + roles])
    assert [t.p_adjusted for t in deltas + roles] != pytest.approx(mixed, abs=1e-12)  # the families matter here
    assert ConfigurationResult.model_validate(result.model_dump()) == result


def test_a_file_written_before_keeps_its_one_family():
    result = configuration_result(
        role_rows(), label_view="3-way", non_entailment_view=True, seed=0, resamples=50, holm_families=None
    )
    deltas, roles = families(result)
    tests = [t for pair in zip(deltas, roles) for t in pair]  # slice_tests' order: each slice's Δ, then its role
    assert result.holm_families is None and "holm_families" not in result.model_dump()
    assert [t.p_adjusted for t in tests] == pytest.approx(holm([t.p_value for t in tests]), abs=1e-12)


def test_a_configuration_without_roles_has_one_family_of_its_delta_tests():
    rows = [r.model_copy(update={"configuration": "shuffle", "gold": "entailment"}) for r in role_rows(120)]
    result = configuration_result(rows, label_view="3-way", non_entailment_view=False, seed=0, resamples=50)
    deltas = [result.slices[tag].mcnemar for tag in sorted(result.slices)]
    assert [t.p_adjusted for t in deltas] == pytest.approx(holm([t.p_value for t in deltas]), abs=1e-12)
    assert all(s.role_sensitivity is None for s in result.slices.values())
