"""The training and validation pairs are compared with the scored pairs up to case and white space, and the Flickr
images they share with them (an SNLI pairID before '#') are counted and recorded (issue 44, item 5)."""

from __future__ import annotations

import pytest

from swapbench.core.errors import SwapbenchError
from swapbench.evaluation.finetune import describe, refuse_scored, separate_from_scored
from swapbench.evaluation.scored_data import ScoredPairs, image_id, overlap_key
from swapbench.sources import Pair

SCORED_PREMISE = "A violinist in a green scarf tunes her instrument beside the fountain."


def pair(pair_id: str, premise: str, hypothesis: str = "Someone plays music outdoors.") -> Pair:
    return Pair(
        pair_id=pair_id,
        premise=premise,
        hypothesis=hypothesis,
        label="entailment",
        premise_parse=None,
        hypothesis_parse=None,
        path="fixture.jsonl",
        line=1,
    )


def scored(*pairs: Pair) -> ScoredPairs:
    return ScoredPairs(
        dataset="d" * 64,
        path="scored",
        pair_ids=frozenset(p.pair_id for p in pairs),
        premises=frozenset(overlap_key(p.premise) for p in pairs),
    )


def many(prefix: str, n: int, image: str = "9000000001.jpg") -> list[Pair]:
    return [
        pair(f"{image}#{i % 5}r{i}{prefix}", f"A courier on a tall unicycle carries parcel number {i}.")
        for i in range(n)
    ]


def test_the_image_is_the_pair_id_before_its_hash_mark():
    assert image_id("example-photo.jpg#4r1n") == "example-photo.jpg"
    assert image_id("example-photo.jpg#4") == "example-photo.jpg"
    assert image_id("snli-test-17") is None and image_id("#4r1n") is None


def test_a_premise_equal_to_a_scored_one_up_to_case_and_spaces_is_set_apart():
    target = scored(pair("fixture-photo-1.jpg#0r1e", SCORED_PREMISE))
    upper = pair("other-photo-1.jpg#0r1e", "a violinist in a GREEN scarf  tunes her instrument beside the fountain.")
    train = many("t", 200) + [upper]
    assert target.holds_premise(upper.premise) and not target.holds_premise("A violinist tunes her instrument.")
    info = describe(train, "fixture", "train", None, held_out=False)
    val = many("v", 3, "9000000002.jpg")
    kept, _, _, _, check = separate_from_scored(train, info, val, describe(val, "f", "validation", None, False), target)
    assert upper not in kept and len(kept) == 200
    assert check.train_set_apart == 1 and check.train_shared_pair_ids == check.train_shared_premises == 0
    assert "case folded" in check.method


def test_more_than_a_few_premises_shared_up_to_case_is_refused():
    target = scored(*many("s", 10))
    shouted = [pair(f"other-photo-2.jpg#{i}r1e", p.premise.upper()) for i, p in enumerate(many("s", 10))]
    with pytest.raises(SwapbenchError, match="10 a premise with a scored pair"):
        refuse_scored("validation", shouted, "fixture", "dev", target)


def test_the_images_shared_with_the_scored_pairs_are_counted_not_refused():
    target = scored(
        pair("fixture-photo-1.jpg#0r1e", SCORED_PREMISE),
        pair("fixture-photo-2.jpg#3r1c", SCORED_PREMISE),
        pair("fixture-photo-3.jpg#1r1n", SCORED_PREMISE),
    )
    train = many("t", 50) + [
        pair("fixture-photo-1.jpg#2r9e", "A street musician bows to a small crowd."),
        pair("fixture-photo-1.jpg#4r9n", "Two pigeons sit on a violin case."),
    ]
    val = [pair("fixture-photo-2.jpg#1r2e", "An old man feeds ducks by the pond."), *many("v", 3, "9000000002.jpg")]
    info = describe(train, "fixture", "train", None, held_out=False)
    kept, _, kept_val, _, check = separate_from_scored(
        train, info, val, describe(val, "f", "validation", None, False), target
    )
    assert kept == train and kept_val == val
    assert check.train_shared_images == 1 and check.validation_shared_images == 1
    assert check.clean


def test_hub_pair_ids_name_no_image():
    target = ScoredPairs(
        dataset="d" * 64,
        path="scored",
        pair_ids=frozenset({"snli-test-0", "snli-test-1"}),
        premises=frozenset({overlap_key(SCORED_PREMISE)}),
    )
    assert target.images == frozenset()
