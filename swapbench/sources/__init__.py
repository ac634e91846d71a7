"""Sources of NLI pairs: one declaration each (sources/snli.py, sources/multinli.py), registered in
`registry.SOURCES`, plus the generic `hub:ORG/NAME` source read by column mapping.

A source declares its name, citation, licence, homepage, Hub id and pinned revision, release archive and the
sha256 of its split files, split names and aliases, fields and pair-ID scheme, and whether it carries trees.
Build, fine-tuning, the dataset card and the leaderboard read all of it from here.
"""

from . import snli  # noqa: F401,I001  (registrations, in the order the CLI lists them)
from . import multinli  # noqa: F401
from .declaration import Columns, Source
from .hub import HUB, HUB_PREFIX, hub_source
from .loading import (DEFAULT_SOURCE, default_source, is_hub_dataset, load_split, output_stem, release_tag, resolve,
                      source_named, source_of)
from .pair import Pair, SourceSplit
from .release import find_split_file, read_release_file

__all__ = ["Columns", "DEFAULT_SOURCE", "HUB", "HUB_PREFIX", "Pair", "Source", "SourceSplit", "default_source",
           "find_split_file", "hub_source", "is_hub_dataset", "load_split", "output_stem", "read_release_file",
           "release_tag", "resolve", "source_named", "source_of"]
