"""A variant owns itself: a toy variant with an option of its own, defined and registered here with no edit to the
package, is in `swapbench build --help` with its option, takes the option through the API and the command line
(and only its own factory receives it), and writes its own section of the dataset card."""

from __future__ import annotations

import json
import textwrap

import datasets
import pytest
from test_variants import PAIR, PARSE

import swapbench
from swapbench.commands.main import main
from swapbench.core import registry
from swapbench.core.command_options import CommandOptions, option
from swapbench.core.errors import SwapbenchError
from swapbench.core.registry import VARIANTS
from swapbench.dataset.options import build_options_model
from swapbench.results.build_record import BuildInfo
from swapbench.variants import make_variant
from swapbench.variants.base import Perturbed, Variant
from swapbench.variants.randomness import example_rng


class EchoOptions(CommandOptions):
    toy_repeats: int = option(1, ge=1, le=5, help="how many times the toy repeats the hypothesis")


class Echo(Variant):
    """A toy: the hypothesis said `toy_repeats` times over."""

    name = "toy-echo"
    description = "the hypothesis repeated; label unchanged"
    Options = EchoOptions
    refused_without = ("toy_repeats",)
    column_descriptions = {"repeats": "toy-echo: how many times the hypothesis is said"}
    tag_descriptions = {"echo": ("echo:N", "toy-echo: the hypothesis said N times")}
    received: list = []  # the options each create() received, for the test to read

    def __init__(self, repeats: int):
        self.repeats = repeats

    @classmethod
    def create(cls, name, options):
        cls.received.append(options)
        return cls(options.toy_repeats)

    @classmethod
    def record(cls, options, built):
        return {}

    @classmethod
    def card_sections(cls, config, info, validity=None):
        return {"Echoes": ["", f"`{config.name}` said each hypothesis {config.extra['repeats']} times."]}

    @property
    def extra_features(self):
        return {"repeats": datasets.Value("int32")}

    def apply(self, pair, parse, rng):
        hypothesis = " ".join([pair.hypothesis] * self.repeats)
        return Perturbed(
            " ".join(parse.tokens),
            hypothesis,
            pair.label,
            list(range(len(parse.tokens))),
            [f"echo:{self.repeats}"],
            {"repeats": self.repeats},
        )

    def statistics(self):
        return {"repeats": self.repeats}


@pytest.fixture
def toy():
    VARIANTS.add(Echo.name, Echo, help="the hypothesis repeated (a test's toy)")
    Echo.received.clear()
    yield Echo.name
    VARIANTS.remove(Echo.name)


def help_text(capsys) -> str:
    with pytest.raises(SystemExit):
        main(["build", "--help"])
    return " ".join(capsys.readouterr().out.split())


def test_the_toy_and_its_option_are_in_the_help_under_its_own_group(toy, capsys):
    text = help_text(capsys)
    assert "toy-echo: the hypothesis repeated (a test's toy)" in text
    assert "toy-echo: --toy-repeats TOY_REPEATS how many times the toy repeats the hypothesis (default: 1)" in text
    assert "shuffle-N: --shuffle-scope {all,one}" in text and "shuffle-sr: --srl LABELER" in text
    VARIANTS.remove(toy)  # made when asked for, never cached at import: gone with the registration
    assert "--toy-repeats" not in help_text(capsys)
    assert "toy_repeats" not in build_options_model().model_fields


def test_the_toy_takes_its_option_through_the_api_and_only_its_factory_receives_it(toy, fixtures, tmp_path):
    built = swapbench.build(
        source=fixtures, out=tmp_path / "api", variants=f"{toy},shuffle-3", parser="ptb", use_cache=False, toy_repeats=3
    )
    [received] = Echo.received
    assert type(received).model_fields.keys() == {"toy_repeats"} and received.toy_repeats == 3
    assert built.info.variant_options == {"shuffle-3": {"shuffle_scope": "one"}, toy: {"toy_repeats": 3}}
    rows = built.rows(toy)
    words = rows["hypothesis"][0].split()
    assert set(rows["repeats"]) == {3} and len(words) > 3 and words == words[: len(words) // 3] * 3
    assert "toy_repeats" not in make_variant("shuffle-3").options.model_dump()
    # a record written before variants recorded their options still loads
    older = built.info.model_dump(mode="json", exclude={"variant_options"})
    assert BuildInfo.model_validate(older).variant_options == {}

    card = (built.path / "README.md").read_text(encoding="utf-8")
    assert "## Echoes" in card and f"`{toy}` said each hypothesis 3 times." in card
    assert "| `repeats` | int32 | toy-echo | toy-echo: how many times the hypothesis is said |" in card
    assert "| `echo:N` | toy-echo: the hypothesis said N times |" in card

    with pytest.raises(SwapbenchError, match=r"--toy-repeats: 9 is out of range: expected an integer >= 1 and <= 5"):
        swapbench.build(source=fixtures, out=tmp_path / "bad", variants=[toy], toy_repeats=9)
    with pytest.raises(SwapbenchError, match="--toy-repeats applies to toy-echo, which --variants leaves out"):
        swapbench.build(source=fixtures, out=tmp_path / "bad", variants=["shuffle-3"], toy_repeats=2)
    assert not (tmp_path / "bad").exists()


def test_the_toy_takes_its_option_through_the_command_line(toy, fixtures, tmp_path, capsys):
    out = tmp_path / "cli"
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
                toy,
                "--toy-repeats",
                "2",
            ]
        )
        == 0
    )
    assert [o.toy_repeats for o in Echo.received] == [2]
    info = json.loads((out / "build_info.json").read_text())
    assert info["variant_options"] == {toy: {"toy_repeats": 2}} and info["configs"][0]["extra"] == {"repeats": 2}
    with pytest.raises(SystemExit) as exit_:
        main(
            [
                "build",
                "--source",
                str(fixtures),
                "--out",
                str(tmp_path / "bad"),
                "--variants",
                toy,
                "--toy-repeats",
                "0",
            ]
        )
    assert exit_.value.code == 2
    assert "argument --toy-repeats: 0 is out of range" in " ".join(capsys.readouterr().err.split())


def test_the_registry_docstring_example_runs():
    """The example at the top of core/registry.py registers a variant that builds and applies."""
    doc = registry.__doc__
    start = doc.index("    from swapbench.core.registry import VARIANTS")
    code = textwrap.dedent(doc[start : doc.index("\n\n", doc.index("def apply", start))])
    try:
        exec(compile(code, "registry example", "exec"), {})  # noqa: S102  (the docstring's own example)
        result = make_variant("shuffle-reverse").apply(PAIR, PARSE, example_rng(0, PAIR.pair_id, "shuffle-reverse"))
    finally:
        VARIANTS.remove("shuffle-reverse")
    assert result.premise.split() == list(PARSE.tokens[::-1])
    assert (result.hypothesis, result.label) == (PAIR.hypothesis, PAIR.label)
