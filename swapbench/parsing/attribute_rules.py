"""spaCy's attribute ruler applied by table lookup: the same token annotations in a fifth of the time.

The attribute ruler, the last component of spaCy's English pipelines, sets each token's coarse part of speech,
morphology and some lemmas from about 180 rules run through spaCy's Matcher; on SNLI premises it takes a third of
the pipeline's time. Every rule of en_core_web_sm tests one or two tokens' tag, lower-case form, dependency or
whitespace for equality, membership, non-membership or a regular expression. So the rules whose first token
matches a token depend only on those few values of that token: they are found once per distinct combination of
values, among the rules that name one of its values (or name none).

They are applied as the ruler applies them: every match is found on the Doc as the parser left it, then the
matched tokens take each rule's attributes in rule order, later rules winning.

`compile_rules` returns None for a ruler that has anything else, such as operators, other token attributes or
predicates, or attributes that are not a token's own; the pipeline's ruler then runs.
tests/test_attribute_rules.py checks, token by token, that both give the same annotations.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

# The token values a rule may test, as pattern keys, and the Doc.to_array column each is read from.
READ = ("TAG", "LOWER", "DEP", "IS_SPACE", "ORTH")
KEY_COLUMN = {"TAG": 0, "LOWER": 1, "DEP": 2, "IS_SPACE": 3, "ORTH": 4, "TEXT": 4}
# What a rule may set: the token's own annotations, which no other token shares (unlike a lexeme's attributes),
# so that tokens can be annotated one at a time. The first three are written as Doc columns.
WRITTEN = ("POS", "LEMMA", "MORPH")
SETTABLE = frozenset({*WRITTEN, "TAG", "DEP"})

Values = tuple[int, ...]  # a token's READ values: string ids, 0/1 for IS_SPACE


@dataclass(frozen=True)
class TokenTest:
    """What one token of a pattern asks: every part holds. A part is (column, "in" or "not in", value ids), or
    (column, "regex", compiled expression), searched in the value's text as spaCy's Matcher does."""

    parts: tuple[tuple[int, str, object], ...]
    strings: object = field(compare=False, repr=False)

    def __call__(self, values: Values) -> bool:
        for column, kind, argument in self.parts:
            value = values[column]
            if kind == "in":
                if value not in argument:
                    return False
            elif kind == "not in":
                if value in argument:
                    return False
            elif not argument.search(self.strings[value]):
                return False
        return True

    def anchor(self) -> tuple[int, frozenset[int]] | None:
        """A column and the values it must have, when the test names them: tokens are looked up by them."""
        return next(((column, argument) for column, kind, argument in self.parts if kind == "in"), None)


@dataclass(frozen=True)
class Pattern:
    rule: int  # the rule's number: later rules win
    index: int  # which of the matched tokens the rule annotates
    tokens: tuple[TokenTest, ...]


class AttributeRules:
    """The compiled rules of one AttributeRuler; call it on a Doc that the ruler has not annotated."""

    def __init__(self, name: str, patterns: list[Pattern], attrs: list[dict[int, int]]):
        from spacy.attrs import IDS

        self.name = name  # the pipeline component these rules replace
        self._attrs = attrs  # each rule's attributes, as the ruler normalised them
        self._read = [IDS[key] for key in READ]
        self._written = [IDS[key] for key in WRITTEN]
        self._column = {IDS[key]: k for k, key in enumerate(WRITTEN)}
        # Patterns by a value their first token must have; those that name none are tried on every token.
        self._by_value: dict[tuple[int, int], list[Pattern]] = defaultdict(list)
        self._everywhere: list[Pattern] = []
        for pattern in patterns:
            anchor = pattern.tokens[0].anchor()
            if anchor is None:
                self._everywhere.append(pattern)
            else:
                for value in anchor[1]:
                    self._by_value[anchor[0], value].append(pattern)
        # A token's values -> the single-token rules that match it (in rule order), their attributes merged in
        # that order, and the patterns of several tokens whose first token it matches.
        self._found: dict[Values, tuple[list[int], dict[int, int], list[Pattern]]] = {}

    def _lookup(self, values: Values) -> tuple[list[int], dict[int, int], list[Pattern]]:
        found = self._found.get(values)
        if found is None:
            candidates = list(self._everywhere)
            for column, value in enumerate(values):
                candidates += self._by_value.get((column, value), ())
            matched = [p for p in candidates if p.tokens[0](values)]
            rules = sorted({p.rule for p in matched if len(p.tokens) == 1})
            starts = [p for p in matched if len(p.tokens) > 1]
            found = self._found[values] = (rules, self._merged(rules), starts)
        return found

    def _merged(self, rules: list[int]) -> dict[int, int]:
        merged: dict[int, int] = {}
        for rule in rules:
            merged.update(self._attrs[rule])
        return merged

    def __call__(self, doc: Doc) -> Doc:
        from spacy.tokens._retokenize import set_token_attrs

        rows = [tuple(row) for row in doc.to_array(self._read).tolist()]
        found = [self._lookup(row) for row in rows]
        more: dict[int, set[int]] = {}  # token -> the rules of several tokens that annotate it
        for start, (_, _, starts) in enumerate(found):
            for pattern in starts:
                end = start + len(pattern.tokens)
                if end <= len(rows) and all(
                    test(rows[k]) for k, test in zip(range(start + 1, end), pattern.tokens[1:])
                ):
                    index = pattern.index
                    more.setdefault(start + index if index >= 0 else end + index, set()).add(pattern.rule)
        values = doc.to_array(self._written)
        others = []  # tokens that a rule gives a tag or dependency: set one by one, as the ruler does
        for i, (rules, merged, _) in enumerate(found):
            if i in more:
                merged = self._merged(sorted(more[i].union(rules)))
            for attr, value in merged.items():
                column = self._column.get(attr)
                if column is None:
                    others.append((i, merged))
                    break
                values[i, column] = value
        doc.from_array(self._written, values)
        for i, merged in others:
            set_token_attrs(doc[i], merged)
        return doc


def compile_rules(nlp: Language) -> AttributeRules | None:
    """The attribute ruler of `nlp` as AttributeRules, when it is the last component and every rule is of the
    kind described above; else None."""
    from spacy.attrs import IDS
    from spacy.pipeline import AttributeRuler

    if not nlp.pipeline:
        return None
    name, ruler = nlp.pipeline[-1]
    if not isinstance(ruler, AttributeRuler):
        return None
    strings = nlp.vocab.strings
    settable = {IDS[key] for key in SETTABLE}
    patterns = []
    for rule, entry in enumerate(ruler.patterns):
        if set(ruler.attrs[rule]) - settable:
            return None
        for pattern in entry["patterns"]:
            tests = [_token_test(token, strings) for token in pattern]
            if not tests or None in tests:
                return None
            patterns.append(Pattern(rule, ruler.indices[rule], tuple(tests)))
    return AttributeRules(name, patterns, [dict(attrs) for attrs in ruler.attrs])


def _token_test(token: dict, strings) -> TokenTest | None:
    """One pattern token as a TokenTest; None if a part of it is not supported."""
    parts = []
    for key, wanted in token.items():
        column = KEY_COLUMN.get(key)
        part = None if column is None else _part(column, key, wanted, strings)
        if part is None:
            return None
        parts.append(part)
    return TokenTest(tuple(parts), strings)


def _part(column: int, key: str, wanted, strings) -> tuple[int, str, object] | None:
    if key == "IS_SPACE":
        return (column, "in", frozenset({int(wanted)})) if isinstance(wanted, bool) else None
    if isinstance(wanted, str):
        return column, "in", frozenset({strings.add(wanted)})
    if isinstance(wanted, dict) and len(wanted) == 1:
        ((predicate, argument),) = wanted.items()
        if predicate in ("IN", "NOT_IN") and all(isinstance(x, str) for x in argument):
            # "" is the id 0, as in the Matcher: no value
            return column, predicate.lower().replace("_", " "), frozenset(strings.add(x) for x in argument)
        if predicate == "REGEX" and isinstance(argument, str):
            return column, "regex", re.compile(argument)
    return None
