"""The plausibility baseline of `swapbench leak --plausibility MODEL`: a language model, with no training and no
premise, scores each row's two hypotheses alone and predicts entailment for the more probable one and
non-entailment for the other (results/hypothesis_only.py says what the figures mean).

A role swap is often less plausible than its original ("a horse riding a cowboy"), so a model that merely reacts to
implausible hypotheses separates the swaps from their originals without reading the premise, and its role
sensitivity rises for that alone. The hypothesis-only classifier does not see this: it was fine-tuned on SNLI's
labels, not on plausibility. The baseline measures it directly.

A hypothesis's score is its log-probability under the model after the model's start-of-text token (its BOS token,
else its EOS token: lm-evaluation-harness's prefix for a text scored alone), the text rendered as the prompted
scorer renders a hypothesis (white space squashed, stripped, ended with a full stop: prompting.hypothesis_text), by
prompting.py's log-likelihood code (score_naive: one sequence per text). The headline is the total
log-probability (`sum`): the two hypotheses of a row hold the same words, or nearly (a role swap permutes them,
sometimes with a verb's agreement changed), so their lengths differ little and the total is the probability of the
sentence itself, which is what "more probable" means; the per-token mean is recorded beside it.

A row whose two hypotheses are the same text (a premise swap: every role-quartets row, shuffle-sr-premise's premise
rows) gives nothing to compare: the baseline would answer both its pairs alike, so it is right on exactly one of
the two whatever it answers, and it is at chance there by construction. Such rows are counted (`identical`) and
never scored; a configuration made only of them has no share (not applicable) and a leak of exactly 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core.errors import SwapbenchError
from ..results.hypothesis_only import PlausibilityBaseline, PlausibilityFigures, verdict
from ..results.schema import ConfidenceInterval, dataset_fingerprint
from .figures import bootstrap_rng, cluster_key
from .prompting import Encoded, Normalization, hypothesis_text, score_naive, verbalizer_scores
from .scored_data import premise_key
from .stats import CI_METHOD, bootstrap_delta_ci, clustered_mcnemar, role_figures

SCORES: dict[Normalization, str] = {"sum": "total log-probability", "mean": "mean log-probability per token"}
FIGURE = "plausibility"  # the bootstrap generator's name (figures.bootstrap_rng)


def scored_text(hypothesis: str) -> str:
    """A hypothesis as the baseline scores it: as the prompted scorer renders it (module docstring)."""
    return hypothesis_text(premise_key(hypothesis))


def prefix_token(tokenizer) -> int:
    """The token every hypothesis is scored after: the start of a text, as lm-evaluation-harness reads one."""
    token = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    if token is None:
        raise SwapbenchError(
            "the plausibility model's tokenizer has neither a BOS nor an EOS token to score a hypothesis after"
        )
    return token


def hypothesis_scores(model, tokenizer, texts: Sequence[str], batch_size: int = 32) -> dict[Normalization, np.ndarray]:
    """Each text's total log-probability (`sum`) and mean per token (`mean`) under the causal LM, after
    prefix_token, each distinct text scored once."""
    distinct = list(dict.fromkeys(texts))
    tokens = [tokenizer(text, add_special_tokens=False)["input_ids"] for text in distinct]
    if any(not t for t in tokens):
        raise SwapbenchError("a hypothesis has no tokens to score")
    encoded = Encoded(
        prefixes=[[prefix_token(tokenizer)]] * len(distinct), continuations=[[t] for t in tokens], truncated=0
    )
    total = score_naive(model, tokenizer, encoded, batch_size=batch_size).loglik[:, :1]
    counts = np.asarray([[len(t)] for t in tokens], dtype=np.float64)
    where = {text: i for i, text in enumerate(distinct)}
    index = np.asarray([where[text] for text in texts], dtype=np.int64)
    return {name: verbalizer_scores(total, counts, name)[index, 0] for name in SCORES}


@dataclass(frozen=True)
class RoleRows:
    """What the baseline reads of one role configuration: each row's premise (its cluster) and two hypotheses."""

    name: str
    fingerprint: str
    premises: list[str]  # original premise of each row
    originals: list[str]  # original hypothesis
    perturbed: list[str]  # perturbed hypothesis


def compared_rows(rows: RoleRows) -> list[int]:
    """The rows whose two hypotheses differ as scored; the others are at chance by construction."""
    return [i for i, (a, b) in enumerate(zip(rows.originals, rows.perturbed)) if scored_text(a) != scored_text(b)]


def baseline_figures(
    rows: RoleRows,
    scores: dict[str, dict[Normalization, np.ndarray]],
    headline: Normalization,
    *,
    seed: int = 0,
    resamples: int = 10_000,
    level: float = 0.95,
) -> PlausibilityFigures:
    """The baseline's figures on one configuration, `scores` giving each scored text's scores (text -> score ->
    value, as figure_texts' texts are scored). A tie on a compared row (two different texts, the same score) counts
    as preferring neither: the baseline answers both pairs alike there."""
    n = len(rows.originals)
    compared = compared_rows(rows)
    other: Normalization = "mean" if headline == "sum" else "sum"

    def prefers(kind: Normalization, sign: int) -> np.ndarray:
        return np.asarray(
            [
                sign * (scores[scored_text(rows.originals[i])][kind] - scores[scored_text(rows.perturbed[i])][kind]) > 0
                for i in compared
            ],
            dtype=bool,
        )

    original, perturbed = prefers(headline, 1), prefers(headline, -1)
    clusters = [cluster_key(rows.premises[i]) for i in compared]
    # The baseline calls the less probable hypothesis non-entailment: a = the original so called, b = the swap.
    share, share_ci, p_value, binomial_p = None, None, 1.0, 1.0
    if compared:
        share = int(original.sum()) / len(compared)
        low, high = bootstrap_delta_ci(
            role_figures(np.zeros(len(compared), dtype=bool), original, clusters),
            bootstrap_rng(seed, rows.name, figure=f"{FIGURE} share"),
            resamples,
            level,
        )
        share_ci = _interval(low, high, level, resamples)
        p_value = clustered_mcnemar(role_figures(perturbed, original, clusters))
        binomial_p = clustered_mcnemar(role_figures(perturbed, original))  # every row its own cluster
    # Over every row, as the classifier's leak: the identical rows are answered alike (d = 0).
    a, b = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    a[compared], b[compared] = perturbed, original
    overall = role_figures(a, b, [cluster_key(p) for p in rows.premises])
    low, high = bootstrap_delta_ci(overall, bootstrap_rng(seed, rows.name, figure=FIGURE), resamples, level)
    return PlausibilityFigures(
        fingerprint=rows.fingerprint,
        n=n,
        identical=n - len(compared),
        compared=len(compared),
        clusters=len(set(clusters)),
        prefers_original=int(original.sum()),
        prefers_perturbed=int(perturbed.sum()),
        prefers_original_other=int(prefers(other, 1).sum()),
        share=share,
        share_ci=share_ci,
        p_value=p_value,
        binomial_p_value=binomial_p,
        leak=overall.delta,
        leak_ci=_interval(low, high, level, resamples),
        verdict=verdict(low, high),
    )


def _interval(low: float, high: float, level: float, resamples: int) -> ConfidenceInterval:
    return ConfidenceInterval(low=low, high=high, level=level, method=CI_METHOD, resamples=resamples)


def figure_texts(configurations: Sequence[RoleRows]) -> list[str]:
    """Every text the baseline scores: the two hypotheses of each compared row, each once."""
    texts = {}
    for rows in configurations:
        for i in compared_rows(rows):
            texts[scored_text(rows.originals[i])] = texts[scored_text(rows.perturbed[i])] = None
    return list(texts)


def role_rows(data: str, configs: Sequence[str] | None = None) -> list[RoleRows]:
    """The role configurations (those whose swaps are labelled in the binary view) of the benchmark at `data`,
    or those of `configs` among them."""
    from .data import open_benchmark

    benchmark = open_benchmark(data, configs=list(configs) if configs else None)
    roles = [c for c in benchmark.configurations if c.non_entailment_view]
    if not roles:
        raise SwapbenchError(
            f"{data}: no role configuration (one whose swaps are labelled non-entailment in the binary view) to score"
        )
    return [
        RoleRows(
            name=c.name,
            fingerprint=c.fingerprint,
            premises=[p for p, _ in c.originals],
            originals=[h for _, h in c.originals],
            perturbed=[h for _, h in c.perturbed],
        )
        for c in roles
    ]


def measure_plausibility(
    data: str,
    model: str,
    *,
    gguf_file: str | None = None,
    headline: Normalization = "sum",
    configs: Sequence[str] | None = None,
    command: Sequence[str] = (),
    device: str | None = None,
    batch_size: int = 32,
) -> PlausibilityBaseline:
    """The plausibility baseline of every role configuration of the benchmark at `data`, `model` (a causal LM:
    Hub id, folder, or with `gguf_file` a GGUF file) loaded as `swapbench eval --mode prompt` loads it, in
    float32."""
    import torch

    from ..models.gguf import checkpoint_path
    from ..models.loading import choose_device, load_causal_lm, load_config, model_revision
    from ..models.positional import architecture_kind

    rows = role_rows(data, configs)
    config = load_config(model, gguf_file=gguf_file)
    if architecture_kind(config) != "decoder":
        raise SwapbenchError(
            f"--plausibility needs a decoder-only language model; {model} is an "
            f"{architecture_kind(config)} ({config.model_type})"
        )
    loaded = load_causal_lm(model, config, device=choose_device(device), dtype=torch.float32, gguf_file=gguf_file)
    texts = figure_texts(rows)
    values = hypothesis_scores(loaded.model, loaded.tokenizer, texts, batch_size) if texts else {}
    scores = {text: {name: float(values[name][i]) for name in SCORES} for i, text in enumerate(texts)}
    name = f"{loaded.tokenizer.bos_token if loaded.tokenizer.bos_token_id is not None else loaded.tokenizer.eos_token}"
    return PlausibilityBaseline(
        model=checkpoint_path(model, gguf_file),
        revision=model_revision(model, config, None, gguf_file),
        score=headline,
        text=f"each hypothesis alone, white space squashed and ended with a full stop, scored after "
        f"the model's start-of-text token {name!r}; {SCORES[headline]} (headline)",
        dataset=data,
        dataset_fingerprint=dataset_fingerprint({r.name: r.fingerprint for r in rows}),
        command=list(command),
        configurations={r.name: baseline_figures(r, scores, headline) for r in rows},
    )
