"""The contract of every registered extension, tested entry by entry, as mteb tests every task: whatever a source,
variant, parser, role labeler, zoo encoding, positional-encoding family, scorer or prompt template is, built in or
added by a plugin, it keeps the promises the build, eval and the command line rely on. Every registry of
core/registry.py is tested here (REGISTRIES, checked against the module), and each says what its entries are.

Parametrized over the registries as they are when the tests are collected (plugins included), so a new entry is
tested with no new test. A pattern entry (a family of names such as shuffle-N) is tried on example names: the
entry's value may list them in an `examples` attribute, else EXAMPLES below must.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import swapbench.evaluation.scorers  # noqa: F401  (each import registers its entries)
import swapbench.evaluation.templates  # noqa: F401
import swapbench.models.positional  # noqa: F401
import swapbench.parsing  # noqa: F401
import swapbench.roles  # noqa: F401
import swapbench.sources  # noqa: F401
import swapbench.variants  # noqa: F401
import swapbench.zoo.encodings  # noqa: F401
from swapbench.core import registry as registries
from swapbench.core.errors import SwapbenchError
from swapbench.core.registry import (
    ENCODINGS,
    FAMILIES,
    LABELERS,
    PARSERS,
    SCORERS,
    SOURCES,
    TEMPLATES,
    VARIANTS,
    Entry,
    Registry,
)
from swapbench.core.text import squash
from swapbench.leaderboard.reference import Reference
from swapbench.leaderboard.reported import PaperData
from swapbench.parsing.base import ConstituencyParser, Parse
from swapbench.parsing.ptb import PTBParser
from swapbench.results.build_record import BuildInfo
from swapbench.results.schema import PositionalEncodingInfo
from swapbench.roles.base import RoleLabeler, RoleParse, Sentence
from swapbench.roles.heads import key
from swapbench.sources import Source, read_release_file
from swapbench.variants import Variant, declared, make_variant
from swapbench.variants.base import Perturbed
from swapbench.variants.originals import OriginalRenderer
from swapbench.variants.randomness import example_rng

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FRAMES = FIXTURES / "srl_frames.jsonl"
# Example names of the pattern entries whose value lists none.
EXAMPLES = {
    "shuffle-N": ["shuffle-2", "shuffle-3", "shuffle-4", "shuffle-5"],
    "frames:FILE": [f"frames:{FRAMES}"],
    "hub:ORG/NAME": ["hub:someone/nli"],
}
# Pronoun case is the one change a role swap makes to the words themselves.
CASE = {"me": "i", "him": "he", "her": "she", "us": "we", "them": "they", "whom": "who"}
SENTENCE = "A man in a grassy field throws a frisbee."
TREE = (
    "(ROOT (S (NP (NP (DT A) (NN man)) (PP (IN in) (NP (DT a) (JJ grassy) (NN field)))) (VP (VBZ throws) "
    "(NP (DT a) (NN frisbee))) (. .)))"
)


def examples(entry: Entry) -> list[str]:
    if entry.pattern is None:
        return [entry.name]
    named = getattr(entry.value, "examples", None) or EXAMPLES.get(entry.name)
    if named is None and "|" in entry.pattern.pattern:  # an alternation of names: a family's model types
        named = [re.sub(r"\\(.)", r"\1", name) for name in re.split(r"(?<!\\)\|", entry.pattern.pattern)]
    assert named, f"pattern entry {entry.name!r}: give it `examples` (or add it to EXAMPLES) so it can be tested"
    assert all(entry.pattern.fullmatch(name) for name in named), f"{entry.name}: an example its pattern refuses"
    return named


def cases(registry) -> list:
    return [
        pytest.param(entry, name, id=name.replace(str(FIXTURES), "FIXTURES"))
        for entry in registry
        for name in examples(entry)
    ]


def words(sentence: str) -> list[str]:
    return sorted(CASE.get(w.casefold(), w.casefold()) for w in sentence.split())


# Every registry, each with the contract test of its entries below.
REGISTRIES = [SOURCES, VARIANTS, PARSERS, LABELERS, ENCODINGS, FAMILIES, SCORERS, TEMPLATES]


def test_every_registry_is_tested_here_and_says_what_it_holds():
    """A registry added to core/registry.py joins REGISTRIES (and gets a contract test of its entries), and is told
    what its entries are by the module that defines them, so that a wrong registration is refused."""
    defined = [value for value in vars(registries).values() if isinstance(value, Registry)]
    assert {id(r) for r in defined} == {id(r) for r in REGISTRIES}, (
        f"registries not under the contract test: {[r.kind for r in defined if r not in REGISTRIES]}"
    )
    for registry in REGISTRIES:
        assert registry.expected() != "anything", f"nothing says what a {registry.kind} is (Registry.accepts)"
        registry.names()  # plugins loaded: their entries, registered before or after `accepts`, checked again
        registry.accepts(registry._base, registry._form)


@pytest.mark.parametrize("registry", [r for r in REGISTRIES if r is not FAMILIES], ids=lambda r: r.kind)
def test_every_entry_has_help_text(registry):
    """--help lists each entry with its help: an entry without one is a bare name the user cannot choose by.
    (FAMILIES has no option: a model's config picks its family, so its entries need none.)"""
    assert registry.option
    assert registry.names(), f"no {registry.kind} is registered"
    for entry in registry:
        assert entry.help.strip(), f"{registry.kind} {entry.name!r} has no help text"
        assert entry.help.strip() in registry.help_text()


# ---- sources ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry, name", cases(SOURCES))
def test_source_declares_what_the_card_and_the_board_read(entry, name):
    source = swapbench.sources.source_named(name)
    assert isinstance(source, Source) and isinstance(entry.value, Source)
    assert Source.model_validate(source.model_dump()) == source  # the declaration validates as written
    assert source.short_name and source.pretty_name and source.license and source.pair_ids
    assert source.homepage.startswith("https://")
    if not source.open_splits:  # a Hub dataset by column mapping names its own citation on its card
        assert re.match(r"@\w+\{", source.citation), f"{name}: citation is not BibTeX"
    assert source.splits, f"{name} declares no split"
    for split in source.split_names():
        assert source.split(split) in source.splits or source.open_splits
        assert source.file_stem(split).startswith(source.file_prefix)
    assert bool(source.archive_url) <= bool(source.release)
    assert not source.hub_id or "/" in source.hub_id


# ---- variants -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fixture_pairs():
    """Hand-written pairs with their trees (none is SNLI's), their ptb parses and their rendered originals."""
    snli = SOURCES.get("snli")
    pairs = [
        *read_release_file(snli, FIXTURES / "snli_1.0_test.jsonl", "test").pairs,
        *read_release_file(snli, FIXTURES / "snli_roles.jsonl", "test").pairs,
        *read_release_file(snli, FIXTURES / "snli_reversible.jsonl", "test").pairs,
    ]
    parser = PTBParser()
    trees = list(dict.fromkeys(p.premise_parse for p in pairs))
    parses = dict(zip(trees, parser.parse_many(trees)))
    render = OriginalRenderer(reads_trees=True).render
    originals = {p.pair_id: render(p, parses[p.premise_parse]) for p in pairs}
    return pairs, parses, originals


@pytest.mark.parametrize("entry, name", cases(VARIANTS))
def test_variant_builds_and_perturbs_by_permuting_words(entry, name, fixture_pairs):
    pairs, parses, originals = fixture_pairs
    # The role swaps label roles on the fixture's own trees, so the contract needs no spaCy pipeline.
    own = declared(name).options_model().model_fields
    variant = make_variant(name, **({"srl": "tree"} if "srl" in own else {}))
    assert isinstance(variant, Variant)
    assert variant.name == name and isinstance(variant.description, str) and variant.description.strip()
    variant.prepare(pairs, {pair_id: original.tokens for pair_id, original in originals.items()})
    applied = 0
    for pair in pairs:
        parse = parses[pair.premise_parse]
        made = variant.apply(pair, parse, example_rng(0, pair.pair_id, name))
        if made is None:
            continue
        applied += 1
        # a variant that makes several rows of a pair (unlu) gives them as a list
        for result in made if isinstance(made, list) else [made]:
            assert isinstance(result, Perturbed)
            original_premise = result.original_premise or " ".join(parse.tokens)
            original_hypothesis = result.original_hypothesis or pair.hypothesis
            # A variant that writes its own original pair writes both hypotheses, its verb agreeing with each subject.
            same = words if result.original_label is None else lambda s: sorted(key(w) for w in words(s))
            assert same(result.premise) == same(original_premise), (name, pair.pair_id)
            assert same(result.hypothesis) == same(original_hypothesis), (name, pair.pair_id)
            assert (result.premise, result.hypothesis) != (original_premise, original_hypothesis), "nothing changed"
            if result.permutation:  # a premise shuffle says where each token came from
                assert sorted(result.permutation) == list(range(len(parse.tokens)))
                assert result.premise == " ".join(parse.tokens[k] for k in result.permutation)
            # Written as text, the pair keeps its characters: the perturbation moved words and nothing else (a role
            # swap moves a capital to the new first word; a written original's verb agrees with each subject, so there
            # the words alone compare, above)
            written = originals[pair.pair_id]
            for side, text in ((result.premise, original_premise), (result.hypothesis, original_hypothesis)):
                if result.original_label is None:
                    assert sorted(squash(written.write(side)).casefold()) == sorted(
                        squash(written.write(text)).casefold()
                    ), (name, side)
            assert set(variant.extra_features) <= set(result.extra), f"{name}: a row lacks a column it declares"
            assert result.label in ("entailment", "neutral", "contradiction") and all(
                isinstance(t, str) for t in result.tags
            )
    assert isinstance(variant.statistics(), dict)
    # the settings a board header compares with the paper's: fields of the build record, the board's reference and
    # reported.json's account of the paper's data
    assert set(declared(name).paper_settings) <= (
        set(BuildInfo.model_fields) & set(Reference.model_fields) & set(PaperData.model_fields)
    )
    if not name.endswith("-validated"):  # only hand-accepted swaps, and none of these pairs was judged
        assert applied, f"{name} applies to none of the fixture pairs"


def test_an_unknown_variant_name_is_refused():
    with pytest.raises(SwapbenchError, match="unknown variant"):
        make_variant("shuffle-nothing-such")


# ---- parsers ------------------------------------------------------------------------------------------------------


def make_backend(name: str) -> ConstituencyParser:
    try:
        return PARSERS.get(name)(has_parses=True, spacy_model=None, benepar_model=None)
    except SwapbenchError as err:
        if name == "benepar" and "not installed" in str(err):
            pytest.skip(f"benepar is not installed here: {err}")
        raise


@pytest.mark.parametrize("entry, name", cases(PARSERS))
def test_parser_has_name_version_and_parses_a_sentence(entry, name):
    parser = make_backend(name)
    assert isinstance(parser, ConstituencyParser) and parser.name == name
    assert isinstance(parser.version, str) and parser.version
    given = SENTENCE if parser.reads_text else TREE  # a backend reads the text, or the tree the data supply
    [parse] = parser.parse_many([given])
    assert isinstance(parse, Parse)
    assert "".join(parse.tokens) == SENTENCE.replace(" ", "") and parser.is_parse_of(parse, given)
    assert len(parse.tags) == len(parse.punct) == len(parse.tokens) and parse.punct[-1]
    assert all(0 <= c.start < c.end <= len(parse.tokens) for c in parse.constituents)
    assert {"NP", "VP"} <= {c.label for c in parse.constituents}


# ---- role labelers ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry, name", cases(LABELERS))
def test_labeler_is_made_from_its_spec_and_finds_the_roles_of_a_sentence(entry, name):
    labeler = swapbench.roles.make_labeler(name)
    assert isinstance(labeler, RoleLabeler) and labeler.name
    found = labeler.label_many([Sentence(SENTENCE, TREE), Sentence("Nothing here has a verb in any file.")])
    assert len(found) == 2
    roles = found[0]
    assert isinstance(roles, RoleParse), f"{name} finds no roles in {SENTENCE!r}"
    assert len(roles.tags) == len(roles.tokens) and "".join(roles.tokens) == SENTENCE.replace(" ", "")
    throws = [f for f in roles.frames if roles.tokens[f.verb] == "throws"]
    assert throws, f"{name} finds no frame of 'throws'"
    assert roles.text(throws[0].patient) == "a frisbee" and roles.text(throws[0].agent).startswith("A man")
    assert found[1] is None or isinstance(found[1], RoleParse)


# ---- zoo encodings ------------------------------------------------------------------------------------------------

FAMILY_NAMES = PositionalEncodingInfo.model_fields["family"].annotation.__args__


@pytest.mark.parametrize("entry, name", cases(ENCODINGS))
def test_encoding_declares_its_family_and_runs_in_a_tiny_model(entry, name):
    import torch

    from swapbench.zoo.config import FIELDS
    from swapbench.zoo.modeling import ZooConfig, ZooForSequenceClassification

    encoding = entry.value
    assert encoding.paper.strip() and encoding.kind and encoding.family in FAMILY_NAMES
    assert set(encoding.fields) <= set(FIELDS), f"{name} names fields the zoo config does not have"
    config = ZooConfig(
        position_encoding=name,
        vocab_size=30,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=16,
        num_labels=3,
    )
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = ZooForSequenceClassification(config).eval()
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([[2, 5, 7, 9, 3]])).logits
    assert logits.shape == (1, 3) and torch.isfinite(logits).all()


# ---- positional-encoding families ---------------------------------------------------------------------------------


@pytest.mark.parametrize("entry, name", cases(FAMILIES))
def test_family_reads_a_config_of_its_model_type(entry, name):
    from swapbench.models.positional import ConfigReading, Family

    family = entry.value
    assert isinstance(family, Family) and family.architecture in ("encoder", "decoder", "encoder-decoder")
    reading = ConfigReading(None, name, {"model_type": name})  # a config with none of the fields it may read
    info = family.read(reading)
    assert info is None or (isinstance(info, PositionalEncodingInfo) and info.family in FAMILY_NAMES)
    reason = family.unimplemented(reading)
    assert reason is None or (isinstance(reason, str) and reason)


# ---- scorers ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry, name", cases(SCORERS))
def test_scorer_is_a_mode_the_results_know_and_owns_options_eval_takes(entry, name):
    from swapbench.commands.main import make_parser
    from swapbench.core.command_options import CommandOptions, flag_of
    from swapbench.evaluation.options import eval_options_model
    from swapbench.evaluation.scorers import Scorer, scorer_for
    from swapbench.results.schema import Mode

    assert isinstance(entry.value, type) and issubclass(entry.value, Scorer)
    assert entry.value.mode in Mode.__args__, f"{name}: model.mode {entry.value.mode!r} is not one the schema has"
    assert issubclass(entry.value.Options, CommandOptions)
    model = eval_options_model()
    assert set(entry.value.Options.model_fields) <= set(model.model_fields), f"{name}'s options are not eval's"
    eval_parser = make_parser(["eval"])._subparsers._group_actions[0].choices["eval"]
    flags = {flag for action in eval_parser._actions for flag in action.option_strings}
    refused = {
        key: flag_of(key, model.model_fields[key]) for key in entry.value.refused_without if key in model.model_fields
    }
    assert len(refused) == len(entry.value.refused_without), f"{name} refuses options `swapbench eval` does not take"
    assert set(refused.values()) <= flags, f"{name} refuses options `swapbench eval` does not take"
    assert len(set(entry.value.refused_without)) == len(entry.value.refused_without)
    # Eval's defaults, --mode NAME alone, pass its check; another mode's switch (a flag such as --finetune) given
    # with it is refused, naming the flag.
    keywords = {"model": "some/model", "data": "some/data", "mode": name}
    assert isinstance(scorer_for(model.from_keywords(**keywords)), entry.value)
    switches = [
        (field, flag_of(field, model.model_fields[field]))
        for other in SCORERS
        for field in other.value.refused_without
        if field not in entry.value.refused_without and model.model_fields[field].annotation is bool
    ]
    for field, flag in switches:
        with pytest.raises(SwapbenchError, match=re.escape(flag)):
            scorer_for(model.from_keywords(**keywords, **{field: True}))
    if name == "prompt":
        assert switches  # the classifier's --finetune, --hypothesis-only, --stop-at-chance


# ---- prompt templates ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry, name", cases(TEMPLATES))
def test_template_names_the_pair_and_a_verbalizer_per_label(entry, name):
    from swapbench.core.labels import LABEL_NAMES
    from swapbench.evaluation.templates import PromptTemplate, answer_cue

    template = entry.value
    assert isinstance(template, PromptTemplate) and template.source.strip()
    text = template.text.format(premise="PREMISE", hypothesis="HYPOTHESIS")
    assert "PREMISE" in text and "HYPOTHESIS" in text and text.index("PREMISE") < text.index("HYPOTHESIS")
    assert list(template.verbalizers) == list(LABEL_NAMES), f"{name}: a verbalizer per label, in LABEL_NAMES order"
    assert len(set(template.verbalizers.values())) == len(LABEL_NAMES)
    assert all(v.startswith(" ") and v.strip() for v in template.verbalizers.values())
    assert answer_cue(template).strip()
