"""Plugins: packages of a user's own that add registry entries by entry point, with no edit to swapbench.

The contract. A distribution declares entry points in the group of the registry it extends:

    [project.entry-points."swapbench.variants"]
    mine = "mypkg.swapbench_plugin"

Each entry point names a module (`mypkg.swapbench_plugin`) or a callable taking no argument
(`mypkg.swapbench_plugin:register`). swapbench imports the module, or calls the callable, and that registers the
entries, as any module of the package does: `VARIANTS.register(...)`, `SOURCES.add(...)`. The entry point's own name
is only how messages call the plugin; the names users type are those the plugin registers.

The groups are `swapbench.sources`, `swapbench.variants`, `swapbench.parsers`, `swapbench.labelers`,
`swapbench.encodings` and `swapbench.families` (one per registry of core/registry.py; a registry made with
`group=...` has its own). A registry loads its group once, the first time it is listed or looked up: so
`swapbench build --help` lists a plugin's entries, and a command that never reads a registry never imports its
plugins. A plugin that fails to load raises a PluginError naming its distribution, its entry point and the cause;
`SWAPBENCH_NO_PLUGINS=1` skips every plugin, to get past a broken one.
"""

from __future__ import annotations

import os
import types
from typing import TYPE_CHECKING

from .errors import SwapbenchError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

NO_PLUGINS = "SWAPBENCH_NO_PLUGINS"


class PluginError(SwapbenchError):
    """A plugin that could not be loaded: the CLI reports it without a traceback."""


def plugins_disabled() -> bool:
    return os.environ.get(NO_PLUGINS, "").strip().lower() not in ("", "0", "false", "no")


def describe(entry_point: EntryPoint) -> str:
    """How messages name a plugin: its distribution, group, entry point and target."""
    dist = entry_point.dist
    distribution = f"{dist.name} {dist.version}" if dist is not None else "an unknown distribution"
    return f"plugin {entry_point.name!r} ({entry_point.value}) of {distribution}, entry point group {entry_point.group}"


def load_entry_point(entry_point: EntryPoint) -> None:
    """Import the module the entry point names, or call the callable it names; a PluginError on any failure."""
    try:
        target = entry_point.load()
        if not isinstance(target, types.ModuleType):
            if not callable(target):
                raise TypeError(f"it names a {type(target).__name__}, neither a module nor a callable")
            target()
    except Exception as err:  # noqa: BLE001  (whatever a plugin raises is reported as its failure, with its cause)
        cause = f"{type(err).__name__}: {err}"
        raise PluginError(
            f"{describe(entry_point)} failed to load: {cause}. Fix or uninstall it, or set "
            f"{NO_PLUGINS}=1 to run without plugins"
        ) from err


def load_plugins(group: str) -> list[EntryPoint]:
    """Load every plugin of `group`, in the order of their names (so that a listing does not depend on the order
    of sys.path); returns the entry points loaded."""
    if plugins_disabled():
        return []
    from importlib.metadata import entry_points  # (0.05-0.1 s: not for `--help`, which checks plugins_disabled)

    found = sorted(entry_points(group=group), key=lambda ep: (ep.name, ep.value))
    for entry_point in found:
        load_entry_point(entry_point)
    return found
