"""role-quartets through `swapbench eval`: the results file holds pair and quartet accuracy (recomputed from the
predictions file, by the board too), the terminal prints them beside their chance levels, the API's DataFrame holds
them, and a quartet's rows are clustered by its source premise. Real evals of tiny BERTs on a build of the
hand-written quartet fixture."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import torch
from committed_results import committed_minilm, written_before
from eval_models import SMALL, SPECIALS, save_base, write_training_file
from roles_helpers import FIXTURES
from transformers import AutoModelForSequenceClassification, BertConfig
from word_tokenizer import bert_tokenizer

from swapbench.api import Evaluated
from swapbench.commands.main import main
from swapbench.core.text import percent
from swapbench.dataset.pipeline import build, build_options
from swapbench.evaluation.figures import QUARTETS, bootstrap_rng, cluster_key, configuration_result
from swapbench.evaluation.quartets import quartet_figures, quartets_from_rows
from swapbench.leaderboard.recompute import recompute_problems
from swapbench.results.files import predictions_path, read_predictions
from swapbench.results.schema import ConfigurationResult, EvalResults, PredictionRow

SOURCE = FIXTURES / "snli_quartets.jsonl"
NAME = "role-quartets"
OTHER = "shuffle-3"  # a configuration of another kind, scored beside it
NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
REPO = Path(__file__).resolve().parents[2]
RESAMPLES = 500


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    out, _ = build(
        build_options(
            source=str(SOURCE), out=tmp_path_factory.mktemp("quartets") / "out", variants=[NAME, OTHER], use_cache=False
        )
    )
    return out


def built_rows(data: Path) -> list[dict]:
    return pq.read_table(next((data / NAME).glob("*.parquet"))).to_pylist()


def fixture_words() -> list[str]:
    text = " ".join(" ".join((row["sentence1"], row["sentence2"])) for row in map(json.loads, SOURCE.open()))
    return sorted(set(re.findall(r"[a-z]+", text.lower())))


def save_bert(folder: Path, zero_positions: bool, seed: int, cased: bool = False) -> Path:
    """A random BERT with an uncased word-level tokenizer that knows every word of the fixture (`cased`: a cased
    one, each word lower case and capitalised); with its position table zeroed its [CLS] output depends on the
    multiset of (word, segment) alone."""
    words = fixture_words() + ([w.capitalize() for w in fixture_words()] if cased else [])
    tokenizer = bert_tokenizer(SPECIALS + words + list(".,"), do_lower_case=not cased, model_max_length=160)
    tokenizer.save_pretrained(folder)
    config = BertConfig(
        vocab_size=len(tokenizer),
        num_labels=3,
        id2label=NLI,
        label2id={v: k for k, v in NLI.items()},
        pad_token_id=0,
        **SMALL,
    )
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = AutoModelForSequenceClassification.from_config(config)
    if zero_positions:
        with torch.no_grad():
            model.bert.embeddings.position_embeddings.weight.zero_()
    model.save_pretrained(folder)
    return folder


def run_eval(root: Path, data: Path, zero_positions: bool, seed: int, capsys, cased: bool = False):
    output = root / "results.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_DATASETS_CACHE", str(root / "hf-datasets"))
        assert (
            main(
                [
                    "eval",
                    str(save_bert(root / "bert", zero_positions, seed, cased)),
                    "--data",
                    str(data),
                    "--output",
                    str(output),
                    "--no-probe",
                    "--no-progress",
                    "--bootstrap",
                    str(RESAMPLES),
                ]
            )
            == 0
        )
    terminal = capsys.readouterr().out
    results = EvalResults.model_validate_json(output.read_text(encoding="utf-8"))
    return results, read_predictions(predictions_path(output), results.predictions), output, terminal


def test_the_results_file_holds_the_figures_its_predictions_give_and_the_board_recomputes_them(data, tmp_path, capsys):
    results, rows, output, _ = run_eval(tmp_path, data, zero_positions=False, seed=5, capsys=capsys)
    found = results.results[NAME].quartets
    mine = [row for row in rows if row.configuration == NAME]
    again = quartet_figures(
        quartets_from_rows(mine), bootstrap_rng(results.provenance.seeds.bootstrap, NAME, figure=QUARTETS), RESAMPLES
    )
    assert found == again and found.quartets == len(built_rows(data)) // 2
    assert 0 < found.pair_accuracy < 1 and found.pair_accuracy != 0.5  # a model that sees order: no exact null
    assert results.results[OTHER].quartets is None
    saved = json.loads(output.read_text(encoding="utf-8"))["results"]
    assert "quartets" in saved[NAME] and "quartets" not in saved[OTHER]  # absent, not null, elsewhere
    assert recompute_problems(results, rows) == []

    # every figure of the block, edited alone, is caught by its key
    figures = results.model_dump()["results"][NAME]["quartets"]
    keys = [(key, None) for key, value in figures.items() if isinstance(value, (int, float))]
    keys += [
        (key, part)
        for key, value in figures.items()
        if isinstance(value, dict)
        for part in value
        if isinstance(value[part], (int, float)) and part not in ("level", "resamples")
    ]
    for key, part in keys:
        copy = results.model_copy(deep=True)
        block = copy.results[NAME].quartets
        if part is None:
            object.__setattr__(block, key, getattr(block, key) + 1)
        elif isinstance(getattr(block, key), dict):
            getattr(block, key)[part] += 0.001
        else:
            value = getattr(getattr(block, key), part)
            object.__setattr__(getattr(block, key), part, value + (1 if isinstance(value, int) else 0.001))
        where = f"results.{NAME}.quartets.{key}" + (f".{part}" if part else "")
        assert where in {p.where for p in recompute_problems(copy, rows)}, where
    # a flipped answer on a cell moves the figures: the board refuses the file
    first = next(row for row in rows if row.configuration == NAME)
    other = next(
        label for label in NLI.values() if (label == "entailment") != (first.prediction_perturbed == "entailment")
    )
    flipped = [first.model_copy(update={"prediction_perturbed": other}) if row is first else row for row in rows]
    assert f"results.{NAME}.quartets.pair_accuracy" in {p.where for p in recompute_problems(results, flipped)}
    board_of_quartets(data, output, results)


def board_of_quartets(data: Path, output: Path, results: EvalResults) -> None:
    """The board of a reference holding role-quartets: quartet and pair accuracy come first among its role columns
    (the headline), with their clustered intervals, in the page's headline group and in the CSV."""
    from swapbench.leaderboard.html import column_groups
    from swapbench.leaderboard.markdown import render_csv
    from swapbench.leaderboard.reference import reference_from_build
    from swapbench.leaderboard.store import Stored
    from swapbench.leaderboard.table import interval_text, make_board

    board = make_board([Stored(output, results, [])], reference_from_build(data))
    assert board.relabelled == [NAME]
    role_columns = [c for c in board.columns if c.config == NAME]
    assert [c.header.split(";")[0] for c in role_columns][:4] == [
        "Quartet accuracy (role-quartets)",
        "Pair accuracy (role-quartets)",
        "Pair accuracy where its null is exact (role-quartets)",  # every quartet, under this uncased tokenizer
        "Role sensitivity (role-quartets",
    ]
    found = results.results[NAME].quartets
    [row] = board.rows
    quartet, pair = role_columns[:2]
    assert (row.values[quartet.key], row.values[pair.key]) == (found.quartet_accuracy, found.pair_accuracy)
    assert interval_text(row, quartet) == (
        f"[{percent(found.quartet_accuracy_ci.low)}, {percent(found.quartet_accuracy_ci.high)}], n {found.quartets}"
    )
    _, groups = column_groups(board)
    [roles] = [g for g in groups if g.key == "roles"]
    assert {c.key for c in roles.columns} >= {quartet.key, pair.key} and roles.shown
    header, values = list(csv.reader(io.StringIO(render_csv(board))))
    assert float(values[header.index("quartet_accuracy_role_quartets")]) == found.quartet_accuracy
    assert int(values[header.index("quartets_role_quartets")]) == found.quartets


def test_a_quartet_s_rows_are_one_cluster_the_source_premise_s(data, tmp_path, capsys):
    results, rows, _, _ = run_eval(tmp_path, data, zero_positions=True, seed=7, capsys=capsys)
    built = built_rows(data)
    # the source premise P: the original premise of the row tagged cell:P'H, the perturbed one of cell:PH'
    source = {r["pair_id"]: r["original_premise"] for r in built if "cell:P'H" in r["tags"]}
    assert {r["pair_id"]: r["premise"] for r in built if "cell:PH'" in r["tags"]} == source
    mine = [row for row in rows if row.configuration == NAME]
    assert len(mine) == len(built) and all(row.cluster == cluster_key(source[row.pair_id]) for row in mine)
    figures = results.results[NAME]
    assert figures.clusters == figures.quartets.clusters == len(set(source.values()))
    assert all(s.clusters <= len(set(source.values())) for s in figures.slices.values())


def test_an_order_blind_bert_scores_exactly_chance_in_the_file_the_terminal_and_the_api(data, tmp_path, capsys):
    results, _, output, terminal = run_eval(tmp_path, data, zero_positions=True, seed=7, capsys=capsys)
    found = results.results[NAME].quartets
    assert (found.pair_accuracy, found.quartet_accuracy) == (0.5, 0.0)
    assert found.chance == {"pair_accuracy": 0.5, "quartet_accuracy": 0.0}
    assert (found.quartet_accuracy_ci.low, found.quartet_accuracy_ci.high) == (0.0, 0.0)
    # it answers a row's two pairs alike: role sensitivity 0 on the quartets too
    assert results.results[NAME].role_sensitivity.value == 0.0
    # its uncased tokenizer reads every exchanged sentence as a permutation: the null is exact on every quartet,
    # and the terminal adds no exact-null lines
    assert found.exact_null.quartets == found.exact_null.of == found.quartets
    assert found.exact_null.pair_accuracy == 0.5 and "exact null" not in terminal

    # The terminal: pair and quartet accuracy, each with its interval and then its chance level, then the
    # Shuffle-SR cell and its control.
    flat = " ".join(terminal.split())
    assert "Role quartets" in terminal and "chance" in flat and "Shuffle-SR" in flat
    table = terminal[terminal.index("Role quartets") :].splitlines()
    start = next(i for i, line in enumerate(table) if line.strip().startswith(NAME))
    assert table[start].split()[1:] == ["quartets", "(clusters)", str(found.quartets), f"({found.clusters})"]
    # figure, value, its interval (two words), chance
    assert table[start + 1].split() == ["pair", "%", "50.0", *table[start + 1].split()[3:5], "50.0"]
    assert table[start + 2].split() == ["quartet", "%", "0.0", "[0.0,", "0.0]", "0.0"]
    # the order-blind model answers (P', H) as (P, H): its Shuffle-SR cell is exactly its chance there
    assert found.cells["P'H"] == pytest.approx(1 - found.cells["PH"], abs=1e-12)
    assert table[start + 3].split() == [
        "P'H",
        "%",
        "(Shuffle-SR)",
        percent(found.cells["P'H"]),
        percent(1 - found.cells["PH"]),
    ]
    assert table[start + 4].split() == ["PH", "%", "(its", "control)", percent(found.cells["PH"])]

    frame = Evaluated(results, output).configurations.set_index("configuration")
    assert frame.loc[NAME, "pair_accuracy"] == 0.5 and frame.loc[NAME, "pair_accuracy_chance"] == 0.5
    assert frame.loc[NAME, "quartet_accuracy"] == 0.0 and frame.loc[NAME, "quartet_accuracy_chance"] == 0.0
    assert frame.loc[NAME, "quartets"] == found.quartets
    assert frame.loc[NAME, "shuffle_sr_cell_accuracy"] == found.cells["P'H"]
    assert frame.loc[NAME, "shuffle_sr_cell_chance"] == pytest.approx(found.cells["P'H"], abs=1e-12)
    assert frame[["pair_accuracy", "quartet_accuracy"]].loc[OTHER].isna().all()


def cased_permutation(first: str, second: str) -> bool:
    """Whether two texts hold the same words and punctuation, case kept, as the cased word-level tokenizer reads."""
    return sorted(re.findall(r"\w+|[^\w\s]", first)) == sorted(re.findall(r"\w+|[^\w\s]", second))


def test_a_cased_tokenizer_s_null_is_exact_on_the_quartets_it_reads_as_permutations_only(data, tmp_path, capsys):
    results, rows, output, terminal = run_eval(tmp_path, data, zero_positions=True, seed=7, capsys=capsys, cased=True)
    quartets = {}
    for row in built_rows(data):
        texts = quartets.setdefault(row["pair_id"], {})
        if "cell:P'H" in row["tags"]:
            texts.update(P=row["original_premise"], H=row["original_hypothesis"], P_=row["premise"])
        else:
            texts.update(H_=row["hypothesis"])
    exact = {
        pair_id
        for pair_id, t in quartets.items()
        if cased_permutation(t["P"], t["P_"]) and cased_permutation(t["H"], t["H_"])
    }
    assert 0 < len(exact) < len(quartets)  # "The goat ..." exchanged moves its capital: not a permutation, cased
    found = results.results[NAME].quartets
    assert (found.exact_null.quartets, found.exact_null.of) == (len(exact), len(quartets))
    assert {row.pair_id for row in rows if row.configuration == NAME and row.exact_null} == exact
    assert all(row.exact_null is None for row in rows if row.configuration != NAME)
    # order-blind: exactly chance where the null is exact
    assert (found.exact_null.pair_accuracy, found.exact_null.quartet_accuracy) == (0.5, 0.0)
    flat = " ".join(terminal.split())
    assert f"exact-null quartets {len(exact)} of {len(quartets)}" in flat and "pair % (exact null) 50.0" in flat

    # the board gives it beside pair accuracy, with its quartets as n, and the CSV too
    from swapbench.leaderboard.markdown import render_csv
    from swapbench.leaderboard.reference import reference_from_build
    from swapbench.leaderboard.store import Stored
    from swapbench.leaderboard.table import exact_pair_key, interval_text, make_board

    board = make_board([Stored(output, results, [])], reference_from_build(data))
    [row] = board.rows
    [column] = [c for c in board.columns if c.key == exact_pair_key(NAME)]
    assert column.header == "Pair accuracy where its null is exact (role-quartets)"
    assert row.values[column.key] == 0.5 and interval_text(row, column).endswith(f", n {len(exact)}")
    header, values = list(csv.reader(io.StringIO(render_csv(board))))
    assert float(values[header.index("pair_accuracy_exact_null_role_quartets")]) == 0.5
    assert int(values[header.index("quartets_exact_null_role_quartets")]) == len(exact)


E, N = "entailment", "neutral"


def quartet_rows(pair_id: str, answers: tuple[str, str, str, str], seed: int | None = None) -> list[PredictionRow]:
    """The two rows of a quartet answered (PH, P'H', PH', P'H), clustered by its premise as eval clusters them."""

    def row(tag, original, perturbed):
        return PredictionRow(
            pair_id=pair_id,
            configuration=NAME,
            gold="non-entailment",
            gold_original=E,
            prediction_original=original,
            prediction_perturbed=perturbed,
            cluster=pair_id,
            tags=[tag],
            seed=seed,
        )

    ph, ph_primed_both, p_h_primed, p_primed_h = answers
    return [row("cell:P'H", ph, p_primed_h), row("cell:PH'", ph_primed_both, p_h_primed)]


def test_a_multi_seed_run_and_a_limit_that_cuts_quartets():
    right, wrong = (E, E, N, N), (E, E, E, E)
    seeds = [
        row
        for seed, answers in ((0, (right, wrong)), (1, (right, right)))
        for pair_id, a in zip("ab", answers)
        for row in quartet_rows(pair_id, a, seed)
    ]
    result = configuration_result(seeds, label_view="binary", non_entailment_view=True, seed=0, resamples=200)
    q = result.quartets
    assert (q.quartets, q.seeds, q.clusters) == (2, 2, 2) and result.seeds == 2
    assert q.quartet_accuracy == 0.75 and q.pair_accuracy == pytest.approx(14 / 16)
    assert "seeds" in result.model_dump()["quartets"]
    ConfigurationResult.model_validate(result.model_dump())
    # eval --limit 3: one quartet whole, one cut in half and left out; --limit 1: none whole, no figures
    one = quartet_rows("a", right) + quartet_rows("b", wrong)
    assert (
        configuration_result(
            one[:3], label_view="binary", non_entailment_view=True, seed=0, resamples=200
        ).quartets.quartets
        == 1
    )
    assert (
        configuration_result(one[:1], label_view="binary", non_entailment_view=True, seed=0, resamples=200).quartets
        is None
    )


def test_a_quartet_block_that_does_not_add_up_is_refused():
    result = configuration_result(
        quartet_rows("a", (E, E, N, E)) + quartet_rows("b", (E, N, N, N)),
        label_view="binary",
        non_entailment_view=True,
        seed=0,
        resamples=200,
    )
    dumped = result.model_dump()
    for edit, message in (
        (lambda q: q.update(pair_accuracy=q["pair_accuracy"] + 0.1), "mean of the cells"),
        (lambda q: q["cells"].update({"P'H": 1.0}), "mean of the cells"),
        (lambda q: q.update(chance={"pair_accuracy": 0.25, "quartet_accuracy": 0.0}), "chance"),
        (lambda q: q.update(seeds=2), "seeds"),
    ):
        copy = json.loads(json.dumps(dumped))
        edit(copy["quartets"])
        with pytest.raises(ValueError, match=message):
            ConfigurationResult.model_validate(copy)


def test_a_results_file_written_before_the_quartets_reads_without_the_field():
    committed = EvalResults.model_validate(committed_minilm())
    assert [name for name, r in committed.results.items() if r.quartets is not None] == ["role-quartets"]
    older = written_before(committed_minilm(), "quartets", "quartet_accuracy", "pair_accuracy")
    results = EvalResults.model_validate(older)
    assert all(r.quartets is None for r in results.results.values())
    assert all("quartets" not in r for r in results.model_dump(mode="json")["results"].values())


def test_the_quartet_table_fits_a_terminal():
    from types import SimpleNamespace

    from rich.console import Console

    from swapbench.evaluation.report import quartet_table

    rows = [row for i in range(300) for row in quartet_rows(f"q{i}", (E, E if i % 3 else N, N, N if i % 2 else E))]
    result = configuration_result(rows, label_view="3-way", non_entailment_view=True, seed=0, resamples=200)
    console = Console(width=80, record=True, file=io.StringIO(), color_system=None)
    console.print(quartet_table(SimpleNamespace(results={NAME: result})))
    text = console.export_text()
    assert max(len(line.rstrip()) for line in text.splitlines()) <= 80
    assert "…" not in text and percent(result.quartets.quartet_accuracy) in text


def test_a_run_over_two_seeds_gives_each_seed_s_quartet_figures_and_their_spread(data, tmp_path):
    from rich.console import Console

    from swapbench.evaluation.report import print_table

    base = save_base(tmp_path / "base")
    train = write_training_file(tmp_path / "snli" / "snli_1.0_train.jsonl", "train")
    output = tmp_path / "seeds.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf-datasets"))
        assert (
            main(
                [
                    "eval",
                    str(base),
                    "--data",
                    str(data),
                    "--output",
                    str(output),
                    "--no-progress",
                    "--no-probe",
                    "--train-source",
                    str(train),
                    "--val-holdout",
                    "8",
                    "--epochs",
                    "1",
                    "--train-batch-size",
                    "8",
                    "--cache-dir",
                    str(tmp_path / "cache"),
                    "--bootstrap",
                    "200",
                    "--seeds",
                    "0,1",
                ]
            )
            == 0
        )
    results = EvalResults.model_validate_json(output.read_text(encoding="utf-8"))
    rows = read_predictions(predictions_path(output), results.predictions)
    mean = results.results[NAME].quartets
    assert mean.seeds == 2 and mean.quartets == len(built_rows(data)) // 2
    variance = results.seed_variance
    for run in variance.runs:
        mine = [row for row in rows if row.configuration == NAME and row.seed == run.seed]
        assert run.results[NAME].quartets == quartet_figures(
            quartets_from_rows(mine), bootstrap_rng(results.provenance.seeds.bootstrap, NAME, figure=QUARTETS), 200
        )
        assert run.results[OTHER].quartets is None
    spread = variance.spread[NAME]
    assert spread.quartet_accuracy.mean == pytest.approx(mean.quartet_accuracy, abs=1e-12)
    assert spread.pair_accuracy.mean == pytest.approx(mean.pair_accuracy, abs=1e-12)
    assert variance.spread[OTHER].quartet_accuracy is None
    assert recompute_problems(results, rows) == []
    edited = results.model_copy(deep=True)
    object.__setattr__(
        edited.seed_variance.runs[1].results[NAME].quartets,
        "pair_accuracy",
        edited.seed_variance.runs[1].results[NAME].quartets.pair_accuracy + 0.001,
    )
    assert f"seed_variance.runs.1.results.{NAME}.quartets.pair_accuracy" in {
        p.where for p in recompute_problems(edited, rows)
    }

    console = Console(record=True, width=200)
    print_table(results, console)
    assert any(line.strip().startswith(f"quartet % {NAME}") for line in console.export_text().splitlines())
    frame = Evaluated(results, output).seeds.set_index(["seed", "configuration"])
    assert frame.loc[(1, NAME), "quartet_accuracy"] == variance.runs[1].results[NAME].quartets.quartet_accuracy
