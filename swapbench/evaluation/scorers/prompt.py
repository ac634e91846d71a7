"""`--mode prompt`: a decoder-only language model labels each pair by the log-likelihood of each label's
verbalizer after a prompt, zero- or few-shot, with no head and no training (evaluation/prompting.py). The scores
are cached per pair, keyed by the model and the prompt (evaluation/score_cache.py)."""

from __future__ import annotations

from typing import ClassVar

from ...core.errors import SwapbenchError
from ...core.registry import SCORERS
from .base import Prepared, Run, Scorer, Scores, given, listed


@SCORERS.register("prompt", help="score a decoder-only language model by the log-likelihood of each label's "
                                 "verbalizer after a prompt (--template, --verbalizers, --shots)")
class PromptScorer(Scorer):
    mode = "prompted"
    owns: ClassVar[dict[str, str]] = {"template": "--template", "verbalizers": "--verbalizers", "shots": "--shots"}

    def check(self, options) -> None:
        """The training data options name the pool of --shots examples, and nothing else here: refused where
        they would not be read."""
        from ...sources.options import COLUMN_FIELDS
        from ..options import TrainingDataOptions

        pool = ["train_source", "train_split", "train_limit", *COLUMN_FIELDS]
        unread = given(options, [name for name in TrainingDataOptions.model_fields if name not in pool])
        if not options.shots:
            unread = given(options, pool) + unread
        if unread:
            raise SwapbenchError(f"{listed(unread)} {'is' if len(unread) == 1 else 'are'} not read by --mode prompt, "
                                 "which trains nothing: --train-source, --train-split and --train-limit choose the "
                                 "pool of its --shots examples")

    def prepare(self, run: Run) -> Prepared:
        from ...models.loading import load_causal_lm, load_config, model_revision
        from ...models.positional import architecture_kind

        options = run.options
        config = load_config(options.model, options.revision, options.trust_remote_code)
        if architecture_kind(config) != "decoder":
            raise SwapbenchError(f"--mode prompt needs a decoder-only language model; {options.model} is an "
                                 f"{architecture_kind(config)} ({config.model_type})")
        loaded = load_causal_lm(options.model, config, revision=options.revision, device=run.device,
                                dtype=run.dtype, trust_remote_code=options.trust_remote_code)
        revision = model_revision(options.model, config)
        return Prepared(loaded, revision, identity=revision)

    def score(self, run: Run, prepared: Prepared, pairs: list[tuple[str, str]], progress) -> Scores:
        """Each pair's label by its verbalizers' log-likelihood; from the cache when this prompt scored these
        pairs with this model before."""
        import numpy as np

        from ...core.labels import LABEL_NAMES
        from ...results.schema import PromptInfo
        from ...sources import load_split
        from ..finetune import describe, premise_key
        from ..pipeline import scored_pairs
        from ..prompting import (DEFAULT_TEMPLATE, SCORE_METHOD, SHOT_SEPARATOR, PromptSpec, draw_shots,
                                 encode_prompts, model_max_tokens, parse_verbalizers, read_template, render,
                                 score_prompts, shots_text)
        from ..score_cache import cached_outputs, open_cache, report, scores_key

        options, loaded, console = run.options, prepared.loaded, run.console
        template = read_template(options.template) if options.template else DEFAULT_TEMPLATE
        spec = PromptSpec(template=template, verbalizers=parse_verbalizers(options.verbalizers), shots=options.shots,
                          seed=options.seed, template_source=str(options.template) if options.template else
                          PromptSpec.__dataclass_fields__["template_source"].default)
        examples, source = [], None
        if spec.shots:
            choice = options.training
            pool = load_split(choice.train_source, choice.train_split, choice.train_limit, option="--train-source",
                              columns=choice.columns)
            where = f"{pool.source}, {pool.split}"
            scored = scored_pairs(run.benchmark)
            examples, set_apart = draw_shots(pool.pairs, spec.shots, spec.seed, scored.pair_ids, scored.premises,
                                             premise_key, where)
            if set_apart:
                console.print(f"Set apart {set_apart} few-shot candidates whose premise is also a scored premise")
            source = describe(pool.pairs, pool.source, pool.split, choice.train_limit, held_out=False)
        shots = shots_text(spec, examples)
        max_tokens = model_max_tokens(loaded.model) or 4096
        if options.max_length:  # --max-length cuts prompts (from the left) as the model's own length does
            max_tokens = min(max_tokens, options.max_length)
        identity = None if prepared.identity is None else {
            "mode": self.mode, "model": prepared.identity, "dtype": str(run.dtype), "device": run.device.type,
            "template": spec.template, "verbalizers": spec.verbalizers, "shots": spec.shots, "seed": spec.seed,
            "examples": [p.pair_id for p in examples], "separator": SHOT_SEPARATOR, "max_tokens": max_tokens}
        labels = len(LABEL_NAMES)
        cache = open_cache(options, options.model, identity, labels, np.float64, console)
        runs = []

        def score_missing(todo, on_batch):
            encoded = encode_prompts(loaded.tokenizer, [shots + render(spec, p, h) for p, h in todo], spec,
                                     max_tokens)
            runs.append(score_prompts(loaded.model, loaded.tokenizer, encoded, batch_size=options.eval_batch_size,
                                      progress=progress, on_batch=on_batch))
            return runs[-1].loglik, np.asarray(encoded.cut, dtype=bool)

        try:
            outputs = cached_outputs(cache, pairs, labels, np.float64, score_missing, progress)
        finally:
            if cache:
                cache.close()
        report(console, outputs, cache)
        result = runs[0] if runs else None
        info = PromptInfo(template=spec.template, template_source=spec.template_source, verbalizers=spec.verbalizers,
                          score=SCORE_METHOD, shots=spec.shots, seed=spec.seed, separator=SHOT_SEPARATOR,
                          examples=[p.pair_id for p in examples], example_source=source,
                          cache_key=scores_key(identity) if identity else "",
                          reused=cache is not None and outputs.scored == 0)
        return Scores(predictions=outputs.values.argmax(axis=1), truncated=int(outputs.cut.sum()),
                      batch_size=result.batch_size if result else 0, seconds=result.seconds if result else 0.0,
                      max_tokens=max_tokens, forwards=result.forwards if result else 0, prompt=info,
                      truncation=(f"longer than --max-length {max_tokens} tokens and were cut from the left"
                                  if max_tokens == options.max_length else f"longer than the model's {max_tokens} "
                                  "tokens and were cut from the left to fit the model"))
