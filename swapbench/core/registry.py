"""One registry per extension point: sources, variants, parsers, labelers, zoo encodings, encoding families.

An extension is one module and one registration. A variant registers its class, which declares what it takes
and writes (swapbench/variants/base.py: its options, columns, tags, card sections):

    from swapbench.core.registry import VARIANTS
    from swapbench.variants.base import Perturbed, Variant

    @VARIANTS.register("shuffle-reverse", help="every premise read backwards")
    class Reverse(Variant):
        name = "shuffle-reverse"
        description = "premise tokens in reverse order; label unchanged"

        def apply(self, pair, parse, rng):
            order = list(range(len(parse.tokens)))[::-1]
            return Perturbed(" ".join(parse.tokens[k] for k in order), pair.hypothesis, pair.label, order, [])

The command line builds its choices and help from the registries when it is called, so an entry registered by
any imported module (a test's, a user's) appears there with no edit to the package. A name may also be a family
of names matched by a pattern (`shuffle-N`). This module sits at the bottom: it imports nothing of the package
but the error type.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Generic, Iterator, TypeVar

from .errors import SwapbenchError

T = TypeVar("T")


@dataclass(frozen=True)
class Entry(Generic[T]):
    name: str  # the name users type; for a pattern entry, its display form (e.g. "shuffle-N")
    value: T  # what was registered: a factory, a class or a declaration
    help: str = ""
    pattern: re.Pattern | None = None  # set for a family of names


@dataclass
class Registry(Generic[T]):
    kind: str  # what an entry is, for messages: "variant", "source", ...
    option: str = ""  # the command-line option that names entries, for messages: "--variants"
    _entries: dict[str, Entry[T]] = field(default_factory=dict)

    def register(self, name: str, *, help: str = "", pattern: str | None = None) -> Callable[[T], T]:
        """Decorator form of `add`; returns what it decorates unchanged."""
        def decorate(value: T) -> T:
            self.add(name, value, help=help, pattern=pattern)
            return value
        return decorate

    def add(self, name: str, value: T, *, help: str = "", pattern: str | None = None) -> None:
        if name in self._entries:
            raise SwapbenchError(f"{self.kind} {name!r} is registered twice")
        compiled = re.compile(pattern) if pattern else None
        self._entries[name] = Entry(name, value, help, compiled)

    def remove(self, name: str) -> None:
        """Undo a registration (tests that register toys clean up with it)."""
        self._entries.pop(name, None)

    def lookup(self, name: str) -> tuple[Entry[T], re.Match | None]:
        """The entry named `name`, with the pattern's match for a family; a clear error for an unknown name."""
        if name in self._entries and self._entries[name].pattern is None:
            return self._entries[name], None
        for entry in self._entries.values():
            match = entry.pattern.fullmatch(name) if entry.pattern else None
            if match:
                return entry, match
        where = f"{self.option}: " if self.option else ""
        raise SwapbenchError(f"{where}unknown {self.kind} {name!r}: expected one of {', '.join(self.names())}")

    def get(self, name: str) -> T:
        return self.lookup(name)[0].value

    def __contains__(self, name: str) -> bool:
        try:
            self.lookup(name)
        except SwapbenchError:
            return False
        return True

    def names(self) -> list[str]:
        return list(self._entries)

    def __iter__(self) -> Iterator[Entry[T]]:
        return iter(list(self._entries.values()))

    def help_text(self) -> str:
        """`name: help` for every entry, for argparse help."""
        return "; ".join(f"{e.name}: {e.help}" if e.help else e.name for e in self)


SOURCES: Registry = Registry("source", "--source")
VARIANTS: Registry = Registry("variant", "--variants")
PARSERS: Registry = Registry("constituency parser", "--parser")
LABELERS: Registry = Registry("role labeler", "--srl")
ENCODINGS: Registry = Registry("zoo encoding", "--encodings")
FAMILIES: Registry = Registry("positional-encoding family")
