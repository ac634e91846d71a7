"""The probe's cache: what eval's probe found for a model, kept so that a second eval of the same model (its scores
read back from the scores cache) does not spend its 10-30 s probing again.

An entry is one JSON file per key, CACHE_DIR/probes/<model>-<key[:16]>.json. The key is the sha256 of what
decides the probe's figures: the model's identity as the scores cache keys it (its Hub commit, a local folder's
file hashes, a checkpoint fine-tuned here by its training record; a model without one is probed every time), the
probe's settings (words, length, seed, framing), the dtype and device type the model was loaded in, and the torch
and transformers versions. Not in the key: the batch size, which changes no figure (the sequences have one length:
nothing is padded). The entry holds the results file's own record of the probe (ProbeInfo) and a check keyed by
the entry's key (core.sqlite_store.row_check), so that an edited or copied entry is not served: it is probed
again and overwritten, with a warning. The cache is a saving, not a record: a file that cannot be written is said
and the run goes on.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..core.files import replace_files
from ..core.sqlite_store import row_check
from ..core.text import slug
from ..results.schema import ProbeInfo, ProbeSettings

FORMAT = 1  # bump when a change to the probe or its record makes old entries unfit (it is in the key)


@dataclass(frozen=True)
class ProbeEntry:
    path: Path
    key: str


def probe_entry(
    cache_dir: Path, model: str, identity: str, settings: ProbeSettings, dtype: str, device: str
) -> ProbeEntry:
    """The cache entry of this model's probe under these settings."""
    import torch
    import transformers

    whole = {
        "format": FORMAT,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "model": identity,
        "settings": settings.model_dump(),
        "dtype": dtype,
        "device": device,
    }
    key = hashlib.sha256(json.dumps(whole, sort_keys=True).encode()).hexdigest()
    return ProbeEntry(cache_dir / "probes" / f"{slug(model)}-{key[:16]}.json", key)


def read_probe(entry: ProbeEntry, warn: Callable[[str], None]) -> ProbeInfo | None:
    """The cached probe, or None when there is none or it fails its check (said with `warn`)."""
    try:
        record = json.loads(entry.path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        warn(f"the cached probe {entry.path} does not read ({err}); probing again")
        return None
    try:
        probe = record["probe"]
        if not isinstance(probe, str) or record.get("check") != row_check(entry.key, probe.encode()).hex():
            raise ValueError("its check fails: edited, damaged, or another entry's")
        return ProbeInfo.model_validate_json(probe)
    except (KeyError, TypeError, ValueError) as err:  # (pydantic's ValidationError is a ValueError)
        warn(f"the cached probe {entry.path} is not used ({str(err).splitlines()[0]}); probing again")
        return None


def write_probe(entry: ProbeEntry, probe: ProbeInfo, warn: Callable[[str], None]) -> None:
    """Keep `probe` for the next eval of the same model; a failure to write is said, not raised."""
    text = probe.model_dump_json()
    record = {"format": FORMAT, "key": entry.key, "probe": text, "check": row_check(entry.key, text.encode()).hex()}
    try:
        replace_files({entry.path: json.dumps(record) + "\n"})
    except OSError as err:
        warn(f"the probe's result is not cached: cannot write {entry.path} ({err.strerror or err})")
