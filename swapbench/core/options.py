"""Argparse types that check an option's value as the command line is read, before any work is done.

A value out of range stops the command with argparse's usage message and exit code 2, naming the option and what
it takes: "argument --epochs: 0 is out of range: expected an integer >= 1". Every command uses these, so that the
same kind of option reads and fails the same way everywhere.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

SEED_MAX = 2**32 - 1  # numpy's legacy seeding, which the Trainer's set_seed calls, takes no larger seed
MIN_MAX_LENGTH = 8  # tokens: room for a pair's special tokens (up to 4) and some words of each sentence
DEVICES = "auto, cpu, cuda, cuda:N or mps"


def _bounds(minimum: float, maximum: float | None, above: bool, below: bool) -> str:
    low = f"{'>' if above else '>='} {minimum}"
    if maximum is None:
        return low
    return f"{low} and {'<' if below else '<='} {maximum}"


def out_of_range(
    kind: type, given, minimum: float | None, maximum: float | None = None, *, above: bool = False, below: bool = False
) -> str:
    """What is wrong with `given` for an option of `kind` (int or float) in this range: "0 is out of range:
    expected an integer >= 1", or "'x' is not an integer: ..."; the API's messages say it in the same words."""
    noun = "an integer" if kind is int else "a number"
    expected = noun if minimum is None else f"{noun} {_bounds(minimum, maximum, above, below)}"
    wrong = f"{given!r} is not {noun}: expected {expected}"
    if isinstance(given, str):
        try:
            value = kind(given)
        except ValueError:
            return wrong
    elif isinstance(given, bool) or not isinstance(given, int if kind is int else (int, float)):
        return wrong
    else:
        value = given
    shown = value if kind is int else given  # an integer as read ("05" is 5), a number as typed
    return f"{shown} is out of range: expected {expected}"


def _ranged(kind: type, minimum: float, maximum: float | None, above: bool, below: bool) -> Callable[[str], float]:
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                out_of_range(kind, text, minimum, maximum, above=above, below=below)
            ) from None
        too_low = value <= minimum if above else value < minimum
        too_high = maximum is not None and (value >= maximum if below else value > maximum)
        if not math.isfinite(value) or too_low or too_high:
            raise argparse.ArgumentTypeError(out_of_range(kind, text, minimum, maximum, above=above, below=below))
        return value

    return parse


def integer(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An integer from `minimum` to `maximum`, both included (no upper bound when None)."""
    return _ranged(int, minimum, maximum, False, False)


def number(
    minimum: float, maximum: float | None = None, *, above: bool = False, below: bool = False
) -> Callable[[str], float]:
    """A finite number from `minimum` to `maximum`; `above` and `below` leave out the bound itself."""
    return _ranged(float, minimum, maximum, above, below)


def comma_separated(item: Callable[[str], object]) -> Callable[[str], list]:
    """A non-empty comma-separated list, each item checked by `item`."""

    def parse(text: str) -> list:
        parts = [part.strip() for part in text.split(",") if part.strip()]
        if not parts:
            raise argparse.ArgumentTypeError("expected a comma-separated list, got nothing")
        return [item(part) for part in parts]

    return parse


def comma_list(text: str | None) -> list[str] | None:
    """The items of a comma-separated option, stripped; None when it is empty or missing."""
    return [part.strip() for part in text.split(",") if part.strip()] if text else None


def seeds_problem(seeds: list[int]) -> str | None:
    """What is wrong with seeds of one run each (eval --seeds, a suite entry's seeds): one out of 0..SEED_MAX, or
    one given twice; None when nothing is."""
    for value in seeds:
        if not 0 <= value <= SEED_MAX:
            return out_of_range(int, value, 0, SEED_MAX)
    twice = sorted({value for value in seeds if seeds.count(value) > 1})
    if twice:
        return f"seed {', '.join(map(str, twice))} is given twice: each seed is one run"
    return None


positive_int = integer(1)
seed = integer(0, SEED_MAX)
max_length = integer(MIN_MAX_LENGTH)
positive_float = number(0, above=True)
non_negative_float = number(0)
fraction = number(0, 1)
fraction_below_one = number(0, 1, below=True)  # dropout: 1 would drop everything


def device_problem(text: str) -> str | None:
    """Why `text` names no torch device this machine can use; None when it does (or for auto)."""
    import torch

    if text == "auto":
        return None
    try:
        device = torch.device(text)
    except (RuntimeError, ValueError):
        return f"{text!r} is not a device: expected {DEVICES}"
    if device.type == "cpu":
        return None
    if device.type == "cuda":
        if not torch.backends.cuda.is_built():
            return f"{text}: this torch ({torch.__version__}) was built without CUDA; use cpu, or install a CUDA build"
        count = torch.cuda.device_count()
        if count == 0:
            return f"{text}: no CUDA GPU is visible; use cpu"
        if device.index is not None and device.index >= count:
            return f"{text}: this machine has {count} GPU{'s' * (count > 1)}, cuda:0 to cuda:{count - 1}"
        return None
    if device.type == "mps":
        return None if torch.backends.mps.is_available() else f"{text}: MPS is not available on this machine; use cpu"
    return f"{text}: not a device swapbench runs on: expected {DEVICES}"


def device(text: str) -> str:
    """auto, or a torch device this machine has: cpu, cuda, cuda:N, mps."""
    problem = device_problem(text)
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return text
