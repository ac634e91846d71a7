"""The prompt templates of `swapbench eval --mode prompt` (`--templates`): a small registry of named prompts, each
with the verbalizers its question names, after lm-evaluation-harness's multi-prompt tasks, which score one task
under several prompts and report how far the figures move between them.

A template is a format string naming {premise} and {hypothesis}; its verbalizers are the continuations scored
after it, a space before each word; its cue is the text a label follows when the pair is left out, which
domain-conditional PMI (`--calibration pmi`) scores each label after. This module loads nothing heavy: the command
line lists the registry each time it is built.

    from swapbench.core.registry import TEMPLATES
    from swapbench.evaluation.templates import PromptTemplate

    TEMPLATES.add("imply", PromptTemplate("{premise}\\nDoes this imply that {hypothesis} Yes, no, or maybe?",
                                          {"entailment": " Yes", "neutral": " Maybe", "contradiction": " No"},
                                          cue="Yes, no, or maybe?", source="my own"), help="...")
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field

from ..core.registry import TEMPLATES

YES_MAYBE_NO = {"entailment": " Yes", "neutral": " Maybe", "contradiction": " No"}


@dataclass(frozen=True)
class PromptTemplate:
    text: str  # names {premise} and {hypothesis}
    verbalizers: dict[str, str] = field(default_factory=dict)  # NLI label -> continuation, LABEL_NAMES order
    cue: str = ""  # the answer cue alone, for PMI; "" reads it off the text (answer_cue)
    source: str = ""  # where the prompt comes from, in words


TEMPLATES.accepts(PromptTemplate, "instance")  # what its entries must be: core/registry.py checks each


def answer_cue(template: PromptTemplate) -> str:
    """The template's cue, or else its text after the last field, without the punctuation that closes the
    hypothesis ('"? Yes, no, or maybe?' gives 'Yes, no, or maybe?'); "" when nothing follows the last field."""
    if template.cue:
        return template.cue
    tail = [literal for literal, name, _, _ in string.Formatter().parse(template.text)]
    fields = [name for _, name, _, _ in string.Formatter().parse(template.text) if name is not None]
    last = tail[len(fields)] if len(tail) > len(fields) else ""
    return re.sub(r"^[^\w]+", "", last).strip()


TEMPLATES.add(
    "mnli",
    PromptTemplate(
        "{premise}\nQuestion: {hypothesis} True, False or Neither?\nAnswer:",
        {"entailment": " True", "neutral": " Neither", "contradiction": " False"},
        cue="Answer:",
        source="lm-evaluation-harness MNLI",
    ),
    help="lm-evaluation-harness's MNLI prompt, '{premise}\\nQuestion: {hypothesis} True, False or Neither?\\n"
    "Answer:' (True, Neither, False); the default",
)
TEMPLATES.add(
    "based-on",
    PromptTemplate(
        '{premise} Based on the previous passage, is it true that "{hypothesis}"? Yes, no, or maybe?',
        YES_MAYBE_NO,
        cue="Yes, no, or maybe?",
        source="promptsource MNLI 'based on the previous passage'",
    ),
    help="promptsource's 'based on the previous passage' (Yes, Maybe, No)",
)
TEMPLATES.add(
    "justified",
    PromptTemplate(
        '{premise} Are we justified in saying that "{hypothesis}"? Yes, no, or maybe?',
        YES_MAYBE_NO,
        cue="Yes, no, or maybe?",
        source="promptsource MNLI 'justified in saying'",
    ),
    help="promptsource's 'justified in saying' (Yes, Maybe, No)",
)

DEFAULT_TEMPLATES = ["mnli"]


def templates_help() -> str:
    return "; ".join(f"{entry.name}: {entry.help}" for entry in TEMPLATES)
