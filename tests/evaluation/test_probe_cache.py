"""The probe's cache (issue 45, item 8): a second eval of the same model reads its probe back instead of probing
again, and records the same figures; other probe settings are another entry, --no-cache probes, and an edited
entry is probed again with a warning naming it. The model's forward passes are counted on the model itself."""

from __future__ import annotations

import json

import pytest
from eval_models import save_classifier
from logged import log_info, logged

from swapbench.evaluation.options import eval_options_model
from swapbench.evaluation.pipeline import evaluate
from swapbench.evaluation.scorers.classifier import ClassifierScorer

NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}


class Counting(ClassifierScorer):
    """The classifier scorer, with a hook counting every forward pass through its model's embeddings (scoring's,
    and the probe's, which runs the encoder inside the classifier)."""

    def __init__(self):
        self.forwards = 0

    def prepare(self, run):
        prepared = super().prepare(run)
        prepared.loaded.model.get_input_embeddings().register_forward_pre_hook(self.count)
        return prepared

    def count(self, module, args):
        self.forwards += 1


@pytest.fixture(scope="module")
def dataset(build_fixture_dataset):
    return build_fixture_dataset(["shuffle-3"])


def run(model, dataset, output, cache, **options):
    scorer = Counting()
    options = {
        "progress": False,
        "bootstrap": 50,
        "dtype": "float32",
        "probe_words": 3,
        "probe_length": 12,
        "cache_dir": cache,
        **options,
    }
    results, _ = evaluate(
        eval_options_model()(model=str(model), data=str(dataset), output=output, **options), scorer=scorer
    )
    return scorer.forwards, results


def test_a_second_eval_of_the_same_model_reads_its_probe_back(tmp_path, dataset, caplog):
    log_info(caplog)
    model, cache = save_classifier(tmp_path / "bert", NLI), tmp_path / "cache"
    ran, first = run(model, dataset, tmp_path / "first.json", cache)
    assert ran > 0 and first.model.probe is not None
    assert "not probed again" not in logged(caplog)
    [entry] = (cache / "probes").glob("bert-*.json")

    again, second = run(model, dataset, tmp_path / "second.json", cache)
    err = " ".join(logged(caplog).split())
    assert again == 0  # the scores from the scores cache, the probe from the probe cache: the model never ran
    assert second.model.probe == first.model.probe  # the same figures, layer by layer
    assert "not probed again" in err and entry.name in err
    assert second.provenance.timings.probe == 0.0

    # other probe settings are another entry; --no-cache probes (and scores) all the same
    words, other = run(model, dataset, tmp_path / "other.json", cache, probe_words=4)
    assert words > 0 and other.model.probe.settings.n_words == 4 and len(list((cache / "probes").iterdir())) == 2
    uncached, third = run(model, dataset, tmp_path / "third.json", cache, use_cache=False)
    assert uncached > 0 and third.model.probe == first.model.probe


def test_an_edited_entry_is_probed_again_with_a_warning(tmp_path, dataset, caplog):
    log_info(caplog)
    model, cache = save_classifier(tmp_path / "bert", NLI), tmp_path / "cache"
    _, first = run(model, dataset, tmp_path / "first.json", cache)
    [entry] = (cache / "probes").glob("*.json")
    record = json.loads(entry.read_text())
    record["probe"] = record["probe"].replace('"locality":', '"locality":0.99,"was":', 1)
    entry.write_text(json.dumps(record))
    logged(caplog)
    ran, second = run(model, dataset, tmp_path / "second.json", cache)
    err = " ".join(logged(caplog).split())
    assert ran > 0 and "is not used (its check fails" in err and "probing again" in err
    assert second.model.probe == first.model.probe
    assert json.loads(entry.read_text())["probe"] != record["probe"]  # rewritten with what was probed
    assert "not probed again" not in err
