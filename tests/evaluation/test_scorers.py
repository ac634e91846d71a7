"""The scorer registry: a scoring mode is one registered class. A toy mode registered here, with no edit to the
package, is listed by `swapbench eval --help`, refuses the options of the other modes, and `swapbench eval --mode
toy` writes the results and predictions it scored. A scorer owns its options as a variant does: a toy mode's own
option is in `swapbench eval --help`, taken by the command line and the API, read by that mode and refused by the
others."""

from __future__ import annotations

from pathlib import Path

import pytest
from eval_models import save_classifier

from swapbench.commands.main import main
from swapbench.core.command_options import CommandOptions, option
from swapbench.core.errors import SwapbenchError
from swapbench.core.registry import SCORERS
from swapbench.evaluation.data import open_benchmark
from swapbench.evaluation.options import eval_options_model
from swapbench.evaluation.scorers import Prepared, Scorer, Scores
from swapbench.evaluation.scorers.classifier import ClassifierScorer
from swapbench.evaluation.scorers.prompt import PromptScorer
from swapbench.results.files import predictions_path, read_predictions
from swapbench.results.schema import EvalResults

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
WORD_LIMIT = 16  # the toy "truncates" pairs of more words than this


def words(text: str) -> list[str]:
    return text.lower().replace(".", " ").replace(",", " ").split()


def toy_label(premise: str, hypothesis: str, share: float = 0.5) -> str:
    """Entailment when more than `share` of the words of the hypothesis are in the premise (by default most of
    them), else neutral: word order never counts."""
    shared = set(words(hypothesis)) & set(words(premise))
    return "entailment" if len(shared) > share * len(set(words(hypothesis))) else "neutral"


class WordOverlap(Scorer):
    """Reads the labels off the words of each pair, not off the model: the results must hold these labels."""

    mode = "fine-tuned"

    def prepare(self, run) -> Prepared:
        from swapbench.models.loading import load_classifier, load_config, map_labels, model_revision

        config = load_config(run.options.model)
        loaded = load_classifier(
            run.options.model, config, map_labels(config, None), device=run.device, dtype=run.dtype
        )
        return Prepared(loaded, model_revision(run.options.model, config), name=f"toy/{Path(run.options.model).name}")

    def score(self, run, prepared, pairs, progress) -> Scores:
        names = prepared.loaded.labels.names
        predictions = [names.index(toy_label(p, h)) for p, h in pairs]
        progress(len(pairs))
        long = sum(len(words(p)) + len(words(h)) > WORD_LIMIT for p, h in pairs)
        return Scores(
            predictions=predictions,
            truncated=long,
            batch_size=len(pairs),
            seconds=0.0,
            max_tokens=WORD_LIMIT,
            forwards=0,
            truncation=f"longer than the toy's {WORD_LIMIT} words and were counted all the same",
        )


class ShareOptions(CommandOptions):
    toy_share: float = option(
        0.5,
        gt=0,
        lt=1,
        group="toy (--mode toy-share)",
        help="the share of the hypothesis' words that the premise must hold for entailment",
    )


class WordShare(WordOverlap):
    """The toy with an option of its own: how many of the hypothesis' words make an entailment."""

    Options = ShareOptions
    refused_without = ("toy_share",)
    received: list = []  # the share each score() read, for the test to read

    def score(self, run, prepared, pairs, progress) -> Scores:
        self.received.append(run.options.toy_share)
        names = prepared.loaded.labels.names
        progress(len(pairs))
        return Scores(
            predictions=[names.index(toy_label(p, h, run.options.toy_share)) for p, h in pairs],
            truncated=0,
            batch_size=len(pairs),
            seconds=0.0,
            max_tokens=WORD_LIMIT,
            truncation="",
        )


@pytest.fixture
def toy_share():
    SCORERS.add("toy-share", WordShare, help="labels by the share of words in common (a test's toy)")
    try:
        yield WordShare
    finally:
        SCORERS.remove("toy-share")
        WordShare.received.clear()


@pytest.fixture
def toy():
    SCORERS.add("toy", WordOverlap, help="labels by word overlap (a test's toy)")
    try:
        yield WordOverlap
    finally:
        SCORERS.remove("toy")


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", "shuffle-random"])


@pytest.fixture(scope="module")
def bert(tmp_path_factory):
    return save_classifier(tmp_path_factory.mktemp("toy") / "bert", NLI)


def run_eval(model, data, output, *extra: str) -> int:
    return main(
        [
            "eval",
            str(model),
            "--data",
            str(data),
            "--output",
            str(output),
            "--no-progress",
            "--no-probe",
            "--bootstrap",
            "100",
            *extra,
        ]
    )


def test_eval_with_a_registered_toy_mode_records_what_the_toy_scored(toy, bert, dataset, tmp_path, capsys):
    output = tmp_path / "toy.json"
    assert run_eval(bert, dataset, output, "--mode", "toy") == 0
    results = EvalResults.model_validate_json(output.read_text())
    assert results.model.name_or_path == "toy/bert" and results.model.mode == "fine-tuned"
    assert results.model.prompt is None and results.model.fine_tuning is None

    benchmark = open_benchmark(str(dataset))
    expected, distinct = {}, set()
    for config in benchmark.configurations:
        for pair_id, original, perturbed in zip(config.pair_ids, config.originals, config.perturbed):
            expected[config.name, pair_id] = (toy_label(*original), toy_label(*perturbed))
            distinct.update([original, perturbed])
    rows = read_predictions(predictions_path(output))
    assert {(r.configuration, r.pair_id): (r.prediction_original, r.prediction_perturbed) for r in rows} == expected
    assert len({label for pair in expected.values() for label in pair}) == 2  # the rule tells pairs apart

    scoring = results.provenance.scoring
    long = sum(len(words(p)) + len(words(h)) > WORD_LIMIT for p, h in distinct)
    assert 0 < long < len(distinct)  # the fixture has pairs on both sides of the limit
    assert (scoring.unique_pairs, scoring.max_length, scoring.truncated, scoring.forward_passes) == (
        len(distinct),
        WORD_LIMIT,
        long,
        0,
    )
    err = " ".join(capsys.readouterr().err.split())
    assert f"{long} of {len(distinct)} distinct pairs are longer than the toy's {WORD_LIMIT} words" in err


def test_a_mode_refuses_the_options_another_mode_owns(toy, bert, dataset, tmp_path, capsys):
    assert (
        run_eval(
            bert, dataset, tmp_path / "a.json", "--mode", "toy", "--shots", "2", "--template", str(tmp_path / "t.txt")
        )
        != 0
    )
    assert "--template and --shots are for --mode prompt, not --mode toy" in " ".join(capsys.readouterr().err.split())
    assert run_eval(bert, dataset, tmp_path / "b.json", "--mode", "prompt", "--finetune") != 0
    assert "--finetune is for --mode classifier, not --mode prompt" in " ".join(capsys.readouterr().err.split())
    assert not (tmp_path / "a.json").exists() and not (tmp_path / "b.json").exists()


def test_a_mode_owns_its_options_as_a_variant_does(toy_share, bert, dataset, tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "toy (--mode toy-share): --toy-share TOY_SHARE the share of the hypothesis' words that the premise must "
        "hold for entailment (default: 0.5)"
    ) in text
    # The command line takes it, and the mode reads it: its labels are those of that share.
    output = tmp_path / "share.json"
    assert run_eval(bert, dataset, output, "--mode", "toy-share", "--toy-share", "0.9") == 0
    assert WordShare.received == [0.9]
    benchmark = open_benchmark(str(dataset))
    expected = {
        (config.name, pair_id): (toy_label(*original, 0.9), toy_label(*perturbed, 0.9))
        for config in benchmark.configurations
        for pair_id, original, perturbed in zip(config.pair_ids, config.originals, config.perturbed)
    }
    rows = read_predictions(predictions_path(output))
    assert {(r.configuration, r.pair_id): (r.prediction_original, r.prediction_perturbed) for r in rows} == expected
    assert any(
        toy_label(*pair) != toy_label(*pair, 0.9) for config in benchmark.configurations for pair in config.originals
    )  # the share given made a difference
    # Its bounds are checked on both paths, and another mode refuses it, naming its flag.
    with pytest.raises(SystemExit):
        run_eval(bert, dataset, tmp_path / "a.json", "--mode", "toy-share", "--toy-share", "1")
    assert "argument --toy-share: 1 is out of range: expected a number > 0 and < 1" in capsys.readouterr().err
    with pytest.raises(SwapbenchError, match=r"^--toy-share: 1 is out of range"):
        eval_options_model().from_keywords(model="m", mode="toy-share", toy_share=1)
    assert run_eval(bert, dataset, tmp_path / "b.json", "--toy-share", "0.9") != 0
    assert "--toy-share is for --mode toy-share, not --mode classifier" in " ".join(capsys.readouterr().err.split())
    assert not (tmp_path / "a.json").exists() and not (tmp_path / "b.json").exists()


def test_a_mode_s_options_leave_with_it():
    assert "toy_share" not in eval_options_model().model_fields
    with pytest.raises(SwapbenchError, match="unknown option toy_share"):
        eval_options_model().from_keywords(model="m", toy_share=0.9)


def test_an_unknown_mode_names_the_registered_ones(toy, bert, dataset, tmp_path, capsys):
    assert run_eval(bert, dataset, tmp_path / "a.json", "--mode", "nonesuch") != 0
    err = " ".join(capsys.readouterr().err.split())
    assert "--mode: unknown scorer 'nonesuch': expected one of classifier, prompt, toy" in err


def test_every_mode_has_help_and_eval_help_lists_them(toy, capsys):
    assert {"classifier", "prompt", "toy"} <= set(SCORERS.names())
    for entry in SCORERS:
        assert entry.help.strip(), entry.name
        assert issubclass(entry.value, Scorer) and entry.value.mode in ("fine-tuned", "prompted")
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for entry in SCORERS:
        assert f"{entry.name}: {' '.join(entry.help.split())}" in text


def test_finetune_still_names_the_classifier_and_the_toy_is_gone_after_its_test():
    assert SCORERS.get("finetune") is SCORERS.get("classifier") is ClassifierScorer
    assert SCORERS.get("prompt") is PromptScorer
    assert "toy" not in SCORERS
