"""The documentation cannot go stale unnoticed: the schema page is what scripts/make_docs.py makes of the models
now, every command has its page, every relative link leads to a file, and the examples of docs/extending.md run
and register what they say."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
PAGES = [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


def make_docs():
    spec = importlib.util.spec_from_file_location("make_docs", REPO / "scripts" / "make_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_results_schema_page_is_what_the_generator_makes_now():
    committed = (DOCS / "results-schema.md").read_text(encoding="utf-8")
    assert committed == make_docs().render(), "docs/results-schema.md is stale: run `python scripts/make_docs.py`"


def test_the_schema_page_describes_every_key_of_the_records():
    from swapbench.results.build_record import BuildInfo, ConfigInfo
    from swapbench.results.schema import EvalResults, ModelInfo, ProbeInfo

    page = make_docs().render()
    for model in (EvalResults, ModelInfo, ProbeInfo, BuildInfo, ConfigInfo):
        assert f"# {model.__name__}\n" in page
        for name, field in model.model_fields.items():
            assert f"| `{name}` |" in page and " ".join((field.description or "").split()) in page


def test_every_command_has_its_page():
    from swapbench.commands.main import make_parser

    parser = make_parser(["build"])
    [commands] = [a for a in parser._actions if a.dest == "command"]
    assert set(commands.choices) == {
        "build",
        "eval",
        "suite",
        "probe",
        "leak",
        "curate",
        "submit",
        "leaderboard",
        "zoo",
    }
    for name in commands.choices:
        page = DOCS / "commands" / f"{name}.md"
        assert page.is_file() and page.read_text(encoding="utf-8").startswith(f"# `swapbench {name}`")
        assert f"(docs/commands/{name}.md)" in (REPO / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_lead_to_files(page):
    for target, _ in LINK.findall(page.read_text(encoding="utf-8")):
        if "://" in target or target.startswith("mailto:"):
            continue
        assert (page.parent / target).exists(), f"{page.relative_to(REPO)} links to {target}, which is not there"


def test_the_readme_keeps_the_three_make_commands():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Set-up, main job, tests\n", 1)[1].split("\n## ", 1)[0]
    for command in ("make setup", "make build", "make test"):
        assert f"\n{command} " in section


def test_the_extending_examples_run_and_register_what_they_say():
    import swapbench.models.positional  # noqa: F401  (the built-in entries, registered before the snapshot)
    import swapbench.zoo.encodings  # noqa: F401
    from swapbench.core.registry import ENCODINGS, FAMILIES, LABELERS, PARSERS, SOURCES, VARIANTS
    from swapbench.parsing.ptb import PTBParser
    from swapbench.roles.base import Sentence
    from swapbench.sources import Pair
    from swapbench.variants import make_variant
    from swapbench.variants.randomness import example_rng

    registries = [SOURCES, VARIANTS, PARSERS, LABELERS, ENCODINGS, FAMILIES]
    before = [set(r.names()) for r in registries]
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / "extending.md").read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 6
    try:
        for block in blocks:
            exec(compile(block, "docs/extending.md", "exec"), {"__name__": "extending_example"})
        added = [sorted(set(r.names()) - names) for r, names in zip(registries, before)]
        assert added == [["mynli"], ["shuffle-reverse"], ["flat"], ["lookup"], ["nearest"], ["my-model"]]

        tree = "(ROOT (S (NP (DT A) (NN dog)) (VP (VBZ chases) (NP (DT a) (NN hen))) (. .)))"
        pair = Pair("x1", "A dog chases a hen.", "An animal runs.", "entailment", tree, None, "example", 1)
        [parse] = PTBParser().parse_many([tree])
        row = make_variant("shuffle-reverse").apply(pair, parse, example_rng(0, "x1", "shuffle-reverse"))
        assert row.premise == "hen a chases dog A ." and row.permutation == [4, 3, 2, 1, 0, 5]
        kept = make_variant("shuffle-reverse", reverse_keep_first=True).apply(pair, parse, None)
        assert kept.premise == "A hen a chases dog ."
        [flat] = PARSERS.get("flat")(has_parses=False, spacy_model=None, benepar_model=None).parse_many(
            ["A dog chases a hen."]
        )
        assert flat.tokens == ("A", "dog", "chases", "a", "hen", ".") and flat.punct[-1]
        [roles] = LABELERS.get("lookup")("lookup").label_many([Sentence("A dog chases a hen.")])
        assert roles.text(roles.frames[0].agent) == "A dog" and roles.text(roles.frames[0].patient) == "a hen"
        assert SOURCES.get("mynli").split("dev") == "validation"
        assert ENCODINGS.get("nearest").family == "relative"
        import torch

        from swapbench.zoo.modeling import ZooConfig, ZooForSequenceClassification

        config = ZooConfig(
            position_encoding="nearest",
            vocab_size=30,
            hidden_size=16,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=32,
            max_position_embeddings=16,
            num_labels=3,
        )
        with torch.no_grad():
            logits = ZooForSequenceClassification(config).eval()(input_ids=torch.tensor([[2, 5, 7, 3]])).logits
        assert logits.shape == (1, 3) and torch.isfinite(logits).all()
        info = FAMILIES.get("my-model").read(
            swapbench.models.positional.ConfigReading(None, "my-model", {"rope_theta": 1e4})
        )
        assert (info.family, info.kind, info.evidence) == (
            "rotary",
            "rope",
            {"model_type": "my-model", "rope_theta": 1e4},
        )
    finally:
        for registry, names in zip(registries, before):
            for name in set(registry.names()) - names:
                registry.remove(name)


def test_the_readme_opens_with_a_quick_start_whose_commands_exist():
    from swapbench.commands.main import make_parser

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert readme.split("\n## ", 2)[1].startswith("Quick start\n")
    block = readme.split("## Quick start\n", 1)[1].split("```bash\n", 1)[1].split("```", 1)[0]
    lines = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    assert 3 <= len(lines) <= 10
    targets = set(re.findall(r"^([\w-]+):", (REPO / "Makefile").read_text(encoding="utf-8"), re.M))
    [commands] = [a for a in make_parser(["build"])._actions if a.dest == "command"]
    used = {"make": set(), "swapbench": set()}
    for line in lines:
        for tool, word in re.findall(r"(?:^|&& )(make|swapbench) ([\w-]+)", line):
            used[tool].add(word)
    assert used["make"] and used["make"] <= targets
    assert {"build", "eval", "leaderboard"} <= used["swapbench"] <= set(commands.choices)


def test_the_readme_is_a_quick_start_a_newcomer_reads_in_two_minutes():
    # the rest lives in docs/ (the site `make docs` builds); a README that grows past this has taken it back
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 80 and len(readme.split()) <= 700
    for page in ("docs/usage.md", "docs/figures.md", "docs/performance.md", "docs/installation.md"):
        assert f"]({page})" in readme


def test_every_docs_page_is_in_the_sites_navigation():
    import yaml

    def pages(entries):
        for entry in entries:
            for value in entry.values():
                yield from pages(value) if isinstance(value, list) else [value]

    nav = set(pages(yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]))
    assert nav == {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}


def _registries():
    import swapbench.evaluation.scorers  # noqa: F401  (the built-in entries, registered)
    import swapbench.evaluation.templates  # noqa: F401
    import swapbench.models.positional  # noqa: F401
    import swapbench.parsing  # noqa: F401
    import swapbench.roles  # noqa: F401
    import swapbench.sources  # noqa: F401
    import swapbench.variants  # noqa: F401
    from swapbench.core import registry

    return {name: value for name, value in vars(registry).items() if isinstance(value, registry.Registry)}


def test_architecture_names_the_registries_the_code_has():
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("## Adding an extension\n", 1)[1].split("\n## ", 1)[0]
    listing = section.split("`swapbench/core/registry.py`:", 1)[1].split("(tests/test_docs.py", 1)[0]
    named = set(re.findall(r"`([A-Z][A-Z_]+)`", listing))
    assert set(re.findall(r"`([A-Z][A-Z_]+)`", section)) <= named  # the section names no registry the list lacks
    assert named == set(_registries()), (
        f"ARCHITECTURE.md names {sorted(named)}; core/registry.py has {sorted(_registries())}"
    )
    assert "listed in `commands/listing.py`" in section
    from swapbench.commands.listing import COMMANDS

    for command in COMMANDS.values():  # commands/listing.py lists every command by its module and function
        assert (REPO / "swapbench" / "commands" / f"{command.module}.py").is_file()


def test_extending_names_the_files_each_kind_of_extension_touches_and_they_exist():
    """The table of docs/extending.md: one row per registry (by its kind), every file it names there, and each
    new module's folder the one the built-in entries of that registry are defined in."""
    text = (DOCS / "extending.md").read_text(encoding="utf-8")
    section = text.split("## The files each kind of extension touches\n", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| ([\w -]+) \| (.+) \|$", section, re.M))
    rows.pop("extension")
    registries = {r.kind: r for r in _registries().values()}
    assert set(rows) == set(registries), (
        f"extending.md's table has {sorted(rows)}; the registries are {sorted(registries)}"
    )
    for kind, cell in rows.items():
        paths = re.findall(r"`(swapbench/[\w/]+(?:\.py)?)`", cell)
        assert paths, f"extending.md names no file for a {kind}"
        for path in paths:
            place = REPO / path
            assert place.parent.is_dir() if place.name == "NAME.py" else place.is_file(), (
                f"extending.md: a {kind} touches {path}, which is not there"
            )
        new = [path for path in paths if path.endswith("/NAME.py")]
        for entry in registries[kind]:  # a class or a factory says where it is defined
            module = getattr(entry.value, "__module__", None)
            if new and callable(entry.value) and module and module.startswith("swapbench."):
                assert module.rsplit(".", 1)[0].replace(".", "/") == new[0].rsplit("/", 1)[0], (
                    f"the {kind} {entry.name!r} is defined in {module}, not where extending.md puts a new one"
                )
