"""A hypothesis-only model: the premise never reaches it (training, validation, scoring), its checkpoint is cached
apart from the whole-pair one, its results are recorded as such and refused by the board, and `swapbench leak`
measures from them how well the hypotheses alone tell each role configuration's swaps from their originals."""

from __future__ import annotations

import json

import pytest
from decoder_models import save_decoder
from eval_models import save_base, save_tokenizer, write_training_file

from swapbench.commands.main import main
from swapbench.evaluation.figures import configuration_result
from swapbench.evaluation.finetune import cache_key, encode_pairs, reference_recipe
from swapbench.evaluation.leak import configuration_leak
from swapbench.evaluation.scoring import encode
from swapbench.results.hypothesis_only import HypothesisOnlyLeaks, verdict
from swapbench.results.schema import EvalResults, PredictionRow, TrainingData
from swapbench.sources import Pair

PREMISE = "A tall man plays guitar near the beach ."
HYPOTHESIS = "Three hikers rest by a creek ."


def words_seen(tokenizer, ids: list[int]) -> set[str]:
    return set(tokenizer.convert_ids_to_tokens(ids))


def test_the_tokenizer_gets_the_hypothesis_alone_in_training_and_scoring(tmp_path):
    tokenizer = save_tokenizer(tmp_path / "tok")
    premise_words = {"man", "guitar", "beach"}
    assert premise_words <= set(tokenizer.get_vocab())  # else the check below would pass for want of words

    pair = Pair(
        pair_id="p1",
        premise=PREMISE,
        hypothesis=HYPOTHESIS,
        label="entailment",
        premise_parse=None,
        hypothesis_parse=None,
        path="fixture",
        line=1,
    )
    [whole] = encode_pairs(tokenizer, [pair], 128)
    [alone] = encode_pairs(tokenizer, [pair], 128, hypothesis_only=True)
    assert premise_words <= words_seen(tokenizer, whole["input_ids"])
    assert alone["input_ids"] == tokenizer(HYPOTHESIS)["input_ids"]
    assert not premise_words & words_seen(tokenizer, alone["input_ids"])
    assert set(alone.get("token_type_ids", [0])) == {0}  # one segment: nothing stands where the premise was

    scored, cut = encode(tokenizer, [(PREMISE, HYPOTHESIS)], 128, hypothesis_only=True)
    assert scored["input_ids"] == [tokenizer(HYPOTHESIS)["input_ids"]] and cut == []
    # A long premise cuts a whole pair, never a hypothesis alone.
    long = (" ".join([PREMISE] * 40), HYPOTHESIS)
    assert encode(tokenizer, [long], 32)[1] == [0]
    assert encode(tokenizer, [long], 32, hypothesis_only=True)[1] == []


def test_the_checkpoint_of_the_hypotheses_alone_is_cached_apart():
    data = TrainingData(source="snli", split="train", fingerprint="sha256:ab", n=10, limit=None, held_out=False)
    recipe = reference_recipe()
    whole = cache_key("bert-base-uncased", "abc", recipe, data, data)
    alone = cache_key("bert-base-uncased", "abc", recipe, data, data, hypothesis_only=True)
    assert whole != alone
    assert whole == cache_key("bert-base-uncased", "abc", recipe, data, data, hypothesis_only=False)


def rows(pairs: list[tuple[str, str]], configuration: str = "shuffle-sr") -> list[PredictionRow]:
    """Prediction rows from (original, swapped) predictions, three pairs to a premise."""
    return [
        PredictionRow(
            pair_id=f"p{i}",
            configuration=configuration,
            gold="contradiction",
            gold_original="entailment",
            prediction_original=original,
            prediction_perturbed=swapped,
            cluster=f"c{i // 3}",
            tags=[],
        )
        for i, (original, swapped) in enumerate(pairs)
    ]


def leak(pairs: list[tuple[str, str]]):
    """The leak of a role configuration whose results eval made from these predictions."""
    result = configuration_result(rows(pairs), label_view="3-way", non_entailment_view=True, seed=0, resamples=2000)
    return configuration_leak(result, "sha256:aa")


def test_a_model_that_spots_the_swaps_leaks_and_one_that_does_not_sits_near_chance():
    spotted = leak([("entailment", "contradiction")] * 90 + [("entailment", "entailment")] * 30)
    assert spotted.swapped_non_entailment == pytest.approx(0.75) and spotted.original_non_entailment == 0
    assert spotted.leak == pytest.approx(0.75) and spotted.leak_ci.low > 0.05
    assert spotted.verdict == "leaks" and spotted.p_value < 1e-6

    # Whatever its prior, a model that gives a swap its original's label does not separate them.
    blind = leak([("entailment", "entailment")] * 60 + [("neutral", "contradiction")] * 60)
    assert blind.leak == 0 and blind.verdict == "near chance" and blind.p_value == 1.0
    assert blind.original_non_entailment == blind.swapped_non_entailment == 0.5

    assert verdict(-0.02, 0.04) == "near chance"
    assert verdict(0.06, 0.2) == verdict(-0.3, -0.07) == "leaks"
    assert verdict(0.01, 0.12) == "undecided"


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3", "shuffle-sr"])


def evaluate(base, train, data, cache, output, *extra):
    return main(
        [
            "eval",
            str(base),
            "--data",
            str(data),
            "--output",
            str(output),
            "--no-progress",
            "--no-probe",
            "--train-source",
            str(train),
            "--val-holdout",
            "8",
            "--epochs",
            "1",
            "--train-batch-size",
            "8",
            "--bootstrap",
            "500",
            "--cache-dir",
            str(cache),
            *extra,
        ]
    )


def test_a_hypothesis_only_eval_is_recorded_refused_by_the_board_and_measured_by_leak(tmp_path, dataset, capsys):
    base = save_base(tmp_path / "base")
    train = write_training_file(tmp_path / "snli" / "snli_1.0_train.jsonl", "train")
    cache = tmp_path / "cache"
    assert evaluate(base, train, dataset, cache, tmp_path / "whole.json") == 0
    assert evaluate(base, train, dataset, cache, tmp_path / "alone.json", "--hypothesis-only") == 0
    said = " ".join(capsys.readouterr().err.split())
    assert "It sees the hypotheses alone" in said and "`swapbench submit` refuses the file" in said

    whole = EvalResults.model_validate_json((tmp_path / "whole.json").read_text())
    alone = EvalResults.model_validate_json((tmp_path / "alone.json").read_text())
    assert not whole.model.hypothesis_only and alone.model.hypothesis_only
    assert alone.model.fine_tuning.hypothesis_only and not alone.model.fine_tuning.reused
    assert alone.model.fine_tuning.cache_key != whole.model.fine_tuning.cache_key
    assert len([p for p in (cache / "finetuned").iterdir() if p.is_dir()]) == 2

    # The checkpoint is not scored on whole pairs by its folder.
    key = alone.model.fine_tuning.cache_key[:16]
    [checkpoint] = [p for p in (cache / "finetuned").iterdir() if p.name.endswith(key)]
    assert (
        main(
            [
                "eval",
                str(checkpoint),
                "--data",
                str(dataset),
                "--output",
                str(tmp_path / "r.json"),
                "--no-probe",
                "--no-progress",
            ]
        )
        == 2
    )
    assert "trained on the hypotheses alone" in " ".join(capsys.readouterr().err.split())

    board = tmp_path / "board"
    assert main(["leaderboard", "--board", str(board), "--set-reference", str(dataset)]) == 0
    capsys.readouterr()
    assert main(["submit", str(tmp_path / "alone.json"), "--board", str(board), "--check"]) == 1
    assert "model.hypothesis_only: the model saw the hypotheses alone" in " ".join(capsys.readouterr().out.split())

    # A model at chance separates nothing: its leak would read as none, so leak refuses it. The tiny model here is
    # at chance; marked healthy, its file is measured.
    out = tmp_path / "hypothesis-only.json"
    assert alone.health.at_chance
    assert main(["leak", str(tmp_path / "alone.json"), "--output", str(out)]) == 2
    assert "the model is at chance" in " ".join(capsys.readouterr().err.split()) and not out.exists()
    data = json.loads((tmp_path / "alone.json").read_text())
    data["health"].update(at_chance=False, reasons=[])
    (tmp_path / "alone.json").write_text(json.dumps(data))
    assert main(["leak", str(tmp_path / "alone.json"), "--output", str(out)]) == 0
    leaks = HypothesisOnlyLeaks.model_validate_json(out.read_text())
    assert list(leaks.configurations) == ["shuffle-sr"]  # shuffle-3 is no role configuration
    figure = leaks.configurations["shuffle-sr"]
    assert figure.n == alone.results["shuffle-sr"].n
    assert figure.swapped_non_entailment == pytest.approx(alone.results["shuffle-sr"].non_entailment_rate)
    assert figure.fingerprint == next(c.fingerprint for c in alone.dataset.configurations if c.name == "shuffle-sr")
    assert leaks.eval_command == alone.provenance.command
    assert not any(str(tmp_path) in word for word in leaks.command + leaks.eval_command)
    assert leaks.plausibility is None

    # With --plausibility, a language model's baseline is recorded beside the classifier's figures.
    lm = save_decoder(tmp_path / "gpt2", "gpt2")
    capsys.readouterr()
    assert alone.dataset.path.startswith("…")  # the results file names the benchmark as published: give --data
    assert main(["leak", str(tmp_path / "alone.json"), "--plausibility", str(lm), "--output", str(out)]) == 2
    assert "give the benchmark's folder with --data" in " ".join(capsys.readouterr().err.split())
    assert (
        main(
            [
                "leak",
                str(tmp_path / "alone.json"),
                "--plausibility",
                str(lm),
                "--data",
                str(dataset),
                "--output",
                str(out),
            ]
        )
        == 0
    )
    beside = HypothesisOnlyLeaks.model_validate_json(out.read_text())
    assert beside.configurations == leaks.configurations and list(beside.plausibility.configurations) == ["shuffle-sr"]
    assert beside.plausibility.configurations["shuffle-sr"].fingerprint == figure.fingerprint
    assert "plausibility of the hypotheses alone" in " ".join(capsys.readouterr().out.split())

    # A run on whole pairs says nothing of the hypotheses alone.
    assert main(["leak", str(tmp_path / "whole.json"), "--output", str(tmp_path / "x.json")]) == 2
    assert "model.hypothesis_only is false" in " ".join(capsys.readouterr().err.split())


def test_the_prompt_mode_and_a_classifier_used_as_is_refuse_it(tmp_path, dataset, capsys):
    from eval_models import save_classifier

    classifier = save_classifier(tmp_path / "clf", {0: "entailment", 1: "neutral", 2: "contradiction"})
    assert (
        main(
            [
                "eval",
                str(classifier),
                "--data",
                str(dataset),
                "--output",
                str(tmp_path / "r.json"),
                "--no-probe",
                "--hypothesis-only",
            ]
        )
        == 2
    )
    assert "--hypothesis-only would be ignored" in " ".join(capsys.readouterr().err.split())
    assert (
        main(
            [
                "eval",
                str(classifier),
                "--data",
                str(dataset),
                "--output",
                str(tmp_path / "r.json"),
                "--no-probe",
                "--mode",
                "prompt",
                "--hypothesis-only",
            ]
        )
        == 2
    )
    assert "--hypothesis-only is for --mode classifier" in " ".join(capsys.readouterr().err.split())


def test_a_leaks_file_that_does_not_read_is_named(tmp_path):
    from swapbench.core.errors import SwapbenchError
    from swapbench.results.hypothesis_only import read_leaks

    path = tmp_path / "hypothesis-only.json"
    path.write_text(json.dumps({"model": "m"}))
    with pytest.raises(SwapbenchError, match="hypothesis-only.json: not a hypothesis-only record"):
        read_leaks(path)
    assert read_leaks(tmp_path / "absent.json") is None
