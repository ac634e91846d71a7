"""The dataset card as the Hub expects it, and publishing in one commit with
build_info.json, which `swapbench eval` of the Hub dataset reads at the same revision."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest
import yaml
from hub_server import FakeHub
from huggingface_hub import CommitOperationAdd, CommitOperationDelete, DatasetCard, DatasetCardData

from swapbench.core.errors import SwapbenchError
from swapbench.core.text import tag_sort_key
from swapbench.dataset.card import read_validity, render_card, source_name, write_card
from swapbench.dataset.hub import commit_operations, published_files, push_folder
from swapbench.dataset.output import common_features, parquet_path
from swapbench.results.build_record import BUILD_INFO, BuildInfo, ConfigInfo
from swapbench.results.schema import EvalResults
from swapbench.variants import declared
from swapbench.variants.role_shuffle import VALIDITY

CONFIGS = ["shuffle-3", "shuffle-4", "shuffle-5", "shuffle-random"]
NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
COMMON_COLUMNS = list(common_features())
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def run_cli(*args, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "swapbench.commands.main", *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1", **(env or {})},
        cwd=cwd,
        timeout=600,
    )


def one_line(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A build whose source and output lie in a temporary folder, as on a user's machine."""
    root = tmp_path_factory.mktemp("machine")
    source = root / "snli"
    shutil.copytree(FIXTURES, source)
    out = root / "out" / "snli-test"
    done = run_cli(
        "build", "--source", source / "snli_1.0_test.jsonl", "--out", out, "--no-cache", "--variants", ",".join(CONFIGS)
    )
    assert done.returncode == 0, done.stderr
    return out


def data_files(folder: Path) -> list[str]:
    """The Parquet files of a build, one per configuration, named by their content."""
    info = BuildInfo.model_validate_json((folder / BUILD_INFO).read_text())
    return [parquet_path(c.name, info.split, c.fingerprint) for c in info.configs]


def card_of(folder: Path) -> str:
    return (folder / "README.md").read_text(encoding="utf-8")


# ---- the card ---------------------------------------------------------------------------------------------------


def test_card_metadata_is_a_hub_dataset_card(built):
    card = DatasetCard.load(built / "README.md", repo_type="dataset")
    data = card.data
    assert isinstance(data, DatasetCardData)
    assert data.pretty_name == "swapbench: word-order probes of SNLI"
    assert (data.license, data.language) == ("cc-by-sa-4.0", ["en"])
    assert data.size_categories == ["n<1K"] and data.source_datasets == ["extended|stanfordnlp/snli"]
    assert (data.task_categories, data.task_ids) == (["text-classification"], ["natural-language-inference"])
    assert [c["config_name"] for c in data.configs] == CONFIGS
    assert data.configs[0]["data_files"] == [{"split": "test", "path": data_files(built)[0]}]
    # The metadata round-trips through DatasetCardData, as the Hub's client writes it.
    again = DatasetCardData(**data.to_dict())
    assert yaml.safe_load(again.to_yaml()) == yaml.safe_load(data.to_yaml())


# The keys the Hub documents for a dataset card's metadata (huggingface_hub's DatasetCardData and the dataset card
# template): `datasets` writes dataset_info with these alone, so any other key is lost when a card is rewritten.
CARD_KEYS = {
    "pretty_name",
    "license",
    "language",
    "size_categories",
    "source_datasets",
    "task_categories",
    "task_ids",
    "tags",
    "configs",
    "dataset_info",
    "annotations_creators",
    "language_creators",
    "multilinguality",
    "paperswithcode_id",
    "license_name",
    "license_link",
    "license_details",
    "train_eval_index",
    "extra_gated_prompt",
    "extra_gated_fields",
    "viewer",
}
DATASET_INFO_KEYS = {"config_name", "features", "splits", "download_size", "dataset_size"}
CONFIG_KEYS = {"config_name", "data_files", "data_dir", "default"}


def test_card_metadata_keeps_to_the_keys_the_hub_documents(built):
    header = yaml.safe_load((built / "README.md").read_text().split("---\n")[1])
    assert set(header) <= CARD_KEYS
    for entry in header["dataset_info"]:
        assert set(entry) <= DATASET_INFO_KEYS, entry["config_name"]
    for entry in header["configs"]:
        assert set(entry) <= CONFIG_KEYS and all(set(f) == {"split", "path"} for f in entry["data_files"])
    # what `datasets` makes of the card and writes back is the card's dataset_info, nothing dropped
    from datasets.info import DatasetInfosDict

    infos = DatasetInfosDict.from_dataset_card_data(DatasetCard.load(built / "README.md").data)
    written = DatasetCardData()
    infos.to_dataset_card_data(written)
    assert yaml.safe_load(written.to_yaml())["dataset_info"] == header["dataset_info"]


def test_a_folder_rebuilt_in_place_is_read_anew_by_datasets(tmp_path):
    """`datasets` caches a local folder under a name made from its card: a rebuild with another seed has rows of
    the same size, so only the data file's name, which carries the content fingerprint, tells the caches apart."""
    out = tmp_path / "snli-test"
    rows = {}
    for seed in (0, 1):
        done = run_cli(
            "build",
            "--source",
            FIXTURES / "snli_1.0_test.jsonl",
            "--out",
            out,
            "--no-cache",
            "--variants",
            "shuffle-random",
            "--seed",
            seed,
        )
        assert done.returncode == 0, done.stderr
        rows[seed] = datasets.load_dataset(str(out), "shuffle-random", split="test")["premise"]
    assert rows[0] != rows[1]
    assert rows[1] == pq.read_table(next((out / "shuffle-random").glob("*.parquet"))).column("premise").to_pylist()


def test_card_configs_load_with_datasets(built):
    for config in CONFIGS:
        rows = datasets.load_dataset(str(built), config, split="test")
        assert set(rows["variant"]) == {config}


def test_card_names_no_path_of_the_build_machine(built):
    card = card_of(built)
    root = str(built.parent.parent)
    assert root not in card and "/tmp" not in card and str(Path.home()) not in card
    assert "(`snli_1.0_test.jsonl`, sha256:" in card  # the source by its file name
    assert source_name("/data/snli/snli_1.0_test.jsonl.gz") == "snli_1.0_test.jsonl.gz"
    assert source_name("../shared/data/snli_1.0/snli_1.0_dev.jsonl") == "snli_1.0_dev.jsonl"
    assert source_name("stanfordnlp/snli") == "stanfordnlp/snli"


def test_card_lists_each_configuration_with_its_count(built):
    card = card_of(built)
    info = BuildInfo.model_validate_json((built / BUILD_INFO).read_text())
    for config in info.configs:
        assert f"| `{config.name}` | {config.rows} | {config.not_applicable} | {config.description} |" in card
    assert [(c.name, c.rows) for c in info.configs] == [
        ("shuffle-3", 5),
        ("shuffle-4", 1),
        ("shuffle-5", 3),
        ("shuffle-random", 7),
    ]


def test_words_tags_sort_as_numbers(built):
    card = card_of(built)
    [line] = [line for line in card.splitlines() if line.startswith("- `shuffle-random`: ")]
    assert line == (
        "- `shuffle-random`: `matched:3-5` 1, `words:2` 1, `words:5` 1, `words:9` 3, `words:10` 1, `words:14` 1"
    )
    assert sorted(["words:10", "words:9", "moved:2", "label:NP"], key=tag_sort_key) == [
        "label:NP",
        "moved:2",
        "words:9",
        "words:10",
    ]


def test_card_has_example_fields_tags_build_limitations_licence_citation(built):
    card = card_of(built)
    sections = [line for line in card.splitlines() if line.startswith("## ")]
    assert sections == [
        "## Configurations",
        "## How far words move",
        "## Example",
        "## Fields",
        "## Slice tags",
        "## How the data were built",
        "## Limitations",
        "## License",
        "## Citation",
    ]
    example = json.loads(card.split("```json\n", 1)[1].split("\n```", 1)[0])
    first = datasets.load_dataset(str(built), "shuffle-3", split="test")[0]
    assert example["pair_id"] == first["pair_id"] == "fx1a#1r1e" and example["label"] == "entailment"
    assert example["permutation"] == first["permutation"] and example["tags"] == first["tags"]
    for column in [*COMMON_COLUMNS, "moved_spans"]:
        assert f"| `{column}` |" in card
    for tag in ("`moved:N`", "`label:X`", "`words:N`", "`matched:3-5`"):
        assert f"| {tag} |" in card
    assert "- Parser: `ptb` (`ptb-1`)" in card and "Seed: 0" in card
    assert "CC BY-SA 4.0" in card and "derived" in card
    assert "chen-etal-2023-locality" in card and "bowman-etal-2015-large" in card


def sr_build(info: BuildInfo) -> tuple[BuildInfo, dict]:
    """The fixture build with a shuffle-sr configuration whose statistics name a drop reason the card has no
    description for, as a build with new filters would."""
    sr = ConfigInfo(
        name="shuffle-sr",
        description="agent and patient exchanged",
        rows=3,
        not_applicable=4,
        fingerprint="sha256:" + "ab" * 32,
        tag_counts={"side:premise": 2, "side:hypothesis": 1, "labeler:ptb": 3, "fallback": 1},
        extra={
            "labeler": "agree",
            "entailment_pairs": 5,
            "candidates": 4,
            "filtered": 1,
            "final": 3,
            "fallbacks": 1,
            "drop_reasons": {"ungrounded_patient": 1, "overlap": 0},
            "filters": {
                "overlap": "the agent and the patient overlap",
                "ungrounded_agent": "the agent is no noun of the tree",
            },
        },
    )
    info = info.model_copy(update={"configs": [*info.configs, sr], "role_labeler": "agree"})
    features = {c.name: {**common_features()} for c in info.configs}
    return info, features


def test_card_renders_every_drop_reason_the_build_records(built):
    info, features = sr_build(BuildInfo.model_validate_json((built / BUILD_INFO).read_text()))
    card = str(render_card(info, features))
    assert "| `overlap` | 0 | the agent and the patient overlap |" in card
    assert "| `ungrounded_agent` | 0 | the agent is no noun of the tree |" in card
    assert "| `ungrounded_patient` | 1 | no description recorded |" in card
    assert "4 of 5 entailment pairs had a swappable verb (candidates); 1 was dropped by the filters; 3 kept" in card
    assert "| `side:S` |" in card and "| `fallback` |" in card and "| `labeler:L` |" in card
    assert "Validity was not measured for this build" in card


def test_card_reports_the_measured_validity(built, tmp_path):
    info, features = sr_build(BuildInfo.model_validate_json((built / BUILD_INFO).read_text()))
    validity = {
        "judged": 200,
        "valid": 171,
        "validity": 0.855,
        "low": 0.799,
        "high": 0.898,
        "command": "swapbench curate --measure",
        "build_fingerprint": "sha256:" + "ab" * 32,
    }
    path = tmp_path / "shuffle-sr-validity.json"
    path.write_text(json.dumps(validity))
    card = str(render_card(info, features, validity={"shuffle-sr": read_validity(path)}))
    assert (
        "171 of 200 judged swaps are valid contradictions: validity 0.855 (95% interval 0.799 to 0.898); "
        "measured with `swapbench curate --measure`."
    ) in card
    assert "judged on a build whose" not in card
    other = str(render_card(info, features, validity={"shuffle-sr": {**validity, "build_fingerprint": "sha256:00"}}))
    assert "The sample was judged on a build whose shuffle-sr fingerprint is sha256:00" in other
    assert read_validity(tmp_path / "absent.json") is None
    assert VALIDITY.name == "shuffle-sr-validity.json" and VALIDITY.parent.name == "annotations"


def leaks_record(tmp_path: Path, figures: dict[str, tuple[float, float, float, str]]) -> dict:
    """A hypothesis-only record as `swapbench leak` writes it, read back as the card reads it: per configuration
    (leak, interval low, interval high, fingerprint)."""
    from swapbench.evaluation.finetune import reference_recipe
    from swapbench.results.hypothesis_only import ConfigurationLeak, HypothesisOnlyLeaks, read_leaks, verdict
    from swapbench.results.schema import ConfidenceInterval, TrainingData

    data = TrainingData(source="snli_1.0", split="dev", fingerprint="sha256:cd", n=9842, limit=None, held_out=False)
    configurations = {
        name: ConfigurationLeak(
            fingerprint=fingerprint,
            n=200,
            clusters=150,
            swapped_non_entailment=0.2 + leak,
            original_non_entailment=0.2,
            leak=leak,
            p_value=0.01,
            leak_ci=ConfidenceInterval(low=low, high=high, level=0.95, method="bootstrap", resamples=100),
            verdict=verdict(low, high),
        )
        for name, (leak, low, high, fingerprint) in figures.items()
    }
    record = HypothesisOnlyLeaks(
        model="sentence-transformers/all-MiniLM-L6-v2",
        base_revision="abc",
        recipe=reference_recipe(),
        train=data,
        validation=data,
        validation_accuracy=0.612,
        dataset="…/snli-test",
        dataset_fingerprint="sha256:ef",
        results_sha256="00",
        eval_command=["swapbench", "eval", "m", "--hypothesis-only"],
        command=["swapbench", "leak", "results.json"],
        margin=0.05,
        configurations=configurations,
    )
    path = tmp_path / "hypothesis-only.json"
    path.write_text(record.model_dump_json())
    return read_leaks(path)


def role_build(built) -> tuple[BuildInfo, dict]:
    """sr_build's, its shuffle-sr labelled in the binary view as a role configuration is."""
    info, features = sr_build(BuildInfo.model_validate_json((built / BUILD_INFO).read_text()))
    features["shuffle-sr"]["binary_label"] = datasets.ClassLabel(names=["entailment", "non-entailment"])
    return info, features


def test_card_says_which_role_configuration_leaks_to_a_hypothesis_only_model(built, tmp_path, monkeypatch):
    info, features = role_build(built)
    fingerprint = "sha256:" + "ab" * 32
    card = str(render_card(info, features))
    assert "## What the hypotheses alone give away" in card and "Not measured for this build" in card

    leaking = leaks_record(tmp_path, {"shuffle-sr": (0.62, 0.55, 0.69, fingerprint)})
    card = str(render_card(info, features, leaks=leaking))
    assert "| `shuffle-sr` | 200 | 20.0 | 82.0 | +62.0 | [+55.0, +69.0] | leaks |" in card
    assert (
        "- `shuffle-sr` leaks: the hypotheses alone tell its swaps from their originals (+62.0 points): its "
        "swaps look less entailed"
    ) in card
    below = leaks_record(tmp_path, {"shuffle-sr": (-0.11, -0.14, -0.08, fingerprint)})
    assert "(-11.0 points): its swaps look more entailed" in str(render_card(info, features, leaks=below))
    assert "defeats its purpose" not in card and "measured on a build whose" not in card
    assert "`swapbench eval m --hypothesis-only`" in card and "validation accuracy 61.2%" in card
    section = card.split("## What the hypotheses alone give away", 1)[1].split("\n## ", 1)[0]
    assert "`shuffle-sr`" in section and "shuffle-3" not in section  # no binary_label: no role configuration

    # A configuration built to need the premise fails its purpose when it leaks.
    monkeypatch.setattr(declared("shuffle-sr"), "needs_premise", True)
    assert "This defeats its purpose" in str(render_card(info, features, leaks=leaking))
    near = leaks_record(tmp_path, {"shuffle-sr": (0.01, -0.02, 0.03, "sha256:00")})
    card = str(render_card(info, features, leaks=near))
    assert "| +1.0 | [-2.0, +3.0] | near chance |" in card and "leaks:" not in card
    assert "`shuffle-sr` was measured on a build whose fingerprint is sha256:00, not this one's" in card
    wide = leaks_record(tmp_path, {"shuffle-sr": (0.04, -0.03, 0.11, fingerprint)})
    assert "`shuffle-sr` is not shown to sit near chance" in str(render_card(info, features, leaks=wide))
    assert "| `shuffle-sr` | | | | | | not measured |" in str(
        render_card(
            info, features, leaks=leaks_record(tmp_path, {"shuffle-sr-validated": (0.5, 0.4, 0.6, fingerprint)})
        )
    )


def test_card_gives_the_plausibility_baseline_beside_the_classifier(built, tmp_path):
    from swapbench.results.hypothesis_only import PlausibilityBaseline, PlausibilityFigures, verdict
    from swapbench.results.schema import ConfidenceInterval

    info, features = role_build(built)
    leaks = leaks_record(tmp_path, {"shuffle-sr": (0.62, 0.55, 0.69, "sha256:" + "ab" * 32)})
    assert "plausibility" not in " ".join(str(render_card(info, features, leaks=leaks)).split()).lower()

    def interval(low, high):
        return ConfidenceInterval(low=low, high=high, level=0.95, method="bootstrap", resamples=100)

    def figures(n, identical, original, perturbed, low, high):
        compared = n - identical
        return PlausibilityFigures(
            fingerprint="sha256:00",
            n=n,
            identical=identical,
            compared=compared,
            clusters=compared,
            prefers_original=original,
            prefers_perturbed=perturbed,
            prefers_original_other=original,
            share=original / compared if compared else None,
            share_ci=interval(0.67, 0.82) if compared else None,
            p_value=1e-9 if compared else 1.0,
            binomial_p_value=1e-9 if compared else 1.0,
            leak=(original - perturbed) / n,
            leak_ci=interval(low, high),
            verdict=verdict(low, high),
        )

    baseline = PlausibilityBaseline(
        model="…/SmolLM2.gguf",
        revision="sha256:11",
        score="sum",
        text="each hypothesis alone",
        dataset="d",
        dataset_fingerprint="sha256:22",
        command=["swapbench", "leak"],
        configurations={"shuffle-sr": figures(144, 0, 108, 36, 0.35, 0.64)},
    )
    card = str(render_card(info, features, leaks={**leaks, "plausibility": baseline.model_dump(mode="json")}))
    assert "| `shuffle-sr` | 144 | 144 | 75.0 | [67.0, 82.0] | 1e-09 | +50.0 | leaks |" in card
    assert "`…/SmolLM2.gguf`" in card
    baseline.configurations["shuffle-sr"] = figures(382, 382, 0, 0, 0.0, 0.0)
    card = str(render_card(info, features, leaks={**leaks, "plausibility": baseline.model_dump(mode="json")}))
    assert "| `shuffle-sr` | 382 | 0 | not applicable: 50.0 by construction | | | 0.0 | near chance |" in card


def test_write_card_writes_what_render_card_makes(built, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(built, folder)
    info = BuildInfo.model_validate_json((folder / BUILD_INFO).read_text())
    (folder / "README.md").unlink()
    features = {name: datasets.load_dataset(str(built), name, split="test").features for name in CONFIGS}
    write_card(
        folder, info, features, validity={"shuffle-sr": tmp_path / "absent.json"}, leaks=tmp_path / "absent.json"
    )
    assert card_of(folder) == card_of(built)


# ---- publishing -------------------------------------------------------------------------------------------------


def test_the_commit_holds_card_build_info_and_parquet_files(built):
    files = data_files(built)
    assert files[0].startswith("shuffle-3/test-") and len(set(files)) == len(CONFIGS)
    assert published_files(built) == ["README.md", BUILD_INFO, *files]
    # an earlier build's files: shuffle-4 as now, shuffle-3 of other content, a configuration no longer built
    existing = [
        ".gitattributes",
        "README.md",
        "notes.md",
        "shuffle-3/test-00000-of-00001.parquet",
        files[1],
        "shuffle-9/test-00000-of-00001.parquet",
        "default/train/0000.parquet",
    ]
    operations = commit_operations(built, "someone/probes", existing)
    assert [(type(op).__name__, op.path_in_repo) for op in operations] == [
        *[("CommitOperationAdd", path) for path in ["README.md", BUILD_INFO, *files]],
        ("CommitOperationDelete", "default/train/0000.parquet"),
        ("CommitOperationDelete", "shuffle-3/test-00000-of-00001.parquet"),
        ("CommitOperationDelete", "shuffle-9/test-00000-of-00001.parquet"),
    ]
    adds = [op for op in operations if isinstance(op, CommitOperationAdd)]
    card = adds[0].path_or_fileobj.decode()
    assert 'datasets.load_dataset("someone/probes", "shuffle-3", split="test")' in card
    assert card.replace('"someone/probes"', '"OWNER/NAME"') == card_of(built)
    assert [Path(op.path_or_fileobj) for op in adds[1:]] == [built / p for p in [BUILD_INFO, *files]]
    assert not any(isinstance(op, CommitOperationDelete) and op.path_in_repo == "notes.md" for op in operations)


@pytest.mark.parametrize("remove", ["README.md", BUILD_INFO, "shuffle-4"])
def test_an_incomplete_folder_is_not_pushed(built, tmp_path, remove):
    folder = tmp_path / "incomplete"
    shutil.copytree(built, folder)
    (folder / (data_files(built)[1] if remove == "shuffle-4" else remove)).unlink()
    with pytest.raises(SwapbenchError, match="README.md|build_info.json|no data file of configuration 'shuffle-4'"):
        published_files(folder)


@pytest.fixture
def hub(tmp_path):
    with FakeHub() as hub:
        yield hub


def hub_env(hub: FakeHub, tmp_path: Path) -> dict:
    return {
        "HF_ENDPOINT": hub.url,
        "HF_TOKEN": "hf_test",
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_HUB_OFFLINE": "0",
        "HF_DATASETS_OFFLINE": "0",
        "HF_HUB_DISABLE_TELEMETRY": "1",
    }


def test_a_push_replaces_an_earlier_build_in_one_commit(hub, built, tmp_path, monkeypatch):
    from huggingface_hub import HfApi, constants

    # The Hub at hub.url as HF_ENDPOINT names it: huggingface_hub 0.x reads a commit's URL against that, not
    # against the endpoint an HfApi was given.
    monkeypatch.setattr(constants, "ENDPOINT", hub.url)
    api = HfApi(endpoint=hub.url, token="hf_test")
    hub.create("someone/probes")
    stale = {"shuffle-9/test-00000-of-00001.parquet": b"old", "notes.md": b"by hand"}
    hub.commit("someone/probes", stale, [], "an earlier build")
    before = len(hub.repos["someone/probes"].commits)
    oid = push_folder(built, "someone/probes", api=api)
    repo = hub.repos["someone/probes"]
    assert len(repo.commits) == before + 1 and repo.head.oid == oid
    assert sorted(repo.head.files) == sorted(
        [".gitattributes", "notes.md", "README.md", BUILD_INFO, *data_files(built)]
    )
    assert repo.head.summary.endswith(f"build: {', '.join(CONFIGS)} (test)")


def test_a_refused_push_says_so_and_commits_nothing(hub, built):
    from huggingface_hub import HfApi

    hub.read_only = True
    refused = r"(?s)cannot push .* to the Hub dataset someone/probes: .*rights.* Nothing was committed"
    with pytest.raises(SwapbenchError, match=refused):
        push_folder(built, "someone/probes", api=HfApi(endpoint=hub.url, token="hf_t"))
    assert [c.summary for c in hub.repos["someone/probes"].commits] == ["initial commit"]


@pytest.fixture(scope="module")
def classifier(tmp_path_factory):
    from eval_models import save_classifier

    return save_classifier(tmp_path_factory.mktemp("models") / "classifier", NLI)


def evaluate(model: Path, data: str, output: Path, env: dict) -> subprocess.CompletedProcess:
    return run_cli(
        "eval", model, "--data", data, "--output", output, "--no-progress", "--no-probe", "--bootstrap", "200", env=env
    )


def test_push_is_one_commit_and_eval_of_the_hub_dataset_verifies_it(hub, tmp_path, classifier):
    env = hub_env(hub, tmp_path)
    out = tmp_path / "snli-test"
    done = run_cli(
        "build",
        "--source",
        FIXTURES,
        "--out",
        out,
        "--no-cache",
        "--variants",
        ",".join(CONFIGS),
        "--push-to-hub",
        "someone/probes",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    commits = [r for r in hub.requests if r.startswith("POST /api/datasets/someone/probes/commit/")]
    assert commits == ["POST /api/datasets/someone/probes/commit/main"]
    repo = hub.repos["someone/probes"]
    head = repo.head
    assert sorted(head.files) == sorted([".gitattributes", "README.md", BUILD_INFO, *data_files(out)])
    assert head.files[BUILD_INFO] == (out / BUILD_INFO).read_bytes()
    assert all(head.files[p] == (out / p).read_bytes() for p in data_files(out))
    assert DatasetCard(head.files["README.md"].decode()).data.configs[0]["config_name"] == "shuffle-3"
    assert f"Pushed someone/probes at commit {head.oid}" in one_line(done.stderr)

    results_path = tmp_path / "results.json"
    scored = evaluate(classifier, "someone/probes", results_path, env)
    assert scored.returncode == 0, scored.stderr
    assert "unverified" not in scored.stderr
    results = EvalResults.model_validate_json(results_path.read_text())
    assert results.dataset.path == "someone/probes" and results.dataset.revision == head.oid
    assert [(c.name, c.verified) for c in results.dataset.configurations] == [(c, True) for c in CONFIGS]
    info = BuildInfo.model_validate_json((out / BUILD_INFO).read_text())
    assert [c.fingerprint for c in results.dataset.configurations] == [c.fingerprint for c in info.configs]
    assert results.dataset.build is not None and results.dataset.build.parser == "ptb"
    # Every file eval read came from the commit it records.
    reads = [r for r in hub.requests if "/resolve/" in r and r.startswith("GET")]
    assert reads and all(f"/resolve/{head.oid}/" in r for r in reads)


def test_a_hub_dataset_without_build_info_is_scored_loudly_unverified_and_refused_by_submit(
    hub, tmp_path, classifier, built
):
    env = hub_env(hub, tmp_path)
    hub.create("someone/bare")
    files = {p: (built / p).read_bytes() for p in ["README.md", *data_files(built)]}
    commit = hub.commit("someone/bare", files, [], "data without their record")
    results_path = tmp_path / "results.json"
    scored = evaluate(classifier, "someone/bare", results_path, env)
    assert scored.returncode == 0, scored.stderr
    assert (
        f"warning: the data of {', '.join(CONFIGS)} are unverified: there is no build_info.json in the Hub "
        f"dataset someone/bare at commit {commit.oid}"
    ) in one_line(scored.stderr)
    results = EvalResults.model_validate_json(results_path.read_text())
    assert results.dataset.revision == commit.oid and results.dataset.build is None
    assert [c.verified for c in results.dataset.configurations] == [False] * len(CONFIGS)

    board = tmp_path / "board"
    assert run_cli("leaderboard", "--board", board, "--set-reference", built).returncode == 0
    submitted = run_cli("submit", results_path, "--board", board)
    assert submitted.returncode == 1
    assert (
        f"dataset.configurations.0.verified: the shuffle-3 data were unverified when scored: the Hub dataset "
        f"someone/bare at commit {commit.oid} had no build_info.json listing them"
    ) in one_line(submitted.stdout)


def test_a_build_info_that_cannot_be_read_stops_eval(hub, tmp_path, classifier, built):
    env = hub_env(hub, tmp_path)
    hub.create("someone/probes")
    hub.commit("someone/probes", {p: (built / p).read_bytes() for p in published_files(built)}, [], "a build")
    hub.forbidden.add(BUILD_INFO)
    scored = evaluate(classifier, "someone/probes", tmp_path / "results.json", env)
    assert scored.returncode != 0 and "Traceback" not in scored.stderr
    assert "cannot read someone/probes@" in scored.stderr and "build_info.json" in scored.stderr
    assert not (tmp_path / "results.json").exists()


def edited(parquet: Path) -> bytes:
    """The Parquet file with one word of its first premise changed: as many rows, other content."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(parquet)
    premises = table.column("premise").to_pylist()
    premises[0] = premises[0].replace("man", "woman", 1)
    table = table.set_column(
        table.schema.get_field_index("premise"), "premise", pa.array(premises, table.schema.field("premise").type)
    )
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("edit", ["content", "rows"])
def test_a_hub_dataset_changed_after_its_build_is_refused(hub, tmp_path, classifier, built, edit):
    env = hub_env(hub, tmp_path)
    hub.create("someone/probes")
    files = {p: (built / p).read_bytes() for p in published_files(built)}
    shuffle3, shuffle4 = data_files(built)[:2]
    if edit == "content":
        files[shuffle3] = edited(built / shuffle3)
    else:  # shuffle-4's file holds shuffle-3's rows, more than the card records
        files[shuffle4] = (built / shuffle3).read_bytes()
    hub.commit("someone/probes", files, [], "a build, then an edit")
    scored = evaluate(classifier, "someone/probes", tmp_path / "results.json", env)
    assert scored.returncode != 0 and "Traceback" not in scored.stderr
    expected = (
        "configuration 'shuffle-3' of someone/probes differs from what build_info.json records"
        if edit == "content"
        else "cannot load configuration 'shuffle-4', split 'test' of someone/probes"
    )
    assert expected in one_line(scored.stderr)
    assert not (tmp_path / "results.json").exists()
