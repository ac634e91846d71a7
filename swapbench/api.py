"""The Python API, for notebooks: `swapbench.build`, `swapbench.evaluate` and `swapbench.probe` do what the
commands of the same names do, and hand back what they wrote with its tables as pandas DataFrames.

    import swapbench

    built = swapbench.build(split="test", source="snli_1.0/", out="data/snli-test", limit=500)
    run = swapbench.evaluate("path/or/hub-id-of-an-nli-classifier", built.path, probe=False)
    run.configurations            # one row per configuration: accuracies, delta and its interval, test; role
                                  # sensitivity and its interval and test on the role configurations
    run.slices                    # one row per (configuration, slice tag)
    run.role_free_controls        # the role score on reordered pairs with no role swapped, beside the role figures
    run.examples                  # one row per scored pair, as in the predictions file
    run.locality                  # share changed and delta per distance bin; run.plot_locality("locality.png")
    swapbench.probe("bert-base-uncased", words=20).layers

Every flag of a command is a keyword of its function, named as the flag with dashes as underscores (`lr=1e-4`,
`no_probe=True`, `train_limit=500`) or as its field in the command's options model
(`swapbench.dataset.options.build_options_model()`, `EvalOptions`, `ProbeOptions`), from which the command line's
options are made too: the command-line help describes them, and a bad value is refused with the command line's
message. Nothing heavy is imported until a function is called.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from .results.schema import ACCEPTANCE_FIGURES, QUARTET_CHANCE, AcceptancePoint

if TYPE_CHECKING:
    import pandas as pd

    from .probing.result import ProbeResult
    from .results.build_record import BuildInfo
    from .results.schema import EvalResults


@dataclass(frozen=True)
class Built:
    """A dataset folder that `build` wrote, and its record (build_info.json)."""

    path: Path
    info: BuildInfo

    @cached_property
    def configurations(self) -> pd.DataFrame:
        """One row per configuration: name, rows, pairs not applicable, fingerprint, description."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "configuration": c.name,
                    "rows": c.rows,
                    "not_applicable": c.not_applicable,
                    "fingerprint": c.fingerprint,
                    "description": c.description,
                }
                for c in self.info.configs
            ]
        )

    def rows(self, configuration: str) -> pd.DataFrame:
        """The rows of one configuration, labels as names."""
        import datasets

        split = datasets.load_dataset(str(self.path), configuration, split=self.info.split)
        frame, features = split.to_pandas(), split.features  # (features: a deep copy at each access)
        for column in ("label", "original_label"):
            if column in frame:
                frame[column] = frame[column].map(features[column].names.__getitem__)
        return frame


@dataclass(frozen=True)
class Evaluated:
    """The results of `evaluate` (the results file's object) and where they were written."""

    results: EvalResults
    path: Path  # the results file; the predictions file lies beside it

    @cached_property
    def configurations(self) -> pd.DataFrame:
        """One row per configuration: pairs, accuracy on the originals and the perturbed pairs, delta, its
        confidence interval and the test's p-value (fractions, as in the results file); on a role configuration
        also its role sensitivity (the share of swaps predicted non-entailment minus that of their originals: 0
        for a role-blind model), its interval and the p-value of its test of role blindness, and beside it the
        role-free control (the same score on the entailment pairs of shuffle-random or unlu, reordered with no role
        swapped; role_free_controls has each), empty elsewhere; on a configuration of K permutations per pair
        (unlu), UNLU's omega_max, omega_rand, p_c and p_f with their intervals, K (`permutations`) and the pairs p_c
        and p_f average over (`p_c_pairs`, `p_f_pairs`: figures at different K do not compare), empty elsewhere; on
        a quartet configuration (role-quartets), its quartets, pair and quartet
        accuracy with their intervals and chance levels (0.5 and 0 for any model that ignores the premise or word
        order), and the accuracy on the paper's Shuffle-SR cell (P', H) beside what such a model scores there (one
        minus its accuracy on (P, H)), empty elsewhere; on a configuration whose rows record a distance, the
        locality slope, its interval and locality_gradient (`locality` has the curve), empty elsewhere."""
        import pandas as pd

        controls = self.results.role_free_controls or []
        return pd.DataFrame(
            [
                {
                    "configuration": name,
                    **_paired(result),
                    **_role(result),
                    **_control(result, controls),
                    **_acceptance(result),
                    **_quartets(result),
                    **_locality(result),
                    "label_view": result.label_view,
                    "non_entailment_rate": result.non_entailment_rate,
                }
                for name, result in self.results.results.items()
            ],
            columns=[
                "configuration",
                *_PAIRED,
                *_ROLE,
                *_CONTROL,
                *_ACCEPTANCE,
                *_QUARTETS,
                *_LOCALITY,
                "label_view",
                "non_entailment_rate",
            ],
        )

    @cached_property
    def locality(self) -> pd.DataFrame:
        """Locality as a curve: one row per (configuration, distance bin) of every configuration whose rows record
        a distance (the shuffles, unlu): the bin's smallest and largest distance (None for the last, open bin),
        its rows, the share of predictions changed and Δ accuracy (fractions). The slope of changed on distance,
        its interval and `locality_gradient` (false when the interval covers 0: no gradient) are columns of
        `configurations`."""
        import pandas as pd

        columns = ["configuration", "distance_min", "distance_max", "rows", "changed", "delta"]
        return pd.DataFrame(
            [
                [name, b.distance_min, b.distance_max, b.rows, b.changed, b.delta]
                for name, result in self.results.results.items()
                if result.locality
                for b in result.locality.bins
            ],
            columns=columns,
        )

    def plot_locality(self, path: str | Path, title: str | None = None) -> Path:
        """The locality curve as a PNG at `path` (share changed and Δ per distance bin, each configuration's slope
        and verdict in its label); ValueError when no configuration has one."""
        from .evaluation.locality_plot import plot_locality

        return plot_locality(self.results, Path(path), title)

    @cached_property
    def k_curve(self) -> pd.DataFrame:
        """One row per (permutation configuration, K′) of a run with `k_curve=True`: UNLU's figures recomputed
        with the first K′ of each pair's K permutations (K′ = 2 to K) and the pairs P^c and P^f average over at
        that K′; empty without it."""
        import pandas as pd

        columns = ["configuration", *AcceptancePoint.model_fields]
        return pd.DataFrame(
            [
                {"configuration": name, **point.model_dump()}
                for name, result in self.results.results.items()
                if result.permutation_acceptance
                for point in result.permutation_acceptance.k_curve
            ],
            columns=columns,
        )

    @cached_property
    def role_free_controls(self) -> pd.DataFrame:
        """One row per role-free control of the role figures (results.role_free_controls): the configuration
        whose entailment pairs were reordered with no role swapped, its pairs, the shares predicted non-entailment
        before and after, the score (after minus before, the role sensitivity of pairs whose roles did not
        change), its interval and p-value. Read a role configuration's role_sensitivity against it; empty when the
        run has no role configuration or none of those configurations."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "configuration": c.configuration,
                    "n": c.n,
                    "non_entailment_original": c.non_entailment_original,
                    "non_entailment_perturbed": c.non_entailment_perturbed,
                    "role_free_control": c.value,
                    "role_free_control_low": c.ci.low if c.ci else None,
                    "role_free_control_high": c.ci.high if c.ci else None,
                    "p_value": c.test.p_value if c.test else None,
                }
                for c in self.results.role_free_controls or []
            ],
            columns=[
                "configuration",
                "n",
                "non_entailment_original",
                "non_entailment_perturbed",
                "role_free_control",
                "role_free_control_low",
                "role_free_control_high",
                "p_value",
            ],
        )

    @cached_property
    def slices(self) -> pd.DataFrame:
        """One row per (configuration, slice tag), role sensitivity included on a role configuration; `small` marks
        slices too small to read. Slices are exploratory: `p_adjusted` and `role_sensitivity_p_adjusted` are the
        p-values adjusted (Holm) over the configuration's slice tests of the same metric (Δ's, role sensitivity's),
        the ones to read a slice by."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "configuration": name,
                    "slice": tag,
                    **_paired(result),
                    **_role(result),
                    **_adjusted(result),
                    "small": result.small,
                }
                for name, config in self.results.results.items()
                for tag, result in (config.slices or {}).items()
            ],
            columns=["configuration", "slice", *_PAIRED, *_ROLE, *_ADJUSTED, "small"],
        )

    @cached_property
    def seeds(self) -> pd.DataFrame:
        """Of a run over several fine-tuning seeds (`seeds=[0, 1, 2]`), one row per (seed, configuration): that
        fine-tuning's validation accuracy, accuracies, delta and its interval, p-value, and role sensitivity and its
        interval on a role configuration, and quartet and pair accuracy on a quartet configuration;
        `configurations` holds their means. Empty for one fine-tuning."""
        import pandas as pd

        variance = self.results.seed_variance
        columns = [
            "seed",
            "configuration",
            "validation_accuracy",
            "accuracy_original",
            "accuracy_perturbed",
            "delta",
            "delta_low",
            "delta_high",
            "p_value",
            "role_sensitivity",
            "role_sensitivity_low",
            "role_sensitivity_high",
            "quartet_accuracy",
            "pair_accuracy",
        ]
        rows = []
        for run in variance.runs if variance else []:
            for name, f in run.results.items():
                role, quartets = f.role_sensitivity_ci, f.quartets
                rows.append(
                    [
                        run.seed,
                        name,
                        run.fine_tuning.best_validation_accuracy,
                        f.accuracy_original,
                        f.accuracy_perturbed,
                        f.delta,
                        f.delta_ci.low,
                        f.delta_ci.high,
                        f.p_value,
                        f.role_sensitivity,
                        role.low if role else None,
                        role.high if role else None,
                        quartets.quartet_accuracy if quartets else None,
                        quartets.pair_accuracy if quartets else None,
                    ]
                )
        return pd.DataFrame(rows, columns=columns)

    @cached_property
    def examples(self) -> pd.DataFrame:
        """One row per scored pair (the predictions file), with `correct_original` and `correct_perturbed`; of a
        run over several seeds, every seed's, with its `seed`."""
        import pandas as pd

        from .results.files import verified_predictions

        # the predictions beside the file, checked to be these results' (a later run may have replaced them)
        rows = verified_predictions(self.path, self.results.predictions)
        frame = pd.DataFrame([row.model_dump() for row in rows])
        frame["correct_original"] = frame["prediction_original"] == frame["gold_original"]
        frame["correct_perturbed"] = frame["prediction_perturbed"] == frame["gold"]
        return frame


_PAIRED = [
    "pairs",
    "clusters",
    "accuracy_original",
    "accuracy_perturbed",
    "delta",
    "delta_low",
    "delta_high",
    "p_value",
]


def _paired(result) -> dict:
    return dict(
        zip(
            _PAIRED,
            (
                result.n,
                result.clusters,
                result.accuracy_original,
                result.accuracy_perturbed,
                result.delta,
                result.delta_ci.low,
                result.delta_ci.high,
                result.mcnemar.p_value,
            ),
        )
    )


_ROLE = ["role_sensitivity", "role_sensitivity_low", "role_sensitivity_high", "role_sensitivity_p_value"]


_CONTROL = ["role_free_control", "role_free_control_configuration"]


def _control(result, controls) -> dict:
    """Beside a role configuration's role sensitivity: the first role-free control (role_free_controls has them
    all); None elsewhere, and where the run has none."""
    first = controls[0] if controls and result.role_sensitivity is not None else None
    return dict(zip(_CONTROL, (first.value, first.configuration) if first else (None, None)))


def _role(result) -> dict:
    """Role sensitivity, its interval and its p-value; None for a configuration that swaps no roles (and for the
    interval and test of a file migrated from before they were recorded)."""
    role = result.role_sensitivity
    if role is None:
        return dict.fromkeys(_ROLE)
    return dict(
        zip(
            _ROLE,
            (
                role.value,
                role.ci.low if role.ci else None,
                role.ci.high if role.ci else None,
                role.test.p_value if role.test else None,
            ),
        )
    )


_ACCEPTANCE = [
    "permutations",
    *(f"{figure}{end}" for figure in ACCEPTANCE_FIGURES for end in ("", "_low", "_high")),
    "p_c_pairs",
    "p_f_pairs",
]


def _acceptance(result) -> dict:
    """UNLU's permutation acceptance and its intervals, with its K (`permutations`) and the pairs P^c and P^f
    average over; None for a configuration without permutations, and for a figure undefined on it (P^f when no
    pair predicted wrong has a correct permutation)."""
    found = result.permutation_acceptance
    values = {key: getattr(found, key) if found else None for key in ("permutations", "p_c_pairs", "p_f_pairs")}
    for figure in ACCEPTANCE_FIGURES:
        value = getattr(found, figure) if found else None
        values.update(
            dict(
                zip(
                    (figure, f"{figure}_low", f"{figure}_high"),
                    (value.value, value.ci.low, value.ci.high) if value else (None, None, None),
                )
            )
        )
    return values


_QUARTETS = [
    "quartets",
    *(f"{figure}{end}" for figure in QUARTET_CHANCE for end in ("", "_low", "_high", "_chance")),
    "shuffle_sr_cell_accuracy",
    "shuffle_sr_cell_chance",
]


def _quartets(result) -> dict:
    """Pair and quartet accuracy, their intervals and chance levels, and the Shuffle-SR cell's accuracy and its
    chance; None for a configuration that is not made of quartets."""
    found = result.quartets
    if found is None:
        return dict.fromkeys(_QUARTETS)
    values = {
        "quartets": found.quartets,
        "shuffle_sr_cell_accuracy": found.shuffle_sr,
        "shuffle_sr_cell_chance": found.shuffle_sr_chance,
    }
    for figure, chance in found.chance.items():
        ci = getattr(found, f"{figure}_ci")
        values.update(
            {
                figure: getattr(found, figure),
                f"{figure}_low": ci.low,
                f"{figure}_high": ci.high,
                f"{figure}_chance": chance,
            }
        )
    return values


_LOCALITY = ["locality_slope", "locality_slope_low", "locality_slope_high", "locality_gradient"]


def _locality(result) -> dict:
    """The slope of changed on distance (a fraction per position), its interval and whether it shows a gradient
    (the interval excludes 0); None for a configuration without a locality curve."""
    found = result.locality
    if found is None:
        return dict.fromkeys(_LOCALITY)
    ci = found.slope_ci
    return dict(zip(_LOCALITY, (found.slope, ci.low if ci else None, ci.high if ci else None, found.gradient)))


_ADJUSTED = ["p_adjusted", "role_sensitivity_p_adjusted"]


def _adjusted(result) -> dict:
    """A slice's p-values adjusted for the slices' multiple comparisons; None where a test is absent."""
    role = result.role_sensitivity
    return dict(zip(_ADJUSTED, (result.mcnemar.p_adjusted, role.test.p_adjusted if role and role.test else None)))


@dataclass(frozen=True)
class Probed:
    """The probe's result (probe.json's object)."""

    result: ProbeResult
    files: list[Path] = field(default_factory=list)  # probe.json and the heatmaps, when `out` was given

    @cached_property
    def layers(self) -> pd.DataFrame:
        """One row per layer: the paper's locality and symmetry, swapbench's relative_locality and degree_symmetry,
        spread and left_decay."""
        import pandas as pd

        return pd.DataFrame([layer.model_dump() for layer in self.result.per_layer])

    @cached_property
    def figures(self) -> pd.DataFrame:
        """One row per figure of the averaged attention, indexed by its name: its value, whose figure it is (the
        paper's or swapbench's) and, where it is null, why."""
        import pandas as pd

        r = self.result
        rows = [
            ("locality", r.locality, "paper", None),
            ("symmetry", r.symmetry, "paper", r.symmetry_note),
            ("relative_locality", r.relative_locality, "swapbench", None),
            ("degree_symmetry", r.degree_symmetry, "swapbench", r.degree_symmetry_note),
        ]
        return pd.DataFrame(rows, columns=["figure", "value", "of", "note"]).set_index("figure")


def _name(value, what: str) -> str:
    """A model's or a dataset's name as the commands take it: a Hub id or a folder."""
    if isinstance(value, (str, os.PathLike)):
        return str(value)
    from .core.errors import SwapbenchError

    raise SwapbenchError(
        f"{what}: expected a Hub id or a folder (a str or a Path), not {type(value).__name__}"
        + (" (swapbench.evaluate takes a transformers model object, with tokenizer=...)" if what == "model" else "")
    )


def build(
    *,
    split: str = "test",
    source: str | Path | None = None,
    out: str | Path | None = None,
    variants: list[str] | str | None = None,
    **options,
) -> Built:
    """Build the word-swap configurations of one split (`swapbench build`) and return the folder written.

    `source`: a file, a folder or a Hub id (None: $SWAPBENCH_SNLI_DIR, then the Hub); `out`: the folder to write
    (default data/snli-SPLIT); `variants`: configuration names, a list or "shuffle-3,shuffle-sr" (default: the
    command's). Every other flag of `swapbench build --help` is a keyword, named as the flag with dashes as
    underscores, or as its field (`no_cache=True` or `use_cache=False`): parser, seed, limit, overwrite, ..., and
    each registered variant's own (shuffle_scope, srl, sr_selection, ...). They are checked as the
    command line checks them.
    """
    from .dataset.options import build_options
    from .dataset.pipeline import build as run_build

    path, info = run_build(
        build_options(
            split=split,
            source=None if source is None else _name(source, "source"),
            out=out,
            variants=variants,
            **options,
        )
    )
    return Built(Path(path), info)


def evaluate(model, data: str | Path, *, output: str | Path | None = None, tokenizer=None, **options) -> Evaluated:
    """Score `model` on the built dataset `data` (folder or Hub id), as `swapbench eval` does, and write the
    results file (`output`, default results/MODEL/...) and its predictions beside it.

    `model`: a Hub id or a folder; or a transformers model object (PreTrainedModel) with its `tokenizer`, which is
    saved to a temporary folder and scored from there, and recorded under the name it was loaded as
    (config._name_or_path, else its class) at revision "in-memory:sha256:..." (the sha256 of the saved files):
    such results identify the weights but not where to find them, and the leaderboard refuses them.

    Every flag of `swapbench eval --help` is a keyword, named as the flag with dashes as underscores or as its
    field in `swapbench.evaluation.options.eval_options_model()` (eval's own options and every scorer's), and
    checked as the command line checks it: `lr=1e-4` or `learning_rate=1e-4`, `no_probe=True` or `probe=False`,
    configs (a list or "a,b"), limit, train_source,
    train_limit, epochs, finetune, max_length, device, seed, bootstrap, no_progress, ...  A base model is
    fine-tuned first on `train_source` (SNLI's train split by default); training options given for a model that
    already is a classifier are refused unless `finetune=True`. `seeds=[0, 1, 2]` fine-tunes it once per seed: the
    results hold the means over the seeds and `Evaluated.seeds` each seed's figures.
    """
    from .commands.main import load_model_types
    from .core.errors import SwapbenchError
    from .evaluation import in_memory
    from .evaluation.options import eval_options_model
    from .evaluation.pipeline import evaluate as run_evaluation

    load_model_types()
    data = _name(data, "data")
    if not isinstance(model, (str, os.PathLike)) and in_memory.is_model_object(model):
        return _evaluate_in_memory(model, tokenizer, data, output, options)
    if tokenizer is not None:
        raise SwapbenchError("tokenizer= is for a model object; a Hub id or a folder brings its own tokenizer")
    model = _name(model, "model")
    options.setdefault("command", ["swapbench.evaluate", model, data])
    checked = eval_options_model().from_keywords(model=model, data=data, output=output, **options)
    with _library_bars(checked.progress):
        results, path = run_evaluation(checked)
    return Evaluated(results, path)


def _evaluate_in_memory(model, tokenizer, data: str, output, options: dict) -> Evaluated:
    from datetime import datetime, timezone

    from .core.errors import SwapbenchError
    from .evaluation import in_memory
    from .evaluation.options import eval_options_model
    from .evaluation.pipeline import evaluate as run_evaluation
    from .results.files import default_output
    from .results.schema import IN_MEMORY

    name = in_memory.recorded_name(model)
    options.setdefault("command", ["swapbench.evaluate", name, data])
    output = output or default_output(name, data, datetime.now(timezone.utc), IN_MEMORY.rstrip(":"))
    # refused before saving
    checked = eval_options_model().from_keywords(model=name, data=data, output=output, **options)
    if checked.revision:
        raise SwapbenchError("--revision names a Hub commit; a model object has none")
    with in_memory.temporary_folder() as folder, _library_bars(checked.progress):
        saved = in_memory.save(model, tokenizer, Path(folder) / "model")
        scorer = in_memory.in_memory_scorer(checked.mode, saved, name)
        results, path = run_evaluation(checked.model_copy(update={"model": str(saved)}), scorer=scorer)
    return Evaluated(results, path)


@contextmanager
def _library_bars(progress: bool):
    """progress=False silences the libraries' bars, as --no-progress does, for this call only: a notebook's
    later cells keep theirs."""
    if progress:
        yield
        return
    import datasets
    import huggingface_hub.utils
    import transformers

    from .commands.evaluate import silence_library_bars

    shown = (
        datasets.is_progress_bar_enabled(),
        transformers.utils.logging.is_progress_bar_enabled(),
        not huggingface_hub.utils.are_progress_bars_disabled(),
    )
    silence_library_bars()
    try:
        yield
    finally:
        for on, enable in zip(
            shown,
            (
                datasets.enable_progress_bars,
                transformers.utils.logging.enable_progress_bar,
                huggingface_hub.utils.enable_progress_bars,
            ),
        ):
            if on:
                enable()


def probe(model: str | Path, **options) -> Probed:
    """Measure the locality and symmetry of `model`'s positional attention, as `swapbench probe` does; with
    `out`, also write probe.json and the heatmaps there.

    `model`: a Hub id or a folder. Every flag of `swapbench probe --help` is a keyword, named as the flag with
    dashes as underscores or as its field in `swapbench.probing.options.ProbeOptions`, and checked as the command
    line checks it: words, length, seed, revision, add_special_tokens, probe_batch_size (batch_size: its old
    name), trust_remote_code, no_progress (or progress=False), out.
    """
    from .commands.main import load_model_types
    from .commands.probe import probe as run_probe
    from .probing.options import ProbeOptions

    checked = ProbeOptions.from_keywords(model=_name(model, "model"), **options)
    load_model_types()
    result, files = run_probe(checked)
    return Probed(result, files)
