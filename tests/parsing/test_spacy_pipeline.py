"""One spaCy pipeline per build, each sentence run through it once, whether the parser or the role labeler reads it."""

from __future__ import annotations

import json

import pytest

import swapbench.parsing.spacy_pipeline as spacy_pipeline
from swapbench.commands.main import main
from swapbench.parsing.spacy_parser import SpacyParser
from swapbench.parsing.spacy_pipeline import shared_pipelines, spacy_docs
from swapbench.roles import Sentence
from swapbench.roles.spacy_roles import SpacyRoles


@pytest.fixture
def counted(monkeypatch):
    """The pipelines loaded, and every text each was asked to run."""
    loads: list[str | None] = []
    texts: list[str] = []
    real = spacy_pipeline.load_english

    def load(name=None):
        nlp = real(name)
        loads.append(name)
        pipe = nlp.pipe

        def counting_pipe(batch, **options):
            batch = list(batch)
            texts.extend(batch)
            return pipe(batch, **options)

        nlp.pipe = counting_pipe
        return nlp

    monkeypatch.setattr(spacy_pipeline, "load_english", load)
    return loads, texts


def test_the_parser_and_the_role_labeler_share_one_pipeline_and_its_docs(counted):
    loads, texts = counted
    hyphenated = "A middle-aged man kicks a red ball."
    with shared_pipelines():
        parser, labeler = SpacyParser(), SpacyRoles()
        assert parser.docs is labeler.docs is spacy_docs()
        assert "middle-aged" in parser.parse_many([hyphenated])[0].tokens
        roles = labeler.label_many([Sentence(hyphenated), Sentence("A boy throws a ball.")])
    # The parser merged the hyphenated word in a copy: the labeler reads spaCy's own tokens, as before.
    assert roles[0].tokens[1:4] == ("middle", "-", "aged")
    assert loads == [None] and texts == [hyphenated, "A boy throws a ball."]
    assert SpacyParser().docs is not SpacyParser().docs  # outside a build, nothing is shared


def test_a_spacy_build_with_shuffle_sr_runs_each_sentence_once(counted, fixtures, tmp_path):
    loads, texts = counted
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
                "spacy",
                "--srl",
                "spacy",
                "--variants",
                "shuffle-3,shuffle-sr",
            ]
        )
        == 0
    )
    rows = [json.loads(line) for line in (fixtures / "snli_1.0_test.jsonl").read_text().splitlines()]
    labelled = [r for r in rows if r["gold_label"] != "-"]
    premises = {r["sentence1"] for r in labelled}
    entailed = {r[k] for r in labelled if r["gold_label"] == "entailment" for k in ("sentence1", "sentence2")}
    assert len(loads) == 1
    assert sorted(texts) == sorted(premises | entailed)  # each once, premises the parser and labeler both read
    info = json.loads((tmp_path / "o" / "build_info.json").read_text())
    assert len(info["spacy_pipelines"]) == 1


def test_docs_are_not_kept_when_no_second_reader_comes(counted):
    loads, texts = counted
    with shared_pipelines(keep_docs=False):
        docs = spacy_docs()
        docs.docs(["A dog runs.", "A dog runs."])
        docs.docs(["A dog runs."])
    assert texts == ["A dog runs.", "A dog runs."]  # once a call, each call afresh


def test_hypotheses_are_tokenized_by_the_loaded_pipeline_only_when_its_rules_are_blank_englishs():
    import spacy

    from swapbench.parsing.spacy_pipeline import english_tokenizer, has_english_rules

    sentence = "A man's dog can't catch the U.S.-made frisbee (again)."
    blank = [t.text for t in spacy.blank("en").tokenizer(sentence)]
    with shared_pipelines():
        nlp = spacy_docs().nlp
        assert english_tokenizer() is nlp.tokenizer
        assert [t.text for t in english_tokenizer()(sentence)] == blank
        nlp.tokenizer.add_special_case("frisbee", [{"ORTH": "fris"}, {"ORTH": "bee"}])
        assert not has_english_rules(nlp.tokenizer)
        own = english_tokenizer()
        assert own is not nlp.tokenizer and own.vocab is nlp.vocab
        assert [t.text for t in own(sentence)] == blank
    tokenizer = spacy.blank("en").tokenizer
    tokenizer.url_match = lambda text: None  # a matcher that is no compiled pattern cannot be compared
    assert not has_english_rules(tokenizer)
