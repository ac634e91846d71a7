"""One registry per extension point: sources, variants, parsers, labelers, zoo encodings, encoding families,
scorers, prompt templates.

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
of names matched by a pattern (`shuffle-N`). An installed package of a user's own adds entries by entry point in the
registry's `group` (core/plugins.py), loaded the first time the registry is listed or looked up. This module sits
at the bottom: it imports nothing of the package but the error type and the plugin loader.

A registry checks what it is given. The module that defines what its entries are (variants/base.py the Variant,
parsing/base.py the ConstituencyParser, ...) says so once, `VARIANTS.accepts(Variant, "class or factory")`; from
then on a registration of anything else (and any entry registered before, checked then) raises a RegistrationError
naming the entry and what it is, and `make(name, ...)` checks that a factory made what the registry holds, so that
a wrong entry is refused where it is registered rather than failing far away when a command runs it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from .errors import SwapbenchError
from .plugins import load_plugins

T = TypeVar("T")

# What an entry may be: an instance of the registry's base type (a declaration), a subclass of it, or either a
# subclass or a factory (a function, or any callable that is not a class) that makes an instance.
Form = Literal["instance", "class", "class or factory"]


class RegistrationError(SwapbenchError):
    """A registration of the wrong kind of object, or a factory that made the wrong kind."""


def _what(value: object) -> str:
    """How a message names what was registered: 'the class Foo', 'the function make', 'an int (3)'."""
    if isinstance(value, type):
        return f"the class {value.__module__}.{value.__qualname__}"
    if callable(value) and hasattr(value, "__qualname__"):
        return f"the function {getattr(value, '__module__', '?')}.{value.__qualname__}"
    text = repr(value)
    return f"a {type(value).__name__} ({text if len(text) <= 60 else text[:57] + '...'})"


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
    group: str = ""  # the entry-point group of its plugins: "swapbench.variants"; none when empty
    _entries: dict[str, Entry[T]] = field(default_factory=dict)
    _plugins_loaded: bool = False
    _plugin_error: SwapbenchError | None = None
    _base: type | None = None  # what entries must be, once `accepts` is called: instances, subclasses, ...
    _form: Form = "instance"

    def accepts(self, base: type, form: Form) -> None:
        """Declare what entries must be: `base` instances, `base` subclasses, or subclasses or factories of `base`
        instances. Called by the module that defines `base`, where it is defined; entries registered before are
        checked now."""
        self._base, self._form = base, form
        for entry in self._entries.values():
            self._check(entry.name, entry.value)

    def expected(self) -> str:
        """What an entry must be, in words; "anything" before `accepts`."""
        if self._base is None:
            return "anything"
        base = self._base.__name__
        return {
            "instance": f"a {base}",
            "class": f"a subclass of {base}",
            "class or factory": f"a subclass of {base} or a function that makes a {base}",
        }[self._form]

    def _check(self, name: str, value: object) -> None:
        base, form = self._base, self._form
        if base is None:
            return
        is_class = isinstance(value, type)
        fits = (
            isinstance(value, base)
            if form == "instance"
            else is_class and issubclass(value, base)
            if form == "class"
            else (is_class and issubclass(value, base)) or (callable(value) and not is_class)
        )
        if not fits:
            raise RegistrationError(
                f"{self.kind} {name!r}: registered {_what(value)}, but a {self.kind} is {self.expected()}"
            )

    def load_plugins(self) -> None:
        """Load the group's plugins, once; every listing and lookup calls it, registering never does, so that a
        plugin's own registrations do not load it again. A plugin that failed fails every later listing too: a
        registry missing a plugin's entries would otherwise pass for a whole one."""
        if self._plugin_error is not None:
            raise self._plugin_error
        if self._plugins_loaded or not self.group:
            return
        self._plugins_loaded = True  # set first: a plugin that lists this registry while loading does not recurse
        try:
            load_plugins(self.group)
        except SwapbenchError as err:
            self._plugin_error = err
            raise

    def register(self, name: str, *, help: str = "", pattern: str | None = None) -> Callable[[T], T]:
        """Decorator form of `add`; returns what it decorates unchanged."""

        def decorate(value: T) -> T:
            self.add(name, value, help=help, pattern=pattern)
            return value

        return decorate

    def add(self, name: str, value: T, *, help: str = "", pattern: str | None = None) -> None:
        if name in self._entries:
            raise SwapbenchError(f"{self.kind} {name!r} is registered twice")
        self._check(name, value)
        compiled = re.compile(pattern) if pattern else None
        self._entries[name] = Entry(name, value, help, compiled)

    def remove(self, name: str) -> None:
        """Undo a registration (tests that register toys clean up with it)."""
        self._entries.pop(name, None)

    def lookup(self, name: str) -> tuple[Entry[T], re.Match | None]:
        """The entry named `name`, with the pattern's match for a family; a clear error for an unknown name."""
        self.load_plugins()
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

    def make(self, name: str, *args, **kwargs):
        """Call the entry `name` (a class or a factory) with the arguments given, and check that it made an
        instance of the registry's base type."""
        return self.made(name, self.get(name)(*args, **kwargs))

    def made(self, name: str, product):
        """`product`, what the entry `name` made, once checked to be an instance of the registry's base type."""
        if self._base is not None and not isinstance(product, self._base):
            raise RegistrationError(f"{self.kind} {name!r} made {_what(product)}, not a {self._base.__name__}")
        return product

    def __contains__(self, name: str) -> bool:
        try:
            self.lookup(name)
        except SwapbenchError:
            return False
        return True

    def names(self) -> list[str]:
        self.load_plugins()
        return list(self._entries)

    def __iter__(self) -> Iterator[Entry[T]]:
        self.load_plugins()
        return iter(list(self._entries.values()))

    def help_text(self) -> str:
        """`name: help` for every entry, for argparse help."""
        return "; ".join(f"{e.name}: {e.help}" if e.help else e.name for e in self)


SOURCES: Registry = Registry("source", "--source", group="swapbench.sources")
VARIANTS: Registry = Registry("variant", "--variants", group="swapbench.variants")
PARSERS: Registry = Registry("constituency parser", "--parser", group="swapbench.parsers")
LABELERS: Registry = Registry("role labeler", "--srl", group="swapbench.labelers")
ENCODINGS: Registry = Registry("zoo encoding", "--encodings", group="swapbench.encodings")
FAMILIES: Registry = Registry("positional-encoding family", group="swapbench.families")
SCORERS: Registry = Registry("scorer", "--mode", group="swapbench.scorers")  # swapbench.evaluation.scorers
TEMPLATES: Registry = Registry("prompt template", "--templates", group="swapbench.templates")  # evaluation/templates.py
