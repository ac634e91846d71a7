"""Scoring a role labeler against hand-annotated sentences.

The gold file holds one sentence a line: {"text", "tree", "frames": [{"verb", "agent", "patient"}]}, with the
noun-phrase arguments of every verb that is not an auxiliary (None where a verb has none). Spans are compared as
text without spaces, so labelers that tokenize differently are scored alike.

- role precision/recall: over (verb, role, argument) triples;
- pick precision/recall: over the (verb, agent, patient) that Algorithm 1 would swap in each sentence,
  the first verb with both roles, which is what shuffle-sr actually uses.
"""

from __future__ import annotations

from pathlib import Path

from ..core.jsonl import read_file_objects
from ..core.text import squash
from .base import RoleLabeler, RoleParse, Sentence, is_auxiliary, swappable_frames


def read_gold(path: Path) -> list[dict]:
    return [row for _, row in read_file_objects(path)]


def _key(text: str | None) -> str | None:
    return None if text is None else squash(text)


def gold_triples(row: dict) -> set[tuple[str, str, str]]:
    return {(f["verb"], role, _key(f[role])) for f in row["frames"] for role in ("agent", "patient") if f[role]}


def gold_pick(row: dict) -> tuple[str, str, str] | None:
    for f in row["frames"]:
        if f["agent"] and f["patient"]:
            return f["verb"], _key(f["agent"]), _key(f["patient"])
    return None


def predicted_triples(parse: RoleParse | None) -> set[tuple[str, str, str]]:
    if parse is None:
        return set()
    found = set()
    for frame in parse.frames:
        verb = parse.tokens[frame.verb]
        if is_auxiliary(verb):
            continue
        for role in ("agent", "patient"):
            span = getattr(frame, role)
            if span is not None:
                found.add((verb, role, _key(parse.text(span))))
    return found


def predicted_pick(parse: RoleParse | None) -> tuple[str, str, str] | None:
    if parse is None:
        return None
    frames = swappable_frames(parse)
    if not frames:
        return None
    f = frames[0]
    return parse.tokens[f.verb], _key(parse.text(f.agent)), _key(parse.text(f.patient))


def score(labeler: RoleLabeler, gold: list[dict]) -> dict:
    parses = labeler.label_many([Sentence(row["text"], row.get("tree")) for row in gold])
    matched = predicted = expected = 0
    picks_right = picks_made = picks_expected = 0
    errors = []
    for row, parse in zip(gold, parses):
        want, got = gold_triples(row), predicted_triples(parse)
        matched += len(want & got)
        predicted += len(got)
        expected += len(want)
        want_pick, got_pick = gold_pick(row), predicted_pick(parse)
        picks_expected += want_pick is not None
        picks_made += got_pick is not None
        picks_right += got_pick is not None and got_pick == want_pick
        if want_pick != got_pick:
            errors.append({"text": row["text"], "gold": want_pick, "predicted": got_pick})
    return {
        "labeler": labeler.name,
        "sentences": len(gold),
        "role_precision": matched / predicted if predicted else 0.0,
        "role_recall": matched / expected if expected else 0.0,
        "pick_precision": picks_right / picks_made if picks_made else 0.0,
        "pick_recall": picks_right / picks_expected if picks_expected else 0.0,
        "roles": {"matched": matched, "predicted": predicted, "gold": expected},
        "picks": {"right": picks_right, "made": picks_made, "gold": picks_expected},
        "pick_errors": errors,
    }
