"""The Python API, for notebooks: `swapbench.build`, `swapbench.evaluate` and `swapbench.probe` do what the
commands of the same names do, and hand back what they wrote with its tables as pandas DataFrames.

    import swapbench

    built = swapbench.build(split="test", source="snli_1.0/", out="data/snli-test", limit=500)
    run = swapbench.evaluate("path/or/hub-id-of-an-nli-classifier", built.path, probe=False)
    run.configurations            # one row per configuration: accuracies, delta and its interval, test
    run.slices                    # one row per (configuration, slice tag)
    run.examples                  # one row per scored pair, as in the predictions file
    swapbench.probe("bert-base-uncased", words=20).layers

The keyword arguments are the fields of each command's options (`swapbench.dataset.options.build_options_model()`,
`EvalOptions`, `ProbeOptions`), from which the command line's options are made too; the command-line help
describes them. Nothing heavy is imported until a function is called.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from .results.schema import EvalResults
    from .results.build_record import BuildInfo
    from .probing.result import ProbeResult


@dataclass(frozen=True)
class Built:
    """A dataset folder that `build` wrote, and its record (build_info.json)."""

    path: Path
    info: BuildInfo

    @cached_property
    def configurations(self) -> pd.DataFrame:
        """One row per configuration: name, rows, pairs not applicable, fingerprint, description."""
        import pandas as pd

        return pd.DataFrame([{"configuration": c.name, "rows": c.rows, "not_applicable": c.not_applicable,
                              "fingerprint": c.fingerprint, "description": c.description} for c in self.info.configs])

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
        confidence interval and the test's p-value (fractions, as in the results file)."""
        import pandas as pd

        return pd.DataFrame([{"configuration": name, **_paired(result), "label_view": result.label_view,
                              "non_entailment_rate": result.non_entailment_rate}
                             for name, result in self.results.results.items()])

    @cached_property
    def slices(self) -> pd.DataFrame:
        """One row per (configuration, slice tag); `small` marks slices too small to read."""
        import pandas as pd

        return pd.DataFrame([{"configuration": name, "slice": tag, **_paired(result), "small": result.small}
                             for name, config in self.results.results.items()
                             for tag, result in (config.slices or {}).items()],
                            columns=["configuration", "slice", *_PAIRED, "small"])

    @cached_property
    def examples(self) -> pd.DataFrame:
        """One row per scored pair (the predictions file), with `correct_original` and `correct_perturbed`."""
        import pandas as pd

        from .results.files import predictions_path, read_predictions

        frame = pd.DataFrame([row.model_dump() for row in read_predictions(predictions_path(self.path))])
        frame["correct_original"] = frame["prediction_original"] == frame["gold_original"]
        frame["correct_perturbed"] = frame["prediction_perturbed"] == frame["gold"]
        return frame


_PAIRED = ["pairs", "clusters", "accuracy_original", "accuracy_perturbed", "delta", "delta_low", "delta_high",
           "p_value"]


def _paired(result) -> dict:
    return dict(zip(_PAIRED, (result.n, result.clusters, result.accuracy_original, result.accuracy_perturbed,
                              result.delta, result.delta_ci.low, result.delta_ci.high, result.mcnemar.p_value)))


@dataclass(frozen=True)
class Probed:
    """The probe's result (probe.json's object)."""

    result: ProbeResult
    files: list[Path] = field(default_factory=list)  # probe.json and the heatmaps, when `out` was given

    @cached_property
    def layers(self) -> pd.DataFrame:
        """One row per layer: locality, symmetry, spread."""
        import pandas as pd

        return pd.DataFrame([layer.model_dump() for layer in self.result.per_layer])


def _path(value) -> Path | None:
    return None if value is None else Path(value)


def build(*, split: str = "test", source: str | Path | None = None, out: str | Path | None = None,
          variants: list[str] | str | None = None, **options) -> Built:
    """Build the word-swap configurations of one split (`swapbench build`) and return the folder written.

    `source`: a file, a folder or a Hub id (None: $SWAPBENCH_SNLI_DIR, then the Hub); `out`: the folder to write
    (default data/snli-SPLIT); `variants`: configuration names, a list or "shuffle-3,shuffle-sr" (default: the
    command's). The other keywords are the command's options, named as its flags are (`--no-cache` is
    use_cache=False): parser, seed, limit, overwrite, ..., and each registered variant's own (shuffle_scope, srl,
    sr_order, sr_selection, ...); `swapbench build --help` lists them. They are checked as the command line's are.
    """
    from .dataset.pipeline import build as run_build
    from .dataset.options import build_options

    path, info = run_build(build_options(split=split, source=None if source is None else str(source), out=out,
                                         variants=variants, **options))
    return Built(Path(path), info)


def evaluate(model: str | Path, data: str | Path, *, output: str | Path | None = None, **options) -> Evaluated:
    """Score `model` (Hub id or folder) on the built dataset `data` (folder or Hub id), as `swapbench eval`
    does, and write the results file (`output`, default results/MODEL/...) and its predictions beside it.

    The other keywords are `swapbench eval`'s options by their field names in
    `swapbench.evaluation.options.EvalOptions`, checked as the command line checks them: configs (a list or
    "a,b"), limit, finetune, train_batch_size, max_length, probe, device, seed, bootstrap, progress, ...
    """
    from .commands.main import load_model_types
    from .evaluation.options import EvalOptions
    from .evaluation.pipeline import evaluate as run_evaluation

    options.setdefault("command", ["swapbench.evaluate", str(model), str(data)])
    checked = EvalOptions.from_keywords(model=str(model), data=str(data), output=output, **options)
    load_model_types()
    results, path = run_evaluation(checked)
    return Evaluated(results, path)


def probe(model: str | Path, **options) -> Probed:
    """Measure the locality and symmetry of `model`'s positional attention, as `swapbench probe` does; with
    `out`, also write probe.json and the heatmaps there.

    The keywords are `swapbench probe`'s options by their field names in `swapbench.probing.options.ProbeOptions`,
    checked as the command line checks them: words, length, seed, revision, add_special_tokens,
    probe_batch_size (batch_size: its old name), trust_remote_code, progress, out.
    """
    from .commands.main import load_model_types
    from .commands.probe import probe as run_probe
    from .probing.options import ProbeOptions

    checked = ProbeOptions.from_keywords(model=str(model), **options)
    load_model_types()
    result, files = run_probe(checked)
    return Probed(result, files)
