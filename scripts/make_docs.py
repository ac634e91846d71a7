"""Write docs/results-schema.md from the pydantic models of what swapbench writes: the results file of `eval`
(swapbench.results.schema.EvalResults), the build record (swapbench.results.build_record.BuildInfo) and the
hypothesis-only record of `leak` (swapbench.results.hypothesis_only.HypothesisOnlyLeaks).

The page is generated, never edited by hand, so that it says what the code accepts: tests/test_docs.py fails when
the committed page differs from what this script makes now. After changing a model, run

    python scripts/make_docs.py            # rewrite docs/results-schema.md
    python scripts/make_docs.py --check    # exit 1 when the page is stale
"""

from __future__ import annotations

import argparse
import json
import sys
import types
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "results-schema.md"
if str(REPO) not in sys.path:  # run as `python scripts/make_docs.py` from anywhere
    sys.path.insert(0, str(REPO))

from swapbench.core.version import __version__  # noqa: E402
from swapbench.results.build_record import BUILD_INFO, BuildInfo  # noqa: E402
from swapbench.results.hypothesis_only import HypothesisOnlyLeaks  # noqa: E402
from swapbench.results.schema import SCHEMA_VERSION, EvalResults  # noqa: E402

SCALARS = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
    datetime: "date-time",
    dict: "object",
    list: "list",
    object: "any",
}
BOUNDS = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<", "min_length": "at least", "max_length": "at most"}


def anchor(model: type[BaseModel]) -> str:
    return model.__name__.lower()


def is_model(annotation) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def render_type(annotation) -> str:
    """A field's type in words, nested models as links to their sections."""
    origin, args = get_origin(annotation), get_args(annotation)
    if is_model(annotation):
        return f"[{annotation.__name__}](#{anchor(annotation)})"
    if origin is Annotated:
        return render_type(args[0])
    if origin in (Union, types.UnionType):
        return " or ".join(render_type(a) for a in args)
    if origin is Literal:
        return "one of " + ", ".join(f"`{json.dumps(a)}`" for a in args)
    if origin in (list, set, frozenset) or (origin is tuple and len(args) == 2 and args[1] is Ellipsis):
        return f"list of {render_type(args[0])}" if args else "list"
    if origin is tuple:
        return "list of " + ", ".join(render_type(a) for a in args)
    if origin is dict:
        return f"object of {render_type(args[0])} to {render_type(args[1])}" if args else "object"
    return SCALARS.get(annotation, getattr(annotation, "__name__", str(annotation)))


def nested_models(annotation) -> list[type[BaseModel]]:
    if is_model(annotation):
        return [annotation]
    return [m for a in get_args(annotation) for m in nested_models(a)]


def constraints(field: FieldInfo) -> str:
    bounds = []
    for item in field.metadata:
        for name, word in BOUNDS.items():
            value = getattr(item, name, None)
            if value is not None:
                bounds.append(f"{word} {value}")
    return f" ({', '.join(bounds)})" if bounds else ""


def default(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    value = field.default_factory() if field.default_factory is not None else field.default
    if value is PydanticUndefined:
        return "required"
    if value == __version__ and isinstance(value, str):  # installed or not, the page must not change with it
        return "the version of swapbench that wrote it"
    return f"`{json.dumps(value, default=str)}`"


def cell(text: str) -> str:
    """Text as a Markdown table cell takes it: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def section(model: type[BaseModel], level: str) -> list[str]:
    lines = [f"{level} {model.__name__}", ""]
    doc = model.__dict__.get("__doc__")
    if doc:
        lines += [" ".join(doc.split()), ""]
    lines += ["| key | type | default | description |", "|---|---|---|---|"]
    for name, field in model.model_fields.items():
        lines.append(
            f"| `{name}` | {cell(render_type(field.annotation) + constraints(field))} | "
            f"{cell(default(field))} | {cell(field.description or '')} |"
        )
    return lines + [""]


def document(root: type[BaseModel], seen: set) -> list[str]:
    """The root model's section, then each model it holds (breadth first), each once in the whole page."""
    lines, queue = [], [root]
    while queue:
        model = queue.pop(0)
        if model in seen:
            continue
        seen.add(model)
        lines += section(model, "##" if model is root else "###")
        queue += [m for field in model.model_fields.values() for m in nested_models(field.annotation)]
    return lines


def render() -> str:
    seen: set = set()
    lines = [
        "<!-- Generated by scripts/make_docs.py from the pydantic models; do not edit by hand: run "
        "`python scripts/make_docs.py`. -->",
        "",
        "# The files swapbench writes",
        "",
        f"- The results file of `swapbench eval` (`results_*.json`, schema version {SCHEMA_VERSION}): "
        f"[EvalResults](#{anchor(EvalResults)}), from `swapbench/results/schema.py`. "
        "`python -m swapbench.results.schema` prints its JSON Schema.",
        f"- The build record of `swapbench build` (`{BUILD_INFO}`, beside the dataset card): "
        f"[BuildInfo](#{anchor(BuildInfo)}), from `swapbench/results/build_record.py`.",
        "- What a hypothesis-only model tells of each role configuration (`swapbench leak`, "
        "`data/annotations/hypothesis-only.json`, which the dataset card reads): "
        f"[HypothesisOnlyLeaks](#{anchor(HypothesisOnlyLeaks)}), from `swapbench/results/hypothesis_only.py`.",
        "",
        "A key not listed is an error when a file is read (the records are strict). Fractions are stored as "
        "fractions (0.069, not 6.9%).",
        "",
    ]
    for root in (EvalResults, BuildInfo, HypothesisOnlyLeaks):
        lines += document(root, seen)
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the committed page is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = PAGE.read_text(encoding="utf-8") if PAGE.is_file() else ""
        if current != text:
            print(f"{PAGE.relative_to(REPO)} is stale: run `python scripts/make_docs.py`", file=sys.stderr)
            return 1
        return 0
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
