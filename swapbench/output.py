"""Writing a build as a Hugging Face dataset repository: Parquet per configuration, a dataset card, build metadata.

The folder is written beside its destination and swapped in at the end (destination.py).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from pydantic import BaseModel, Field

from . import __version__
from .labels import LABEL_NAMES
from .selection import SelectionFile

BUILD_INFO = "build_info.json"
CITATION = """\
@inproceedings{chen-etal-2023-locality,
  title = {The Locality and Symmetry of Positional Encodings},
  author = {Chen, Lihu and Varoquaux, Ga{\\"e}l and Suchanek, Fabian M.},
  booktitle = {Findings of the Association for Computational Linguistics: EMNLP 2023},
  year = {2023}
}
@inproceedings{bowman-etal-2015-large,
  title = {A large annotated corpus for learning natural language inference},
  author = {Bowman, Samuel R. and Angeli, Gabor and Potts, Christopher and Manning, Christopher D.},
  booktitle = {Proceedings of EMNLP 2015},
  year = {2015}
}"""


def common_features() -> dict[str, datasets.Feature]:
    """The columns every configuration has; variants add their own."""
    label = datasets.ClassLabel(names=list(LABEL_NAMES))
    return {
        "pair_id": datasets.Value("string"),
        "premise": datasets.Value("string"),
        "hypothesis": datasets.Value("string"),
        "label": label,
        "original_premise": datasets.Value("string"),
        "original_hypothesis": datasets.Value("string"),
        "original_label": label,
        "variant": datasets.Value("string"),
        "source_premise": datasets.Value("string"),
        "permutation": datasets.Sequence(datasets.Value("int32")),
        "tags": datasets.Sequence(datasets.Value("string")),
    }


# Every column that a figure, a slice or a label view of `swapbench eval` reads: the pair scored, its gold
# label, the original pair it is compared with and that pair's gold label, and (shuffle-sr) the binary label.
FINGERPRINT_COLUMNS = ("pair_id", "premise", "hypothesis", "label", "original_premise", "original_hypothesis",
                       "original_label", "binary_label")
FINGERPRINT_FORMAT = "swapbench-content-2"


def content_fingerprint(columns: dict[str, list]) -> str:
    """sha256 of the FINGERPRINT_COLUMNS that `columns` has, independent of the Parquet writer's version.

    Canonical form, in UTF-8: a header line, the JSON array [FINGERPRINT_FORMAT, names of the columns present in
    FINGERPRINT_COLUMNS order]; then one line per row, the JSON array of its values in that order (strings
    as they are, ensure_ascii off; ClassLabel columns as their stored indices). Lines end with a newline.
    """
    names = [name for name in FINGERPRINT_COLUMNS if name in columns]
    encode = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps would build an encoder per row
    digest = hashlib.sha256()
    digest.update(encode([FINGERPRINT_FORMAT, *names]).encode() + b"\n")
    for row in zip(*(columns[name] for name in names)):
        digest.update(encode(row).encode())
        digest.update(b"\n")
    return "sha256:" + digest.hexdigest()


class ConfigInfo(BaseModel):
    name: str = Field(description="configuration name, e.g. shuffle-3")
    description: str = Field(description="what the variant does")
    rows: int = Field(description="rows in the configuration")
    not_applicable: int = Field(description="pairs the variant did not apply to")
    fingerprint: str = Field(description="content_fingerprint of the FINGERPRINT_COLUMNS it has")
    num_bytes: int = Field(default=0, description="size of the configuration's Arrow table")
    tag_counts: dict[str, int] = Field(default_factory=dict, description="rows per slice tag")
    extra: dict = Field(default_factory=dict, description="variant-specific statistics")


class BuildInfo(BaseModel):
    swapbench_version: str = __version__
    split: str = Field(description="Hub split name of the built split")
    source: str = Field(description="SNLI file or Hub id read")
    source_fingerprint: str = Field(description="sha256 of the source file, or the Hub dataset fingerprint")
    rows_read: int = Field(description="rows read from the source, before --limit cut")
    dropped_no_gold: int = Field(description="rows dropped because their gold label is '-'")
    pairs: int = Field(description="labelled pairs the variants were applied to")
    limit: int | None = Field(description="--limit, when given")
    parser: str = Field(description="constituency backend")
    parser_version: str = Field(description="backend model and rules version")
    unique_premises: int = Field(description="distinct premises parsed")
    seed: int
    shuffle_scope: str = Field(description="'all' constituents of N words shuffled, or 'one'")
    configs: list[ConfigInfo]
    parser_agreement: dict | None = Field(default=None, description="spacy projection vs the supplied PTB trees")
    role_labeler: str | None = Field(default=None, description="--srl of shuffle-sr, when it was built")
    spacy_pipelines: list[str] = Field(default_factory=list, description="spaCy pipelines (name-version/spacy-"
                                       "version) any step ran: the parser, shuffle-sr's role labeler")
    sr_selection: SelectionFile | None = Field(default=None, description="the curation file shuffle-sr kept its "
                                                                         "swaps by (--sr-selection)")


def write_config(folder: Path, name: str, split: str, rows: dict[str, list], features: dict) -> int:
    """Write one configuration's Parquet file; ClassLabel columns hold label indices. Returns the table's bytes."""
    target = folder / name
    target.mkdir(parents=True, exist_ok=True)
    # The Arrow schema of `datasets.Features` carries the features (ClassLabel names included) in its metadata,
    # which `datasets.load_dataset` reads back; building the table directly skips a slow encode pass.
    schema = datasets.Features(features).arrow_schema
    table = pa.Table.from_pydict(rows, schema=schema)
    pq.write_table(table, target / f"{split}-00000-of-00001.parquet")
    return table.nbytes


def dataset_info_yaml(config: ConfigInfo, split: str, features: dict) -> dict:
    """A configuration's `dataset_info` entry, as push_to_hub writes it, plus the content fingerprint.

    `datasets` names its cache of a local folder after the card's dataset_info and configs, not after the data
    files: without a fingerprint here, loading a folder rebuilt in place would return the old rows.
    """
    info = datasets.DatasetInfo(features=datasets.Features(features), config_name=config.name)
    info.splits = datasets.SplitDict({split: datasets.SplitInfo(name=split, num_bytes=config.num_bytes,
                                                                num_examples=config.rows)})
    return {"config_name": config.name, "description": f"swapbench {config.name}, content {config.fingerprint}",
            **{k: v for k, v in info._to_yaml_dict().items() if k != "config_name"}}


def render_card(info: BuildInfo, features: dict[str, dict]) -> str:
    """The dataset card: YAML metadata (configs, dataset_info) and a description of the build."""
    split = info.split
    metadata = {
        "license": "cc-by-sa-4.0", "language": ["en"], "task_categories": ["text-classification"],
        "task_ids": ["natural-language-inference"], "pretty_name": "swapbench SNLI word-swap probes",
        "tags": ["word-order", "positional-encoding", "swapbench"],
        "configs": [{"config_name": c.name, "data_files": [{"split": split, "path": f"{c.name}/{split}-*.parquet"}]}
                    for c in info.configs],
        "dataset_info": [dataset_info_yaml(c, split, features[c.name]) for c in info.configs],
    }
    lines = ["---", yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True).rstrip(), "---", "", "# swapbench: word-swap probes of SNLI", "",
              "Perturbed SNLI pairs for probing how NLI models use word order, after Chen, Varoquaux and Suchanek, "
              "*The Locality and Symmetry of Positional Encodings* (Findings of EMNLP 2023).", "",
              "```python", "import datasets",
              f'ds = datasets.load_dataset("path/or/repo", "{info.configs[0].name if info.configs else "shuffle-3"}",'
              f' split="{split}")', "```", "",
              "## Configurations", "", "| configuration | rows | not applicable | what changed |", "|---|---:|---:|---|"]
    for config in info.configs:
        lines.append(f"| `{config.name}` | {config.rows} | {config.not_applicable} | {config.description} |")
    lines += ["", "## How it was built", "",
              f"- Source: `{info.source}` ({info.source_fingerprint}), split `{split}`: {info.rows_read} rows read, "
              f"{info.dropped_no_gold} dropped for gold label `-`, {info.pairs} labelled pairs used"
              + (f" (cut at --limit {info.limit})" if info.limit else "") + ".",
              f"- Parser: `{info.parser}` (`{info.parser_version}`), {info.unique_premises} distinct premises parsed.",
              f"- Seed: {info.seed}. Each pair's shuffle is drawn from a generator seeded by the seed, the variant "
              "and the pairID, so the output does not depend on order or parallelism.",
              f"- Constituency shuffles move words inside {'every' if info.shuffle_scope == 'all' else 'one'} "
              "NP/VP/PP/ADVP/ADJP constituent of exactly N words (`--shuffle-scope "
              f"{info.shuffle_scope}`); punctuation never counts as a word and stays in place. The shuffled order "
              "always differs from the original.",
              "- `premise` is the perturbed token sequence joined by single spaces; `original_premise` is the "
              "unperturbed token sequence joined the same way, so that the two differ only in word order; "
              "`source_premise` is SNLI's text verbatim. `permutation[k]` is the original index of token k.",
              f"- swapbench {info.swapbench_version}."]
    if info.parser_agreement:
        a = info.parser_agreement
        lines += ["", "## Parser agreement", "",
                  f"The spaCy projection against the PTB trees supplied with the source, over (label, span) "
                  f"constituents of {a['min_words']} to {a['max_words']} words: precision {a['precision']:.3f}, "
                  f"recall {a['recall']:.3f} ({a['sentences']} sentences)."]
    lines += _candidate_counts(info)
    tagged = [c for c in info.configs if c.tag_counts]
    if tagged:
        lines += ["", "## Slice tags", "", "Each row's `tags` lets accuracy be broken down.", ""]
        for config in tagged:
            counts = ", ".join(f"`{t}` {n}" for t, n in sorted(config.tag_counts.items()))
            lines.append(f"- `{config.name}`: {counts}")
    lines += ["", "## Citation", "", "```bibtex", CITATION, "```", ""]
    return "\n".join(lines)


def _candidate_counts(info: BuildInfo) -> list[str]:
    """Candidates, filtered and kept pairs, with each drop reason, for variants that report them (shuffle-sr)."""
    counted = [c for c in info.configs if "candidates" in c.extra]
    if not counted:
        return []
    lines = ["", "## Candidates and filters", ""]
    for config in counted:
        x = config.extra
        lines.append(f"`{config.name}` (role labeler `{x.get('labeler')}`): {x['candidates']} of "
                     f"{x.get('entailment_pairs', '?')} entailment pairs had a swappable verb (candidates); "
                     f"{x['filtered']} {'was' if x['filtered'] == 1 else 'were'} dropped by the filters; {x['final']} kept"
                     + (f", {x['fallbacks']} of them through a later verb or the other sentence when the first "
                        "swap was dropped" if x.get("fallbacks") else "") + ".")
        if x.get("selection"):
            sel = x["selection"]
            lines.append(f"A curation file (`{sel['file']}`) kept only accepted swaps: {sel['rejected']} rejected, "
                         f"{sel['undecided']} undecided, {sel['stale']} judged on a different swap.")
        lines += ["", "| reason | dropped | filter |", "|---|---:|---|"]
        reasons = x.get("drop_reasons", {})
        for name, description in x.get("filters", {}).items():
            lines.append(f"| `{name}` | {reasons.get(name, 0)} | {description} |")
        lines.append("")
    return lines
