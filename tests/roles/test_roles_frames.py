"""Precomputed AllenNLP SRL frames (hand-written file in AllenNLP's output format) through `--srl frames:FILE`."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from roles_helpers import FIXTURES, english

from swapbench.core.errors import InputError
from swapbench.dataset.pipeline import build, build_options
from swapbench.roles.base import Sentence, Span
from swapbench.roles.frames import FramesRoles, bio_spans

FRAMES = FIXTURES / "srl_frames.jsonl"


def test_bio_spans_reads_roles_and_skips_reference_roles():
    tags = ["B-ARG0", "I-ARG0", "B-R-ARG0", "B-V", "B-ARG1", "I-ARG1", "O"]
    assert bio_spans(tags) == {"ARG0": Span(0, 2), "R-ARG0": Span(2, 3), "V": Span(3, 4), "ARG1": Span(4, 6)}


def test_frames_are_matched_by_text_and_by_drops_from_the_passive_agent():
    labeler = FramesRoles(FRAMES, nlp=english())
    # the text is tokenized differently from the file's words: matching ignores spaces
    passive, missing = labeler.label_many([Sentence("A car is being driven by two men."), Sentence("Nobody came.")])
    assert missing is None
    assert passive.tokens[-1] == "." and passive.labeler == "frames"
    driven = next(f for f in passive.frames if passive.tokens[f.verb] == "driven")
    assert (passive.text(driven.agent), passive.text(driven.patient)) == ("two men", "A car")
    assert passive.tags[driven.verb] == "VBN"  # tags come from spaCy's tagger over the given words


def test_build_with_frames(tmp_path):
    out, info = build(
        build_options(
            source=str(FIXTURES / "snli_roles.jsonl"),
            out=tmp_path / "out",
            variants=["shuffle-sr"],
            srl=f"frames:{FRAMES}",
        )
    )
    rows = {r["pair_id"]: r for r in pq.read_table(next((out / "shuffle-sr").glob("*.parquet"))).to_pylist()}
    assert {
        k: (r["swapped_side"], r["premise"] if r["swapped_side"] == "premise" else r["hypothesis"])
        for k, r in rows.items()
    } == {"rl2#0r1e": ("hypothesis", "A ball chases a dog.")}
    assert {r["labeler"] for r in rows.values()} == {"frames"}
    stats = info.configs[0].extra
    # rl4 "A man shaves himself." is a candidate that the reflexive filter drops; rl1's and rl6's premise swaps
    # are not grounded, the file holding no frames for their hypotheses
    assert (stats["candidates"], stats["filtered"], stats["final"]) == (4, 3, 1)
    assert stats["drop_reasons"] == {"reflexive_or_reciprocal": 1, "unlabeled_other_side": 2}
    # of the 10 sentences of entailment pairs, the file has frames for 5; the rest are counted, not guessed
    assert (stats["sentences_by_labeler"], stats["sentences_without_roles"]) == ({"frames": 5}, 5)


def test_a_malformed_frames_line_names_file_and_line(tmp_path):
    bad = tmp_path / "frames.jsonl"
    bad.write_text(
        json.dumps({"words": ["A", "dog"], "verbs": []})
        + "\n"
        + json.dumps({"words": ["A", "dog", "runs"], "verbs": [{"verb": "runs", "tags": ["O", "B-V"]}]})
        + "\n"
    )
    with pytest.raises(InputError, match=r"frames.jsonl:2: each verb needs one BIO tag per word"):
        FramesRoles(bad)
