"""The zoo's built-in encodings as the command line lists them, free of torch: each one's declaration (the paper,
the family `swapbench eval` reports, the kind, the ZooConfig fields that define it), in the order the zoo lists
them. The modules of zoo/encodings/ register each with its torch modules from this declaration
(`encodings.base.declared`), so it is written once; `swapbench zoo --help` and its argument errors read it here
without importing torch (the encodings' modules define torch modules, 3.6 s of imports)."""

from __future__ import annotations

from typing import NamedTuple


class Declared(NamedTuple):
    paper: str
    family: str  # as in swapbench.results.schema.PositionalEncodingInfo
    kind: str
    fields: tuple[str, ...] = ()


BUILT_IN: dict[str, Declared] = {
    "none": Declared("no position information: the bag-of-words baseline", "none", "none"),
    "learned_absolute": Declared(
        "learned absolute embeddings, Devlin et al. 2019 (BERT)", "absolute", "learned", ("max_position_embeddings",)
    ),
    "sinusoidal": Declared(
        "sinusoidal absolute embeddings, Vaswani et al. 2017", "absolute", "sinusoidal", ("sinusoidal_base",)
    ),
    "rope": Declared("rotary embeddings, Su et al. 2021 (RoFormer)", "rotary", "rope", ("sinusoidal_base",)),
    "alibi": Declared("linear biases, Press et al. 2022 (ALiBi), symmetric for an encoder", "alibi", "alibi"),
    "t5_bias": Declared(
        "bucketed relative bias, Raffel et al. 2020 (T5)",
        "relative",
        "t5-buckets",
        ("t5_num_buckets", "t5_max_distance"),
    ),
    "shaw": Declared(
        "relative key embeddings clipped at k, Shaw et al. 2018", "relative", "relative_key", ("max_relative_distance",)
    ),
    "huang_m4": Declared(
        "query-key-relative interaction, Huang et al. 2020, method 4",
        "relative",
        "relative_key_query",
        ("max_relative_distance",),
    ),
    "tisa": Declared(
        "translation-invariant self-attention, Wennberg & Henter 2021", "relative", "tisa", ("tisa_kernels",)
    ),
    "tupe": Declared(
        "untied positional attention, untied [CLS], Ke et al. 2021 (TUPE-A)",
        "absolute",
        "tupe",
        ("max_position_embeddings",),
    ),
    "attenuated": Declared(
        "attenuated encoding, Chen et al. 2023, equation 8",
        "relative",
        "attenuated",
        ("attenuated_locality", "attenuated_symmetry", "attenuated_learnable"),
    ),
}


def listed() -> dict[str, Declared]:
    """Every encoding the zoo offers, by name, in its order: the built-in ones, then any other registered in
    `ENCODINGS` (a plugin's, a test's), without importing the built-in ones' torch modules."""
    from ..core.registry import ENCODINGS

    offered = dict(BUILT_IN)
    for entry in ENCODINGS:
        if entry.name not in offered:
            value = entry.value
            offered[entry.name] = Declared(entry.help, value.family, value.kind, tuple(value.fields))
    return offered


def names() -> list[str]:
    return list(listed())


def help_text() -> str:
    """`name: paper` for every encoding, for argparse help (as `ENCODINGS.help_text()` once they are imported)."""
    return "; ".join(f"{name}: {d.paper}" if d.paper else name for name, d in listed().items())


def encoding_fields() -> tuple[str, ...]:
    """The fields that tune one encoding or another: `--encoding-option KEY=VALUE` may set these
    (max_position_embeddings comes from --max-length)."""
    fields = (f for d in listed().values() for f in d.fields if f != "max_position_embeddings")
    return tuple(dict.fromkeys(fields))


def takers(field: str) -> list[str]:
    """The encodings that `field` tunes, in the zoo's order."""
    return [name for name, declared in listed().items() if field in declared.fields]
