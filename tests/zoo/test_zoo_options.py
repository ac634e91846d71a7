"""The zoo's extension point and options: a toy encoding registered from this test module (no edit to the
package) is listed by the CLI and trained and scored; pretrained MiniLM token embeddings; role-swap training
pairs, made from the training pairs alone and checked against the scored data by fingerprint; the scale of each
encoding at initialisation."""

from __future__ import annotations

import json

import pytest
import torch
from torch import nn
from transformers import AutoModelForSequenceClassification
from zoo_helpers import recipe_options, setting  # noqa: F401  (setting is a fixture)

from swapbench.commands.main import main
from swapbench.core.registry import ENCODINGS
from swapbench.results.schema import EvalResults
from swapbench.zoo.encodings import Encoding, ModelPositions, register
from swapbench.zoo.encodings.base import relative_positions
from swapbench.zoo.summary import ZooSummary
from swapbench.zoo.train import RECORD_FILE, Architecture, TrainingRecord


class ToySlope(ModelPositions):
    """A toy encoding: one learned slope, -softplus(a) * |i - j| added to every head's logits."""

    def __init__(self, config):
        super().__init__(config)
        self.slope = nn.Parameter(torch.zeros(()))

    def shared_bias(self, length, device, dtype):
        distance = relative_positions(length, device).abs().to(dtype)
        return (-nn.functional.softplus(self.slope) * distance)[None]


@pytest.fixture
def toy():
    register("toy_slope", Encoding("a toy learned slope, registered by a test", "relative", "toy", positions=ToySlope))
    yield "toy_slope"
    ENCODINGS.remove("toy_slope")


def test_a_toy_encoding_from_a_test_module_is_listed_trained_and_scored(toy, setting, tmp_path, capsys):  # noqa: F811
    for command in (["zoo", "--help"], ["zoo", "run", "--help"], ["zoo", "train", "--help"]):
        with pytest.raises(SystemExit) as exit_:
            main(command)
        assert exit_.value.code == 0
        assert "toy_slope" in capsys.readouterr().out
    out = tmp_path / "out"
    assert (
        main(
            [
                "zoo",
                "run",
                "--data",
                str(setting["benchmark"]),
                "--out",
                str(out),
                "--work",
                str(tmp_path / "w"),
                "--encodings",
                "toy_slope",
                "--seeds",
                "0",
                "--bootstrap",
                "50",
                "--probe-words",
                "3",
                *recipe_options(setting),
            ]
        )
        == 0
    )
    summary = ZooSummary.model_validate_json((out / "zoo.json").read_text())
    [entry] = summary.encodings
    assert (entry.encoding, entry.family, entry.kind) == ("toy_slope", "relative", "toy")
    assert entry.parameters["positional"] == 1
    results = EvalResults.model_validate_json((out / entry.runs[0].results).read_text())
    assert results.model.positional_encoding.kind == "toy"  # FAMILIES' zoo detector reads the registry
    assert "toy_slope" in (out / "README.md").read_text()


def test_an_empty_encoding_list_is_refused(setting, tmp_path, capsys):  # noqa: F811
    with pytest.raises(SystemExit) as exit_:
        main(
            [
                "zoo",
                "run",
                "--data",
                str(setting["benchmark"]),
                "--out",
                str(tmp_path / "o"),
                "--work",
                str(tmp_path / "w"),
                "--encodings",
                "",
                *recipe_options(setting),
            ]
        )
    assert exit_.value.code == 2
    assert "expected a comma-separated list, got nothing" in capsys.readouterr().err


def test_pretrained_embeddings_are_minilms_projected_and_rescaled():
    from safetensors.torch import load_file

    from swapbench.zoo.embeddings import minilm_folder, pretrained_table

    table = pretrained_table(16, 30522, 0.02)
    assert table.shape == (30522, 16)
    assert table.std().item() == pytest.approx(0.02, rel=1e-3)
    full = pretrained_table(384, 30522, 0.02)  # no projection at MiniLM's own width: a rescaled copy
    weights = next(
        w for k, w in load_file(f"{minilm_folder()}/model.safetensors").items() if k.endswith("word_embeddings.weight")
    ).double()
    centred = weights - weights.mean(dim=0)
    assert torch.allclose(full.double(), centred * (0.02 / centred.std()), atol=1e-6)
    # The first principal direction keeps more of the variance than any later one.
    variances = table.var(dim=0)
    assert variances[0] > variances[-1]


def test_frozen_minilm_embeddings_stay_as_initialised(setting, tmp_path):  # noqa: F811
    from swapbench.zoo.embeddings import pretrained_table

    options = [o for o in recipe_options(setting)]
    at = options.index("--tokenizer")
    del options[at : at + 2]  # MiniLM's own tokenizer: the embeddings' vocabulary
    folder = tmp_path / "frozen"
    assert main(["zoo", "train", "none", "--out", str(folder), "--token-embeddings", "minilm-frozen", *options]) == 0
    model = AutoModelForSequenceClassification.from_pretrained(folder)
    assert torch.equal(model.get_input_embeddings().weight, pretrained_table(16, 30522, 0.02))
    record = TrainingRecord.model_validate_json((folder / RECORD_FILE).read_text())
    assert record.recipe.token_embeddings == "minilm-frozen"


def transitive_pairs(path, prefix: str, place: str):
    rows = []
    for subject, verb, obj in (
        ("man", "pushes", "dog"),
        ("woman", "holds", "child"),
        ("boy", "kicks", "ball"),
        ("girl", "feeds", "cat"),
    ):
        for label, hypothesis in (
            ("entailment", f"A {subject} {verb} a {obj}."),
            ("contradiction", f"A {subject} sleeps."),
            ("neutral", f"A tall {subject} {verb} a {obj}."),
        ):
            rows.append(
                {
                    "gold_label": label,
                    "pairID": f"{prefix}{len(rows)}",
                    "sentence1": f"A {subject} {verb} a {obj} in the {place}.",
                    "sentence2": hypothesis,
                }
            )
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_role_swaps_come_from_the_training_pairs_alone_checked_by_fingerprint(setting, tmp_path):  # noqa: F811
    train = transitive_pairs(tmp_path / "train.jsonl", "rt", "park")
    options = recipe_options(setting)
    options[options.index("--train-source") + 1] = str(train)
    folder = tmp_path / "swaps"
    assert (
        main(
            [
                "zoo",
                "train",
                "shaw",
                "--out",
                str(folder),
                "--role-swaps",
                "--data",
                str(setting["benchmark"]),
                *options,
            ]
        )
        == 0
    )
    record = TrainingRecord.model_validate_json((folder / RECORD_FILE).read_text())
    swaps = record.role_swaps
    assert swaps is not None and 0 < swaps.n <= swaps.entailment_pairs == 4
    assert swaps.label == "contradiction"
    assert swaps.source_fingerprint == record.train.fingerprint  # made from the training pairs, nothing else
    assert swaps.scored_dataset == record.data_overlap.scored_dataset != swaps.source_fingerprint
    assert (swaps.shared_pair_ids, swaps.shared_premises) == (0, 0)


def test_role_swaps_of_the_scored_pairs_are_refused(setting, tmp_path):  # noqa: F811
    from swapbench.core.errors import SwapbenchError
    from swapbench.evaluation.scored_data import ScoredPairs, premise_key
    from swapbench.sources import load_split as load_snli
    from swapbench.zoo.role_swaps import role_swaps

    pairs = load_snli(str(transitive_pairs(tmp_path / "t.jsonl", "x", "park")), "train").pairs
    scored = ScoredPairs(
        dataset="sha256:" + "0" * 64,
        path="scored",
        pair_ids=frozenset({pairs[0].pair_id}),
        premises=frozenset(premise_key(p.premise) for p in pairs),
    )
    with pytest.raises(SwapbenchError, match="must come from the training split alone"):
        role_swaps(pairs, scored)


def test_every_encoding_starts_at_its_papers_scale():
    from swapbench.zoo.scales import initial_scales

    ratios = initial_scales(Architecture(layers=1, hidden=64, heads=2, intermediate=128), max_length=64)
    assert ratios["none"].logits == 0 and ratios["none"].input is None
    assert ratios["learned_absolute"].input == pytest.approx(1.0, abs=0.1)  # BERT: positions drawn as words
    assert ratios["sinusoidal"].input == pytest.approx(2**-0.5, abs=0.02)  # Vaswani et al.'s ratio, not 35
    assert 0.5 < ratios["tupe"].logits < 2  # the paper's two terms start alike
    assert ratios["t5_bias"].logits == pytest.approx(64**-0.5, rel=0.35)  # T5's ratio d^-1/2
