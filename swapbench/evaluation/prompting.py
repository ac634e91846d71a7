"""Prompted scoring of a decoder-only language model (`swapbench eval --mode prompt`), zero- or few-shot.

Each pair becomes a prompt, by default lm-evaluation-harness's MNLI task:

    {premise}
    Question: {hypothesis} True, False or Neither?
    Answer:

(the hypothesis stripped and ended with a full stop, as lm-eval does; premise and hypothesis with every run of
white space made one space, as finetune.premise_key makes SNLI's text), and is labelled by the verbalizer the model
finds most likely after it: " True" for entailment, " Neither" for neutral, " False" for contradiction. A
verbalizer's score is the mean log-probability of its tokens (length-normalised, so that a verbalizer of two tokens
is not penalised against one of one; the same as the sum where every verbalizer is one token) or their sum
(lm-eval's `acc`). Other named templates are in evaluation/templates.py (`--templates`); a template of one's own is
a text file holding `{premise}` and `{hypothesis}` (literal braces doubled).

With k shots, k solved SNLI pairs from a training split (never the scored pairs: a shared pairID is refused, a
shared premise set apart) come first, rendered as the scored pair is, each followed by its verbalizer, separated by
a blank line. They are balanced by label (draw_shots says how) and drawn once, with the seed, for every template.

Calibration (`--calibration`, off by default) moves each label's score by a reference read off the same model and
prompt without the pair: contextual calibration (Zhao et al. 2021) divides each label's probability by its mean
probability after content-free inputs (CONTENT_FREE in place of premise and hypothesis); domain-conditional PMI
(Holtzman et al. 2021) subtracts each label's score after the template's answer cue alone. Both correct a prior for
some verbalizer that the prompt itself induces; off by default, because the paper's baseline and lm-eval's `acc` are
uncalibrated and a calibrated figure is not comparable with them.

Scoring runs one forward pass per pair over the prompt, which ends where every verbalizer begins, so its last
position gives every verbalizer's first token; the rest of multi-token verbalizers run on the prompt's key/value
cache, the three continuations of a pair side by side. Pairs go in length-sorted batches, halved on out-of-memory.
Where the model's logits are its output layer on its base model's states (split_head), only the base model runs
over the prompt and the output layer only where a verbalizer token is read (log-softmax over the whole
vocabulary there, and nowhere else); the start that every prompt shares (the few-shot examples) runs once per run
and its key-value cache is copied to each batch; prompts that begin alike (the pairs of one premise, prompt_groups)
are packed into one row (evaluation/packing.py: their common start once, then each prompt's own tokens and its
verbalizers' later tokens, each part seeing only what it would see alone), where the model reads packed rows as it
reads the prompts alone (tried once per model), and a prompt met twice is scored once. On a CPU a forward ends
where padding would pass an eighth of its tokens (padding_share). The scores are the plain path's to float32
rounding (tests/evaluation/test_prompting_speed.py).
`score_naive` runs one forward per (pair, verbalizer), as lm-eval's loglikelihood requests do: the reference the
tests and scripts/bench_decoder.py compare with.
"""

from __future__ import annotations

import copy
import inspect
import string
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import torch

from ..core.compat import reorder_cache, returned_cache, takes_cache_as
from ..core.errors import InputError, SwapbenchError
from ..core.labels import LABEL_NAMES
from ..core.registry import TEMPLATES
from ..models.loading import input_device
from ..sources import Pair
from .packing import pack, reads_packed_rows, row_length
from .scored_data import premise_key
from .scoring import default_batch, in_batches
from .templates import PromptTemplate, answer_cue

DEFAULT_TEMPLATE = TEMPLATES.get("mnli").text
DEFAULT_VERBALIZERS = dict(TEMPLATES.get("mnli").verbalizers)
SHOT_SEPARATOR = "\n\n"
Normalization = Literal["sum", "mean"]
Calibration = Literal["contextual", "pmi"]
SCORE_METHODS = {
    "sum": "sum of the verbalizer's token log-probabilities after the prompt (lm-eval's acc)",
    "mean": "mean log-probability per token of the verbalizer after the prompt (length-normalised)",
}
# Zhao et al. 2021's content-free inputs, each in place of both premise and hypothesis; their label probabilities
# are averaged.
CONTENT_FREE = ("N/A", "", "[MASK]")
SHOT_DRAW = (
    "balanced by label: k // 3 examples of every label, the k % 3 left over of labels drawn without "
    "replacement, each label's examples drawn without replacement, all in an order shuffled by the same "
    "generator (numpy default_rng(seed))"
)
# Bump when the text a pair is rendered to changes: it keys the scores cache.
RENDERING = "white space squashed"


@dataclass(frozen=True)
class PromptSpec:
    template: str
    verbalizers: dict[str, str]  # NLI label -> the continuation scored, exactly as appended to the prompt
    shots: int = 0
    seed: int = 0
    template_source: str = "default (lm-evaluation-harness MNLI)"
    name: str = "mnli"  # the registry's name, or the name of the file given to --template (never its path)
    normalization: Normalization = "mean"
    cue: str = "Answer:"  # what --calibration pmi scores each label after (templates.answer_cue)


def read_template(path: Path) -> str:
    """A template file's text (one trailing newline dropped), checked to name {premise} and {hypothesis} only."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read the template: {err}", path=str(path)) from err
    text = text[:-1] if text.endswith("\n") else text
    check_template(text, str(path))
    return text


def check_template(text: str, where: str) -> None:
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(text) if name is not None]
    except ValueError as err:
        raise InputError(
            f"the template is not a valid format string ({err}); write literal braces as {{{{ and }}}}", path=where
        ) from err
    unknown = sorted(set(fields) - {"premise", "hypothesis"})
    if unknown or not {"premise", "hypothesis"} <= set(fields):
        raise InputError(
            f"a template names {{premise}} and {{hypothesis}} and no other field; this one names "
            f"{', '.join('{' + f + '}' for f in fields) or 'none'}",
            path=where,
        )


def parse_verbalizers(text: str | None, default: dict[str, str] | None = None) -> dict[str, str]:
    """`entailment=True,neutral=Neither,contradiction=False` -> the continuations (a space before each word);
    `default` (the template's own, else DEFAULT_VERBALIZERS) when none are given."""
    if not text:
        return dict(default or DEFAULT_VERBALIZERS)
    found = {}
    for part in text.split(","):
        label, sep, word = part.partition("=")
        if not sep or label.strip() not in LABEL_NAMES or not word.strip():
            raise SwapbenchError(f"--verbalizers {text!r}: expected LABEL=WORD for each of {', '.join(LABEL_NAMES)}")
        found[label.strip()] = " " + word.strip()
    if set(found) != set(LABEL_NAMES) or len(set(found.values())) != len(found):
        raise SwapbenchError(f"--verbalizers {text!r}: give one distinct word to each of {', '.join(LABEL_NAMES)}")
    return {label: found[label] for label in LABEL_NAMES}


def prompt_specs(
    names: Sequence[str] | None,
    template_file: Path | None,
    verbalizers: str | None,
    shots: int,
    seed: int,
    normalization: Normalization,
) -> list[PromptSpec]:
    """The templates to score, in order (the first is the headline): `template_file` alone, else the registry's
    `names` (default: mnli). `verbalizers` replace every template's own."""
    if template_file is not None:
        text = read_template(template_file)
        return [
            PromptSpec(
                text,
                parse_verbalizers(verbalizers),
                shots,
                seed,
                template_source=str(template_file),
                name=template_file.name,
                normalization=normalization,
                cue=answer_cue(PromptTemplate(text)),
            )
        ]
    specs = []
    for name in dict.fromkeys(names or ["mnli"]):
        template: PromptTemplate = TEMPLATES.get(name)
        specs.append(
            PromptSpec(
                template.text,
                parse_verbalizers(verbalizers, template.verbalizers),
                shots,
                seed,
                template_source=template.source,
                name=name,
                normalization=normalization,
                cue=answer_cue(template),
            )
        )
    return specs


def hypothesis_text(hypothesis: str) -> str:
    """lm-eval's MNLI: the hypothesis stripped and ended with a full stop."""
    text = hypothesis.strip()
    return text if text.endswith(".") else text + "."


def render(spec: PromptSpec, premise: str, hypothesis: str) -> str:
    """The prompt of one pair: scored pairs and few-shot examples alike, each text with its runs of white space
    made one space (the build's originals are SNLI's text so squashed)."""
    return spec.template.format(premise=premise_key(premise), hypothesis=hypothesis_text(premise_key(hypothesis)))


def shots_text(spec: PromptSpec, examples: Sequence[Pair]) -> str:
    """The k examples, each followed by its verbalizer, and the separator before the scored prompt."""
    return "".join(render(spec, p.premise, p.hypothesis) + spec.verbalizers[p.label] + SHOT_SEPARATOR for p in examples)


def draw_shots(
    pool: Sequence[Pair],
    k: int,
    seed: int,
    scored_ids: frozenset[str],
    scored_premises: frozenset[str],
    premise_key: Callable[[str], str],
    where: str,
) -> tuple[list[Pair], int]:
    """k examples drawn from `pool` as SHOT_DRAW says, by a generator seeded with `seed`, none of them a scored
    pair or sharing a scored premise; and how many pool pairs were set apart for sharing a premise. Every label is
    present once k reaches the number of labels. A pool sharing a pairID with the scored data is the scored split
    itself: refused."""
    shared = sum(p.pair_id in scored_ids for p in pool)
    if shared:
        raise SwapbenchError(
            f"the few-shot pool ({where}) shares {shared} pairIDs with the scored data: draw the "
            "examples from a training split (--train-split train)"
        )
    kept = [p for p in pool if premise_key(p.premise) not in scored_premises]
    set_apart = len(pool) - len(kept)
    if not k:
        return [], set_apart
    by_label = {label: [p for p in kept if p.label == label] for label in LABEL_NAMES}
    rng = np.random.default_rng(seed)
    wanted = dict.fromkeys(LABEL_NAMES, k // len(LABEL_NAMES))
    for index in rng.choice(len(LABEL_NAMES), size=k % len(LABEL_NAMES), replace=False):
        wanted[LABEL_NAMES[index]] += 1
    short = {label: len(by_label[label]) for label in LABEL_NAMES if len(by_label[label]) < wanted[label]}
    if short:
        raise SwapbenchError(
            f"--shots {k}: the few-shot pool ({where}) has too few usable pairs of "
            + ", ".join(f"{label} ({count} for {wanted[label]})" for label, count in short.items())
        )
    picks = [
        by_label[label][i]
        for label in LABEL_NAMES
        for i in rng.choice(len(by_label[label]), size=wanted[label], replace=False)
    ]
    return [picks[i] for i in rng.permutation(len(picks))], set_apart


# ---- tokens ------------------------------------------------------------------------------------------------------


@dataclass
class Encoded:
    prefixes: list[list[int]]  # prompt tokens of each pair
    continuations: list[list[list[int]]]  # per pair, per label (LABEL_NAMES order), the verbalizer's tokens
    truncated: int  # prompts cut from the left to fit the model
    cut: list[bool] = field(default_factory=list)  # per pair: its prompt was cut (empty: none known)


def encode_prompts(tokenizer, prompts: Sequence[str], spec: PromptSpec, max_tokens: int | None) -> Encoded:
    """Prompt and verbalizer tokens as lm-eval splits them: the verbalizer's tokens are those that the prompt
    followed by it has after the prompt's own (so that a tokenizer merging across the boundary is read right)."""
    prefixes = tokenizer(list(prompts))["input_ids"]
    continuations = []
    for label in LABEL_NAMES:
        whole = tokenizer([p + spec.verbalizers[label] for p in prompts])["input_ids"]
        alone = tokenizer(spec.verbalizers[label], add_special_tokens=False)["input_ids"]
        continuations.append(
            [w[len(p) :] if w[: len(p)] == p and len(w) > len(p) else alone for w, p in zip(whole, prefixes)]
        )
    per_pair = [list(c) for c in zip(*continuations)]
    cut = [False] * len(prefixes)
    if max_tokens:
        for i, prefix in enumerate(prefixes):
            room = max_tokens - max(len(c) for c in per_pair[i])
            if len(prefix) > room:
                prefixes[i] = prefix[len(prefix) - room :]  # the left end goes, as lm-eval cuts contexts
                cut[i] = True
    return Encoded(prefixes=prefixes, continuations=per_pair, truncated=sum(cut), cut=cut)


def token_counts(encoded: Encoded) -> np.ndarray:
    """(pairs, labels): how many tokens each verbalizer has after each prompt."""
    return np.asarray([[len(c) for c in conts] for conts in encoded.continuations], dtype=np.float64)


def verbalizer_scores(loglik: np.ndarray, counts: np.ndarray, normalization: Normalization) -> np.ndarray:
    """Each verbalizer's score from its tokens' summed log-probabilities and their `counts` (token_counts): the
    sum itself, or the mean per token."""
    return loglik if normalization == "sum" else loglik / counts.reshape(loglik.shape)


def reference_prompts(spec: PromptSpec, shots: str, calibration: Calibration) -> list[str]:
    """The prompts without a pair that calibration reads each label's reference score after: the template on each
    content-free input (contextual), or the answer cue alone (pmi); the examples before them as before a pair."""
    if calibration == "contextual":
        return [shots + render(spec, text, text) for text in CONTENT_FREE]
    if not spec.cue:
        raise SwapbenchError(
            f"--calibration pmi needs an answer cue after the template's last field; {spec.name} has nothing after it"
        )
    return [shots + spec.cue]


def calibrate(scores: np.ndarray, reference: np.ndarray, calibration: Calibration) -> np.ndarray:
    """Scores (pairs, labels) moved by the reference scores (inputs, labels) read without a pair: contextual, the
    log of each label's probability (a softmax over the labels) less the log of its mean reference probability;
    pmi, each score less the reference's."""
    if calibration == "pmi":
        return scores - reference.mean(axis=0)
    prior = np.mean(np.exp(reference - np.logaddexp.reduce(reference, axis=1, keepdims=True)), axis=0)
    return scores - np.logaddexp.reduce(scores, axis=1, keepdims=True) - np.log(prior)


def model_max_tokens(model) -> int | None:
    limit = getattr(model.config, "max_position_embeddings", None)
    return limit if isinstance(limit, int) and limit > 0 else None


# ---- scoring -----------------------------------------------------------------------------------------------------


@dataclass
class PromptScores:
    loglik: np.ndarray  # (pairs, labels): summed log-probability of each verbalizer, LABEL_NAMES order
    batch_size: int
    truncated: int
    seconds: float
    forwards: int  # forward passes run
    tokens: int = 0  # tokens run that are not padding (score_naive: not counted)

    @property
    def predictions(self) -> np.ndarray:
        return self.loglik.argmax(axis=1)


def _pad(rows: Sequence[Sequence[int]], pad_id: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(row, dtype=torch.long)
        mask[i, : len(row)] = 1
    return ids.to(device), mask.to(device)


def _takes_position_ids(model) -> bool:
    return "position_ids" in inspect.signature(model.forward).parameters


# Model types whose logits are exactly their output layer applied to their base model's last hidden states (no
# soft-capping or scaling after it): scored by the split path, the head run only where a verbalizer token is read.
SPLIT_HEAD_TYPES = frozenset(
    {
        "llama",
        "mistral",
        "mixtral",
        "qwen2",
        "qwen3",
        "gpt2",
        "gpt_neox",
        "gptj",
        "phi",
        "phi3",
        "opt",
        "falcon",
        "bloom",
        "olmo",
        "olmo2",
        "stablelm",
        "starcoder2",
        "gemma",
        "smollm3",
    }
)
# A shared start of every prompt (the few-shot examples) shorter than this is run with each prompt.
MIN_SHARED_TOKENS = 4
# The split path plans this many batches of prompts at a time: their rows (packed, or prompts alone) sorted by
# length across all of them, so that a forward pads little.
STRETCH = 8

# A packed row holds at most this many prompts: attention's cost grows with a row's length, and by an estimate of
# SmolLM2's work, past about 16 SNLI prompts of one premise (20 tokens each after a premise of 15) a longer row
# costs more in attention than it saves in premise.
ROW_PROMPTS = 16


def padding_share(device: torch.device) -> float:
    """How much padding a forward of the split path may carry: on a CPU a padded token costs what a real one
    does, so a forward is cut where padding would pass an eighth of its tokens; a GPU, whose small forwards wait
    on kernel launches more than on arithmetic, runs full batches."""
    return 1 / 8 if device.type == "cpu" else 1.0


def padding_chunks(lengths: Sequence[int], cap: int, share: float, counts: Sequence[int] | None = None) -> list[slice]:
    """`lengths` (longest first) cut into consecutive runs of at most `cap` prompts (`counts[i]` in row i, one
    each if not given), each ended before the row that would make padding to its first (longest) row more than
    `share` of its tokens."""
    counts = counts or [1] * len(lengths)
    chunks, start = [], 0
    while start < len(lengths):
        top, end, real, held = lengths[start], start + 1, lengths[start], counts[start]
        while end < len(lengths) and held + counts[end] <= cap:
            if (end - start + 1) * top - real - lengths[end] > share * (end - start + 1) * top:
                break
            real, held, end = real + lengths[end], held + counts[end], end + 1
        chunks.append(slice(start, end))
        start = end
    return chunks


def split_head(model):
    """(base model, output layer) of a causal LM whose logits are exactly output(base(...)[0]) (SPLIT_HEAD_TYPES),
    else None (scored through its own forward)."""
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    base = getattr(model, "base_model", model)
    if (
        getattr(model.config, "model_type", None) not in SPLIT_HEAD_TYPES
        or base is model
        or not isinstance(head, torch.nn.Linear)
        or any(getattr(model.config, name, None) for name in ("final_logit_softcapping", "logit_scale"))
    ):
        return None
    return base, head


def shared_start(prefixes: Sequence[Sequence[int]]) -> int:
    """How many tokens every prompt begins with (the few-shot examples), leaving each at least its last token."""
    if len(prefixes) < 2:
        return 0
    first, shortest = prefixes[0], min(len(p) for p in prefixes) - 1
    count = 0
    while count < shortest and all(p[count] == first[count] for p in prefixes):
        count += 1
    return count if count >= MIN_SHARED_TOKENS else 0


def prompt_groups(
    prefixes: Sequence[Sequence[int]], shared: int, least: int = MIN_SHARED_TOKENS
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Prompts that begin alike after the `shared` start (the pairs of one premise, under a template that puts
    the premise first) gathered into groups, each group's common tokens run once: (the prompts' order, groups
    adjacent and the longest first; each prompt's group; how many tokens after `shared` its group shares, 0 for a
    prompt alone). A prompt joins the group before it while their common start is at least `least` tokens and
    half the group's; each keeps at least its last token of its own."""
    n = len(prefixes)
    group_of, group_start = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    if n == 0:
        return np.zeros(0, dtype=np.int64), group_of, group_start
    rests = [tuple(p[shared:]) for p in prefixes]
    sorted_ = sorted(range(n), key=rests.__getitem__)
    groups, current, common = [], [sorted_[0]], len(rests[sorted_[0]]) - 1
    for i in sorted_[1:]:
        a, b = rests[current[-1]], rests[i]
        same = 0
        while same < min(len(a), len(b)) and a[same] == b[same]:
            same += 1
        joined = min(common, same, len(b) - 1)
        if joined >= least and (len(current) == 1 or joined * 2 >= common):
            current.append(i)
            common = joined
        else:
            groups.append((current, common if len(current) > 1 else 0))
            current, common = [i], len(b) - 1
    groups.append((current, common if len(current) > 1 else 0))
    groups.sort(key=lambda g: -max(len(rests[i]) for i in g[0]))
    order = []
    for number, (members, start) in enumerate(groups):
        members.sort(key=lambda i: -len(rests[i]))
        order += members
        group_of[members], group_start[members] = number, start
    return np.asarray(order, dtype=np.int64), group_of, group_start


def _log_probs(head, hidden: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """log p(target) (N, k) of the k `targets` (N, k) at each of `hidden`'s rows (N, d): the output layer over the
    whole vocabulary at those rows alone (the log-softmax normaliser needs every entry), each target's logit less
    the log-sum-exp, in float32."""
    logits = head(hidden).float()
    return logits.gather(1, targets) - torch.logsumexp(logits, dim=-1, keepdim=True)


def _structure_copy(cache):
    """A copy of a key-value cache whose tensors are the same objects as `cache`'s: reorder_cache and a forward
    replace a Cache object's tensors (they do not write into them), so the copy can be reordered and read while
    `cache` stays as it was, without a second copy of every key and value in memory."""
    tensors = {}

    def collect(value, depth=0):
        if isinstance(value, torch.Tensor):
            tensors[id(value)] = value
        elif depth < 4 and isinstance(value, (list, tuple)):
            for item in value:
                collect(item, depth + 1)
        elif depth < 4 and isinstance(value, dict):
            for item in value.values():
                collect(item, depth + 1)
        elif depth < 4 and hasattr(value, "__dict__"):
            for item in vars(value).values():
                collect(item, depth + 1)

    collect(cache)
    return copy.deepcopy(cache, tensors)


def _expanded(model, cache, rows: int):
    """A one-row key-value cache with its row repeated `rows` times, on a structure copy (reorder_cache changes a
    Cache object in place, and the forward that reads it appends to it)."""
    return reorder_cache(model, _structure_copy(cache), torch.zeros(rows, dtype=torch.long))


def score_prompts(
    model,
    tokenizer,
    encoded: Encoded,
    *,
    batch_size: int | None = None,
    progress: Callable[[int], None] | None = None,
    on_batch: Callable[[np.ndarray, np.ndarray, np.ndarray], None] | None = None,
    fast: bool = True,
    group: bool = True,
) -> PromptScores:
    """Every verbalizer's log-likelihood with one forward pass per pair over the prompt (plus, for verbalizers of
    several tokens, one pass over their remaining tokens on the prompt's cache). `on_batch(positions, loglik,
    cut)` is called after each batch with the positions of its pairs.

    Where the model allows it (split_head) and `fast`, the base model runs and the output layer is applied only at
    the positions whose next token is a verbalizer token (the projection onto the vocabulary is a fifth of
    SmolLM2-135M's work at every position), and the start that every prompt shares (the few-shot examples) runs
    once: each forward reads a copy of its key-value cache. Where the model reads packed rows (packing), the
    prompts that share tokens after it (a premise, under a template that puts it first) are a row, the shared
    tokens once and each prompt's own and its verbalizers' later tokens after them, so that one forward scores
    them all; rows go longest first in forwards of at most `batch_size` prompts that on a CPU end where padding
    would pass an eighth of their tokens (padding_share). A model that does not read packed rows runs each prompt
    whole after the shared start, longest first, cut alike. The scores are the plain path's (`fast=False`: the
    model's own forward, the first verbalizer token's logits at the last positions only) to float32 rounding."""
    started = time.perf_counter()
    if fast:
        distinct = _distinct(encoded)
        if distinct is not None:  # the same prompt and verbalizers twice (a variant that left a pair as it was)
            return _score_distinct(
                model,
                tokenizer,
                encoded,
                *distinct,
                batch_size=batch_size,
                progress=progress,
                on_batch=on_batch,
                group=group,
            )
    device = input_device(model)
    n, labels = len(encoded.prefixes), len(LABEL_NAMES)
    loglik = np.zeros((n, labels), dtype=np.float64)
    order = np.argsort(-np.asarray([len(p) for p in encoded.prefixes], dtype=np.int64), kind="stable")
    parts = split_head(model) if fast else None
    forwards = tokens = 0
    shared, shared_cache, packs = 0, None, False
    group_of = group_start = np.zeros(n, dtype=np.int64)
    if parts is not None:
        base, head = parts
        cache_keyword, positions = takes_cache_as(base), _takes_position_ids(base)
        shared = shared_start(encoded.prefixes)
        packs = n > 0 and positions and reads_packed_rows(base, encoded.prefixes[0], tokenizer.pad_token_id)
        if packs and group:  # prompts that share a start of their own (a premise) are packed in a row together
            order, group_of, group_start = prompt_groups(encoded.prefixes, shared)
        if shared:
            with torch.inference_mode():
                out = base(input_ids=torch.tensor([encoded.prefixes[0][:shared]], device=device), use_cache=True)
            shared_cache = returned_cache(out)
            forwards, tokens = forwards + 1, tokens + shared

    def after_shared(rows: int) -> dict:
        """The key-value cache of the shared start, a copy per row, as the keyword the base model takes it by."""
        return {cache_keyword: _expanded(model, shared_cache, rows)} if shared else {}

    def own_pass(index: np.ndarray) -> torch.Tensor:
        """The verbalizers' log-likelihoods of the prompts `index`, each run whole after the shared start."""
        nonlocal forwards, tokens
        count = len(index)
        rows = torch.arange(count, device=device)
        conts = [encoded.continuations[i] for i in index]
        longest = max(len(c) for cs in conts for c in cs)
        own = [encoded.prefixes[i][shared:] for i in index]
        lengths = torch.tensor([len(p) for p in own], device=device)
        ids, mask = _pad(own, tokenizer.pad_token_id, device)
        mask = torch.cat([torch.ones((count, shared), dtype=torch.long, device=device), mask], dim=1)
        extra = after_shared(count)
        if positions:
            extra["position_ids"] = shared + torch.arange(ids.shape[1], device=device).expand_as(ids)
        out = base(input_ids=ids, attention_mask=mask, use_cache=longest > 1 or bool(shared), **extra)
        forwards, tokens = forwards + 1, tokens + int(lengths.sum())
        firsts = torch.tensor([[c[0] for c in cs] for cs in conts], device=device)
        hidden = out[0][rows, lengths - 1]  # (rows, d): where each prompt's next token is a verbalizer's first
        scores = _log_probs(head, hidden, firsts).double()
        if longest > 1:  # the verbalizers' later tokens, label by label side by side, on the prompt's cache
            flat = [c for cs in conts for c in cs]
            cache = reorder_cache(model, returned_cache(out), rows.repeat_interleave(labels))
            tail_ids, tail_mask = _pad([c[:-1] for c in flat], tokenizer.pad_token_id, device)
            tail_extra = {cache_keyword: cache}
            if positions:
                offsets = torch.arange(tail_ids.shape[1], device=device)
                tail_extra["position_ids"] = (shared + lengths).repeat_interleave(labels)[:, None] + offsets[None, :]
            tail_out = base(
                input_ids=tail_ids,
                attention_mask=torch.cat([mask.repeat_interleave(labels, dim=0), tail_mask], dim=1),
                use_cache=False,
                **tail_extra,
            )
            forwards, tokens = forwards + 1, tokens + int(tail_mask.sum())
            where = [(row, step, cont[step + 1]) for row, cont in enumerate(flat) for step in range(len(cont) - 1)]
            if where:
                at = torch.tensor(where, device=device)
                later = _log_probs(head, tail_out[0][at[:, 0], at[:, 1]], at[:, 2:]).double()[:, 0]
                scores.view(-1).index_add_(0, at[:, 0], later)
        return scores

    share = padding_share(device)

    def run_alone(index: np.ndarray, size: int) -> None:
        """The prompts `index` (a model that does not read packed rows), longest first, in forwards of at most
        `size` prompts cut where padding would pass `share` of their tokens."""
        own = np.asarray([len(encoded.prefixes[i]) for i in index]) - shared
        by_length = np.argsort(-own, kind="stable")
        index, own = index[by_length], own[by_length]
        for chunk in padding_chunks(own.tolist(), size, share):
            report(index[chunk], own_pass(index[chunk]))

    def run_packed(index: np.ndarray, size: int) -> None:
        """The prompts `index` packed (packing.pack): a row for the prompts of each group (ROW_PROMPTS to a row)
        and one for each prompt of none, the rows longest first in forwards of at most `size` prompts cut where
        padding would pass `share` of their tokens."""
        nonlocal forwards, tokens
        members: dict[int, list[int]] = {}
        for i in index:  # a prompt of no group is a row alone
            members.setdefault(int(group_of[i]) if group_start[i] else -1 - int(i), []).append(int(i))
        most = min(size, ROW_PROMPTS)
        per_row = [m[k : k + most] for m in members.values() for k in range(0, len(m), most)]  # a row's prompts

        def content(prompts: list[int]):  # packing.Row: the group's common tokens, then each prompt's own
            common = shared + int(group_start[prompts[0]])
            return encoded.prefixes[prompts[0]][shared:common], [
                (encoded.prefixes[i][common:], encoded.continuations[i]) for i in prompts
            ]

        rows = sorted(((prompts, content(prompts)) for prompts in per_row), key=lambda row: -row_length(row[1]))
        lengths = [row_length(row) for _, row in rows]
        for chunk in padding_chunks(lengths, size, share, counts=[len(prompts) for prompts, _ in rows]):
            prompts = np.asarray([i for r, _ in rows[chunk] for i in r], dtype=np.int64)
            batch = pack([row for _, row in rows[chunk]], shared, tokenizer.pad_token_id, base.dtype, device)
            out = base(
                input_ids=batch.ids,
                attention_mask=batch.mask,
                position_ids=batch.positions,
                use_cache=bool(shared),
                **after_shared(len(batch.ids)),
            )
            forwards, tokens = forwards + 1, tokens + batch.real
            hidden = out[0]
            firsts = torch.tensor([[c[0] for c in encoded.continuations[i]] for i in prompts], device=device)
            scores = _log_probs(head, hidden[batch.first[:, 0], batch.first[:, 1]], firsts).double()
            if len(batch.later):
                at = batch.later
                later = _log_probs(head, hidden[at[:, 2], at[:, 3]], at[:, 4:]).double()[:, 0]
                scores.view(-1).index_add_(0, at[:, 0] * labels + at[:, 1], later)
            report(prompts, scores)

    def run_stretch(slice_: np.ndarray, size: int) -> None:
        """A stretch of the prompts, packed or alone; prompts already scored (before an out-of-memory retry) are
        left."""
        index = order[slice_]
        index = index[~scored[index]]
        if len(index):
            (run_packed if packs else run_alone)(index, size)

    keep_positions = "logits_to_keep" in inspect.signature(model.forward).parameters
    positions_plain = _takes_position_ids(model)

    def run_plain(index: np.ndarray) -> torch.Tensor:
        nonlocal forwards, tokens
        prefixes = [encoded.prefixes[i] for i in index]
        conts = [encoded.continuations[i] for i in index]
        lengths = torch.tensor([len(p) for p in prefixes], device=device)
        ids, mask = _pad(prefixes, tokenizer.pad_token_id, device)
        longest = max(len(c) for cs in conts for c in cs)
        rows = torch.arange(len(index), device=device)
        if keep_positions:  # the vocabulary projection only where a verbalizer begins: the batch's few last positions
            last, where = torch.unique(lengths - 1, return_inverse=True)
            out = model(input_ids=ids, attention_mask=mask, use_cache=longest > 1, logits_to_keep=last)
            first_logits = out.logits[rows, where]
        else:
            out = model(input_ids=ids, attention_mask=mask, use_cache=longest > 1)
            first_logits = out.logits[rows, lengths - 1]
        forwards, tokens = forwards + 1, tokens + int(lengths.sum())
        first = torch.log_softmax(first_logits.float(), dim=-1)
        firsts = torch.tensor([[c[0] for c in cs] for cs in conts], device=device)
        scores = first.gather(1, firsts).double()
        if longest > 1:  # the verbalizers' later tokens, label by label side by side, on the prompt's cache
            cache = reorder_cache(model, returned_cache(out), rows.repeat_interleave(labels))
            tails = [c[:-1] for cs in conts for c in cs]  # inputs predicting tokens 1.. of each verbalizer
            tail_ids, tail_mask = _pad(tails, tokenizer.pad_token_id, device)
            full_mask = torch.cat([mask.repeat_interleave(labels, dim=0), tail_mask], dim=1)
            extra = {}
            if positions_plain:
                offsets = torch.arange(tail_ids.shape[1], device=device)
                extra["position_ids"] = lengths.repeat_interleave(labels)[:, None] + offsets[None, :]
            extra[takes_cache_as(model)] = cache
            tail_out = model(input_ids=tail_ids, attention_mask=full_mask, use_cache=False, **extra)
            forwards, tokens = forwards + 1, tokens + int(tail_mask.sum())
            logp = torch.log_softmax(tail_out.logits.float(), dim=-1)
            flat = [c for cs in conts for c in cs]
            for row, cont in enumerate(flat):
                if len(cont) > 1:
                    targets = torch.tensor(cont[1:], device=device)
                    steps = torch.arange(len(cont) - 1, device=device)
                    scores[row // labels, row % labels] += logp[row, steps, targets].double().sum()
        return scores

    scored = np.zeros(n, dtype=bool)

    def report(index: np.ndarray, scores: torch.Tensor) -> None:
        loglik[index] = scores.cpu().numpy()
        scored[index] = True
        if on_batch:
            on_batch(index, loglik[index], np.asarray([encoded.cut[i] if encoded.cut else False for i in index]))
        if progress:
            progress(len(index))

    def run(slice_: np.ndarray, size: int) -> None:
        index = order[slice_]
        report(index, run_plain(index))

    with torch.inference_mode():
        if parts is not None:
            size = in_batches(n, batch_size or default_batch(device), device, run_stretch, stretch=STRETCH)
        else:
            size = in_batches(n, batch_size or default_batch(device), device, run)
    return PromptScores(
        loglik=loglik,
        batch_size=size,
        truncated=encoded.truncated,
        seconds=time.perf_counter() - started,
        forwards=forwards,
        tokens=tokens,
    )


def _distinct(encoded: Encoded) -> tuple[Encoded, np.ndarray] | None:
    """The distinct (prompt, verbalizers) of `encoded`, and for each prompt the position of its own among them;
    None when every one is distinct."""
    seen: dict = {}
    where = np.asarray(
        [
            seen.setdefault((tuple(p), tuple(map(tuple, c))), len(seen))
            for p, c in zip(encoded.prefixes, encoded.continuations)
        ],
        dtype=np.int64,
    )
    if len(seen) == len(where):
        return None
    first = np.unique(where, return_index=True)[1]
    return Encoded(
        prefixes=[encoded.prefixes[i] for i in first],
        continuations=[encoded.continuations[i] for i in first],
        truncated=encoded.truncated,
        cut=[encoded.cut[i] for i in first] if encoded.cut else [],
    ), where


def _score_distinct(
    model,
    tokenizer,
    encoded: Encoded,
    distinct: Encoded,
    where: np.ndarray,
    *,
    batch_size,
    progress,
    on_batch,
    group: bool,
) -> PromptScores:
    """score_prompts of the distinct prompts alone, each score given to every prompt that is the same; each batch
    reported (on_batch, progress) for all the prompts it scored."""
    members = [[] for _ in distinct.prefixes]
    for i, k in enumerate(where):
        members[k].append(i)

    def scored_batch(index, values, cut):
        counts = [len(members[k]) for k in index]
        if on_batch:
            on_batch(
                np.concatenate([members[k] for k in index]), np.repeat(values, counts, axis=0), np.repeat(cut, counts)
            )
        if progress:
            progress(sum(counts))

    scored = score_prompts(model, tokenizer, distinct, batch_size=batch_size, on_batch=scored_batch, group=group)
    return PromptScores(
        loglik=scored.loglik[where],
        batch_size=scored.batch_size,
        truncated=encoded.truncated,
        seconds=scored.seconds,
        forwards=scored.forwards,
        tokens=scored.tokens,
    )


def score_naive(model, tokenizer, encoded: Encoded, *, batch_size: int = 32) -> PromptScores:
    """One sequence per (pair, verbalizer), prompt and verbalizer together, in length-sorted batches: the
    reference the tests hold score_prompts to. (lm-eval's loop does better where every verbalizer is one token: its
    logits cache runs one sequence per prompt; scripts/bench_decoder.py compares with that loop.)"""
    started = time.perf_counter()
    device = input_device(model)
    requests = [
        (i, k, encoded.prefixes[i], cont)
        for i, conts in enumerate(encoded.continuations)
        for k, cont in enumerate(conts)
    ]
    requests.sort(key=lambda r: -(len(r[2]) + len(r[3])))
    loglik = np.zeros((len(encoded.prefixes), len(LABEL_NAMES)), dtype=np.float64)
    forwards = 0
    with torch.inference_mode():
        for start in range(0, len(requests), batch_size):
            batch = requests[start : start + batch_size]
            ids, mask = _pad([p + c for _, _, p, c in batch], tokenizer.pad_token_id, device)
            logp = torch.log_softmax(model(input_ids=ids, attention_mask=mask).logits.float(), dim=-1)
            forwards += 1
            for row, (i, k, prefix, cont) in enumerate(batch):
                steps = torch.arange(len(prefix) - 1, len(prefix) + len(cont) - 1, device=device)
                loglik[i, k] = logp[row, steps, torch.tensor(cont, device=device)].double().sum().item()
    return PromptScores(
        loglik=loglik,
        batch_size=batch_size,
        truncated=encoded.truncated,
        seconds=time.perf_counter() - started,
        forwards=forwards,
    )
