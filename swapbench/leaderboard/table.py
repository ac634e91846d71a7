"""The board as a table: one row per results file, the columns of the paper's Table 3.

Accuracies are fractions here and shown in percent; Δ is accuracy on the perturbed pairs minus accuracy on the
same pairs unperturbed, shown in points. A configuration a file does not report is None: an empty cell that
enters no mean.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean

from ..evaluate.schema import REFERENCE_RECIPE, REFERENCE_TRAIN_SPLIT, EvalResults, ModelInfo, Recipe
from ..zoo.names import MODEL_TYPE
from .store import Stored, model_label, training_tag

ORIGINAL_FROM = "shuffle-random"  # the configuration holding every labelled pair: its originals are the test set
DELTA_CONFIGS = ("shuffle-3", "shuffle-4", "shuffle-5", "shuffle-random")
ROLE_CONFIG = "shuffle-sr"


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    kind: str  # text, ratio (0-1, 3 decimals), accuracy (percent), delta (signed points)

    @property
    def numeric(self) -> bool:
        return self.kind != "text"


COLUMNS = (
    Column("model", "Model", "text"),
    Column("family", "Positional encoding", "text"),
    Column("symmetry", "Symmetry", "ratio"),
    Column("locality", "Locality", "ratio"),
    Column("original", "Original", "accuracy"),
    *(Column(name, "Δ random" if name == "shuffle-random" else f"Δ {name}", "delta") for name in DELTA_CONFIGS),
    Column("sr-original", "Original (sr)", "accuracy"),
    Column(ROLE_CONFIG, f"Δ {ROLE_CONFIG}", "delta"),
    Column("training", "Training data", "text"),
    Column("probe", "Probe", "text"),
)


@dataclass
class Row:
    file: str  # name under results/
    label: str  # model, with its training data when fine-tuned here: names a point of the plot
    family: str  # positional-encoding family, the filter of the page
    values: dict[str, float | str | None]  # by Column.key
    extra: dict[str, object]  # further CSV columns
    view: str = "3-way"  # label view: rows of different views are never sorted or averaged together


def training_text(model: ModelInfo, detail: bool = False) -> str:
    """What swapbench trained the scored model on (fine-tuning a base model, or a zoo model from scratch), and
    whether its checkpoint loaded whole; with `detail`, also the pairs the checkpoint was chosen on."""
    tuning = model.fine_tuning
    if tuning is None:
        text = "as published (not trained here)"
    else:
        text = f"trained here: {training_tag(tuning.train)}, {tuning.train.n} pairs"
        if detail:
            val = tuning.validation
            chosen_on = (f"{val.n} pairs held out of the training data" if val.held_out
                         else f"{training_tag(val)}, {val.n} pairs")
            epochs = tuning.recipe.epochs
            text += f"; {f'best of {epochs} epochs' if epochs != 1 else 'one epoch'} on {chosen_on}"
    weights = model.weights
    if weights:
        text += (f"; checkpoint not loaded whole (--allow-missing): {len(weights.missing)} weights missing, "
                 f"{len(weights.unexpected)} unused, {len(weights.mismatched)} of another shape")
    return text


def probe_text(model: ModelInfo) -> str | None:
    """The probe's framing and the spread of the attention, with a warning when it is too flat for symmetry."""
    probe = model.probe
    if probe is None:
        return None
    text = "framed by [CLS]/[SEP]" if probe.settings.add_special_tokens else "no special tokens"
    if probe.spread is not None:
        text += f", spread {probe.spread:.3f}"
    return text + ("; too flat: symmetry is noise" if probe.flat else "")


def departures(results: EvalResults) -> list[str]:
    """Every setting in which the run departs from the reference: the recipe and training data of a model trained
    here (a zoo encoder against the zoo's recipe), and the scoring's max length."""
    found = []
    tuning = results.model.fine_tuning
    if tuning is not None:
        reference = _reference_recipe(results.model)
        found += [f"{name.replace('_', ' ')} {getattr(tuning.recipe, name)} (reference {getattr(reference, name)})"
                  for name in Recipe.model_fields
                  if name not in ("seed", "best_by") and getattr(tuning.recipe, name) != getattr(reference, name)]
        if tuning.train.split != REFERENCE_TRAIN_SPLIT or tuning.train.limit:
            found.append("training data not the whole SNLI train split")
    scoring = results.provenance.scoring
    if scoring.max_length != REFERENCE_RECIPE.max_length:
        found.append(f"scored at max length {scoring.max_length} (reference {REFERENCE_RECIPE.max_length}), "
                     f"{scoring.truncated} pairs truncated")
    return found


def _reference_recipe(model: ModelInfo) -> Recipe:
    if model.model_type == MODEL_TYPE:
        from ..zoo.train import zoo_recipe  # loads torch: only for the zoo's rows

        return zoo_recipe().training
    return REFERENCE_RECIPE


def with_departures(text: str, results: EvalResults) -> str:
    found = departures(results)
    return f"{text}; departs from the reference: {', '.join(found)}" if found else text


def make_row(stored: Stored) -> Row:
    r = stored.results
    model, results = r.model, r.results
    pe = model.positional_encoding

    def get(config: str, key: str):
        return getattr(results[config], key) if config in results else None

    label = model_label(model.name_or_path)
    if model.fine_tuning:
        label += f" · {training_tag(model.fine_tuning.train)}"
    values = {
        "model": label, "family": f"{pe.family} ({pe.kind})",
        "symmetry": model.probe.symmetry if model.probe else None,
        "locality": model.probe.locality if model.probe else None,
        "probe": probe_text(model),
        "original": get(ORIGINAL_FROM, "accuracy_original"),
        **{name: get(name, "delta") for name in DELTA_CONFIGS},
        "sr-original": get(ROLE_CONFIG, "accuracy_original"), ROLE_CONFIG: get(ROLE_CONFIG, "delta"),
        "training": with_departures(training_text(model), r),
    }
    extra = {"revision": model.revision, "num_parameters": model.num_parameters, "fine_tuned": model.fine_tuned,
             "label_view": model.label_view, "training_detail": with_departures(training_text(model, detail=True), r),
             "non_entailment_rate_shuffle_sr": get(ROLE_CONFIG, "non_entailment_rate")}
    return Row(file=stored.path.name, label=label, family=pe.family, values=values, extra=extra,
               view=model.label_view)


def sort_key(row: Row):
    """Highest Δ shuffle-sr first (the model that loses least when semantic roles are swapped); rows without it
    last; ties by label and file, so that the order never depends on the file system."""
    delta = row.values[ROLE_CONFIG]
    return (delta is None, -(delta or 0.0), row.label, row.file)


# A binary model is credited for every non-entailment answer, a 3-way model only for the right one of two: their
# accuracies and deltas are not on one scale, so each view has its own table, order and means.
VIEWS = {"3-way": "3-way labels (entailment / neutral / contradiction)",
         "binary": "binary labels (entailment / non-entailment)"}


def board_rows(stored: list[Stored]) -> list[Row]:
    """Every row, grouped by label view (3-way first), each group in the board's order."""
    order = list(VIEWS)
    return sorted((make_row(s) for s in stored), key=lambda row: (order.index(row.view), *sort_key(row)))


def by_view(rows: list[Row]) -> dict[str, list[Row]]:
    """The rows of each label view present, in board order."""
    return {view: [r for r in rows if r.view == view] for view in VIEWS if any(r.view == view for r in rows)}


def column_means(rows: list[Row]) -> dict[str, tuple[float, int] | None]:
    """Mean of each numeric column over the rows that have a value, with how many did: empty cells never count."""
    means = {}
    for column in COLUMNS:
        if column.numeric:
            present = [row.values[column.key] for row in rows if row.values[column.key] is not None]
            means[column.key] = (fmean(present), len(present)) if present else None
    return means


def footer_cells(rows: list[Row]) -> list[tuple[str, str]]:
    """The mean row, one (text, note) per column: the model column names how many models it averages, an empty
    column stays empty, and a mean over fewer rows than the table has says so in its note ("(1 of 2)")."""
    means = column_means(rows)
    cells = []
    for column in COLUMNS:
        mean = means.get(column.key)
        if column.key == "model":
            cells.append((f"mean of {len(rows)} model{'s' if len(rows) != 1 else ''}", ""))
        elif mean is None:
            cells.append(("", ""))
        else:
            value, count = mean
            cells.append((show(column, value), f" ({count} of {len(rows)})" if count < len(rows) else ""))
    return cells


def show(column: Column, value) -> str:
    """A cell as people read it: empty when missing, percent for accuracies, signed points for Δ."""
    if value is None:
        return ""
    if column.kind == "ratio":
        return f"{value:.3f}"
    if column.kind == "accuracy":
        return f"{100 * value:.1f}"
    if column.kind == "delta":
        return f"{100 * value:+.1f}"
    return str(value)
