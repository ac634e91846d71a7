"""Sources of NLI pairs: one declaration each (sources/snli.py, sources/multinli.py), registered in
`registry.SOURCES`, plus the generic `hub:ORG/NAME` source read by column mapping.

A source declares its name, citation, licence, homepage, Hub id and pinned revision, release archive and the
sha256 of its split files, split names and aliases, the pairs each split holds as released, fields and pair-ID scheme,
and whether it carries trees. Build, fine-tuning, the dataset card and the leaderboard read all of it from here.

Adding a corpus released in SNLI's format is one module and one registration (see multinli.py):

    from swapbench.core.registry import SOURCES
    from swapbench.sources import Source

    MYNLI = Source(name="mynli", short_name="MyNLI", pretty_name="My NLI corpus", citation="@misc{...}",
                   license="cc-by-4.0", homepage="https://...", release="MyNLI 1.0",
                   archive_url="https://.../mynli_1.0.zip", archive_folder="mynli_1.0", file_prefix="mynli_1.0_",
                   dir_env="SWAPBENCH_MYNLI_DIR", checksums={"mynli_1.0_test.jsonl": "<sha256>"},
                   splits={"train": "train", "validation": "dev", "test": "test"}, aliases={"dev": "validation"},
                   pair_ids="the release's pairID", has_trees=False)
    SOURCES.add(MYNLI.name, MYNLI, help="MyNLI 1.0")

A dataset on the Hub needs no module: `--source hub:ORG/NAME` with the column options.
"""

from . import snli  # noqa: F401,I001  (registrations, in the order the CLI lists them)
from . import multinli  # noqa: F401
from .declaration import Columns, Source
from .hub import HUB, HUB_PREFIX, hub_source
from .loading import (
    DEFAULT_SOURCE,
    default_source,
    is_hub_dataset,
    load_split,
    output_stem,
    release_tag,
    resolve,
    source_named,
    source_of,
)
from .pair import Pair, SourceSplit
from .release import find_split_file, read_release_file

__all__ = [
    "Columns",
    "DEFAULT_SOURCE",
    "HUB",
    "HUB_PREFIX",
    "Pair",
    "Source",
    "SourceSplit",
    "default_source",
    "find_split_file",
    "hub_source",
    "is_hub_dataset",
    "load_split",
    "output_stem",
    "read_release_file",
    "release_tag",
    "resolve",
    "source_named",
    "source_of",
]
