"""The Berkeley Neural Parser (Kitaev & Klein), as the reference paper used it: spaCy tokens, benepar trees.

benepar 0.2 needs transformers<5, so it lives in an optional extra and its own environment.
A model is a name installed with `benepar.download` (looked up in NLTK's data folders) or the path of a model
folder in benepar's release format (config.json, tokenizer files, benepar_model.bin).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from ..core.errors import SwapbenchError
from ..core.fingerprint import file_sha256
from ..core.registry import PARSERS
from .base import ConstituencyParser, MalformedInput, Parse
from .ptb import parse_tree
from .spacy_pipeline import pipeline_version, spacy_docs

DEFAULT_MODEL = "benepar_en3"


def import_benepar():
    try:
        import benepar
    except ImportError as err:
        raise SwapbenchError(
            "the benepar parser is not installed: `pip install 'swapbench[benepar]'` in an "
            f"environment with transformers<5, e.g. `make setup-benepar` ({err})"
        ) from err
    return benepar


def model_id(model: str) -> str:
    """A model name as given; a model folder as its name and a hash of its weights, so that cached parses
    of a retrained model at the same path are not reused."""
    weights = Path(model) / "benepar_model.bin"
    if not weights.is_file():
        return model
    return f"{Path(model).resolve().name}-{file_sha256(weights)[:12]}"


class BeneparParser(ConstituencyParser):
    name = "benepar"

    def __init__(self, model: str = DEFAULT_MODEL, spacy_model: str | None = None, batch_size: int = 64):
        benepar = import_benepar()
        self._benepar = benepar
        try:
            self._parser = benepar.Parser(model, batch_size=batch_size)
        except LookupError as err:
            if "/" in model or "." in model:  # benepar looks up in NLTK's data only names without "/" or "."
                raise SwapbenchError(f"no benepar model folder at {model}") from err
            raise SwapbenchError(
                f"benepar model {model!r} is not installed: run "
                f"`python -c \"import benepar; benepar.download('{model}')\"` "
                "or pass the path of a model folder"
            ) from err
        except (OSError, AttributeError, KeyError, ValueError, RuntimeError) as err:
            raise SwapbenchError(
                f"could not load the benepar model {model!r} (a folder needs config.json with a "
                f"'benepar' entry, the tokenizer files and benepar_model.bin): {err}"
            ) from err
        self.model = model_id(model)
        self.nlp = spacy_docs(spacy_model).nlp  # benepar reads spaCy's tokens; the build's shared pipeline

    @cached_property  # the parse cache asks for it on every row, and spaCy computes `meta` on each access
    def version(self) -> str:
        from importlib.metadata import version

        meta = self.nlp.meta
        return f"benepar-{version('benepar')}/{self.model}/tokenizer-{meta['name']}-{meta['version']}"

    @property
    def spacy_pipeline(self) -> str:
        return pipeline_version(self.nlp)

    def parse_many(self, inputs: list[str]) -> list[Parse]:
        sentences = []
        for index, doc in enumerate(self.nlp.tokenizer.pipe(inputs)):
            # spaCy keeps runs of extra whitespace as tokens; the parser would take them for words.
            words = [t for t in doc if not t.is_space]
            if not words:
                raise MalformedInput(index, "empty sentence")
            space_after = [bool(t.whitespace_) or (t.i + 1 < len(doc) and doc[t.i + 1].is_space) for t in words]
            sentences.append(self._benepar.InputSentence(words=[t.text for t in words], space_after=space_after))
        return [parse_tree(tree) for tree in self._parser.parse_sents(sentences)]


@PARSERS.register(
    "benepar",
    help="the Berkeley Neural Parser over spaCy's tokens, as the reference paper used it "
    "(optional extra; --benepar-model)",
)
def make_benepar(spacy_model: str | None = None, benepar_model: str | None = None, **options) -> BeneparParser:
    return BeneparParser(benepar_model or DEFAULT_MODEL, spacy_model=spacy_model)
