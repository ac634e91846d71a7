"""The registry every extension point shares."""

import pytest

from swapbench.core.errors import SwapbenchError
from swapbench.core.registry import Registry


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
