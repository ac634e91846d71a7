"""The zoo's paired comparisons: test pairs and seeds resampled together, on constructed predictions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from swapbench.results.schema import PredictionRow
from swapbench.zoo.compare import Side, compare, from_rows, planned

N = 300  # pairs, three per premise


def rows(changed: set[int]) -> list[PredictionRow]:
    """A shuffle's predictions on N pairs, the prediction changed on the pairs in `changed`."""
    return [
        PredictionRow(
            pair_id=f"p{i:03d}",
            configuration="shuffle-3",
            gold="entailment",
            gold_original="entailment",
            prediction_original="entailment",
            prediction_perturbed="neutral" if i in changed else "entailment",
            cluster=f"c{i // 3}",
            tags=[],
        )
        for i in range(N)
    ]


def rng():
    return np.random.default_rng(0)


def test_pairs_are_drawn_by_premise():
    # one changed pair in each premise's three: every draw of premises gives exactly a third
    spread = from_rows(rows(set(range(0, N, 3))), "changed")
    result = compare([spread] * 3, [from_rows(rows(set()), "changed")] * 3, rng(), 200)
    assert result["low"] == pytest.approx(1 / 3) == result["high"]


def test_two_models_that_change_the_same_pairs_do_not_differ_when_the_pairs_are_drawn_once_for_both():
    same = set(range(0, N, 4))
    paired = compare([from_rows(rows(same), "changed")] * 3, [from_rows(rows(same), "changed")] * 3, rng(), 500)
    assert paired["paired"] and (paired["difference"], paired["low"], paired["high"]) == (0.0, 0.0, 0.0)
    assert paired["p_value"] == 1.0
    # models that scored other rows are not compared
    with pytest.raises(ValueError, match="same rows"):
        compare([from_rows(rows(same), "changed")], [from_rows(rows(same)[:-3], "changed")], rng(), 10)


def test_a_model_that_changes_a_third_of_the_pairs_on_every_seed_differs_from_one_that_changes_none():
    # every pair of the first third of the premises: the share varies with the premises drawn
    third = from_rows(rows(set(range(N // 3))), "changed")
    none = from_rows(rows(set()), "changed")
    result = compare([third] * 3, [none] * 3, rng(), 999)
    assert result["difference"] == pytest.approx(1 / 3)
    assert 0.2 < result["low"] < 1 / 3 < result["high"] < 0.47
    # 100 premises, a third changed: the interval is about ±1.96 √(1/3 · 2/3 / 100) = ±0.092, wider than the
    # ±0.053 that 300 independent pairs would give
    assert result["high"] - result["low"] > 0.15
    assert result["p_value"] == pytest.approx(2 / 1000)  # no resample at or below 0: the smallest p it can give


def test_seeds_are_resampled_within_each_side():
    # One seed of three changes 30% of the pairs, the other two none: a resample drawing only those two (8 in 27)
    # finds no difference, so the interval reaches 0 and the comparison cannot tell the sides apart.
    one = from_rows(rows(set(range(0, N, 10)) | set(range(1, N, 10)) | set(range(2, N, 10))), "changed")
    none = from_rows(rows(set()), "changed")
    result = compare([one, none, none], [none] * 3, rng(), 2000)
    assert result["difference"] == pytest.approx(0.1)
    assert result["low"] == 0.0 and result["p_value"] > 0.5


def test_delta_counts_lost_and_gained_pairs():
    lost = {0, 1, 2, 3}
    predictions = [
        r.model_copy(update={"prediction_perturbed": "neutral" if i in lost else r.gold})
        for i, r in enumerate(rows(set()))
    ]
    predictions[10] = predictions[10].model_copy(update={"prediction_original": "neutral"})  # a gained pair
    delta = from_rows(predictions, "delta")
    assert delta.value == pytest.approx((1 - 4) / N)
    assert from_rows(predictions, "accuracy").value == pytest.approx((N - 1) / N)


def test_every_encoding_meets_none_and_learned_absolute_once_and_role_swap_training_its_own_set_up():
    names = ["none", "learned_absolute", "alibi"]
    plan = planned({"random": names, "random+role-swaps": names})
    pairs = [((a.setup, a.encoding), (b.setup, b.encoding)) for a, b in plan]
    for setup in ("random", "random+role-swaps"):
        assert [(a[1], b[1]) for a, b in pairs if a[0] == b[0] == setup] == [
            ("learned_absolute", "none"),
            ("alibi", "none"),
            ("alibi", "learned_absolute"),
        ]
    assert [(a, b) for a, b in pairs if a[0] != b[0]] == [
        (("random+role-swaps", name), ("random", name)) for name in names
    ]
    assert all(isinstance(side, Side) for pair in plan for side in pair)


COMMITTED_ZOO = Path(__file__).resolve().parents[2] / "leaderboard" / "zoo"


@pytest.mark.skipif(not (COMMITTED_ZOO / "zoo.json").is_file(), reason="no committed zoo")
def test_the_committed_zoo_is_what_zoo_report_makes_of_its_results_files():
    import swapbench.zoo.encodings  # noqa: F401  (registers the encodings, as the command does)
    from swapbench.zoo.report import render_markdown
    from swapbench.zoo.summary import read_summary, refresh_summary

    summary = read_summary(COMMITTED_ZOO)
    assert refresh_summary(summary, COMMITTED_ZOO) == summary, "run `swapbench zoo report leaderboard/zoo`"
    readme = (COMMITTED_ZOO / "README.md").read_text(encoding="utf-8")
    assert render_markdown(summary) in readme
    # every encoding of every set-up has its premise-blind control and its paired, clustered test against it
    assert {(c.setup, c.encoding) for c in summary.controls} == {(e.setup, e.encoding) for e in summary.encodings}
    for e in summary.encodings:
        test = summary.premise_test(e.setup, e.encoding)
        assert test is not None and test.paired and test.p_holm is not None and test.alternative == "greater"
    assert summary.comparisons and all(c.paired for c in summary.comparisons)
    assert "apart and unclustered" not in readme and "clear negative result" not in readme and "0.94 vs" not in readme


def committed_summary():
    import swapbench.zoo.encodings  # noqa: F401
    from swapbench.zoo.summary import read_summary

    return read_summary(COMMITTED_ZOO)


@pytest.mark.skipif(not (COMMITTED_ZOO / "zoo.json").is_file(), reason="no committed zoo")
def test_a_set_up_whose_encodings_all_ignore_the_premise_gets_a_sentence_not_a_table_of_uninterpreted_cells(
    monkeypatch,
):
    from swapbench.zoo.report import render_markdown

    summary = committed_summary()
    setup = summary.setups[0]
    against = "Against `none` and `learned_absolute` (see the paired comparisons below"
    monkeypatch.setattr(type(summary), "reads_premise", lambda self, s, e: False)
    readme = render_markdown(summary)
    assert against not in readme and "no comparison is interpreted, since no encoding of this set-up" in readme
    monkeypatch.setattr(type(summary), "reads_premise", lambda self, s, e: (s, e) == (setup, "rope"))
    readme = render_markdown(summary)
    assert against in readme and "no comparison is interpreted, since" not in readme
    assert "not interpreted: not shown to read the premise" in readme  # the cells of the others
    monkeypatch.setattr(type(summary), "reads_premise", lambda self, s, e: e != "rope")
    assert "`rope` does not beat its premise-blind control. Its figures" in render_markdown(summary)


@pytest.mark.skipif(not (COMMITTED_ZOO / "zoo.json").is_file(), reason="no committed zoo")
def test_a_report_without_comparisons_says_why():
    from swapbench.zoo.compare import PREMISE_FAMILY
    from swapbench.zoo.report import render_markdown

    summary = committed_summary()
    controls_only = summary.model_copy(
        update={"comparisons": [c for c in summary.comparisons if c.family == PREMISE_FAMILY]}
    )
    assert "this run holds no such pair" in render_markdown(controls_only)  # outcomes kept, nothing planned
    counts_only = controls_only.model_copy(update={"clusters": None, "comparisons": []})
    assert "keeps no pair outcomes" in render_markdown(counts_only)


def test_the_probes_figures_that_measure_degree_are_read_when_a_results_file_has_them():
    from types import SimpleNamespace

    from swapbench.zoo.summary import probe_figures

    def results(**probe):
        return SimpleNamespace(model=SimpleNamespace(probe=SimpleNamespace(**probe) if probe else None))

    newer = probe_figures(results(locality=0.06, symmetry=0.43, degree_symmetry=0.97, relative_locality=2.5))
    assert newer == {"locality": 0.06, "symmetry": 0.43, "degree_symmetry": 0.97, "relative_locality": 2.5}
    older = probe_figures(results(locality=0.06, symmetry=0.43))  # written before they were recorded
    assert older == {"locality": 0.06, "symmetry": 0.43, "degree_symmetry": None, "relative_locality": None}
    assert set(probe_figures(results()).values()) == {None}  # --no-probe
