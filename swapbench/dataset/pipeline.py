"""`swapbench build`: SNLI -> parses -> perturbed variants -> a Hugging Face dataset folder.

One path: load the split, parse each distinct premise once (cached on disk), apply every variant to every pair
with its own seeded generator, then write all configurations into a fresh folder that replaces the old one.
"""

from __future__ import annotations

import contextlib
import gc
import logging
from collections import Counter
from collections.abc import Callable
from functools import partial
from itertools import chain
from operator import attrgetter
from pathlib import Path, PurePath

from huggingface_hub.errors import HFValidationError
from huggingface_hub.utils import validate_repo_id
from rich.console import Console

from ..core.command_options import flag_of
from ..core.destination import atomic_directory
from ..core.errors import InputError, SwapbenchError
from ..core.fingerprint import content_fingerprint
from ..core.labels import LABEL_NAMES
from ..core.paths import default_cache_dir
from ..core.progress import progress_bar
from ..core.registry import PARSERS, VARIANTS
from ..core.text import public_path
from ..parsing import AUTO, ParseCache, ParseFailure, make_parser, parse_with_cache, parser_choices
from ..parsing.base import ConstituencyParser, Parse
from ..parsing.spacy_pipeline import shared_pipelines
from ..results.build_record import BUILD_INFO, BuildInfo, ConfigInfo
from ..results.displacement import measure_rows, summarize
from ..sources import Pair, Source, SourceSplit, load_split, output_stem, resolve, source_of
from ..variants import DEFAULT_VARIANTS, Variant, create_variant, declared, expected, variant_type
from ..variants.base import Perturbed
from ..variants.originals import Original, OriginalRenderer
from ..variants.randomness import example_rng
from ..variants.role_shuffle import share_labelings
from .card import write_card
from .options import BuildOptions, build_options
from .output import common_features, write_config

logger = logging.getLogger(__name__)


def default_out(source: str | None, split: str, columns=None, *, declared_source: Source | None = None) -> Path:
    """data/<source>-<split>; `declared_source`: source_of(source, columns), when the caller has it."""
    declared_source = declared_source or source_of(source, columns)
    return Path("data") / f"{output_stem(declared_source)}-{declared_source.split(split)}"


def build(options: BuildOptions) -> tuple[Path, BuildInfo]:
    """Build what `options` (build_options(...), or BuildOptions for the build's own options alone) asks for; what
    it does is logged (swapbench.dataset.pipeline), its progress bars drawn on stderr when it is a terminal."""
    resolved = resolve(options.source, columns=options.columns)  # once: every step below takes this one
    variants = check_options(options, resolved.source)
    out = options.out or default_out(options.source, options.split, declared_source=resolved.source)
    console = Console(stderr=True)  # the progress bars'
    with _collector_skips_long_lived_objects() as freeze:
        # Entered before the source is read, so that a destination it must refuse is refused at once.
        # One spaCy pipeline for the parser and the role labeler; Docs kept when a variant reads them.
        with (
            atomic_directory(out, marker=BUILD_INFO, overwrite=options.overwrite) as staging,
            shared_pipelines(keep_docs=any(v.needs_docs for v in variants)),
        ):
            info = _build(options, variants, staging, console, freeze, resolved)
    count = len(info.configs)
    logger.info(f"Wrote {count} configuration{'s' * (count != 1)} to {out}.")
    if options.push_to_hub:
        from .hub import push_folder

        push_folder(out, options.push_to_hub)
    return out, info


def variant_names(options: BuildOptions) -> list[str]:
    return list(DEFAULT_VARIANTS) if options.variants is None else options.variants


def _own(kind, options: BuildOptions):
    """A variant's own options among the build's (already validated by the build's model); defaults for those a
    model without the variant's fields lacks."""
    model = kind.options_model()
    return model.model_construct(
        **{name: getattr(options, name) for name in model.model_fields if hasattr(options, name)}
    )


def check_options(options: BuildOptions, declared_source: Source | None = None) -> list[Variant]:
    """Refuse a bad option before any work, naming it and what it allows; returns the variants. The options'
    model has checked each value's type and range; here, what depends on the registries and on each other."""
    (declared_source or source_of(options.source, options.columns)).split(options.split)
    if options.parser != AUTO and options.parser not in PARSERS:
        raise SwapbenchError(f"--parser {options.parser}: expected one of {', '.join(parser_choices())}")
    kinds = {entry.name: variant_type(entry.value) for entry in VARIANTS}
    for kind in dict.fromkeys(kinds.values()):  # every variant's options, built or not
        kind.check(_own(kind, options))
    names = variant_names(options)
    if not names:
        raise SwapbenchError(f"--variants: no variant given; {expected()}")
    repeated = [name for name, count in Counter(names).items() if count > 1]
    if repeated:
        raise SwapbenchError(f"--variants: {', '.join(repeated)} given more than once")
    for name in names:
        if name not in VARIANTS:
            raise SwapbenchError(f"--variants: unknown variant {name!r}: {expected()}")
    built = {declared(name) for name in names}
    for entry_name, kind in kinds.items():  # an option that changes nothing without its variant is refused
        for field in kind.refused_without:
            model = kind.options_model()
            value = getattr(options, field, None)
            if (
                kind not in built
                and value is not None
                and value != model.model_fields[field].default
                and not any(field in other.refused_without for other in built)
            ):
                raise SwapbenchError(
                    f"{flag_of(field, model.model_fields[field])} applies to {entry_name}, which --variants leaves out"
                )
    if options.push_to_hub:
        try:
            validate_repo_id(options.push_to_hub)
        except HFValidationError as err:
            raise SwapbenchError(f"--push-to-hub {options.push_to_hub}: {err}") from err
    variants = [create_variant(name, _own(declared(name), options)) for name in names]
    share_labelings(variants)  # the role configurations label their sentences once, for this build alone
    return variants


def _build(
    options: BuildOptions,
    variants: list[Variant],
    staging: Path,
    console: Console,
    freeze: Callable[[], None],
    resolved=None,
) -> BuildInfo:
    snli = load_split(
        options.source,
        options.split,
        options.limit,
        columns=options.columns,
        cache_dir=options.cache_dir,
        resolved=resolved,
    )
    logger.info(
        f"Read {len(snli.pairs)} labelled pairs from {snli.source} ({snli.dropped_no_gold} without gold label dropped)."
    )
    cut = snli.shortfall()
    if cut:
        logger.warning(f"{cut}; the build holds only these pairs")
    parser = make_parser(options.parser, snli.has_premise_parses, options.spacy_model, options.benepar_model)
    logger.debug(f"Parser: {parser.name} {parser.version}; variants: {', '.join(v.name for v in variants)}")
    freeze()  # the split, and the parser with its libraries, live until the end
    parses = parse_premises(snli, parser, options, console)
    freeze()  # so are the parses, the originals and each variant's rows: frozen as they are made

    agreement = None
    if parser.name != "ptb" and snli.has_premise_parses:
        agreement = measure_agreement(snli, parses, parser)

    columns_by_config, infos = {}, []
    with _collector_paused(freeze):
        originals = render_originals(snli.pairs, parses, parser)
    with progress_bar(enabled=console.is_terminal, console=console) as progress:
        for variant in variants:
            task = progress.add_task(f"{variant.name}", total=len(snli.pairs))
            advance = partial(progress.advance, task)
            with _collector_paused(freeze):
                columns, info = apply_variant(
                    variant, snli.pairs, parses, parser, options.seed, originals=originals, advance=advance
                )
            columns_by_config[variant.name] = (columns, variant)
            infos.append(info)
    empty = [info.name for info in infos if not info.rows]
    if empty and options.variants is None:  # a default configuration that does not apply here is left out
        logger.info(f"Left out {', '.join(empty)}: no pair read applies to {'it' if len(empty) == 1 else 'them'}.")
        infos = [info for info in infos if info.rows]
        variants = [variant for variant in variants if variant.name not in empty]
        columns_by_config = {name: value for name, value in columns_by_config.items() if name not in empty}
        empty = []
    if not infos:
        raise SwapbenchError(
            f"no configuration would have rows: no variant applies to any of the "
            f"{len(snli.pairs)} labelled pairs read; nothing was written, --out is as it was"
        )
    if empty:
        raise SwapbenchError(
            f"{', '.join(empty)} would have no rows (the variant applies to none of the {len(snli.pairs)} "
            "labelled pairs read), and an empty configuration cannot be loaded: nothing was written, --out is as it "
            "was. Leave it out of --variants, or read more pairs (--limit)"
        )

    info = BuildInfo(
        split=snli.split,
        source=public_path(snli.source),
        source_name=snli.declaration.name,
        source_fingerprint=snli.fingerprint,
        rows_read=snli.rows_read,
        dropped_no_gold=snli.dropped_no_gold,
        pairs=len(snli.pairs),
        limit=options.limit,
        parser=parser.name,
        parser_version=parser.version,
        unique_premises=len(parses),
        seed=options.seed,
        configs=infos,
        parser_agreement=agreement,
        spacy_pipelines=sorted({p for p in (parser.spacy_pipeline, *(v.spacy_pipeline for v in variants)) if p}),
        variant_options={
            v.name: recorded_options(v.options)
            for v in variants
            if v.options is not None and type(v.options).model_fields
        },
        **_records(options, variants),
    )
    features = {
        name: {**common_features(), **variant.extra_features} for name, (_, variant) in columns_by_config.items()
    }
    for config in info.configs:
        config.num_bytes = write_config(
            staging,
            config.name,
            snli.split,
            columns_by_config[config.name][0],
            features[config.name],
            config.fingerprint,
        )
    write_card(staging, info, features)
    (staging / BUILD_INFO).write_text(info.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return info


def recorded_options(options) -> dict:
    """A variant's options as build_info.json records them: a file among them named as a published file names
    it (core.text.public_path)."""
    values = options.model_dump(mode="json")
    return {
        name: public_path(value) if isinstance(getattr(options, name), PurePath) else value
        for name, value in values.items()
    }


def _records(options: BuildOptions, variants: list[Variant]) -> dict:
    """What each registered variant sets in the build record, given the build's options and whether it was built."""
    built = {type(v) for v in variants}
    record: dict = {}
    for kind in dict.fromkeys(variant_type(entry.value) for entry in VARIANTS):
        record.update(kind.record(_own(kind, options), built=kind in built))
    return record


def input_field(parser: ConstituencyParser) -> str:
    """The field of a pair a backend reads: the text, or the supplied tree."""
    return "premise" if parser.reads_text else "premise_parse"


def parser_input(parser: ConstituencyParser, pair: Pair) -> str:
    return getattr(pair, input_field(parser))


def parse_premises(
    snli: SourceSplit, parser: ConstituencyParser, options: BuildOptions, console: Console
) -> dict[str, Parse]:
    inputs = [parser_input(parser, p) for p in snli.pairs]
    # Supplied trees are read, not computed: caching them would only add I/O.
    cache = None
    if options.use_cache and parser.reads_text:
        cache = ParseCache((options.cache_dir or default_cache_dir()) / "parses.sqlite")
    try:
        with progress_bar(enabled=console.is_terminal, console=console) as progress:
            task = progress.add_task(f"parsing ({parser.name})", total=len(set(inputs)))
            return parse_with_cache(parser, inputs, cache, progress=lambda n: progress.advance(task, n))
    except ParseFailure as err:
        pair = next(p for p in snli.pairs if parser_input(parser, p) == err.text)
        raise InputError(str(err), path=pair.path, line=pair.line) from err
    finally:
        if cache:
            cache.close()


def render_originals(pairs: list[Pair], parses: dict[str, Parse], parser: ConstituencyParser) -> dict[str, Original]:
    """Each pair's original, rendered once for every configuration, by pairID."""
    render = OriginalRenderer(reads_trees=not parser.reads_text).render
    return {pair.pair_id: render(pair, parses[parser_input(parser, pair)]) for pair in pairs}


def apply_variant(
    variant: Variant,
    pairs: list[Pair],
    parses: dict[str, Parse],
    parser: ConstituencyParser,
    seed: int,
    originals: dict[str, Original] | None = None,
    advance=None,
) -> tuple[dict[str, list], ConfigInfo]:
    """The variant's rows as columns, and its statistics; `advance(n)` reports progress every 1000 pairs.
    `originals`: render_originals(pairs, parses, parser), when the caller has it already."""
    label_index = {name: index for index, name in enumerate(LABEL_NAMES)}
    originals = originals if originals is not None else render_originals(pairs, parses, parser)
    columns: dict[str, list] = {name: [] for name in [*common_features(), *variant.extra_features]}
    common = [columns[name] for name in common_features()]  # filled below in this order
    extra = [(name, columns[name]) for name in variant.extra_features]
    variant.prepare(pairs, {pair_id: original.tokens for pair_id, original in originals.items()})
    apply, name, parse_key = variant.apply, variant.name, attrgetter(input_field(parser))
    for index, pair in enumerate(pairs, start=1):
        if advance and index % 1000 == 0:
            advance(1000)
        made = apply(pair, parses[parse_key(pair)], example_rng(seed, pair.pair_id, name))
        if made is None:
            continue
        for result in made if isinstance(made, list) else (made,):
            _append_row(result, pair, originals[pair.pair_id], name, common, extra, label_index)
    if advance:
        advance(len(pairs) % 1000)
    fingerprint = content_fingerprint(columns)
    rows = len(columns["pair_id"])
    pairs_kept = len(set(columns["pair_id"]))
    info = ConfigInfo(
        name=variant.name,
        description=variant.description,
        rows=rows,
        not_applicable=len(pairs) - pairs_kept,
        fingerprint=fingerprint,
        tag_counts=dict(Counter(chain.from_iterable(columns["tags"]))),
        extra=variant.statistics(),
        displacement=summarize(measure_rows(columns["permutation"])),
    )
    return columns, info


def _append_row(
    result: Perturbed,
    pair: Pair,
    written: Original,
    name: str,
    common: list[list],
    extra: list[tuple[str, list]],
    label_index: dict[str, int],
) -> None:
    """Add one perturbed row of `pair` to its configuration's columns (`common`: in common_features' order)."""
    original, original_label = written.text, pair.label
    if result.original_label is not None:  # the variant wrote its own original pair
        original = (written.write(result.original_premise), written.write(result.original_hypothesis))
        original_label = result.original_label
    premise, hypothesis = perturbed_pair(result, pair, written, original)
    for column, value in zip(
        common,
        (
            pair.pair_id,
            premise,
            hypothesis,
            label_index[result.label],
            original[0],
            original[1],
            label_index[original_label],
            name,
            pair.premise,
            written.premise_tokens,
            result.permutation,
            result.tags,
        ),
    ):
        column.append(value)
    try:
        for key, column in extra:
            column.append(result.extra[key])
    except KeyError as err:
        raise SwapbenchError(
            f"variant {name}: a row lacks its column {err.args[0]!r} (extra_features names the "
            "columns that Perturbed.extra must hold)"
        ) from err


def perturbed_pair(result: Perturbed, pair: Pair, written: Original, original: tuple[str, str]) -> tuple[str, str]:
    """The perturbed pair as text: its unperturbed side is the original's text (`original`), so that only the
    perturbation tells the two pairs apart, and a perturbed side is its tokens written as the pair's text writes
    them (variants/writing.py). A side is unperturbed when it reads as the variant's own rendering of the original
    (Perturbed.original_premise/_hypothesis; by default the parse's tokens and the hypothesis as read)."""
    premise = (
        original[0]
        if result.premise == (result.original_premise or written.tokens[0])
        else written.write(result.premise, result.permutation)
    )
    hypothesis = (
        original[1]
        if result.hypothesis == (result.original_hypothesis or pair.hypothesis)
        else written.write(result.hypothesis)
    )
    return premise, hypothesis


def measure_agreement(snli: SourceSplit, parses: dict[str, Parse], parser: ConstituencyParser) -> dict:
    from ..parsing.parseval import agreement
    from ..parsing.ptb import PTBParser

    unique = list({p.premise: p for p in snli.pairs}.values())
    try:
        reference = PTBParser().parse_many([p.premise_parse for p in unique])
    except ValueError:
        return None  # a malformed supplied tree: agreement is a side figure, not worth failing the build
    return agreement([p.premise for p in unique], reference, [parses[p.premise] for p in unique])


@contextlib.contextmanager
def _collector_paused(freeze: Callable[[], None]):
    """No cyclic garbage collection within, and what was made frozen at the end: around the loops that make an
    original, or a configuration's rows, per pair. They allocate millions of objects that all live on (tuples,
    lists, strings; no reference cycle among them), and the collector's passes over them are work for nothing:
    in a ptb build of the four shuffles (about 1.6 s) they took 0.11 s, and 0.015 s with these pauses
    (gc.callbacks). Freezing them before the collector runs again keeps its next pass from walking them all.
    A garbage cycle made within is collected once the build unfreezes its objects."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        freeze()
        if enabled:
            gc.enable()


@contextlib.contextmanager
def _collector_skips_long_lived_objects():
    """Keep CPython's cyclic garbage collector off the objects that live through the whole build.

    Its full passes walk every live container: the loaded libraries alone (datasets, pyarrow, then spaCy and
    torch) hold hundreds of thousands, none of them garbage, and the build's growing data triggers pass after
    pass. gc.freeze() puts what exists into a generation that no pass walks: on entry, and through the yielded
    function once the split and the parser are loaded, then as the parses, the originals and each variant's rows
    are made. A ptb build takes 15-20% less time than with no freezing, and about 7% less than when only the
    split and the parser were frozen. Everything is unfrozen at the end; a caller that freezes objects itself is
    left alone.
    """
    if gc.get_freeze_count():
        yield lambda: None
        return
    gc.freeze()
    try:
        yield gc.freeze
    finally:
        gc.unfreeze()


__all__ = ["BuildOptions", "SwapbenchError", "build", "build_options", "default_out"]
