"""The dataset card of a build, as the Hugging Face Hub expects it: metadata, description, fields, provenance.

Made with huggingface_hub's DatasetCard and DatasetCardData. It names its source by file name or Hub id, never by
a path of the machine that built it.
"""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pyarrow.parquet as pq
from huggingface_hub import DatasetCard, DatasetCardData

from ..core.hub_access import is_hub_id
from ..results.build_record import CARD, BuildInfo, ConfigInfo
from ..sources import Source, source_named

SOURCE_FILE_SUFFIXES = (".jsonl", ".txt", ".gz", ".zip")  # a source named so is a file, even where it is absent
REPO_PLACEHOLDER = "OWNER/NAME"  # in the card's usage example; the Hub repo id replaces it when pushed
# The validity of shuffle-sr's labels, as judged by people on a sample (written by the roles annotation work).
VALIDITY = Path(__file__).resolve().parent.parent / "data" / "annotations" / "shuffle-sr-validity.json"

PAPER_CITATION = """\
@inproceedings{chen-etal-2023-locality,
  title = {The Locality and Symmetry of Positional Encodings},
  author = {Chen, Lihu and Varoquaux, Ga{\\"e}l and Suchanek, Fabian M.},
  booktitle = {Findings of the Association for Computational Linguistics: EMNLP 2023},
  year = {2023}
}"""


def source_card(info: BuildInfo) -> Source:
    """The declaration of the source the build read (its citation, licence, pretty name, homepage, Hub id)."""
    return source_named(info.source_name or "snli")


# The display names of the Hub's licence ids that declared sources use; any other id is shown as it is.
LICENCE_NAMES = {"cc-by-sa-4.0": "CC BY-SA 4.0", "cc-by-sa-3.0": "CC BY-SA 3.0", "cc-by-4.0": "CC BY 4.0",
                 "cc-by-3.0": "CC BY 3.0", "cc0-1.0": "CC0 1.0", "mit": "MIT", "apache-2.0": "Apache 2.0"}


def licence_text(source: Source) -> str:
    """The card's licence paragraph: the source's own licence, since every row is derived from it."""
    name = LICENCE_NAMES.get(source.license)
    licence = f"{name} (`{source.license}`)" if name else f"`{source.license}` (no licence the Hub lists by name)"
    text = f"Every row is derived from {source.short_name} ({source.homepage}) and carries its licence: {licence}."
    note = source.license_note.strip()
    if not note:
        return text
    return f"{text} {note[0].upper()}{note[1:]}" + ("" if note.endswith(".") else ".")


def source_name(source: str) -> str:
    """A source as the card names it: a Hub id as it is, a file or folder by its name alone."""
    if is_hub_id(source) and not source.endswith(SOURCE_FILE_SUFFIXES):
        return source
    return Path(source).name


COLUMNS = {
    "pair_id": "SNLI's pairID of the original pair; rows of different configurations with the same pair_id come "
               "from the same pair",
    "premise": "the premise shown to the model: perturbed, or the original when the variant changed the hypothesis",
    "hypothesis": "the hypothesis shown to the model",
    "label": "gold label of the perturbed pair (entailment, neutral, contradiction)",
    "original_premise": "the unperturbed premise, tokenized and joined as `premise` is, so that the two differ only "
                        "by the perturbation",
    "original_hypothesis": "the unperturbed hypothesis, rendered the same way",
    "original_label": "SNLI's gold label of the original pair",
    "variant": "the configuration the row belongs to",
    "source_premise": "SNLI's premise text verbatim",
    "permutation": "for premise shuffles, token k of `premise` is token `permutation[k]` of `original_premise` "
                   "(split on spaces); empty for shuffle-sr",
    "tags": "slice tags: accuracy can be broken down by them (see Slice tags)",
    "moved_spans": "shuffle-N: the constituents whose words were shuffled, each with its label (NP, VP, PP, ADVP, "
                   "ADJP), token span [start, end) in `original_premise` and text",
    "swapped_side": "shuffle-sr: the sentence whose roles were exchanged, premise or hypothesis",
    "verb": "shuffle-sr: the verb whose agent and patient were exchanged",
    "verb_index": "shuffle-sr: its token index in the swapped sentence",
    "agent": "shuffle-sr: the agent's text and token span [start, end) in the original sentence",
    "patient": "shuffle-sr: the patient's text and token span [start, end) in the original sentence",
    "labeler": "shuffle-sr: the role labeler that found the roles",
    "binary_label": "shuffle-sr: the label in the binary view (entailment, non-entailment); always non-entailment",
}
TAG_KINDS = {
    "moved": ("moved:N", "shuffle-N: N constituents were shuffled in the premise"),
    "label": ("label:X", "shuffle-N: a constituent with label X (NP, VP, PP, ADVP, ADJP) was shuffled"),
    "words": ("words:N", "shuffle-random: the premise's N words (punctuation excluded) were shuffled"),
    "side": ("side:S", "shuffle-sr: the roles were exchanged in the premise or the hypothesis"),
    "construction": ("construction:C", "shuffle-sr: the grammatical construction of the swapped clause"),
    "labeler": ("labeler:L", "shuffle-sr: the role labeler that found the roles"),
    "coordination": ("coordination", "shuffle-sr: the agent or the patient holds a coordination ('a man and a "
                                     "woman')"),
    "pronoun-case": ("pronoun-case", "shuffle-sr: a pronoun changed case with its role ('he' / 'him')"),
    "fallback": ("fallback", "shuffle-sr: not the first swap the algorithm picked, which a filter dropped, but a "
                             "later verb or the other sentence"),
}


def tag_kind(tag: str) -> str:
    return tag.split(":", 1)[0]


def tag_sort_key(tag: str) -> tuple:
    """Tags by kind, then by value, numbers in numeric order: words:9 before words:10."""
    kind, _, value = tag.partition(":")
    return (kind, 0, int(value), "") if value.isdigit() else (kind, 1, 0, value)


def size_category(rows: int) -> str:
    """The Hub's size_categories bucket of a row count."""
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
              (10_000_000, "1M<n<10M")]
    return next((name for bound, name in bounds if rows < bound), "10M<n<100M")


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


def data_files(config: str, split: str) -> str:
    """Where a configuration's Parquet files lie in the folder and in the Hub repo."""
    return f"{config}/{split}-*.parquet"


def card_data(info: BuildInfo, features: dict[str, dict]) -> DatasetCardData:
    source = source_card(info)
    return DatasetCardData(
        pretty_name=f"swapbench: word-order probes of {source.short_name}", license=source.license,
        language=["en"], size_categories=[size_category(sum(c.rows for c in info.configs))],
        source_datasets=[f"extended|{source.hub_id}"] if source.hub_id else None, task_categories=["text-classification"],
        task_ids=["natural-language-inference"], tags=["word-order", "positional-encoding", "swapbench"],
        configs=[{"config_name": c.name, "data_files": [{"split": info.split, "path": data_files(c.name, info.split)}]}
                 for c in info.configs],
        dataset_info=[dataset_info_yaml(c, info.split, features[c.name]) for c in info.configs])


def read_validity(path: Path = VALIDITY) -> dict | None:
    """The measured validity of shuffle-sr's labels, when a file records it."""
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def render_card(info: BuildInfo, features: dict[str, dict], example: dict | None = None,
                validity: dict | None = None) -> DatasetCard:
    """The card of a build; `example`: one row of its first configuration; `validity`: read_validity()."""
    source = source_card(info)
    split = info.split
    first = info.configs[0].name if info.configs else "shuffle-3"
    lines = [f"# swapbench: word-order probes of {source.short_name}", "",
             f"Perturbed [{source.short_name}]({source.homepage}) pairs for probing how natural language inference "
             "models use word order, after Chen, Varoquaux and Suchanek, *The Locality and Symmetry of Positional "
             "Encodings* (Findings of EMNLP 2023). Each configuration applies one perturbation to the "
             f"{split} split: words shuffled inside constituents of N words (meaning mostly kept, label kept), "
             "all words shuffled (a baseline), or the agent and patient of a verb exchanged (label contradiction). "
             "Each row carries the original pair beside the perturbed one, so that a model's accuracy on both can "
             "be compared pair by pair (`swapbench eval`).", "",
             "```python", "import datasets", "",
             f'ds = datasets.load_dataset("{REPO_PLACEHOLDER}", "{first}", split="{split}")', "```", "",
             "## Configurations", "", f"Each has one split, `{split}`.", "",
             "| configuration | rows | not applicable | what changed |", "|---|---:|---:|---|"]
    lines += [f"| `{c.name}` | {c.rows} | {c.not_applicable} | {c.description} |" for c in info.configs]
    lines += ["", "*not applicable*: labelled pairs the perturbation could not be applied to (no constituent of "
              "N words, no swappable verb, every swap dropped by a filter)."]
    if example is not None:
        lines += ["", "## Example", "", f"A row of `{first}`:", "", "```json", _json_row(example), "```"]
    lines += _fields(info, features)
    lines += _slice_tags(info)
    lines += _how_built(info, source)
    lines += _candidate_counts(info)
    lines += _validity(info, validity)
    lines += ["", "## Limitations", "",
              "- Shuffled premises are often ungrammatical, and shuffles inside a constituent can keep or change "
              "the meaning; the label is carried over unchanged, so some shuffle-N labels are wrong."]
    if any(c.name == "shuffle-sr" for c in info.configs):
        lines.append("- shuffle-sr's roles come from an automatic role labeler and its swaps from rules; its filters "
                     "drop the swaps that most often go wrong, not all of them, so some of its contradiction labels "
                     "are wrong (see its validity above).")
    lines += [f"- Only pairs with a gold label are used; configurations are small subsets of {source.short_name} "
              f"{split}, and inherit its biases and annotation artefacts (e.g. hypothesis-only cues).",
              "- Tokenization follows the parser: `premise` and `original_premise` are tokens joined by spaces, "
              "not SNLI's text (`source_premise` keeps it).",
              "- English only.",
              "", "## License", "", licence_text(source),
              "", "## Citation", "", "```bibtex", PAPER_CITATION, *([source.citation] if source.citation else []),
              "```", ""]
    body = "\n".join(lines)
    return DatasetCard(f"---\n{card_data(info, features).to_yaml()}\n---\n\n{body}")


def _json_row(row: dict) -> str:
    """A row as JSON, one column a line."""
    items = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in row.items()]
    return "{\n" + ",\n".join(items) + "\n}"


def _fields(info: BuildInfo, features: dict[str, dict]) -> list[str]:
    columns = list(dict.fromkeys(name for c in info.configs for name in features[c.name]))
    lines = ["", "## Fields", "", "| column | type | configurations | meaning |", "|---|---|---|---|"]
    for name in columns:
        having = [c.name for c in info.configs if name in features[c.name]]
        where = "all" if len(having) == len(info.configs) else ", ".join(having)
        kind = _feature_type(next(features[c][name] for c in having))
        lines.append(f"| `{name}` | {kind} | {where} | {COLUMNS.get(name, 'a column of the variant')} |")
    return lines


def _feature_type(feature) -> str:
    if isinstance(feature, datasets.ClassLabel):
        return "class label: " + ", ".join(feature.names)
    if isinstance(feature, datasets.Value):
        return feature.dtype
    if isinstance(feature, (datasets.Sequence, datasets.List)):
        return f"list of {_feature_type(feature.feature)}"
    if isinstance(feature, list):
        return f"list of {_feature_type(feature[0])}"
    if isinstance(feature, dict):
        return "{" + ", ".join(feature) + "}"
    return type(feature).__name__


def _slice_tags(info: BuildInfo) -> list[str]:
    tagged = [c for c in info.configs if c.tag_counts]
    if not tagged:
        return []
    kinds = sorted({tag_kind(t) for c in tagged for t in c.tag_counts})
    lines = ["", "## Slice tags", "", "Each row's `tags` lets accuracy be broken down (`swapbench eval --slices`).",
             "", "| tag | meaning |", "|---|---|"]
    lines += [f"| `{TAG_KINDS.get(kind, (kind, ''))[0]}` | {TAG_KINDS.get(kind, ('', 'a tag of the variant'))[1]} |"
              for kind in kinds]
    lines += ["", "Rows per tag:", ""]
    for config in tagged:
        counts = ", ".join(f"`{t}` {config.tag_counts[t]}" for t in sorted(config.tag_counts, key=tag_sort_key))
        lines.append(f"- `{config.name}`: {counts}")
    return lines


def _how_built(info: BuildInfo, source: Source) -> list[str]:
    name = source_name(info.source)
    lines = ["", "## How the data were built", "",
             f"- Source: {source.short_name} {info.split} (`{name}`, {info.source_fingerprint}): {info.rows_read} "
             f"rows read, {info.dropped_no_gold} dropped for gold label `-` (no annotator majority), {info.pairs} "
             "labelled pairs used" + (f" (cut at --limit {info.limit})" if info.limit else "") + ".",
             f"- Parser: `{info.parser}` (`{info.parser_version}`), {info.unique_premises} distinct premises parsed"
             + (" (the constituency trees supplied with the source)." if info.parser == "ptb" else "."),
             f"- Seed: {info.seed}. Each pair's shuffle is drawn from a generator seeded by the seed, the variant "
             "and the pairID, so the output does not depend on order or parallelism.",
             f"- Constituency shuffles move words inside {'every' if info.shuffle_scope == 'all' else 'one'} "
             "NP/VP/PP/ADVP/ADJP constituent of exactly N words (`--shuffle-scope "
             f"{info.shuffle_scope}`); punctuation never counts as a word and stays in place. The shuffled order "
             "always differs from the original."]
    if info.role_labeler:
        lines.append(f"- Role labeler of shuffle-sr: `--srl {info.role_labeler}`.")
    if info.spacy_pipelines:
        lines.append(f"- spaCy pipelines run: {', '.join(f'`{p}`' for p in info.spacy_pipelines)}.")
    if info.sr_selection:
        lines.append(f"- shuffle-sr kept only the swaps accepted in the curation file "
                     f"`{Path(info.sr_selection.path).name}` ({info.sr_selection.sha256}).")
    lines += [f"- swapbench {info.swapbench_version}; the build's full record is `build_info.json`, beside this "
              "card: `swapbench eval` checks each configuration's content fingerprint against it."]
    if info.parser_agreement:
        a = info.parser_agreement
        lines += ["", "### Parser agreement", "",
                  f"The spaCy projection against the PTB trees supplied with the source, over (label, span) "
                  f"constituents of {a['min_words']} to {a['max_words']} words: precision {a['precision']:.3f}, "
                  f"recall {a['recall']:.3f} ({a['sentences']} sentences)."]
    return lines


def _candidate_counts(info: BuildInfo) -> list[str]:
    """Candidates, filtered and kept pairs, with each drop reason the build recorded, for variants that count them."""
    lines = []
    for config in (c for c in info.configs if "candidates" in c.extra):
        x = config.extra
        lines += ["", f"### Filters of `{config.name}`", "",
                  f"Role labeler `{x.get('labeler')}`: {x['candidates']} of {x.get('entailment_pairs', '?')} "
                  f"entailment pairs had a swappable verb (candidates); {x['filtered']} {'was' if x['filtered'] == 1 else 'were'} dropped by the filters; "
                  f"{x['final']} kept"
                  + (f", {x['fallbacks']} of them through a later verb or the other sentence when the first "
                     "swap was dropped" if x.get("fallbacks") else "") + "."]
        by_labeler = x.get("sentences_by_labeler") or {}
        if by_labeler:
            lines.append("Sentences whose roles each labeler found: "
                         + ", ".join(f"`{name}` {count}" for name, count in by_labeler.items())
                         + (f"; {x['sentences_without_roles']} without roles" if x.get("sentences_without_roles")
                            else "") + ".")
        if x.get("selection"):
            sel = x["selection"]
            lines.append(f"A curation file (`{Path(sel['file']).name}`) kept only accepted swaps: {sel['rejected']} "
                         f"rejected, {sel['undecided']} undecided, {sel['stale']} judged on a different swap.")
        reasons, described = x.get("drop_reasons", {}), x.get("filters", {})
        lines += ["", "| reason | dropped | why |", "|---|---:|---|"]
        for name in dict.fromkeys([*described, *reasons]):
            lines.append(f"| `{name}` | {reasons.get(name, 0)} | {described.get(name, 'no description recorded')} |")
    return ["", "## Candidates and filters", *lines] if lines else []


def _validity(info: BuildInfo, validity: dict | None) -> list[str]:
    sr = next((c for c in info.configs if c.name == "shuffle-sr"), None)
    if sr is None:
        return []
    lines = ["", "## Validity of shuffle-sr's labels", ""]
    if validity is None:
        return lines + ["Validity was not measured for this build: no judged sample of its swaps was recorded, so "
                        "the share of its rows that are true contradictions is unknown."]
    lines.append(f"{validity['valid']} of {validity['judged']} judged swaps are valid contradictions: validity "
                 f"{validity['validity']:.3f} (95% interval {validity['low']:.3f} to {validity['high']:.3f}); "
                 f"measured with `{validity['command']}`.")
    if validity.get("build_fingerprint") != sr.fingerprint:
        lines.append(f"The sample was judged on a build whose shuffle-sr fingerprint is "
                     f"{validity.get('build_fingerprint')}, not this one's ({sr.fingerprint}).")
    return lines


def first_row(folder: Path, config: str, split: str) -> dict | None:
    """The first row of a written configuration, as `datasets` would return it (ClassLabels as names)."""
    files = sorted(folder.glob(data_files(config, split)))
    if not files:
        return None
    table = pq.ParquetFile(files[0]).read_row_group(0).slice(0, 1)
    rows = datasets.Dataset(table)
    if not len(rows):
        return None
    row = rows[0]
    for name, feature in rows.features.items():
        if isinstance(feature, datasets.ClassLabel):
            row[name] = feature.int2str(row[name])
    return row


def write_card(folder: Path, info: BuildInfo, features: dict[str, dict], validity: Path = VALIDITY) -> None:
    """Write the card of the configurations written in `folder`."""
    example = first_row(folder, info.configs[0].name, info.split) if info.configs else None
    render_card(info, features, example, read_validity(validity)).save(folder / CARD)
