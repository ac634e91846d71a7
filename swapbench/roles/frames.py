"""Precomputed semantic-role frames, in the output format of AllenNLP's SRL predictor.

One JSON object a line: {"words": [...], "verbs": [{"verb": "pulls", "tags": ["B-ARG0", "I-ARG0", "B-V", ...]}]},
as `allennlp predict structured-prediction-srl-bert ...` writes them. Whoever can run AllenNLP (it does not
install on current Python) computes the frames there and feeds them in, reproducing the reference paper's roles.

A sentence is matched to its frames by its characters without whitespace, so the tokenization may differ.
Part-of-speech tags, which the frames lack, come from spaCy's tagger run over the given words.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import InputError
from ..core.jsonl import read_file_objects
from ..core.registry import LABELERS
from ..core.text import squash
from .base import Frame, RoleLabeler, RoleParse, Sentence, Span, trimmed
from .spacy_roles import is_punct

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc


def read_frames(path: Path) -> dict[str, dict]:
    """The file's frames by squashed sentence (text.squash); a malformed line is an InputError naming file and line."""
    found: dict[str, dict] = {}
    for number, row in read_file_objects(path):
        words, verbs = row.get("words"), row.get("verbs")
        if not isinstance(words, list) or not isinstance(verbs, list) or not all(isinstance(w, str) for w in words):
            raise InputError('expected {"words": [...], "verbs": [...]}', path=str(path), line=number)
        for verb in verbs:
            tags = verb.get("tags") if isinstance(verb, dict) else None
            if not isinstance(tags, list) or len(tags) != len(words):
                raise InputError("each verb needs one BIO tag per word", path=str(path), line=number)
        found[squash(" ".join(words))] = row
    return found


def bio_spans(tags: list[str]) -> dict[str, Span]:
    """The first span of each role in a BIO sequence: {"ARG0": Span, "V": Span, ...}."""
    spans: dict[str, Span] = {}
    role, start = None, 0
    for i, tag in enumerate([*tags, "O"]):
        continues = role is not None and tag == f"I-{role}"
        if role is not None and not continues:
            spans.setdefault(role, Span(start, i))
            role = None
        if tag.startswith("B-") or (tag.startswith("I-") and role is None):  # a stray I- opens a span too
            role, start = tag[2:], i
    return spans


class FramesRoles(RoleLabeler):
    name = "frames"

    def __init__(self, path: Path, nlp: Language | None = None, spacy_model: str | None = None):
        self.path = Path(path)
        self.frames = read_frames(self.path)
        self._nlp = nlp
        self._spacy_model = spacy_model

    @property
    def spacy_pipeline(self) -> str | None:
        from ..parsing.spacy_pipeline import pipeline_version

        return pipeline_version(self._nlp) if self._nlp is not None else None  # loaded only to tag stored frames

    def label_many(self, sentences: list[Sentence]) -> list[RoleParse | None]:
        return [self.label(s) for s in sentences]

    def label(self, sentence: Sentence) -> RoleParse | None:
        row = self.frames.get(squash(sentence.text))
        if row is None:
            return None
        words = row["words"]
        doc = self._tag(words)
        punct = [is_punct(t) for t in doc]
        frames = []
        for verb in row["verbs"]:
            spans = bio_spans(verb["tags"])
            if "V" not in spans:
                continue
            agent = spans.get("ARG0")
            if agent is not None and words[agent.start].lower() == "by" and len(agent) > 1:
                agent = Span(agent.start + 1, agent.end)  # a passive's "by" stays where it is
            frames.append(Frame(spans["V"].start, trimmed(agent, punct), trimmed(spans.get("ARG1"), punct)))
        frames.sort(key=lambda f: f.verb)
        return RoleParse(tuple(words), tuple(t.tag_ for t in doc), tuple(frames), self.name)

    def _tag(self, words: list[str]) -> Doc:
        from spacy.tokens import Doc

        from ..parsing.spacy_pipeline import load_english

        if self._nlp is None:
            self._nlp = load_english(self._spacy_model)
        doc = Doc(self._nlp.vocab, words=words)
        for name, pipe in self._nlp.pipeline:
            if name != "parser":
                doc = pipe(doc)
        return doc


@LABELERS.register(
    "frames:FILE",
    pattern=r"frames:(?P<file>.+)",
    help="precomputed frames in AllenNLP's SRL output format (JSON lines), e.g. the reference "
    "paper's structured-prediction-srl-bert run elsewhere",
)
def frames_labeler(spec: str, spacy_model: str | None = None) -> FramesRoles:
    return FramesRoles(Path(spec[len("frames:") :]), spacy_model=spacy_model)
