"""The terminal table of a results file: accuracies, Δ and its interval per configuration, and per slice tag; for
the role configurations, role sensitivity, with its interval and its test of role blindness, and on the quartets
pair and quartet accuracy beside their chance levels; for the shuffles, locality as a curve and its slope's verdict;
for a run over several fine-tuning seeds, the means ± the seeds' standard deviation, and each seed's figures."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..core.text import percent, plus_minus, points, tag_sort_key
from ..probing.figures import probe_figures
from ..results.schema import (
    ACCEPTANCE_FIGURES,
    LOCALITY_NULL,
    LOCALITY_SLOPE_SCALE,
    MIN_SLICE_CLUSTERS,
    MIN_SLICE_PAIRS,
    EvalResults,
)


# The terminal's units: accuracies and rates in percent, Δ and its interval in percentage points. The results file
# holds the same figures as fractions.
def _paired_cells(r, spread=None) -> list[str]:
    """n, clusters, orig, pert, Δ, 95% CI, p of a configuration or a slice; `spread`: the configuration's over the
    seeds of a multi-seed run, whose Δ is their mean ± their standard deviation."""
    return [
        str(r.n),
        "" if r.clusters is None else str(r.clusters),
        percent(r.accuracy_original),
        percent(r.accuracy_perturbed),
        points(r.delta) + (f" {plus_minus(spread.delta.std)}" if spread else ""),
        f"[{points(r.delta_ci.low)}, {points(r.delta_ci.high)}]",
        f"{r.mcnemar.p_value:.2g}",
    ]


PAIRED_HEADERS = ("n", "clusters", "orig %", "pert %", "Δ pp", "95% CI", "p")
PAIRED_CAPTION = (
    "orig, pert: accuracy (%) on the original and perturbed pairs; Δ = pert - orig in percentage "
    "points, its 95% bootstrap interval and p-value, both clustered by premise (pairs sharing a "
    "premise resampled and sign-flipped together: clustered exact McNemar)"
)


def _role_cells(r, spread=None) -> list[str]:
    """n, clusters, non-entailment before and after the swap, role sensitivity, its 95% CI and p, and Δ;
    `spread` as for _paired_cells."""
    role = r.role_sensitivity
    interval = "" if role.ci is None else f"[{points(role.ci.low)}, {points(role.ci.high)}]"
    p_value = "" if role.test is None else f"{role.test.p_value:.2g}"
    value = points(role.value) + (f" {plus_minus(spread.role_sensitivity.std)}" if spread else "")
    return [
        str(r.n),
        "" if r.clusters is None else str(r.clusters),
        percent(role.non_entailment_original),
        percent(role.non_entailment_perturbed),
        value,
        interval,
        p_value,
        points(r.delta),
    ]


def _control_cells(control) -> list[str]:
    """A role-free control's cells under ROLE_HEADERS: its clusters are not recorded, and it has no Δ."""
    interval = "" if control.ci is None else f"[{points(control.ci.low)}, {points(control.ci.high)}]"
    p_value = "" if control.test is None else f"{control.test.p_value:.2g}"
    return [
        str(control.n),
        "",
        percent(control.non_entailment_original),
        percent(control.non_entailment_perturbed),
        points(control.value),
        interval,
        p_value,
        "",
    ]


CONTROL_CAPTION = (
    "control: the same score on the entailment pairs of a configuration that reorders words with no "
    "role swapped (orig NE, swap NE before and after the reordering): a role figure is read against "
    "it, as how much of it any reordering gives."
)
ROLE_HEADERS = ("n", "clusters", "orig NE %", "swap NE %", "role pp", "95% CI", "p", "Δ pp")
ROLE_CAPTION = (
    "orig NE, swap NE: pairs predicted non-entailment (any label but entailment, %) before and after "
    "agent and patient were swapped; role = swap NE - orig NE in percentage points: how far the swap "
    "moves the model's answers, 0 for a model blind to roles whatever its label prior, 100 for one that "
    "turns every entailment into non-entailment. Its 95% interval and p-value are clustered as "
    "Δ's; the test's null is that the model is role-blind. Δ (the paper's figure) mixes the label prior "
    "in: the gold label of the originals is entailment and of the swaps is not, so a model that answers "
    "alike before and after the swap gets a large Δ."
)


def seeds_caption(results: EvalResults) -> str:
    """What a multi-seed run's figures are; "" for one fine-tuning."""
    variance = results.seed_variance
    if variance is None:
        return ""
    return (
        f"Over {len(variance.runs)} fine-tuning seeds ({', '.join(map(str, variance.seeds))}): every figure is "
        "their mean, Δ and role sensitivity ± their standard deviation over the seeds; the interval resamples "
        "the seeds and the premise clusters together, and the test pools the seeds (a premise's pairs under "
        "every seed one cluster). The Seeds table gives each seed's figures."
    )


def results_table(results: EvalResults) -> Table:
    model = results.model
    pe = model.positional_encoding
    how = " (fine-tuned here)" if model.fine_tuned else ""
    if model.hypothesis_only:
        how = " (fine-tuned here on the hypotheses alone: --hypothesis-only)"
    if model.prompt:
        calibrated = (
            f", {model.prompt.calibration} calibration" if model.prompt.calibration not in (None, "none") else ""
        )
        how = f" (prompted, {model.prompt.shots}-shot{calibrated})"
        if model.prompt.templates:
            how += f" · template {model.prompt.headline_template} of {len(model.prompt.templates)}"
    name = model.name_or_path
    if model.gguf:
        name += f"/{model.gguf.file} (GGUF {model.gguf.quantization}, dequantized to {model.gguf.dequantized_to})"
    title = f"{name}{how} · {model.architecture_kind} · positions: {pe.family} ({pe.kind})"
    if results.seed_variance:
        title += f" · mean of {len(results.seed_variance.runs)} seeds"
    if model.probe:
        title += f" · {probe_figures(model.probe)}"
    caption = f"{results.dataset.path} [{results.dataset.split}], {model.label_view} labels. {PAIRED_CAPTION}"
    if results.seed_variance:
        caption += f". {seeds_caption(results)}"
    table = Table(title=escape(title), caption=escape(caption), box=box.SIMPLE_HEAD)
    table.add_column("config", no_wrap=True)
    for header in PAIRED_HEADERS:
        table.add_column(header, justify="right", no_wrap=True)
    spread = results.seed_variance.spread if results.seed_variance else {}
    for name, r in results.results.items():
        table.add_row(name, *_paired_cells(r, spread.get(name)))
    return table


def side_table(title: str, caption: str | None = None) -> Table:
    """A table under the headline: titled on the left, compact, its caption plain text (escaped here)."""
    return Table(
        title=title,
        caption=escape(caption) if caption is not None else None,
        box=box.SIMPLE_HEAD,
        collapse_padding=True,
        pad_edge=False,
        title_justify="left",
    )


def role_table(results: EvalResults) -> Table | None:
    """Role sensitivity of every role configuration (those that have it), beside its Δ; None when none has."""
    roles = {name: r for name, r in results.results.items() if r.role_sensitivity is not None}
    if not roles:
        return None
    # As narrow as the slices tables: 80 columns hold it
    table = side_table("Role sensitivity", ROLE_CAPTION)
    table.add_column("config", overflow="fold")
    for header in ROLE_HEADERS:
        table.add_column(header, justify="right", no_wrap=True)
    spread = results.seed_variance.spread if results.seed_variance else {}
    for name, r in roles.items():
        table.add_row(name, *_role_cells(r, spread.get(name)))
    controls = results.role_free_controls or []
    if controls:
        table.add_section()
        table.caption = escape(f"{ROLE_CAPTION} {CONTROL_CAPTION}")
    for control in controls:
        table.add_row(escape(f"control: {control.configuration}"), *_control_cells(control), style="dim")
    return table


def seeds_table(results: EvalResults) -> Table | None:
    """Each seed's validation accuracy, Δ per configuration and role sensitivity per role configuration, with their
    mean ± standard deviation and range over the seeds; None for one fine-tuning."""
    variance = results.seed_variance
    if variance is None:
        return None
    caption = (
        "Each fine-tuning's figures (point estimates): validation accuracy, quartet and pair accuracy and "
        "permutation acceptance in %, Δ and role sensitivity in points; mean ± standard deviation over the "
        "seeds, and [lowest, highest]."
    )
    table = side_table("Seeds", caption)
    table.add_column("figure", overflow="fold")
    for seed in variance.seeds:
        table.add_column(f"seed {seed}", justify="right", no_wrap=True)
    table.add_column("mean ± sd", justify="right", no_wrap=True)
    table.add_column("range", justify="right", no_wrap=True)

    def add(label: str, values: list[float], spread, show) -> None:
        table.add_row(
            escape(label),
            *map(show, values),
            f"{show(spread.mean)} {plus_minus(spread.std)}",
            f"[{show(spread.low)}, {show(spread.high)}]",
        )

    add(
        "validation %",
        [run.fine_tuning.best_validation_accuracy for run in variance.runs],
        variance.validation_accuracy,
        percent,
    )
    for name, spread in variance.spread.items():
        add(f"Δ {name}", [run.results[name].delta for run in variance.runs], spread.delta, points)
    for name, spread in variance.spread.items():
        if spread.role_sensitivity is not None:
            add(
                f"role {name}",
                [run.results[name].role_sensitivity for run in variance.runs],
                spread.role_sensitivity,
                points,
            )
    for name, spread in variance.spread.items():
        for figure in ("quartet_accuracy", "pair_accuracy"):
            if getattr(spread, figure) is not None:
                add(
                    f"{figure.split('_')[0]} % {name}",
                    [getattr(run.results[name].quartets, figure) for run in variance.runs],
                    getattr(spread, figure),
                    percent,
                )
    for name, spread in variance.spread.items():
        for figure, found in (spread.permutation_acceptance or {}).items():
            if found is not None:
                add(
                    f"{ACCEPTANCE_FIGURES[figure]} % {name}",
                    [getattr(run.results[name].permutation_acceptance, figure).value for run in variance.runs],
                    found,
                    percent,
                )
    return table


QUARTET_CAPTION = (
    "Each quartet: (P, H) and (P', H') entailment, (P, H') and (P', H) non-entailment, ' exchanging "
    "agent and patient by a permutation of words; binary view. pair: the share of the four pairs "
    "right; quartet: the share of quartets with all four right, the role headline; chance: what any "
    "model that ignores the premise or word order scores on them, exactly. P'H: accuracy on the "
    "paper's Shuffle-SR cell (the premise exchanged), PH on its control (the same hypothesis, the "
    "premise kept); such a model answers the two alike, so its P'H is 100 - PH, the chance beside "
    "P'H. 95% intervals clustered by source premise, the four pairs of a quartet together. The chance "
    "levels are exact where the model's tokenizer reads P' and H' as permutations of P's and H's tokens: "
    "with a cased or byte-level tokenizer not every quartet is, and the exact-null lines give the "
    "figures on those that are."
)


def quartet_table(results: EvalResults) -> Table | None:
    """Pair and quartet accuracy of every quartet configuration, each beside its interval and its chance level, and
    the Shuffle-SR cell beside its control: a figure a line, so that 80 columns hold it; None when there is none."""
    found = {name: r.quartets for name, r in results.results.items() if r.quartets}
    if not found:
        return None
    table = side_table("Role quartets", QUARTET_CAPTION)
    table.add_column("config", overflow="fold")
    table.add_column("figure", no_wrap=True)
    for header in ("value", "95% CI", "chance"):
        table.add_column(header, justify="right", no_wrap=True)
    for name, q in found.items():
        lines = [
            ("quartets (clusters)", f"{q.quartets} ({q.clusters})", "", ""),
            *(
                (
                    f"{figure.split('_')[0]} %",
                    percent(getattr(q, figure)),
                    _interval(getattr(q, f"{figure}_ci")),
                    percent(chance),
                )
                for figure, chance in q.chance.items()
            ),
            *_exact_null_lines(q.exact_null, q.chance),
            ("P'H % (Shuffle-SR)", percent(q.shuffle_sr), "", percent(q.shuffle_sr_chance)),
            ("PH % (its control)", percent(q.cells["PH"]), "", ""),
        ]
        for i, line in enumerate(lines):
            table.add_row(escape(name) if i == 0 else "", *map(escape, line), end_section=i == len(lines) - 1)
    return table


def _exact_null_lines(exact, chance: dict[str, float]) -> list[tuple[str, str, str, str]]:
    """The quartets where the model's tokenizer makes the chance levels exact, and its figures there (each beside
    its chance, as the headline's), when they differ from the whole set (a cased or byte-level tokenizer); nothing
    when every quartet is one or none is measured."""
    if exact is None or exact.quartets == exact.of:
        return []
    lines = [("exact-null quartets", f"{exact.quartets} of {exact.of}", "", "")]
    if exact.quartets:
        lines += [
            (
                f"{figure.split('_')[0]} % (exact null)",
                percent(getattr(exact, figure)),
                _interval(getattr(exact, f"{figure}_ci")),
                percent(level),
            )
            for figure, level in chance.items()
        ]
    return lines


def _interval(ci) -> str:
    return f"[{percent(ci.low)}, {percent(ci.high)}]"


ACCEPTANCE_CAPTION = (
    "UNLU's permutation acceptance (Sinha et al., 2021), in %, each with its 95% interval "
    "clustered by premise: Ω_max, pairs with some permutation predicted as the gold label; Ω_rand, "
    "pairs with more than a third of them; P^c, P^f: mean share of correct permutations of the "
    "pairs predicted right (P^c) or wrong (P^f) unpermuted, among those with some correct "
    "permutation (n: how many). K: permutations per pair; Ω_max and the pairs P^c and P^f average "
    "over grow with K, so compare figures at the same K only."
)
# UNLU's own SNLI test figures, at the K they drew: shown beside a configuration of that K only.
UNLU_REPORTED_K = 100
UNLU_REPORTED = (
    f" UNLU's SNLI test figures (K = {UNLU_REPORTED_K}; acc / Ω_max / Ω_rand / P^c / P^f): RoBERTa-large "
    "87.6 / 98.8 / 82.8 / 76.0 / 40.7, DistilBERT 73.9 / 95.0 / 72.5 / 77.0 / 31.2."
)


def _figure_cell(figure) -> str:
    if figure is None:
        return "undefined"
    return f"{percent(figure.value)} [{percent(figure.ci.low)}, {percent(figure.ci.high)}]"


def acceptance_table(results: EvalResults) -> Table | None:
    """UNLU's metrics of every configuration of K permutations per pair, each with its K and the pairs P^c and P^f
    average over; UNLU's published figures beside them only where K is UNLU's. None when there is none."""
    found = {name: r.permutation_acceptance for name, r in results.results.items() if r.permutation_acceptance}
    if not found:
        return None
    caption = ACCEPTANCE_CAPTION + (
        UNLU_REPORTED if any(a.permutations == UNLU_REPORTED_K for a in found.values()) else ""
    )
    table = side_table("Permutation acceptance", caption)
    table.add_column("config", overflow="fold")
    for header in ("K", "pairs", "acc %", "Ω_max %", "Ω_rand %", "P^c %", "n", "P^f %", "n"):
        table.add_column(header, justify="right")
    # over several seeds: each (seed, pair) counts as a pair, the intervals resample premises (not seeds)
    for name, a in found.items():
        seeds = results.results[name].seeds
        pairs = str(a.pairs) if seeds == 1 else f"{a.pairs // seeds} × {seeds} seeds"
        table.add_row(
            escape(name),
            str(a.permutations),
            pairs,
            percent(a.accuracy.value),
            *(_figure_cell(f) for f in (a.omega_max, a.omega_rand)),
            _figure_cell(a.p_c),
            str(a.p_c_pairs),
            _figure_cell(a.p_f),
            str(a.p_f_pairs),
        )
    return table


K_CURVE_CAPTION = (
    "UNLU's figures recomputed with the first K′ of each pair's permutations (eval --k-curve), in %; "
    "n: the pairs P^c and P^f average over at that K′ (those with some correct permutation among the "
    "K′). The last row is the table above."
)


def k_curve_tables(results: EvalResults) -> list[Table]:
    """The K-curve of every permutation configuration that has one (eval --k-curve)."""
    tables = []
    for name, result in results.results.items():
        acceptance = result.permutation_acceptance
        if acceptance is None or not acceptance.k_curve:
            continue
        table = side_table(f"K-curve: {escape(name)}", K_CURVE_CAPTION)
        for header in ("K′", "Ω_max %", "Ω_rand %", "P^c %", "n", "P^f %", "n"):
            table.add_column(header, justify="right")
        for point in acceptance.k_curve:
            table.add_row(
                str(point.permutations),
                percent(point.omega_max),
                percent(point.omega_rand),
                "undefined" if point.p_c is None else percent(point.p_c),
                str(point.p_c_pairs),
                "undefined" if point.p_f is None else percent(point.p_f),
                str(point.p_f_pairs),
            )
        tables.append(table)
    return tables


LOCALITY_CAPTION = (
    f"Locality as a curve: changed = share (%) of rows whose prediction differs from the original "
    f"pair's, and Δ (pp), per bin of the shuffle's distance (positions travelled by the premise's "
    f"tokens); slope: changed gained per {LOCALITY_SLOPE_SCALE} positions (pp), least squares, with "
    f"its 95% bootstrap interval over premises. Null: {LOCALITY_NULL}. An interval that covers 0 is "
    f"no gradient."
)


def bin_label(low: int, high: int | None) -> str:
    """A distance bin [low, high] as "2" (the first, 0 to 2: a shuffle moves at least 2), "3-4" or "65+"."""
    if high is None:
        return f"{low}+"
    return str(high) if low in (0, high) else f"{low}-{high}"


def slope_points(value: float) -> str:
    """A locality slope (a fraction per position) as points per LOCALITY_SLOPE_SCALE positions."""
    return points(LOCALITY_SLOPE_SCALE * value)


def gradient_words(gradient: bool) -> str:
    """The verdict of a configuration's locality (Locality.gradient), in the one wording: "gradient", or "no
    gradient" where the slope's interval covers 0."""
    return "gradient" if gradient else "no gradient"


def locality_table(results: EvalResults) -> Table | None:
    """Each configuration's locality curve and its slope's verdict; None when no configuration has one."""
    found = {name: r.locality for name, r in results.results.items() if r.locality is not None}
    if not found:
        return None
    table = side_table("Locality", LOCALITY_CAPTION)
    table.add_column("config", overflow="fold")
    table.add_column("rows", justify="right")
    table.add_column("distance: changed / Δ", overflow="fold")  # in % and pp, as the caption says
    for header in ("slope", "95% CI"):
        table.add_column(header, justify="right")
    table.add_column("verdict")
    for name, f in found.items():
        curve = "\n".join(
            f"{bin_label(b.distance_min, b.distance_max)}: {percent(b.changed)} / {points(b.delta)}" for b in f.bins
        )  # a bin a line
        slope = "" if f.slope is None else slope_points(f.slope)
        ci = "" if f.slope_ci is None else f"[{slope_points(f.slope_ci.low)}, {slope_points(f.slope_ci.high)}]"
        table.add_row(escape(name), str(f.rows), curve, slope, ci, gradient_words(f.gradient))
    return table


HEADLINE_MARK = "*"


def templates_table(results: EvalResults) -> Table | None:
    """Every template's accuracies and Δ per configuration, and their spread across the templates; None when one
    template was scored."""
    prompt = results.model.prompt
    if prompt is None or not prompt.templates:
        return None
    caption = (
        f"{HEADLINE_MARK} the headline template: its predictions make every figure above. spread: mean ± "
        "standard deviation over the templates [lowest, highest], point estimates"
    )
    table = side_table("Templates", caption)
    table.add_column("config", overflow="fold")
    table.add_column("template", overflow="fold")
    for header in ("orig %", "pert %", "Δ pp"):
        table.add_column(header, justify="right", no_wrap=True)
    for name, spread in (prompt.spread or {}).items():
        for i, template in enumerate(prompt.templates):
            figures = template.results[name]
            table.add_row(
                escape(name) if i == 0 else "",
                escape(template.name) + (f" {HEADLINE_MARK}" if i == 0 else ""),
                percent(figures.accuracy_original),
                percent(figures.accuracy_perturbed),
                points(figures.delta),
            )
        original, delta = spread.accuracy_original, spread.delta
        table.add_row(
            "",
            "spread",
            f"{percent(original.mean)} ± {percent(original.std)} [{percent(original.low)}, {percent(original.high)}]",
            "",
            f"{points(delta.mean)} ± {percent(delta.std)} [{points(delta.low)}, {points(delta.high)}]",
            end_section=True,
        )
    return table


SMALL_MARK = "†"


def slices_tables(results: EvalResults) -> list[Table]:
    """One narrow table per configuration (80 columns hold it), its slices in natural order (words:9 before
    words:10); a slice too small to read is dimmed and marked."""
    tables = []
    for name, r in results.results.items():
        if not r.slices:
            continue
        table = side_table(f"Slices of {escape(name)} (exploratory)")
        # A role configuration's slices break its headline down: role sensitivity, with Δ beside it.
        role = all(s.role_sensitivity is not None for s in r.slices.values())
        table.add_column("slice", overflow="fold")  # a long tag folds; the figures are never cut
        headers = list(ROLE_HEADERS if role else PAIRED_HEADERS)
        headers.insert(headers.index("p") + 1, "p adj")
        for header in headers:
            table.add_column(header, justify="right", no_wrap=True)
        for tag in sorted(r.slices, key=tag_sort_key):
            s = r.slices[tag]
            if role:
                cells = _role_cells(s)
                test = s.role_sensitivity.test
                cells[-2:-1] = [_slice_p(test.p_value), _slice_p(test.p_adjusted)] if test else ["", ""]
            else:
                cells = _paired_cells(s)
                cells[-1:] = [_slice_p(s.mcnemar.p_value), _slice_p(s.mcnemar.p_adjusted)]
            table.add_row(escape(tag) + (f" {SMALL_MARK}" if s.small else ""), *cells, style="dim" if s.small else None)
        tables.append(table)
    return tables


SLICES_CAPTION = (
    f"Slices are exploratory: read one by one, some of so many tests cross any threshold by chance. "
    f"A row counts under each of its tags; columns as above (a role configuration's as in its role "
    f"table), and p adj: the p-value adjusted (Holm) over the configuration's slice tests of its metric "
    f"(Δ's, and apart from them role sensitivity's), "
    f"the one to read a slice by. {SMALL_MARK} too small to read: fewer than {MIN_SLICE_PAIRS} pairs "
    f"or {MIN_SLICE_CLUSTERS} clusters."
)


def _slice_p(p: float | None) -> str:
    if p is None:  # a file written before the adjustment, read without its migration
        return ""
    return "<0.001" if p < 0.001 else f"{p:.2g}"


def health_warning(results: EvalResults) -> str | None:
    """The terminal's words for a model at chance, or None."""
    health = results.health
    if not health.at_chance:
        return None
    return (
        "This model is at chance: its figures are not a result to report, and the leaderboard refuses them. "
        + "; ".join(health.reasons)
        + "."
    )


def print_table(results: EvalResults, console: Console | None = None, slices: bool = False) -> None:
    console = console or Console()
    if not console.is_terminal:  # a log file: rich would squeeze the table into 80 columns
        console.width = max(console.width, 120)
    console.print(results_table(results))
    roles = role_table(results)
    if roles is not None:
        console.print(roles)
    quartets = quartet_table(results)
    if quartets is not None:
        console.print(quartets)
    acceptance = acceptance_table(results)
    if acceptance is not None:
        console.print(acceptance)
    for table in k_curve_tables(results):
        console.print(table)

    curves = locality_table(results)
    if curves is not None:
        console.print(curves)
    templates = templates_table(results)
    if templates is not None:
        console.print(templates)
    seeds = seeds_table(results)
    if seeds is not None:
        console.print(seeds)
    tables = slices_tables(results) if slices else []
    for table in tables:
        console.print(table)
    if tables:
        console.print(SLICES_CAPTION)
    warning = health_warning(results)
    if warning:
        console.print(f"[bold red]WARNING[/]: {escape(warning)}")
    for check in results.health.not_run:  # a role configuration alone cannot show accuracy above chance
        console.print(f"[yellow]Not checked[/]: {escape(check)}.")
