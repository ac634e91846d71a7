"""The registry every extension point shares."""

import pytest

from swapbench.core.errors import SwapbenchError
from swapbench.core.registry import RegistrationError, Registry


def test_exact_and_pattern_entries():
    reg = Registry("variant", "--variants")
    reg.add("plain", 1, help="a plain one")
    reg.add("shuffle-N", 2, pattern=r"shuffle-([0-9]+)")
    assert reg.get("plain") == 1
    entry, match = reg.lookup("shuffle-7")
    assert entry.value == 2 and match.group(1) == "7"
    assert "shuffle-9" in reg and "other" not in reg
    assert reg.names() == ["plain", "shuffle-N"]
    assert reg.help_text() == "plain: a plain one; shuffle-N"


def test_unknown_name_lists_choices_and_names_the_option():
    reg = Registry("variant", "--variants")
    reg.add("plain", 1)
    with pytest.raises(SwapbenchError, match=r"--variants: unknown variant 'nope': expected one of plain"):
        reg.get("nope")


def test_twice_is_refused_and_remove_undoes():
    reg = Registry("source")

    @reg.register("snli")
    def make():
        return "x"

    assert make() == "x"
    with pytest.raises(SwapbenchError, match="registered twice"):
        reg.add("snli", make)
    reg.remove("snli")
    assert "snli" not in reg


class Base:
    """What the registries below hold."""


class Made(Base):
    pass


def test_a_registry_refuses_what_it_does_not_hold_naming_the_entry():
    instances, classes, either = Registry("source"), Registry("scorer"), Registry("variant")
    instances.accepts(Base, "instance")
    classes.accepts(Base, "class")
    either.accepts(Base, "class or factory")
    instances.add("ok", Made())
    classes.add("ok", Made)
    either.add("class", Made)
    either.add("factory", lambda: Made())
    with pytest.raises(RegistrationError, match=r"source 'wrong': registered the class .*Made, but a source is a Base"):
        instances.add("wrong", Made)
    with pytest.raises(
        RegistrationError,
        match=r"scorer 'wrong': registered a Made \(.*\), but a scorer is a "
        r"subclass of Base",
    ):
        classes.add("wrong", Made())
    with pytest.raises(
        RegistrationError,
        match=r"registered the class builtins.int, but a variant is a subclass of "
        r"Base or a function that makes a Base",
    ):
        either.register("wrong")(int)
    with pytest.raises(RegistrationError, match=r"registered a str \('shuffle'\)"):
        either.add("wrong", "shuffle")
    assert "wrong" not in instances and "wrong" not in classes and "wrong" not in either
    assert issubclass(RegistrationError, SwapbenchError)


def test_entries_registered_before_the_registry_says_what_it_holds_are_checked_then():
    reg = Registry("parser")
    reg.add("early", 42)
    assert reg.expected() == "anything"
    with pytest.raises(RegistrationError, match=r"parser 'early': registered an? int \(42\)"):
        reg.accepts(Base, "instance")


def test_make_checks_what_a_factory_made():
    reg = Registry("role labeler")
    reg.accepts(Base, "class or factory")
    reg.add("good", lambda spec: Made())
    reg.add("bad", lambda spec: f"frames of {spec}")
    assert isinstance(reg.make("good", "good"), Made)
    with pytest.raises(RegistrationError, match=r"role labeler 'bad' made a str \('frames of bad'\), not a Base"):
        reg.make("bad", "bad")


def test_the_package_registries_say_what_they_hold():
    """Each registry of core/registry.py is told what its entries are by the module that defines them."""
    import swapbench.evaluation.scorers  # noqa: F401  (each import defines a base and registers its entries)
    import swapbench.evaluation.templates  # noqa: F401
    import swapbench.models.positional  # noqa: F401
    import swapbench.parsing  # noqa: F401
    import swapbench.roles  # noqa: F401
    import swapbench.sources  # noqa: F401
    import swapbench.variants  # noqa: F401
    from swapbench.core import registry

    for name in ("SOURCES", "VARIANTS", "PARSERS", "LABELERS", "FAMILIES", "SCORERS", "TEMPLATES"):
        held = getattr(registry, name)
        assert held.expected() != "anything", f"nothing says what {name} holds"
        with pytest.raises(RegistrationError, match=f"{held.kind} 'not-one'"):
            held.add("not-one", 3)
        assert "not-one" not in held
