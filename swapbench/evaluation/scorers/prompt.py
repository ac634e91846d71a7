"""`--mode prompt`: a decoder-only language model labels each pair by the log-likelihood of each label's
verbalizer after a prompt, zero- or few-shot, with no head and no training (evaluation/prompting.py). The scores
are cached, keyed by the model, the prompt and the pairs."""

from __future__ import annotations

from typing import ClassVar

from ...core.errors import SwapbenchError
from ...core.registry import SCORERS
from .base import Prepared, Run, Scorer, Scores


@SCORERS.register("prompt", help="score a decoder-only language model by the log-likelihood of each label's "
                                 "verbalizer after a prompt (--template, --verbalizers, --shots)")
class PromptScorer(Scorer):
    mode = "prompted"
    owns: ClassVar[dict[str, str]] = {"template": "--template", "verbalizers": "--verbalizers", "shots": "--shots"}

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
        return Prepared(loaded, model_revision(options.model, config))

    def score(self, run: Run, prepared: Prepared, pairs: list[tuple[str, str]], progress) -> Scores:
        """Each pair's label by its verbalizers' log-likelihood; from the cache when this prompt scored these
        pairs with this model before."""
        from rich.markup import escape

        from ...core.paths import default_cache_dir
        from ...results.schema import PromptInfo
        from ...sources import load_split
        from ..finetune import describe, premise_key
        from ..pipeline import scored_pairs
        from ..prompting import (DEFAULT_TEMPLATE, SCORE_METHOD, SHOT_SEPARATOR, PromptScores, PromptSpec, cache_key,
                                 cache_path, draw_shots, encode_prompts, model_max_tokens, pairs_fingerprint,
                                 parse_verbalizers, read_cached, read_template, render, score_prompts, shots_text,
                                 write_cached)

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
        key = cache_key({"model": options.model, "revision": prepared.revision, "dtype": str(run.dtype),
                         "template": spec.template, "verbalizers": spec.verbalizers, "shots": spec.shots,
                         "seed": spec.seed, "examples": [p.pair_id for p in examples], "separator": SHOT_SEPARATOR,
                         "max_tokens": max_tokens, "pairs": pairs_fingerprint(pairs)})
        path = cache_path(options.cache_dir or default_cache_dir(), options.model, key)
        encoded = encode_prompts(loaded.tokenizer, [shots + render(spec, p, h) for p, h in pairs], spec, max_tokens)
        cached = read_cached(path, len(pairs))
        if cached is not None:
            console.print(f"Reusing the prompted scores {escape(str(path))}", soft_wrap=True)
            progress(len(pairs))
            result = PromptScores(loglik=cached, batch_size=0, truncated=encoded.truncated, seconds=0.0, forwards=0)
        else:
            result = score_prompts(loaded.model, loaded.tokenizer, encoded, batch_size=options.eval_batch_size,
                                   progress=progress)
            write_cached(path, result.loglik)
        info = PromptInfo(template=spec.template, template_source=spec.template_source, verbalizers=spec.verbalizers,
                          score=SCORE_METHOD, shots=spec.shots, seed=spec.seed, separator=SHOT_SEPARATOR,
                          examples=[p.pair_id for p in examples], example_source=source, cache_key=key,
                          reused=cached is not None)
        return Scores(predictions=result.predictions, truncated=result.truncated, batch_size=result.batch_size,
                      seconds=result.seconds, max_tokens=max_tokens, forwards=result.forwards, prompt=info,
                      truncation=(f"longer than --max-length {max_tokens} tokens and were cut from the left"
                                  if max_tokens == options.max_length else f"longer than the model's {max_tokens} "
                                  "tokens and were cut from the left to fit the model"))
