"""A command's options, defined once: one pydantic model whose fields carry type, default, range and help.

The command line's arguments and the Python API's keyword arguments are both made from the model, so that an
option is spelled in one place and means the same thing in both:

    class ProbeOptions(CommandOptions):
        model: str = option(positional=True, metavar="MODEL", help="Hugging Face model id or local folder")
        words: int = option(100, ge=1, help="words drawn from the vocabulary")
        seed: int = option(0, ge=0, le=SEED_MAX, help="seed of the word draw")

    add_arguments(parser, ProbeOptions)             # --words N, --seed N, with argparse types from the ranges
    options = from_arguments(ProbeOptions, args)    # the model, validated once
    options = ProbeOptions.from_keywords(words=20)  # the API: the same validation, errors named as options

A value out of range fails on the command line with argparse's usage message and exit code 2, built from the same
bounds that pydantic checks for the API. An API keyword is the field's name or its flag's, dashes as underscores
(`learning_rate=` or `lr=` for --lr; `probe=False` or `no_probe=True` for --no-probe); an unknown one is refused
naming the nearest there is. A list option takes a comma-separated string on the command line, and a
list or a comma-separated string from the API. An option renamed keeps its old spelling working for a while
(`deprecated="--batch-size"`): on the command line, and as the old keyword in the API, each with a warning that
names the new one. An option taken away (`removed="build --variants shuffle-sr-premise"`) is refused on both
paths with what to do instead; help no longer lists it.
"""

from __future__ import annotations

import argparse
import difflib
import numbers
import os
import sys
import types
import typing
import warnings
from pathlib import Path
from typing import Any, Literal

import annotated_types
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.fields import FieldInfo

from .errors import SwapbenchError
from .options import comma_separated, integer, number, out_of_range

_CLI = "cli"  # the key of a field's command-line settings in its json_schema_extra


def option(
    default: Any = ...,
    *,
    help: str | typing.Callable[[], str],
    flag: str | None = None,
    metavar: str | None = None,
    positional: bool = False,
    negative: str | None = None,
    group: str | None = None,
    parse: Any = None,
    choices: tuple | typing.Callable[[], typing.Iterable] | None = None,
    cli: bool = True,
    deprecated: str | None = None,
    required: bool = False,
    repeat: bool = False,
    removed: str | None = None,
    keyed: bool = True,
    **constraints,
) -> Any:
    """A field of a CommandOptions model.

    `help`: the option's help (its default is appended when it has one), or a function giving it when the parser
    is built (what a registry lists then); `flag`: the command-line spelling (default --field-name);
    `positional`: a positional argument; `negative`: for a bool that defaults to True, the flag that turns it off
    (e.g. --no-probe); `group`: the argparse group it is listed under; `parse`: an argparse type of its own, where
    the field's range cannot say it (a device name); `choices`: the values a string (or each item of a list)
    takes, checked on both paths, or a function giving them when the parser is built; `cli`: False for a field
    the API takes but the command line does not (what the command fills in itself); `deprecated`: the option's
    old flag, still taken with a warning, and its old keyword (the flag's words joined by _) in the API;
    `required`: the command line must give it, though the API need not (where the API's default means "do
    not", e.g. write no files); `repeat`: a list option given as one flag per item (--encoding-option A=1
    --encoding-option B=2) rather than comma-separated; `removed`: the option was taken away, and this says what
    to do instead: given on the command line or in the API, it is refused with that (its field defaults to None,
    is hidden from help and left out of model_dump); `keyed`: False for an option that changes how a run goes, not
    what it computes (--threads): left out of model_dump, so that it keys no cached or resumed run. `constraints`:
    pydantic's ge, gt, le, lt, min_length...
    """
    extra = {
        "flag": flag,
        "metavar": metavar,
        "positional": positional,
        "negative": negative,
        "group": group,
        "parse": parse,
        "choices": choices,
        "cli": cli,
        "deprecated": deprecated,
        "required": required,
        "repeat": repeat,
        "removed": removed,
        "help": help if callable(help) else None,
    }
    return Field(
        default,
        description=None if callable(help) else help,
        json_schema_extra={_CLI: extra},
        exclude=removed is not None or not keyed,
        **constraints,
    )


class CommandOptions(BaseModel):
    """The options of one command. Unknown keywords are refused, naming the ones there are."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True, validate_default=False)

    @classmethod
    def from_keywords(cls, **keywords):
        """The model from the API's keyword arguments; a bad value is a SwapbenchError naming the option.

        A keyword is a field's name or its flag's, dashes as underscores: `lr=1e-4` is learning_rate=1e-4, and
        `no_probe=True` is probe=False, as the command line has it."""
        keywords = _by_field_name(cls, keywords)
        for name, value in keywords.items():
            field = cls.model_fields.get(name)
            if field is not None and value is not None and settings(field).get("removed"):
                raise SwapbenchError(f"{name} ({flag_of(name, field)}) was removed: {settings(field)['removed']}")
        unknown = sorted(set(keywords) - set(cls.model_fields))
        if unknown:
            raise SwapbenchError(_unknown(cls, unknown))
        try:
            return cls(**keywords)
        except ValidationError as err:
            raise SwapbenchError(describe_errors(cls, err)) from None

    @field_validator("*", mode="before")
    @classmethod
    def _comma_lists(cls, value, info):
        """A list option given as one string, from the API as from the command line: "shuffle-3,shuffle-4".
        Before that, a count, a number or a switch is checked to be one (_strictly): pydantic alone would take
        limit=True as 1, limit=2.5 as an error but limit=2.0 as 2, and probe="no" as False."""
        annotation = cls.model_fields[info.field_name].annotation
        value = _strictly(info.field_name, _without_none(annotation), value)
        if isinstance(value, str) and _is_list(annotation):
            return [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, os.PathLike) and _without_none(annotation) is str:
            return os.fspath(value)  # a source or a model named by a Path, as a notebook has it
        return value

    @field_validator("*", mode="after")
    @classmethod
    def _in_choices(cls, value, info):
        """The choices the command line checks, checked for the API too."""
        choices = choices_of(cls.model_fields[info.field_name])
        if choices is None or value is None:
            return value
        wrong = [item for item in (value if isinstance(value, list) else [value]) if item not in choices]
        if wrong:
            raise ValueError(f"{', '.join(map(repr, wrong))} is not one of {', '.join(map(str, choices))}")
        return value


def _strictly(name: str, kind, value):
    """`value` of an option of type `kind` (int, float, bool, or a list of them), refused (ValueError, named by
    the keyword) unless it is one: a bool is no count, a float no count even when whole. A string is read as
    the command line reads its text (so "100" is 100, and "x" gets the command line's message), and a list may
    be one comma-separated string."""
    if value is None:
        return value
    if _is_list(kind):
        if isinstance(value, str) or not isinstance(value, (list, tuple)):
            return value  # a comma-separated string, or what pydantic refuses itself
        item = _plain(typing.get_args(kind)[0])
        return type(value)(_strictly(f"{name}[{index}]", item, element) for index, element in enumerate(value))
    kind = _plain(kind)
    if isinstance(value, str) and kind in (int, float):
        return value  # read as the command line reads its text, with its message ("'x' is not an integer")
    if kind is bool and not isinstance(value, bool):
        raise ValueError(f"{name}={value!r}: expected True or False")
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ValueError(f"{name}={value!r}: expected an integer, not {type(value).__name__}")
        return int(value)  # (numpy's integers too)
    if kind is float and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
        raise ValueError(f"{name}={value!r}: expected a number, not {type(value).__name__}")
    return value


def _plain(annotation):
    """X for Annotated[X, ...] (a list's items keep their constraints there)."""
    return typing.get_args(annotation)[0] if typing.get_origin(annotation) is typing.Annotated else annotation


def _keyword(flag: str) -> str:
    """The API's keyword for a command-line flag: --no-probe is no_probe."""
    return flag.lstrip("-").replace("-", "_")


def flag_keywords(model: type[CommandOptions]) -> dict[str, tuple[str, bool]]:
    """The keywords spelled as a flag is where that differs from the field's name: keyword -> (field, whether
    it is the negative of a bool, as no_probe is of probe). A deprecated flag is not among them (_deprecated)."""
    found = {}
    for name, field in model.model_fields.items():
        cli = settings(field)
        if not cli.get("cli") or cli.get("positional"):
            continue
        for flag, negated in ((cli.get("flag"), False), (cli.get("negative"), True)):
            keyword = _keyword(flag) if flag else None
            if keyword and keyword not in model.model_fields:
                found[keyword] = (name, negated)
    return found


def _deprecated(model: type[CommandOptions]) -> dict[str, str]:
    """The old keyword of each renamed option (its old flag's words joined by _) -> the field's name."""
    return {
        _keyword(old): name
        for name, field in model.model_fields.items()
        if (old := settings(field).get("deprecated")) and _keyword(old) not in model.model_fields
    }


def _by_field_name(model: type[CommandOptions], keywords: dict) -> dict:
    """The keywords with each given as its field's name: a flag's spelling turned into the field (no_progress=True
    into progress=False), an old name into its new one with a DeprecationWarning. One option given under two
    names is refused."""
    named = dict(keywords)
    for old, name in _deprecated(model).items():
        if old in named:
            if name in named:
                raise SwapbenchError(f"{old} is the old name of {name}: give one of them")
            warnings.warn(f"{old} is deprecated: use {name}", DeprecationWarning, stacklevel=3)
            named[name] = named.pop(old)
    for keyword, (name, negated) in flag_keywords(model).items():
        if keyword not in named:
            continue
        if name in named:
            field = model.model_fields[name]
            flag = settings(field)["negative"] if negated else flag_of(name, field)
            raise SwapbenchError(f"{keyword} and {name} are the same option ({flag}): give one of them")
        value = named.pop(keyword)
        if negated and not isinstance(value, bool):
            raise SwapbenchError(f"{keyword}: expected True or False, not {value!r}")
        named[name] = not value if negated else value
    return named


def keywords_of(model: type[CommandOptions]) -> set[str]:
    """Every keyword the API takes for `model`: its fields' names, its flags' (lr, no_probe) and old names."""
    return {*model.model_fields, *flag_keywords(model), *_deprecated(model)}


def _unknown(model: type[CommandOptions], unknown: list[str]) -> str:
    """Unknown keywords named, each with the nearest option there is, and the options there are."""
    current = [*model.model_fields, *flag_keywords(model)]
    described = []
    for keyword in unknown:
        near = difflib.get_close_matches(keyword, current, n=1) or difflib.get_close_matches(
            keyword, list(_deprecated(model)), n=1
        )
        near = [_deprecated(model).get(match, match) for match in near]
        described.append(f"{keyword} (did you mean {near[0]}?)" if near else keyword)
    aliases = flag_keywords(model)
    flags = f"; or named as a flag: {', '.join(aliases)}" if aliases else ""
    return (
        f"unknown option{'s' * (len(unknown) > 1)} {', '.join(described)}: expected one of "
        f"{', '.join(model.model_fields)}{flags}"
    )


def choices_of(field: FieldInfo) -> tuple | None:
    choices = settings(field).get("choices")
    return tuple(choices()) if callable(choices) else choices


class _Removed(argparse.Action):
    """A flag taken away: refused with what to do instead, the command line's usage error."""

    def __init__(self, *args, instead: str, **kwargs):
        self.instead = instead
        super().__init__(*args, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.error(f"{option_string} was removed: {self.instead}")


class _Deprecated(argparse.Action):
    """An option's old flag: stores the value under the new one's name and says, on one line, to use the new one."""

    def __init__(self, *args, new: str, **kwargs):
        self.new = new
        super().__init__(*args, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"warning: {option_string} is deprecated: use {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def describe_errors(model: type[CommandOptions], err: ValidationError) -> str:
    """pydantic's errors, each named by the option's command-line flag: "--limit: 0 is out of range: expected an integer
    >= 1", as the command line says it."""
    problems = []
    for error in err.errors(include_url=False):
        name = str(error["loc"][0]) if error["loc"] else ""
        where = flag_of(name, model.model_fields[name]) if name in model.model_fields else name or "options"
        if error["type"] == "value_error":  # a validator's own message, which names the value itself
            problems.append(f"{where}: {error['msg'].removeprefix('Value error, ')}")
            continue
        ranged = (
            _range_problem(model.model_fields[name], error)
            if len(error["loc"]) == 1 and name in model.model_fields
            else None
        )
        if ranged:  # in the command line's words
            problems.append(f"{where}: {ranged}")
            continue
        given = "" if error["type"] == "missing" or "input" not in error else f" {error['input']!r}"
        problems.append(f"{where}{given}: {error['msg']}")
    return "; ".join(problems)


_NUMBER_ERRORS = {
    "greater_than",
    "greater_than_equal",
    "less_than",
    "less_than_equal",
    "finite_number",
    "int_parsing",
    "int_type",
    "int_from_float",
    "float_parsing",
    "float_type",
}


def _range_problem(field: FieldInfo, error: dict) -> str | None:
    """A number out of its range, or no number, said as the command line says it ("0 is out of range: expected
    an integer >= 1"); None for any other error."""
    kind = _without_none(field.annotation)
    if error["type"] not in _NUMBER_ERRORS or kind not in (int, float) or "input" not in error:
        return None
    bounds = _bounds(field)
    low = bounds.get("ge", bounds.get("gt", float("-inf") if bounds else None))
    return out_of_range(
        kind, error["input"], low, bounds.get("le", bounds.get("lt")), above="gt" in bounds, below="lt" in bounds
    )


def settings(field: FieldInfo) -> dict:
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    return extra.get(_CLI, {"cli": False})


def flag_of(name: str, field: FieldInfo) -> str:
    cli = settings(field)
    if cli.get("positional"):
        return cli.get("metavar") or name.upper()
    return cli.get("flag") or "--" + name.replace("_", "-")


def _is_list(annotation) -> bool:
    return typing.get_origin(_without_none(annotation)) is list


def _without_none(annotation):
    """X for `X | None`; the annotation itself otherwise."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _bounds(field: FieldInfo) -> dict:
    found = {}
    for meta in field.metadata:
        for key in ("ge", "gt", "le", "lt"):
            value = getattr(meta, key, None)
            if value is not None and isinstance(
                meta, (annotated_types.Ge, annotated_types.Gt, annotated_types.Le, annotated_types.Lt)
            ):
                found[key] = value
    return found


def _argparse_type(kind, field: FieldInfo):
    """The argparse type of a scalar: an integer or number checked against the field's own bounds."""
    bounds = _bounds(field)
    if kind is int:
        if "gt" in bounds or "lt" in bounds:
            raise TypeError("integer options take ge/le bounds")
        return integer(bounds.get("ge", -(2**63)), bounds.get("le")) if bounds else int
    if kind is float:
        if not bounds:
            return float
        low = bounds.get("ge", bounds.get("gt", float("-inf")))
        high = bounds.get("le", bounds.get("lt"))
        return number(low, high, above="gt" in bounds, below="lt" in bounds)
    if kind is Path:
        return Path
    return None


def add_arguments(
    parser: argparse.ArgumentParser,
    model: type[CommandOptions],
    *,
    groups: dict[str, Any] | None = None,
    skip: tuple[str, ...] = (),
) -> None:
    """One argument per field of `model` that the command line takes; `groups`: argparse groups by name (made
    on first use otherwise), so a command can order and describe them."""
    groups = groups if groups is not None else {}
    for name, field in model.model_fields.items():
        cli = settings(field)
        if not cli.get("cli") or name in skip:
            continue
        group_name = cli.get("group")
        target = parser
        if group_name:
            if group_name not in groups:
                groups[group_name] = parser.add_argument_group(group_name)
            target = groups[group_name]
        _add_one(target, name, field, cli)


def _add_one(target, name: str, field: FieldInfo, cli: dict) -> None:
    if cli.get("removed"):
        target.add_argument(
            flag_of(name, field),
            dest=name,
            action=_Removed,
            instead=cli["removed"],
            nargs="?",
            default=None,
            help=argparse.SUPPRESS,
        )
        return
    annotation = _without_none(field.annotation)
    default = None if field.is_required() else field.default
    help_text = cli["help"]() if cli.get("help") else field.description or ""
    kwargs: dict[str, Any] = {"dest": name}
    if annotation is bool:
        if cli.get("negative"):
            target.add_argument(cli["negative"], action="store_false", help=help_text, **kwargs)
        else:
            target.add_argument(flag_of(name, field), action="store_true", help=help_text, **kwargs)
        target.set_defaults(**{name: default})
        return
    choices = choices_of(field)
    if typing.get_origin(annotation) is Literal:
        choices = typing.get_args(annotation)
    if cli.get("parse") is not None:
        kwargs["type"] = cli["parse"]
    elif _is_list(annotation) and cli.get("positional"):
        kwargs["nargs"] = "+"  # RESULTS [RESULTS ...]: one argument per item
        item = typing.get_args(_without_none(annotation))[0]
        kinds = {Path: Path, int: int, float: float}
        if item in kinds:
            kwargs["type"] = kinds[item]
    elif _is_list(annotation) and cli.get("repeat"):
        kwargs["action"] = "append"  # (argparse copies the default list before it appends)
    elif _is_list(annotation):
        kwargs["type"] = comma_separated(_one_of(choices) if choices else str)
        kwargs.setdefault("metavar", cli.get("metavar") or "A,B,...")
        choices = None  # (argparse would look for the whole list among them)
    else:
        kind = _argparse_type(annotation, field)
        if kind is not None:
            kwargs["type"] = kind
    if choices:
        kwargs["choices"] = choices
    if cli.get("metavar"):
        kwargs["metavar"] = cli["metavar"]
    shown_default = default is not None and default is not ... and default != [] and not isinstance(default, bool)
    if shown_default and "(default" not in help_text:  # (0 is shown: `0 in (None, False)` would hide it)
        shown = ",".join(map(str, default)) if isinstance(default, (list, tuple)) else default
        help_text = f"{help_text} (default: {shown})"
    kwargs["help"] = help_text.replace("%", "%%")
    if cli.get("positional"):
        kwargs.pop("dest")
        if not field.is_required() and "nargs" not in kwargs:  # an optional positional: RESULTS may be left out
            kwargs.update(nargs="?", default=default)
        target.add_argument(name, **kwargs)
        return
    kwargs["default"] = default
    if field.is_required() or cli.get("required"):
        kwargs["required"] = True
    target.add_argument(flag_of(name, field), **kwargs)
    if cli.get("deprecated"):
        alias = {key: value for key, value in kwargs.items() if key not in ("help", "default", "required")}
        target.add_argument(
            cli["deprecated"],
            action=_Deprecated,
            new=flag_of(name, field),
            default=argparse.SUPPRESS,
            help=f"deprecated: use {flag_of(name, field)}",
            **alias,
        )


def _one_of(choices: tuple):
    def parse(text: str) -> str:
        if text not in choices:
            raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {', '.join(map(str, choices))})")
        return text

    return parse


def from_arguments(model: type[CommandOptions], args: argparse.Namespace, **filled):
    """The model from parsed arguments (the fields the command line takes) and `filled` (what the command
    fills in itself, e.g. the command line it ran)."""
    values = {
        name: getattr(args, name)
        for name, field in model.model_fields.items()
        if settings(field).get("cli") and hasattr(args, name)
    }
    return model.from_keywords(**values, **filled)
