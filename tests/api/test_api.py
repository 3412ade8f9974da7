"""`abyss_mc`, the public Python API (issue 51): each function mirrors its command (names and
defaults), gives the command's results on a fixed seed, fails with the command's one line, and
is cheap to import."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import abyss_mc as amc
from cli.app import app
from reports.runs import options as O

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]

#: Each function of the API and the options object it fills.
FUNCTIONS = {
    amc.simulate: O.SimulateOptions, amc.tournament: O.TournamentOptions,
    amc.sweep: O.SweepOptions, amc.tune: O.TuneOptions, amc.restrict: O.RestrictOptions,
    amc.design: O.DesignOptions, amc.learn: O.LearnOptions, amc.report: O.ReportOptions,
    amc.cards: O.CardsOptions, amc.strategies: O.StrategiesOptions, amc.plan: O.PlanOptions,
    amc.bench: O.BenchOptions, amc.replay: O.ReplayOptions, amc.drama: O.DramaOptions,
    amc.skill: O.SkillOptions,
}  # fmt: skip


def _cli(args: list[str]):
    result = runner.invoke(app, args)
    return result


def test_importing_the_api_is_cheap() -> None:
    code = ("import sys, abyss_mc, abyss_mc.stats, abyss_mc.leviathan; "
            "print(sorted(m for m in ('numpy', 'pandas', 'numba', 'games.abyss.engine') "
            "if m in sys.modules))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         check=True)  # fmt: skip
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("function", list(FUNCTIONS), ids=lambda f: f.__name__)
def test_every_function_takes_its_commands_options_and_defaults(function) -> None:
    """A parameter of the function is a field of its command's options (``set`` is ``set_``),
    with the same default (`out` and `resume` aside: None, and `out` a temporary directory)."""
    kind = FUNCTIONS[function]
    fields = kind.defaults()
    for name, param in inspect.signature(function).parameters.items():
        field = "set_" if name == "set" else name
        assert field in fields, f"{function.__name__}({name}=): not an option of {kind.__name__}"
        if param.default is not inspect.Parameter.empty and name not in ("out", "resume"):
            assert param.default == fields[field], f"{function.__name__}({name}=)"


def test_every_option_is_a_parameter_of_the_function() -> None:
    for function, kind in FUNCTIONS.items():
        names = {"set_" if n == "set" else n for n in inspect.signature(function).parameters}
        assert set(kind.defaults()) - names - {"progress"} <= set(), function.__name__


def test_values_take_pythons_form_or_the_command_lines() -> None:
    o = O.TournamentOptions(strategies=["greedy", "farmer"], players=[3, 4], expansions=[],
                            set_={"rules.seat_4_pearls": 2, "rules.x": True}, cards="data")
    assert (o.strategies, o.players, o.expansions) == ("greedy,farmer", "3,4", "")
    assert o.set_ == ["rules.seat_4_pearls=2", "rules.x=true"] and o.cards == Path("data")
    assert O.TournamentOptions(players=2).players == "2"
    assert O.SweepOptions(set_={"k": [8, 12]}).set_ == ["k=8,12"]
    assert O.DesignOptions(vary={"k": (0, 4), "c": ["a", "b"]}).vary == ["k=0..4", "c=a|b"]
    text = O.TournamentOptions(strategies="greedy,farmer", set_=["a=1"])
    assert (text.strategies, text.set_) == ("greedy,farmer", ["a=1"])


def test_a_plan_of_an_older_version_resumes_with_the_defaults() -> None:
    """A tune run started before --open (its plan without "open") and a learn run before
    --opponents resume with those options at their defaults, the rest as stored."""
    plan = {"options": {"strategy": "farmer", "game": "abyss", "players": 2, "games": 600,
                        "seed": 6, "expansions": None},
            "set": ["rules.seat_4_pearls=1"], "cards": None, "presets": "p.toml"}  # fmt: skip
    given = O.TuneOptions(open=True, threads=3, resume=Path("run"), backend="dask")
    o = given.resumed(plan)
    assert (o.strategy, o.players, o.games, o.open, o.seed) == ("farmer", 2, 600, False, 6)
    assert (o.threads, o.backend, o.out, o.resume) == (3, "dask", Path("run"), Path("run"))
    assert o.set_ == ["rules.seat_4_pearls=1"] and o.presets == Path("p.toml")
    old = O.LearnOptions(resume=Path("r")).resumed({"options": {"players": 2, "seed": 4}})
    assert (old.players, old.opponents, old.seed) == (2, "own", 4)


def test_a_tournament_resumes_from_the_plan_it_stored() -> None:
    """The plan a tournament stores (`stored`) reads back into the same options."""
    from reports.runs.tournament import checked, stored

    o = O.TournamentOptions(strategies=["greedy", "farmer"], players="2", blocks=7, seed=4,
                            fight_points=0, set_=["rules.seat_2_pearls=1"])  # fmt: skip
    setup = checked(o)
    back = O.TournamentOptions(resume=Path("run")).resumed(stored(setup))
    for name in ("strategies", "players", "blocks", "seed", "fight_points", "set_", "crn",
                 "strengths", "card_blocks", "design", "report"):  # fmt: skip
        assert getattr(back, name) == getattr(setup.o, name), name
    assert back.expansions == "leviathan" and back.out == Path("run")


def test_a_tournament_gives_the_commands_results(tmp_path) -> None:
    args = ["tournament", "--strategies", "greedy,farmer", "--players", "2", "--blocks", "6",
            "--fight-points", "0", "--seed", "3", "--out", str(tmp_path / "cli")]  # fmt: skip
    cli = _cli(args)
    assert cli.exit_code == 0, cli.output
    r = amc.tournament(strategies=["greedy", "farmer"], players=2, blocks=6, fight_points=0,
                       seed=3, out=tmp_path / "api")  # fmt: skip
    for name in ("seats", "games"):
        pd.testing.assert_frame_equal(getattr(r, name),
                                      pd.read_parquet(tmp_path / "cli" / f"{name}.parquet"))
    assert r.text == (tmp_path / "cli" / "summary.txt").read_text()
    assert cli.output == r.output.replace(str(tmp_path / "api"), str(tmp_path / "cli"))
    assert list(r.summary.columns[:3]) == ["games", "blocks", "win_rate"]
    assert r.summary["games"].sum() == len(r.seats)
    assert set(r.frame().columns) == {"block", "table", "seat", "strategy", "win", "ip", "rank"}


def test_simulate_and_a_default_out_give_the_commands_results(tmp_path, monkeypatch) -> None:
    """`out=None`: a new directory under the temporary directory, kept."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    cli = _cli(["simulate", "--games", "40", "--players", "3", "--seed", "5",
                "--strategies", "greedy,random", "--out", str(tmp_path / "cli")])  # fmt: skip
    assert cli.exit_code == 0, cli.output
    r = amc.simulate(games=40, players=3, seed=5, strategies=["greedy", "random"])
    assert r.run_dir.parent == tmp_path and r.run_dir.is_dir()
    pd.testing.assert_frame_equal(r.seats, pd.read_parquet(tmp_path / "cli" / "seats.parquet"))
    assert r.text == (tmp_path / "cli" / "summary.txt").read_text()
    assert r.manifest["config"]["n_games"] == 40


@pytest.mark.parametrize(
    "call, args, message",
    [
        (lambda: amc.simulate(games=0), ["simulate", "--games", "0"],
         "--games must be at least 1; got 0"),
        (lambda: amc.tournament(blocks=0), ["tournament", "--blocks", "0"],
         "--blocks must be at least 1; got 0"),
        (lambda: amc.tournament(strategies="greedy,nobody", players=2),
         ["tournament", "--strategies", "greedy,nobody", "--players", "2"], "unknown"),
        (lambda: amc.tune(), ["tune"], "--strategy is required"),
        (lambda: amc.restrict(strategy="greedy", blocks=1),
         ["restrict", "--strategy", "greedy", "--blocks", "1"], "--blocks must be at least 2"),
        (lambda: amc.sweep(), ["sweep"], "give at least one --set"),
        (lambda: amc.simulate(seed=-1), ["simulate", "--seed", "-1"], "--seed must be between"),
        (lambda: amc.cards(set={"game.nothing": 1}), ["cards", "--set", "game.nothing=1"], ""),
        (lambda: amc.skill(Path("nowhere"), rungs=["a", "b"]),
         ["skill", "nowhere", "--rungs", "a,b"], "holds no tournament"),
    ],
)  # fmt: skip
def test_errors_are_the_commands_one_line(call, args, message, tmp_path, monkeypatch) -> None:
    import tempfile

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(amc.UserError) as raised:
        call()
    cli = _cli(args)
    assert cli.exit_code == 2
    line = str(raised.value)
    assert message in line and "\n" not in line
    assert cli.output == f"error: {line}\n"
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_run_of_the_options_object_is_the_command(tmp_path) -> None:
    """`abyss_mc.run`, which the command line calls, dispatches on the options' type."""
    r = amc.run(O.CardsOptions(game="conspiracy"))
    assert isinstance(r, amc.results.CardsResult)
    assert r.output == _cli(["cards", "--game", "conspiracy"]).output
    table = amc.strategies(game="conspiracy").table
    assert {"policy", "preset"} == set(table["kind"]) and "key_hunter" in table.index
