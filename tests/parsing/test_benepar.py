"""The benepar backend end to end, on a tiny release-format model with random weights (tests/benepar_model.py).

The trees are meaningless; what is tested is the plumbing: spaCy tokens in, benepar's trees out, turned into
well-formed constituents, then a dataset built through the CLI. Runs in .venv-benepar (`make test-benepar`).
"""

from __future__ import annotations

import json
import shutil
import sys

import pytest

pytest.importorskip("benepar", reason="benepar needs its own environment (transformers<5): make setup-benepar")

import datasets  # noqa: E402
from benepar_model import LABELS, TAGS, build_tiny_model  # noqa: E402

from swapbench.commands.main import main  # noqa: E402
from swapbench.core.errors import SwapbenchError  # noqa: E402
from swapbench.core.text import squash  # noqa: E402
from swapbench.parsing import make_parser  # noqa: E402
from swapbench.parsing.base import MalformedInput  # noqa: E402
from swapbench.parsing.benepar_parser import BeneparParser  # noqa: E402

pytestmark = pytest.mark.benepar

SENTENCES = {
    "A man plays a red guitar on the street.": ("A", "man", "plays", "a", "red", "guitar", "on", "the", "street", "."),
    'A woman (wearing a hat) sells "fresh" fruit, very cheaply.': (
        "A",
        "woman",
        "(",
        "wearing",
        "a",
        "hat",
        ")",
        "sells",
        '"',
        "fresh",
        '"',
        "fruit",
        ",",
        "very",
        "cheaply",
        ".",
    ),
    # Runs of extra whitespace are not words.
    "  Dogs   run.": ("Dogs", "run", "."),
}
PHRASE_LABELS = {part for label in LABELS for part in label.split("::") if part}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("benepar") / "tiny_benepar")


@pytest.fixture(scope="module")
def parser(model_dir):
    return BeneparParser(str(model_dir))


def test_parse_many_gives_spacy_tokens_and_well_formed_constituents(parser):
    parses = parser.parse_many(list(SENTENCES))

    assert [p.tokens for p in parses] == list(SENTENCES.values())
    for parse in parses:
        n = len(parse.tokens)
        assert len(parse.tags) == len(parse.punct) == n
        assert set(parse.tags) <= set(TAGS)  # the parser's own predicted tags
        assert all(parse.punct[i] for i, token in enumerate(parse.tokens) if token in {".", ",", "(", ")", '"'})
        assert parse.constituents, "benepar always labels the whole sentence"
        assert (parse.constituents[0].start, parse.constituents[0].end) == (0, n)
        for c in parse.constituents:
            assert c.label in PHRASE_LABELS
            assert 0 <= c.start < c.end <= n
        spans = [(c.start, c.end) for c in parse.constituents]
        assert spans == sorted(spans, key=lambda s: (s[0], -s[1])), "outermost first"
        for a_start, a_end in spans:  # a tree: any two spans nest or are disjoint
            for b_start, b_end in spans:
                assert (
                    a_end <= b_start
                    or b_end <= a_start
                    or (a_start <= b_start and b_end <= a_end)
                    or (b_start <= a_start and a_end <= b_end)
                )
    assert parser.parse_many(list(SENTENCES)) == parses


def test_empty_sentence_is_reported_by_index(parser):
    with pytest.raises(MalformedInput) as err:
        parser.parse_many(["Dogs run.", "   "])
    assert err.value.index == 1


def test_version_names_benepar_the_weights_and_the_tokenizer(parser, model_dir, tmp_path):
    assert parser.version.startswith("benepar-0.2")
    assert "/tiny_benepar-" in parser.version
    assert "core_web_sm" in parser.version
    assert BeneparParser(str(model_dir)).version == parser.version
    # Other weights in a folder of the same name make another version: their cached parses are not reused.
    other = BeneparParser(str(build_tiny_model(tmp_path / "tiny_benepar", seed=1)))
    assert other.version != parser.version


def test_cli_builds_a_loadable_dataset(model_dir, fixtures, tmp_path):
    out = tmp_path / "snli-test"
    code = main(
        [
            "build",
            "--source",
            str(fixtures),
            "--parser",
            "benepar",
            "--benepar-model",
            str(model_dir),
            "--variants",
            "shuffle-random",
            "--out",
            str(out),
        ]
    )
    assert code == 0

    info = json.loads((out / "build_info.json").read_text())
    assert info["parser"] == "benepar"
    assert info["parser_version"] == BeneparParser(str(model_dir)).version
    assert info["pairs"] == 7
    random_info = next(c for c in info["configs"] if c["name"] == "shuffle-random")

    rows = datasets.load_dataset(str(out), "shuffle-random", split="test")
    assert len(rows) == random_info["rows"] and len(rows) + random_info["not_applicable"] == 7
    assert len(rows) > 0
    for row in rows:
        assert row["variant"] == "shuffle-random"
        tokens = row["premise_tokens"]  # the parse's, which the permutation indexes
        assert squash("".join(tokens)) == squash(row["original_premise"])
        assert sorted(row["permutation"]) == list(range(len(tokens)))
        assert squash(row["premise"]) == squash("".join(tokens[k] for k in row["permutation"]))


def test_missing_benepar_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "benepar", None)  # what `import benepar` meets where it is not installed
    with pytest.raises(SwapbenchError, match=r"benepar parser is not installed.*transformers<5"):
        make_parser("benepar", has_parses=False)


def test_missing_model_is_a_clear_error(model_dir, fixtures, tmp_path, capsys):
    with pytest.raises(SwapbenchError, match=r"'swapbench_no_such_model' is not installed.*benepar.download"):
        BeneparParser("swapbench_no_such_model")
    with pytest.raises(SwapbenchError, match="no benepar model folder at"):
        BeneparParser(str(tmp_path / "absent"))

    incomplete = tmp_path / "incomplete"
    shutil.copytree(model_dir, incomplete)
    (incomplete / "benepar_model.bin").unlink()
    with pytest.raises(SwapbenchError, match="could not load the benepar model.*benepar_model.bin"):
        BeneparParser(str(incomplete))

    code = main(
        [
            "build",
            "--source",
            str(fixtures),
            "--parser",
            "benepar",
            "--benepar-model",
            str(tmp_path / "absent"),
            "--out",
            str(tmp_path / "out"),
        ]
    )
    assert code == 2
    assert "no benepar model folder" in capsys.readouterr().err
