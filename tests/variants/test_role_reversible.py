"""shuffle-sr-reversible: animate agent-patient frames written as an entailed hypothesis and its reversal."""

from __future__ import annotations

import json

import datasets
import pyarrow.parquet as pq
import pytest
from roles_helpers import FIXTURES

from swapbench.dataset.card import read_validities, write_card
from swapbench.dataset.pipeline import build, build_options
from swapbench.results.build_record import BuildInfo
from swapbench.roles.animacy import animacy, being
from swapbench.roles.base import Frame, RoleParse, Span
from swapbench.variants import DEFAULT_VARIANTS
from swapbench.variants.role_reversible import REASONS, ReversibleRoles, review_reversible

SOURCE = FIXTURES / "snli_reversible.jsonl"


def parse(tagged: str, verb: int, agent: tuple[int, int], patient: tuple[int, int] | None) -> tuple[RoleParse, Frame]:
    """`tagged` is "word/TAG word/TAG ..."; spans are token ranges."""
    words, tags = zip(*(item.rsplit("/", 1) for item in tagged.split()))
    frame = Frame(verb, Span(*agent), Span(*patient) if patient else None)
    return RoleParse(tuple(words), tuple(tags), (frame,), "hand"), frame


@pytest.mark.parametrize(
    "tagged, verb, agent, patient, entailed, reversal",
    [
        (
            "A/DT man/NN pushes/VBZ a/DT woman/NN ./.",
            2,
            (0, 2),
            (3, 5),
            "A man pushes a woman .",
            "A woman pushes a man .",
        ),
        # a participle is written as a progressive; the verb agrees with its new subject
        (
            "Two/CD men/NNS carrying/VBG a/DT boy/NN ./.",
            2,
            (0, 2),
            (3, 5),
            "Two men are carrying a boy .",
            "A boy is carrying two men .",
        ),
        (
            "Two/CD girls/NNS feed/VBP a/DT horse/NN ./.",
            2,
            (0, 2),
            (3, 5),
            "Two girls feed a horse .",
            "A horse feeds two girls .",
        ),
        # a pronoun takes the case of its new slot; a passive keeps its "by"
        ("She/PRP watches/VBZ him/PRP ./.", 1, (0, 1), (2, 3), "She watches him .", "He watches her ."),
        (
            "A/DT baby/NN is/VBZ held/VBN by/IN a/DT woman/NN ./.",
            3,
            (5, 7),
            (0, 2),
            "A baby is held by a woman .",
            "A woman is held by a baby .",
        ),
    ],
)
def test_an_animate_frame_gives_its_hypothesis_and_the_reversal(tagged, verb, agent, patient, entailed, reversal):
    roles, frame = parse(tagged, verb, agent, patient)
    written, reason = review_reversible(roles, frame, "premise")
    assert reason is None
    assert (written.entailed, written.reversal) == (entailed, reversal)


@pytest.mark.parametrize(
    "reason, tagged, verb, agent, patient",
    [
        ("symmetric_predicate", "A/DT man/NN hugs/VBZ a/DT woman/NN ./.", 2, (0, 2), (3, 5)),
        ("symmetric_predicate", "A/DT man/NN marries/VBZ a/DT woman/NN ./.", 2, (0, 2), (3, 5)),
        # passing on foot is passing each other
        ("symmetric_predicate", "Two/CD women/NNS pass/VBP three/CD men/NNS ./.", 2, (0, 2), (3, 5)),
        ("symmetric_predicate", "A/DT boy/NN is/VBZ passing/VBG a/DT girl/NN ./.", 3, (0, 2), (4, 6)),
        # the reversal of a frame with no one in particular is about as true as the frame
        ("indefinite_argument", "A/DT boy/NN follows/VBZ someone/NN ./.", 2, (0, 2), (3, 4)),
        ("indefinite_argument", "Somebody/NN is/VBZ carrying/VBG a/DT child/NN ./.", 2, (0, 1), (3, 5)),
        ("indefinite_argument", "A/DT man/NN pushes/VBZ no/DT one/NN ./.", 2, (0, 2), (3, 5)),
        ("reciprocal_with", "A/DT man/NN works/VBZ with/IN a/DT woman/NN ./.", 2, (0, 2), (4, 6)),
        # an inanimate argument on either side keeps the frame out
        ("patient_not_animate", "A/DT man/NN holds/VBZ a/DT cup/NN ./.", 2, (0, 2), (3, 5)),
        ("patient_not_animate", "A/DT girl/NN holds/VBZ a/DT stuffed/JJ cat/NN ./.", 2, (0, 2), (3, 6)),
        ("agent_not_animate", "A/DT bus/NN carries/VBZ two/CD men/NNS ./.", 2, (0, 2), (3, 5)),
        ("not_asserted", "A/DT man/NN tries/VBZ to/TO catch/VB a/DT boy/NN ./.", 4, (0, 2), (5, 7)),
        ("double_object", "A/DT girl/NN hands/VBZ her/PRP$ sister/NN a/DT cup/NN ./.", 2, (0, 2), (3, 5)),
        ("indistinct_arguments", "A/DT man/NN kicks/VBZ another/DT man/NN ./.", 2, (0, 2), (3, 5)),
    ],
)
def test_unfit_frames_are_dropped_with_their_reason(reason, tagged, verb, agent, patient):
    roles, frame = parse(tagged, verb, agent, patient)
    assert review_reversible(roles, frame, "premise") == (None, reason)
    assert reason in REASONS


@pytest.mark.parametrize(
    "tagged, span, expected",
    [
        ("a/DT man/NN in/IN a/DT shirt/NN and/CC jeans/NNS", (0, 7), "animate"),
        ("a/DT man/NN and/CC a/DT dog/NN", (0, 5), "animate"),
        ("a/DT man/NN and/CC a/DT car/NN", (0, 5), "unknown"),
        ("a/DT group/NN of/IN people/NNS", (0, 4), "animate"),
        ("two/CD firemen/NNS", (0, 2), "animate"),
        ("a/DT hot/JJ dog/NN", (0, 3), "inanimate"),
        ("a/DT ladder/NN", (0, 2), "unknown"),  # "-er": a doer's noun or a thing, not guessed
        ("a/DT cup/NN", (0, 2), "inanimate"),
        ("Paris/NNP", (0, 1), "unknown"),
        ("him/PRP", (0, 1), "animate"),
        ("it/PRP", (0, 1), "inanimate"),
    ],
)
def test_animacy_of_an_argument(tagged, span, expected):
    words, tags = zip(*(item.rsplit("/", 1) for item in tagged.split()))
    assert animacy(RoleParse(tuple(words), tuple(tags), (), "hand"), Span(*span)) == expected


@pytest.mark.parametrize(
    "tagged, span, expected",
    [
        ("a/DT man/NN", (0, 2), "person"),
        ("three/CD brown/JJ goats/NNS", (0, 3), "animal"),
        ("a/DT pony/NN", (0, 2), "animal"),
        ("she/PRP", (0, 1), "person"),
        ("a/DT man/NN and/CC a/DT dog/NN", (0, 5), "mixed"),
        ("a/DT cup/NN", (0, 2), None),
    ],
)
def test_what_an_animate_argument_names(tagged, span, expected):
    words, tags = zip(*(item.rsplit("/", 1) for item in tagged.split()))
    assert being(RoleParse(tuple(words), tuple(tags), (), "hand"), Span(*span)) == expected


def test_build_on_hand_written_pairs(tmp_path):
    assert "shuffle-sr-reversible" in DEFAULT_VARIANTS
    out, info = build(build_options(source=str(SOURCE), out=tmp_path / "out", variants=["shuffle-sr-reversible"]))
    table = pq.read_table(next((out / "shuffle-sr-reversible").glob("*.parquet")))
    rows = {row["pair_id"]: row for row in table.to_pylist()}
    # rv2 hugs (symmetric), rv3 holds a cup (inanimate); rv6's hypothesis restates its premise's frame
    assert set(rows) == {"rv1#0r1n", "rv4#0r1c", "rv5#0r1e", "rv6#0r1e", "rv7#0r1n", "rv8#0r1e"}
    for row in rows.values():  # ClassLabel indices: entailment 0, neutral 1; binary: non-entailment 1
        assert (row["original_label"], row["label"], row["binary_label"]) == (0, 1, 1)
        assert row["premise"] == row["original_premise"]
        assert "animacy:animate-animate" in row["tags"]
    pushed = rows["rv1#0r1n"]  # a neutral pair's premise: the row is about the premise, not that pair's hypothesis
    assert (pushed["original_hypothesis"], pushed["hypothesis"]) == ("A man pushes a woman.", "A woman pushes a man.")
    assert pushed["tags"][:2] == ["side:premise", "construction:active"]
    participle = rows["rv4#0r1c"]
    assert (participle["original_hypothesis"], participle["hypothesis"]) == (
        "A girl is holding a puppy.",
        "A puppy is holding a girl.",
    )
    assert "construction:participial" in participle["tags"]
    assert "beings:person-animal" in participle["tags"] and "beings:person-person" in pushed["tags"]
    assert rows["rv5#0r1e"]["hypothesis"] == "A boy is carrying two men."
    assert "prepositional" in rows["rv7#0r1n"]["tags"]
    assert rows["rv7#0r1n"]["hypothesis"] == "A girl is looking at a boy."
    seen = rows["rv8#0r1e"]  # the frame of an entailment hypothesis, which the premise entails
    assert (seen["frame_side"], seen["original_hypothesis"]) == ("hypothesis", "A woman is watching a man.")

    extra = info.configs[0].extra
    assert extra["final"] == 6
    assert extra["drop_reasons"]["symmetric_predicate"] == 1
    assert extra["drop_reasons"]["patient_not_animate"] >= 1
    assert extra["drop_reasons"]["duplicate_relation"] == 1
    card = (out / "README.md").read_text()
    assert "| `symmetric_predicate` | 1 |" in card
    assert "not contradiction" in card and "animacy:A-P" in card
    assert "| `beings:A-P` |" in card and "often implausible" in card
    assert "| `indefinite_argument` | 0 |" in card


def test_the_card_reads_the_configurations_own_validity_file(tmp_path, monkeypatch):
    out, info = build(build_options(source=str(SOURCE), out=tmp_path / "out", variants=["shuffle-sr-reversible"]))
    features = {
        "shuffle-sr-reversible": datasets.load_dataset(str(out), "shuffle-sr-reversible", split="test").features
    }
    config = info.configs[0]
    monkeypatch.setattr(ReversibleRoles, "validity_file", tmp_path / "absent.json")
    write_card(out, info, features)
    assert "## Validity of shuffle-sr-reversible's labels" in (out / "README.md").read_text()
    assert "Validity was not measured for this build" in (out / "README.md").read_text()

    judged = tmp_path / "reversible-validity.json"
    judged.write_text(
        json.dumps(
            {
                "judged": 100,
                "valid": 97,
                "validity": 0.97,
                "low": 0.915,
                "high": 0.99,
                "interval": "Wilson score, 95%",
                "command": "python draw.py",
                "build_fingerprint": config.fingerprint,
                "sample": [],
                "criterion": "the premise entails the original and not the reversal",
            }
        )
    )
    monkeypatch.setattr(ReversibleRoles, "validity_file", judged)
    assert read_validities(BuildInfo.model_validate(info.model_dump()))["shuffle-sr-reversible"]["valid"] == 97
    write_card(out, info, features)
    card = (out / "README.md").read_text()
    assert (
        "97 of 100 judged rows are valid (the premise entails the original and not the reversal): validity "
        "0.970 (95% interval 0.915 to 0.990); measured with `python draw.py`."
    ) in card
    assert "Validity was not measured" not in card and "judged on a build whose" not in card
