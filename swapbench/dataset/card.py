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
from ..core.text import percent, points, tag_sort_key
from ..results.build_record import CARD, BuildInfo, ConfigInfo
from ..results.displacement import DISTANCE, MOVED
from ..results.hypothesis_only import LEAKS, MARGIN, read_leaks
from ..sources import Source, source_named
from ..variants import declared
from ..variants.role_shuffle import read_validity
from .output import parquet_path

SOURCE_FILE_SUFFIXES = (".jsonl", ".txt", ".gz", ".zip")  # a source named so is a file, even where it is absent
REPO_PLACEHOLDER = "OWNER/NAME"  # in the card's usage example; the Hub repo id replaces it when pushed

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
LICENCE_NAMES = {
    "cc-by-sa-4.0": "CC BY-SA 4.0",
    "cc-by-sa-3.0": "CC BY-SA 3.0",
    "cc-by-4.0": "CC BY 4.0",
    "cc-by-3.0": "CC BY 3.0",
    "cc0-1.0": "CC0 1.0",
    "mit": "MIT",
    "apache-2.0": "Apache 2.0",
}


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
    "original_premise": "the unperturbed premise as the source writes it, white space squashed; a perturbed premise "
    "is written from its tokens the same way (punctuation, clitics and brackets where the text "
    "has them), so that the two differ only by the perturbation",
    "original_hypothesis": "the unperturbed hypothesis, written the same way",
    "original_label": "SNLI's gold label of the original pair",
    "variant": "the configuration the row belongs to",
    "source_premise": "SNLI's premise text verbatim",
    "premise_tokens": "the tokens of the premise's parse, which `permutation` and a shuffle's spans index",
    "permutation": "for premise shuffles, token k of the perturbed premise is token `permutation[k]` of "
    "`premise_tokens`; empty for the role swaps",
    "tags": "slice tags: accuracy can be broken down by them (see Slice tags)",
}


def _kinds(info: BuildInfo) -> list[type]:
    """The classes that declare the build's configurations, each once, in configuration order."""
    return list(dict.fromkeys(declared(c.name) for c in info.configs))


def tag_kinds(info: BuildInfo) -> dict[str, tuple[str, str]]:
    """What each kind of slice tag means, as the build's variants declare it."""
    return {kind: meaning for variant in _kinds(info) for kind, meaning in variant.tag_descriptions.items()}


def tag_kind(tag: str) -> str:
    return tag.split(":", 1)[0]


def size_category(rows: int) -> str:
    """The Hub's size_categories bucket of a row count."""
    bounds = [
        (1_000, "n<1K"),
        (10_000, "1K<n<10K"),
        (100_000, "10K<n<100K"),
        (1_000_000, "100K<n<1M"),
        (10_000_000, "1M<n<10M"),
    ]
    return next((name for bound, name in bounds if rows < bound), "10M<n<100M")


def dataset_info_yaml(config: ConfigInfo, split: str, features: dict) -> dict:
    """A configuration's `dataset_info` entry, as push_to_hub writes it: only the keys the Hub documents
    (config_name, features, splits); the content fingerprint is in the data file's name (output.parquet_path)."""
    info = datasets.DatasetInfo(features=datasets.Features(features), config_name=config.name)
    info.splits = datasets.SplitDict(
        {split: datasets.SplitInfo(name=split, num_bytes=config.num_bytes, num_examples=config.rows)}
    )
    return {"config_name": config.name, **{k: v for k, v in info._to_yaml_dict().items() if k != "config_name"}}


def card_data(info: BuildInfo, features: dict[str, dict]) -> DatasetCardData:
    source = source_card(info)
    return DatasetCardData(
        pretty_name=f"swapbench: word-order probes of {source.short_name}",
        license=source.license,
        language=["en"],
        size_categories=[size_category(sum(c.rows for c in info.configs))],
        source_datasets=[f"extended|{source.hub_id}"] if source.hub_id else None,
        task_categories=["text-classification"],
        task_ids=["natural-language-inference"],
        tags=["word-order", "positional-encoding", "swapbench"],
        configs=[
            {
                "config_name": c.name,
                "data_files": [{"split": info.split, "path": parquet_path(c.name, info.split, c.fingerprint)}],
            }
            for c in info.configs
        ],
        dataset_info=[dataset_info_yaml(c, info.split, features[c.name]) for c in info.configs],
    )


def render_card(
    info: BuildInfo,
    features: dict[str, dict],
    example: dict | None = None,
    validity: dict[str, dict] | None = None,
    leaks: dict | None = None,
) -> DatasetCard:
    """The card of a build; `example`: one row of its first configuration; `validity`: each configuration's
    judged validity by name (read_validities); one absent from it says its validity was not measured; `leaks`:
    read_leaks()."""
    source = source_card(info)
    split = info.split
    first = info.configs[0].name if info.configs else "shuffle-3"
    lines = [
        f"# swapbench: word-order probes of {source.short_name}",
        "",
        f"Perturbed [{source.short_name}]({source.homepage}) pairs for probing how natural language inference "
        "models use word order, after Chen, Varoquaux and Suchanek, *The Locality and Symmetry of Positional "
        "Encodings* (Findings of EMNLP 2023). Each configuration applies one perturbation to the "
        f"{split} split: words shuffled inside constituents of N words (meaning mostly kept, label kept), "
        "all words shuffled (a baseline), or the agent and patient of a verb exchanged (label contradiction). "
        "Each row carries the original pair beside the perturbed one, so that a model's accuracy on both can "
        "be compared pair by pair (`swapbench eval`).",
        "",
        "```python",
        "import datasets",
        "",
        f'ds = datasets.load_dataset("{REPO_PLACEHOLDER}", "{first}", split="{split}")',
        "```",
        "",
        "## Configurations",
        "",
        f"Each has one split, `{split}`.",
        "",
        "| configuration | rows | not applicable | what changed |",
        "|---|---:|---:|---|",
    ]
    lines += [f"| `{c.name}` | {c.rows} | {c.not_applicable} | {c.description} |" for c in info.configs]
    lines += [
        "",
        "*not applicable*: labelled pairs the perturbation could not be applied to (no constituent of "
        "N words, no swappable verb, every swap dropped by a filter). Each configuration's content "
        "fingerprint (sha256 of its rows, which `swapbench eval` checks) is in `build_info.json`, and its "
        "first 16 digits name its data file.",
    ]
    lines += _displacement(info)
    if example is not None:
        lines += ["", "## Example", "", f"A row of `{first}`:", "", "```json", _json_row(example), "```"]
    lines += _fields(info, features)
    lines += _slice_tags(info)
    lines += _how_built(info, source)
    lines += _variant_sections(info, validity or {})
    lines += _leak_section(info, features, leaks)
    lines += ["", "## Limitations", ""]
    lines += [f"- {limit}" for limit in dict.fromkeys(x for kind in _kinds(info) for x in kind.card_limitations)]
    lines += [
        f"- Only pairs with a gold label are used; configurations are small subsets of {source.short_name} "
        f"{split}, and inherit its biases and annotation artefacts (e.g. hypothesis-only cues).",
        "- A perturbed sentence is written from its tokens: tokens that stay neighbours keep the spacing of "
        "the source's text, and those a perturbation makes neighbours are spaced by NLTK's "
        "TreebankWordDetokenizer (two words never fused). A rare spelling that the tokens do not keep "
        "is lost (`source_premise` keeps the premise verbatim).",
        "- English only.",
        "",
        "## License",
        "",
        licence_text(source),
        "",
        "## Citation",
        "",
        "```bibtex",
        PAPER_CITATION,
        *([source.citation] if source.citation else []),
        "```",
        "",
    ]
    body = "\n".join(lines)
    return DatasetCard(f"---\n{card_data(info, features).to_yaml()}\n---\n\n{body}")


def _displacement(info: BuildInfo) -> list[str]:
    """How far each configuration that reorders the premise moves its words: the locality gradient, measured."""
    measured = [c for c in info.configs if c.displacement is not None]
    if not measured:
        return []
    lines = [
        "",
        "## How far words move",
        "",
        f"Per row, *distance* is the {DISTANCE} (the row's `permutation` gives both), and *moved* the number "
        f"of {MOVED}. A locality gradient needs the distance to grow from shuffle-3 to shuffle-random.",
        "",
        "| configuration | rows | distance: mean | p10 | p25 | median | p75 | p90 | max | moved: mean | median | max |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in measured:
        d, m = c.displacement.distance, c.displacement.moved
        lines.append(
            f"| `{c.name}` | {c.displacement.rows} | {d.mean:.2f} | {d.p10:g} | {d.p25:g} | {d.median:g} "
            f"| {d.p75:g} | {d.p90:g} | {d.max} | {m.mean:.2f} | {m.median:g} | {m.max} |"
        )
    return lines


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
        meaning = COLUMNS.get(name) or next(
            (declared(c).column_descriptions[name] for c in having if name in declared(c).column_descriptions),
            "a column of the variant",
        )
        lines.append(f"| `{name}` | {kind} | {where} | {meaning} |")
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
    lines = [
        "",
        "## Slice tags",
        "",
        "Each row's `tags` lets accuracy be broken down (`swapbench eval --slices`).",
        "",
        "| tag | meaning |",
        "|---|---|",
    ]
    described = tag_kinds(info)
    lines += [
        f"| `{described.get(kind, (kind, ''))[0]}` | {described.get(kind, ('', 'a tag of the variant'))[1]} |"
        for kind in kinds
    ]
    lines += ["", "Rows per tag:", ""]
    for config in tagged:
        counts = ", ".join(f"`{t}` {config.tag_counts[t]}" for t in sorted(config.tag_counts, key=tag_sort_key))
        lines.append(f"- `{config.name}`: {counts}")
    return lines


def _how_built(info: BuildInfo, source: Source) -> list[str]:
    name = source_name(info.source)
    lines = [
        "",
        "## How the data were built",
        "",
        f"- Source: {source.short_name} {info.split} (`{name}`, {info.source_fingerprint}): {info.rows_read} "
        f"rows read, {info.dropped_no_gold} dropped for gold label `-` (no annotator majority), {info.pairs} "
        "labelled pairs used" + (f" (cut at --limit {info.limit})" if info.limit else "") + ".",
        f"- Parser: `{info.parser}` (`{info.parser_version}`), {info.unique_premises} distinct premises parsed"
        + (" (the constituency trees supplied with the source)." if info.parser == "ptb" else "."),
        f"- Seed: {info.seed}. Each pair's shuffle is drawn from a generator seeded by the seed, the variant "
        "and the pairID, so the output does not depend on order or parallelism.",
    ]
    lines += list(dict.fromkeys(line for kind in _kinds(info) for line in kind.card_notes(info)))
    if info.spacy_pipelines:
        lines.append(f"- spaCy pipelines run: {', '.join(f'`{p}`' for p in info.spacy_pipelines)}.")
    lines += [
        f"- swapbench {info.swapbench_version}; the build's full record is `build_info.json`, beside this "
        "card: `swapbench eval` checks each configuration's content fingerprint against it."
    ]
    if info.parser_agreement:
        a = info.parser_agreement
        lines += [
            "",
            "### Parser agreement",
            "",
            f"The spaCy projection against the PTB trees supplied with the source, over (label, span) "
            f"constituents of {a['min_words']} to {a['max_words']} words: precision {a['precision']:.3f}, "
            f"recall {a['recall']:.3f} ({a['sentences']} sentences).",
        ]
    return lines


def read_validities(info: BuildInfo, files: dict[str, Path | None] | None = None) -> dict[str, dict]:
    """Each configuration's judged validity, from its variant's own validity_file, or from `files` by configuration
    name (one absent from `files` has none); configurations whose file is absent are left out."""
    found = {}
    for config in info.configs:
        path = declared(config.name).validity_file if files is None else files.get(config.name)
        record = read_validity(path) if path is not None else None
        if record is not None:
            found[config.name] = record
    return found


def _variant_sections(info: BuildInfo, validity: dict[str, dict]) -> list[str]:
    """The sections each configuration's variant writes, those of the same title under one heading."""
    sections: dict[str, list[str]] = {}
    for config in info.configs:
        for title, body in declared(config.name).card_sections(config, info, validity.get(config.name)).items():
            sections.setdefault(title, []).extend(body)
    return [line for title, body in sections.items() for line in ["", f"## {title}", *body]]


def _leak_section(info: BuildInfo, features: dict[str, dict], leaks: dict | None) -> list[str]:
    """Per role configuration (one whose swaps carry a binary label), how well a model that saw the hypotheses
    alone tells its swaps from their originals, as `swapbench leak` recorded it."""
    roles = [c for c in info.configs if "binary_label" in features[c.name]]
    if not roles:
        return []
    lines = [
        "",
        "## What the hypotheses alone give away",
        "",
        "A model that never sees the premise can tell a role swap from its original only by the hypothesis "
        "itself: a thing now acting on a person, an implausible event. Such a model, fine-tuned with the same "
        "recipe on the hypotheses alone (`swapbench eval --hypothesis-only`), is scored on each role "
        "configuration (`swapbench leak`). Its *leak* is the share of swapped pairs it predicts non-entailment "
        "minus the share of originals: 0 when the hypotheses give the swap away no more than chance, with its "
        f"95% interval clustered by premise. A configuration leaks when the whole interval lies more than "
        f"{100 * MARGIN:.0f} points from 0, and sits near chance when it lies within {100 * MARGIN:.0f} points. "
        "A row that swaps the premise keeps its hypothesis, and counts as not separated.",
    ]
    if leaks is None:
        return lines + [
            "",
            "Not measured for this build: no hypothesis-only record was found, so how much of each "
            "role configuration can be answered without reading the premise is unknown.",
        ]
    train = leaks["train"]
    lines += [
        "",
        f"Model: `{leaks['model']}` fine-tuned on the hypotheses of {train['n']:,} pairs "
        f"({train['split']} split), validation accuracy {leaks['validation_accuracy']:.1%} (3 classes); "
        f"scored with `{' '.join(leaks['eval_command'])}`, measured with `{' '.join(leaks['command'])}`.",
        "",
        "| configuration | n | originals non-ent % | swaps non-ent % | leak (points) | 95% interval | verdict |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    notes = []
    for config in roles:
        figure = leaks["configurations"].get(config.name)
        purpose = declared(config.name).needs_premise
        if figure is None:
            lines.append(f"| `{config.name}` | | | | | | not measured |")
            if purpose:
                notes.append(
                    f"`{config.name}` was not measured: whether it needs the premise, as it is built to, is unknown."
                )
            continue
        ci = figure["leak_ci"]
        lines.append(
            f"| `{config.name}` | {figure['n']} | {percent(figure['original_non_entailment'])} | "
            f"{percent(figure['swapped_non_entailment'])} | {points(figure['leak'])} | "
            f"[{points(ci['low'])}, {points(ci['high'])}] | {figure['verdict']} |"
        )
        if figure["fingerprint"] != config.fingerprint:
            notes.append(
                f"`{config.name}` was measured on a build whose fingerprint is {figure['fingerprint']}, not "
                f"this one's ({config.fingerprint})."
            )
        if figure["verdict"] == "leaks":
            how = (
                "its swaps look less entailed than their originals, so part of what a model scores on it is "
                "earned without reading the premise"
                if figure["leak"] > 0
                else "its swaps look more entailed than their originals, so a model that leans on the hypothesis is "
                "pushed away from the right label whatever it makes of the roles"
            )
            notes.append(
                f"`{config.name}` leaks: the hypotheses alone tell its swaps from their originals "
                f"({points(figure['leak'])} points): {how}."
                + (
                    " This defeats its purpose: its pairs are built so that only the premise tells them apart."
                    if purpose
                    else ""
                )
            )
        elif figure["verdict"] == "undecided" and purpose:
            notes.append(
                f"`{config.name}` is not shown to sit near chance, as it is built to: its interval reaches "
                f"beyond {100 * MARGIN:.0f} points."
            )
    lines += ["", *(f"- {note}" for note in notes)] if notes else []
    return lines + _plausibility_lines(roles, leaks.get("plausibility"))


def _plausibility_lines(roles: list[ConfigInfo], baseline: dict | None) -> list[str]:
    """The plausibility baseline recorded beside the hypothesis-only figures (`swapbench leak --plausibility`), if
    it was."""
    if not baseline:
        return []
    lines = [
        "",
        f"A language model, `{baseline['model']}`, scored each row's two hypotheses alone (no premise, no "
        f"training: {baseline['text']}) and predicted entailment for the more probable one. Where it "
        "prefers the original in more than half of the rows whose two hypotheses differ, plausibility alone "
        "tells the swaps from their originals. A row whose two pairs share their hypothesis (a premise "
        "swap) leaves it at chance by construction and is not compared.",
        "",
        "| configuration | rows | compared | prefers the original % | 95% interval | p | leak (points) | verdict |",
        "|---|---:|---:|---:|---|---:|---:|---|",
    ]
    for config in roles:
        figure = baseline["configurations"].get(config.name)
        if figure is None:
            lines.append(f"| `{config.name}` | | | | | | | not measured |")
        elif figure["share"] is None:
            lines.append(
                f"| `{config.name}` | {figure['n']} | 0 | not applicable: 50.0 by construction | | | "
                f"{points(figure['leak'])} | {figure['verdict']} |"
            )
        else:
            ci = figure["share_ci"]
            lines.append(
                f"| `{config.name}` | {figure['n']} | {figure['compared']} | {percent(figure['share'])} | "
                f"[{percent(ci['low'])}, {percent(ci['high'])}] | {figure['p_value']:.2g} | "
                f"{points(figure['leak'])} | {figure['verdict']} |"
            )
    return lines


def first_row(folder: Path, config: ConfigInfo, split: str) -> dict | None:
    """The first row of a written configuration, as `datasets` would return it (ClassLabels as names)."""
    path = folder / parquet_path(config.name, split, config.fingerprint)
    if not path.is_file():
        return None
    table = pq.ParquetFile(path).read_row_group(0).slice(0, 1)
    rows = datasets.Dataset(table)
    if not len(rows):
        return None
    row = rows[0]
    for name, feature in rows.features.items():
        if isinstance(feature, datasets.ClassLabel):
            row[name] = feature.int2str(row[name])
    return row


def write_card(
    folder: Path,
    info: BuildInfo,
    features: dict[str, dict],
    validity: dict[str, Path | None] | None = None,
    leaks: Path = LEAKS,
) -> None:
    """Write the card of the configurations written in `folder`; `validity`: the validity files by configuration
    name, in place of each variant's own (read_validities); `leaks`: the hypothesis-only figures' file."""
    example = first_row(folder, info.configs[0], info.split) if info.configs else None
    render_card(info, features, example, read_validities(info, validity), read_leaks(leaks)).save(folder / CARD)
