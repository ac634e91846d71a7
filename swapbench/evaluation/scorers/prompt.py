"""`--mode prompt`: a decoder-only language model labels each pair by the score of each label's verbalizer after a
prompt, zero- or few-shot, with no head and no training (evaluation/prompting.py), under one template or several
(evaluation/templates.py). The scores are cached per pair, keyed by the model and the prompt
(evaluation/score_cache.py); calibration is applied to them afterwards, so it keys nothing.

With several templates, the first one named is the headline: its predictions make the predictions file and every
figure of the results, as a run of that template alone would, so that a figure never depends on which other
templates ran beside it (a majority vote would be a classifier that no prompt is). Every template's accuracies and
Δ per configuration, and their spread across templates, are recorded beside it (model.prompt.templates, .spread)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ...core.command_options import CommandOptions, option
from ...core.errors import SwapbenchError
from ...core.registry import SCORERS, TEMPLATES
from ..templates import templates_help
from .base import Prepared, Run, Scorer, Scores, given, listed

logger = logging.getLogger(__name__)


class PromptOptions(CommandOptions):
    """The options of `--mode prompt`: which prompts, the words scored for the labels, and solved examples."""

    template: Path | None = option(
        None,
        group="prompting",
        metavar="FILE",
        help="prompt template file naming {premise} and {hypothesis}, instead of "
        "--templates (verbalizers: --verbalizers, else True, Neither, False)",
    )
    templates: list[str] | None = option(
        None,
        group="prompting",
        metavar="NAMES",
        choices=lambda: TEMPLATES.names(),
        help=lambda: (
            "comma-separated named prompts, each scored; the first is the headline (its predictions make "
            "every figure), the others' accuracies and their spread are reported beside it (default: mnli). "
            + templates_help()
        ),
    )
    verbalizers: str | None = option(
        None,
        group="prompting",
        metavar="MAP",
        help="the word scored for each label, each after a space, in every template "
        "(default: the template's own, e.g. entailment=True,neutral=Neither,"
        "contradiction=False)",
    )
    # None first: typing caches `X | None` by X, and Literal["sum", "mean"] equals this one, so that `Literal[...] |
    # None` would be the results schema's union, its choices listed in the schema's order (unless importing torch
    # had evicted it from the cache)
    verbalizer_score: None | Literal["mean", "sum"] = option(
        None,
        group="prompting",
        help="a verbalizer's score: mean log-probability per token (length-normalised; the default, the same as sum "
        "when every verbalizer is one token) or the sum (lm-evaluation-harness's acc)",
    )
    calibration: Literal["contextual", "pmi"] | None = option(
        None,
        group="prompting",
        help="correct the prompt's prior for some verbalizer: contextual (each label's probability divided by its "
        "probability after the content-free inputs N/A, '' and [MASK]) or pmi (each label's score less its "
        "score after the template's answer cue alone). Default: none, as lm-evaluation-harness's acc and the "
        "paper's figures, so that the figures stay comparable with theirs",
    )
    shots: int = option(
        0,
        ge=0,
        group="prompting",
        metavar="K",
        help="solved examples before each prompt, drawn with --seed from --train-source/"
        "--train-split, never from the scored pairs",
    )


@SCORERS.register(
    "prompt",
    help="score a decoder-only language model by the log-likelihood of each label's "
    "verbalizer after a prompt (--templates or --template, --verbalizers, --shots, "
    "--verbalizer-score, --calibration)",
)
class PromptScorer(Scorer):
    mode = "prompted"
    Options = PromptOptions
    refused_without = ("template", "templates", "verbalizers", "shots", "verbalizer_score", "calibration")

    def check(self, options) -> None:
        """The training data options name the pool of --shots examples, and nothing else here: refused where
        they would not be read. A template file and named templates are one or the other."""
        from ...sources.options import COLUMN_FIELDS
        from ..training_options import TrainingDataOptions

        if options.template and options.templates:
            raise SwapbenchError("--template FILE and --templates NAMES both choose the prompt: give one of them")
        pool = ["train_source", "train_split", "train_limit", *COLUMN_FIELDS]
        unread = given(options, [name for name in TrainingDataOptions.model_fields if name not in pool])
        if not options.shots:
            unread = given(options, pool) + unread
        if unread:
            raise SwapbenchError(
                f"{listed(unread)} {'is' if len(unread) == 1 else 'are'} not read by --mode prompt, "
                "which trains nothing: --train-source, --train-split and --train-limit choose the "
                "pool of its --shots examples"
            )

    def prepare(self, run: Run) -> Prepared:
        from ...models.loading import load_causal_lm, load_config, model_revision
        from ...models.positional import architecture_kind

        options = run.options
        config = load_config(options.model, options.revision, options.trust_remote_code, options.gguf_file)
        if architecture_kind(config) != "decoder":
            raise SwapbenchError(
                f"--mode prompt needs a decoder-only language model; {options.model} is an "
                f"{architecture_kind(config)} ({config.model_type})"
            )
        loaded = load_causal_lm(
            options.model,
            config,
            revision=options.revision,
            device=run.device,
            dtype=run.dtype,
            trust_remote_code=options.trust_remote_code,
            placement=options.placement,
            gguf_file=options.gguf_file,
        )
        revision = model_revision(options.model, config, options.revision, options.gguf_file)
        return Prepared(loaded, revision, identity=revision)

    def score(self, run: Run, prepared: Prepared, pairs: list[tuple[str, str]], progress) -> Scores:
        """Each pair's label by its verbalizers' scores under every template; from the cache when this prompt
        scored these pairs with this model before."""
        from ...results.schema import PromptInfo
        from ...sources import load_split
        from ..finetune import describe
        from ..prompting import (
            CONTENT_FREE,
            SCORE_METHODS,
            SHOT_DRAW,
            SHOT_SEPARATOR,
            draw_shots,
            model_max_tokens,
            prompt_specs,
            shots_text,
        )
        from ..scored_data import overlap_key, scored_pairs

        options, loaded = run.options, prepared.loaded
        normalization = options.verbalizer_score or "mean"
        specs = prompt_specs(
            options.templates, options.template, options.verbalizers, options.shots, options.seed, normalization
        )
        examples, source = [], None
        if options.shots:
            choice = options.training
            pool = load_split(
                choice.train_source,
                choice.train_split,
                choice.train_limit,
                option="--train-source",
                columns=choice.columns,
            )
            where = f"{pool.source}, {pool.split}"
            scored = scored_pairs(run.benchmark)
            examples, set_apart = draw_shots(
                pool.pairs, options.shots, options.seed, scored.pair_ids, scored.premises, overlap_key, where
            )
            if set_apart:
                logger.info(f"Set apart {set_apart} few-shot candidates whose premise is also a scored premise")
            source = describe(pool.pairs, pool.source, pool.split, choice.train_limit, held_out=False)
        max_tokens = model_max_tokens(loaded.model) or 4096
        if options.max_length:  # --max-length cuts prompts (from the left) as the model's own length does
            max_tokens = min(max_tokens, options.max_length)

        self.headline = (specs[0], shots_text(specs[0], examples), max_tokens)  # for reference_predictions
        runs = [
            score_template(
                run,
                prepared,
                spec,
                shots_text(spec, examples),
                examples,
                pairs,
                max_tokens,
                lambda n: progress(n / len(specs)),
            )
            for spec in specs
        ]
        headline = runs[0]
        figures = template_figures(run, prepared, pairs, specs, runs) if len(specs) > 1 else None
        calibration = options.calibration or "none"
        info = PromptInfo(
            template=specs[0].template,
            template_source=specs[0].template_source,
            verbalizers=specs[0].verbalizers,
            score=SCORE_METHODS[normalization],
            shots=options.shots,
            seed=options.seed,
            separator=SHOT_SEPARATOR,
            examples=[p.pair_id for p in examples],
            example_source=source,
            cache_key=headline.cache_key,
            reused=all(r.reused for r in runs),
            score_normalization=normalization,
            calibration=calibration,
            calibration_inputs=(
                None if calibration == "none" else list(CONTENT_FREE) if calibration == "contextual" else [specs[0].cue]
            ),
            shot_draw=SHOT_DRAW if options.shots else None,
            headline_template=specs[0].name,
            templates=figures[0] if figures else None,
            spread=figures[1] if figures else None,
        )
        return Scores(
            predictions=headline.predictions,
            truncated=headline.truncated,
            batch_size=next((r.batch_size for r in runs if r.batch_size), 0),
            seconds=sum(r.seconds for r in runs),
            max_tokens=max_tokens,
            forwards=sum(r.forwards for r in runs),
            prompt=info,
            truncation=(
                f"longer than --max-length {max_tokens} tokens and were cut from the left"
                if max_tokens == options.max_length
                else f"longer than the model's {max_tokens} tokens and were cut from the left to fit the model"
            ),
        )

    def reference_predictions(self, run: Run, prepared: Prepared, pairs: list[tuple[str, str]]):
        """The headline template's labels for the pairs, calibrated as --calibration says, by a float32 copy of the
        model (the scores cache is not read)."""
        from ..agreement import float32_copy
        from ..prompting import calibrate, reference_prompts, render

        spec, shots, max_tokens = self.headline
        calibration, batch_size = run.options.calibration, run.options.eval_batch_size
        with float32_copy(prepared.loaded.model) as model:
            values = prompt_scores(
                model,
                prepared.loaded.tokenizer,
                spec,
                [shots + render(spec, p, h) for p, h in pairs],
                max_tokens,
                batch_size,
            )
            if calibration:
                reference = prompt_scores(
                    model,
                    prepared.loaded.tokenizer,
                    spec,
                    reference_prompts(spec, shots, calibration),
                    max_tokens,
                    batch_size,
                )
                values = calibrate(values, reference, calibration)
        return values.argmax(axis=1)


def prompt_scores(model, tokenizer, spec, prompts: list[str], max_tokens: int, batch_size: int | None):
    """The verbalizers' scores after each prompt, (prompts, labels), as score_template computes them."""
    from ..prompting import encode_prompts, score_prompts, token_counts, verbalizer_scores

    encoded = encode_prompts(tokenizer, prompts, spec, max_tokens)
    scored = score_prompts(model, tokenizer, encoded, batch_size=batch_size)
    return verbalizer_scores(scored.loglik, token_counts(encoded), spec.normalization)


@dataclass
class TemplateRun:
    """One template's scoring: each pair's predicted output index, and what the results record of the run."""

    predictions: object  # numpy array, one per pair
    truncated: int
    batch_size: int
    seconds: float
    forwards: int
    cache_key: str
    reused: bool


def score_template(
    run: Run, prepared: Prepared, spec, shots: str, examples, pairs, max_tokens: int, progress
) -> TemplateRun:
    """Every pair's verbalizer scores under one template (from the cache where it has them), calibrated as
    --calibration says, and the label each gives."""
    import numpy as np

    from ...core.labels import LABEL_NAMES
    from ..prompting import (
        RENDERING,
        SHOT_SEPARATOR,
        calibrate,
        encode_prompts,
        reference_prompts,
        render,
        score_prompts,
        token_counts,
        verbalizer_scores,
    )
    from ..score_cache import cached_outputs, open_cache, report, scores_key

    options, loaded = run.options, prepared.loaded
    identity = (
        None
        if prepared.identity is None
        else {
            "mode": "prompted",
            "model": prepared.identity,
            "dtype": str(run.dtype),
            "device": run.device.type,
            "template": spec.template,
            "verbalizers": spec.verbalizers,
            "shots": spec.shots,
            "seed": spec.seed,
            "examples": [p.pair_id for p in examples],
            "separator": SHOT_SEPARATOR,
            "max_tokens": max_tokens,
            "score": spec.normalization,
            "rendering": RENDERING,
        }
    )
    labels = len(LABEL_NAMES)
    cache = open_cache(options, options.model, identity, labels, np.float64)
    runs = []

    def score(prompts, on_batch=None, progress=None):
        """The verbalizer scores after each prompt, and whether it was cut; `on_batch` hears of each batch's."""
        encoded = encode_prompts(loaded.tokenizer, prompts, spec, max_tokens)
        counts = token_counts(encoded)

        def scored_batch(index, loglik, cut):
            on_batch(index, verbalizer_scores(loglik, counts[index], spec.normalization), cut)

        runs.append(
            score_prompts(
                loaded.model,
                loaded.tokenizer,
                encoded,
                batch_size=options.eval_batch_size,
                progress=progress,
                on_batch=scored_batch if on_batch else None,
            )
        )
        return verbalizer_scores(runs[-1].loglik, counts, spec.normalization), np.asarray(encoded.cut, dtype=bool)

    try:
        outputs = cached_outputs(
            cache,
            pairs,
            labels,
            np.float64,
            lambda todo, on_batch: score([shots + render(spec, p, h) for p, h in todo], on_batch, progress),
            progress,
        )
    finally:
        if cache:
            cache.close()
    report(outputs, cache)
    values = outputs.values
    if options.calibration:
        reference, _ = score(reference_prompts(spec, shots, options.calibration))
        values = calibrate(values, reference, options.calibration)
    first = runs[0] if runs and outputs.scored else None
    return TemplateRun(
        predictions=values.argmax(axis=1),
        truncated=int(outputs.cut.sum()),
        batch_size=first.batch_size if first else 0,
        seconds=sum(r.seconds for r in runs),
        forwards=sum(r.forwards for r in runs),
        cache_key=scores_key(identity) if identity else "",
        reused=cache is not None and outputs.scored == 0,
    )


def template_figures(run: Run, prepared: Prepared, pairs, specs, runs: list[TemplateRun]):
    """Every template's accuracies and Δ per configuration (point estimates, from the same prediction rows as the
    headline's), and per configuration their spread across the templates."""
    from ...results.schema import ConfigurationSpread, RunSpread, TemplateAccuracy, TemplateResult
    from ..results import prediction_rows
    from ..stats import paired_figures

    results = []
    for spec, scored in zip(specs, runs):
        rows = prediction_rows(run.benchmark, pairs, scored.predictions, prepared.loaded.labels)
        figures = {}
        for name, config_rows in rows.items():
            paired = paired_figures(
                [r.prediction_original == r.gold_original for r in config_rows],
                [r.prediction_perturbed == r.gold for r in config_rows],
            )
            figures[name] = TemplateAccuracy(
                accuracy_original=paired.accuracy_original,
                accuracy_perturbed=paired.accuracy_perturbed,
                delta=paired.delta,
            )
        results.append(
            TemplateResult(name=spec.name, template=spec.template, verbalizers=spec.verbalizers, results=figures)
        )

    spreads = {
        name: ConfigurationSpread(
            accuracy_original=RunSpread.of([r.results[name].accuracy_original for r in results]),
            delta=RunSpread.of([r.results[name].delta for r in results]),
        )
        for name in results[0].results
    }
    return results, spreads
