"""Extension points of `swapbench build`: a variant or a parser registered from outside the package appears in the
command line and builds, with no edit to the package."""

from __future__ import annotations

import random

import datasets
import pytest

from swapbench.commands.main import main
from swapbench.core.errors import SwapbenchError
from swapbench.core.registry import PARSERS, VARIANTS
from swapbench.parsing import make_parser, parser_choices
from swapbench.parsing.ptb import PTBParser
from swapbench.variants import expected, make_variant
from swapbench.variants.base import Perturbed, Variant


class Reverse(Variant):
    """A toy: the premise read backwards, punctuation and all."""

    name = "toy-reverse"
    description = "premise tokens in reverse order; label unchanged"

    @property
    def extra_features(self):
        return {"reversed_words": datasets.Value("int32")}

    def apply(self, pair, parse, rng: random.Random):
        permutation = list(range(len(parse.tokens)))[::-1]
        if permutation == sorted(permutation):
            return None
        return Perturbed(
            " ".join(parse.tokens[k] for k in permutation),
            pair.hypothesis,
            pair.label,
            permutation,
            ["toy"],
            {"reversed_words": len(parse.word_positions)},
        )


@pytest.fixture
def toy_variant():
    VARIANTS.add(Reverse.name, lambda name, **options: Reverse(), help="the premise read backwards (a test's toy)")
    yield Reverse.name
    VARIANTS.remove(Reverse.name)


def test_a_variant_registered_by_a_test_module_is_in_the_help_and_builds(toy_variant, fixtures, tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["build", "--help"])
    assert "toy-reverse: the premise read backwards (a test's toy)" in " ".join(capsys.readouterr().out.split())
    out = tmp_path / "data"
    assert (
        main(
            [
                "build",
                "--source",
                str(fixtures),
                "--out",
                str(out),
                "--no-cache",
                "--parser",
                "ptb",
                "--variants",
                f"{toy_variant},shuffle-random",
            ]
        )
        == 0
    )
    rows = datasets.load_dataset(str(out), toy_variant, split="test")
    assert len(rows) == 7 and set(rows["variant"]) == {toy_variant}
    first = rows[0]
    assert first["premise"] == ". street the on guitar red a plays man A"  # tokens reversed, written as text
    assert first["tags"] == ["toy"] and first["reversed_words"] == len(first["original_premise"].rstrip(" .").split())
    assert (first["hypothesis"], first["label"]) == (first["original_hypothesis"], first["original_label"])


def test_unknown_variants_are_refused_with_what_there_is(toy_variant):
    assert expected() == (
        "expected shuffle-N (2 <= N <= 64), shuffle-random, shuffle-sr, shuffle-sr-premise, "
        "shuffle-sr-validated, shuffle-sr-reversible, role-quartets, unlu or toy-reverse"
    )
    with pytest.raises(SwapbenchError, match=r"--variants: unknown variant 'shuffle-x': expected shuffle-N"):
        make_variant("shuffle-x")
    with pytest.raises(SwapbenchError, match="constituents of 1 words"):
        make_variant("shuffle-1")
    assert make_variant("shuffle-12", shuffle_scope="one").scope == "one"


def test_a_variant_whose_rows_lack_a_declared_column_is_refused(fixtures, tmp_path):
    class Careless(Reverse):
        name = "toy-careless"

        @property
        def extra_features(self):
            return {"never_filled": datasets.Value("string")}

    VARIANTS.add(Careless.name, lambda name, **options: Careless())
    try:
        assert (
            main(
                [
                    "build",
                    "--source",
                    str(fixtures),
                    "--out",
                    str(tmp_path / "o"),
                    "--no-cache",
                    "--parser",
                    "ptb",
                    "--variants",
                    Careless.name,
                ]
            )
            == 2
        )
    finally:
        VARIANTS.remove(Careless.name)
    assert not (tmp_path / "o").exists()


def test_a_registered_parser_is_a_choice_and_auto_still_prefers_the_supplied_trees(capsys):
    class Trees(PTBParser):
        name = "toy-trees"

    PARSERS.add(Trees.name, lambda **options: Trees(), help="the supplied trees under another name")
    try:
        assert parser_choices() == ["auto", "ptb", "benepar", "spacy", "toy-trees"]
        assert isinstance(make_parser("toy-trees", has_parses=True), Trees)
        assert type(make_parser("auto", has_parses=True)) is PTBParser
        with pytest.raises(SystemExit):
            main(["build", "--help"])
        assert "toy-trees: the supplied trees under another name" in " ".join(capsys.readouterr().out.split())
    finally:
        PARSERS.remove(Trees.name)
    with pytest.raises(SwapbenchError, match="--parser ptb needs bracketed parses"):
        make_parser("ptb", has_parses=False)
