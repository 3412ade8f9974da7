"""The game registry (`sim.games`) and the game spec (`sim.core.game`): a command looks its game
up and calls the spec, so a new game needs no change to the commands (issue 18)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cli.app import app
from sim import games
from sim.core.errors import UserError

runner = CliRunner()


@pytest.mark.parametrize("name", ["abyss", "conspiracy", "wilds"])
def test_every_registered_game_loads_and_describes_its_cards(name: str) -> None:
    spec = games.get(name)
    assert spec.name == name and name in games.names()
    tables = spec.load_cards()
    assert spec.describe(tables).endswith("\n")
    assert games.get(name.upper()) is spec


def test_expansions_are_the_specs_own() -> None:
    assert games.get("abyss").load_cards(expansions=("leviathan",)).n_leviathans > 0
    with pytest.raises(UserError, match="Conspiracy has no expansions"):
        games.get("conspiracy").load_cards(expansions=("leviathan",))
    with pytest.raises(UserError, match="unknown expansion 'kraken' for Abyss"):
        games.get("abyss").load_cards(expansions=("kraken",))


def test_unknown_game_is_a_one_line_error() -> None:
    with pytest.raises(UserError, match="unknown game 'chess' for --game; known: abyss"):
        games.get("chess")


@pytest.fixture
def tiny():
    from tiny_game import SPEC

    games.register(SPEC)
    yield SPEC
    games._EXTRA.pop("tiny", None)


def test_a_registered_game_runs_through_cards_without_any_command_change(tiny) -> None:
    """A game that no command names: `cards` looks it up and calls its spec."""
    result = runner.invoke(app, ["cards", "--game", "tiny", "--set", "deck.size=3"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "Tiny: 3 cards, 1, 2, 3\n"
    bad = runner.invoke(app, ["cards", "--game", "tiny", "--set", "deck.size=99"])
    assert bad.exit_code == 2 and "expected 1..20" in bad.output


def test_strategies_of_each_game_come_from_its_package() -> None:
    """`abyss-mc strategies --game G` looks the game up and lists `strategies.<G>`; a game with
    no strategies says so in one line."""
    for game, name in (("abyss", "leviathan_hunter"), ("conspiracy", "pile_raider")):
        result = runner.invoke(app, ["strategies", "--game", game])
        assert result.exit_code == 0 and f"{name}: " in result.stdout
    result = runner.invoke(app, ["strategies", "--game", "wilds"])
    assert result.exit_code == 2 and "has no strategies" in result.output


def test_a_registered_game_runs_through_simulate_tournament_replay_and_report(tiny, tmp_path):
    """The tiny game of tests/tiny_game.py, which no command names, runs through `simulate`,
    `tournament`, `replay RUN_DIR` and `report` by its spec alone, with the generic summary and
    report (its report hooks delegate to `reports.sections.generic`)."""
    import pandas as pd

    run = tmp_path / "sim"
    result = runner.invoke(app, ["simulate", "--game", "tiny", "--players", "3", "--games", "3000",
                                 "--out", str(run)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "3,000 games, 3 players" in result.stdout
    seats = pd.read_parquet(run / "seats.parquet")
    rates = seats.groupby("strategy")["win"].mean()
    assert rates["best"] > rates["random"] + 0.1  # the planted stronger strategy wins more
    assert seats.groupby("game")["win"].sum().round(9).eq(1).all()
    assert (run / "manifest.json").is_file() and (run / "summary.txt").is_file()

    replayed = runner.invoke(app, ["replay", str(run), "--game", "4"])
    assert replayed.exit_code == 0, replayed.output
    assert replayed.stdout.startswith("seat 1 ")
    assert len(replayed.stdout.splitlines()) == 3

    tour = tmp_path / "tour"
    result = runner.invoke(app, ["tournament", "--game", "tiny", "--players", "2,3", "--blocks",
                                 "200", "--report", "--out", str(tour)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "== 3 players ==" in result.stdout and "best" in result.stdout
    html = (tour / "report" / "report.html").read_text()
    assert "Strategies, 2 players" in html and "Seats, 3 players" in html

    again = tmp_path / "again"
    result = runner.invoke(app, ["report", str(run), "--out", str(again)])
    assert result.exit_code == 0, result.output
    assert (again / "report.md").read_text().count("best") >= 1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_tiny_game_has_restricted_play(tiny, tmp_path, seed: int) -> None:
    """Issue 29's proof: restricted play (`abyss-mc restrict`) for a game no generic module
    names, from its own file alone (its strategies' `forbid` and its `restrictions`). The planted
    answer of "high card" at 2 players (hands of 2 of 12): `best` loses most without card 12,
    which wins whenever it is held; it never keeps card 1 (the lowest), so forbidding it changes
    no game."""
    import pandas as pd

    out = tmp_path / "restrict"
    result = runner.invoke(app, ["restrict", "--game", "tiny", "--strategy", "best", "--players",
                                 "2", "--blocks", "150", "--seed", str(seed), "--out",
                                 str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    values = pd.read_parquet(out / "impact.parquet").set_index("card")
    assert values["value"].idxmax() == "card 12"
    assert values.loc["card 12", "finding"] == "worth something"
    assert values.loc["card 1", "finding"] == "never taken"


def test_the_tiny_game_sweeps_and_reports_verdicts_with_card_values(tiny, tmp_path) -> None:
    """Issue 29's proof: a sweep over the tiny game's own `--set` key, and a tournament report
    whose Verdicts (generic: best strategy, seat advantage, the card values of restricted play)
    find the planted stronger strategy."""
    sweep = tmp_path / "sweep"
    result = runner.invoke(app, ["sweep", "--game", "tiny", "--set", "deck.size=8,16", "--games",
                                 "400", "--players", "2", "--strategies", "best,random",
                                 "--out", str(sweep)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "deck.size=8" in result.stdout and "deck.size=16" in result.stdout
    assert (sweep / "report" / "report.html").is_file()

    tour = tmp_path / "tour"
    result = runner.invoke(app, ["tournament", "--game", "tiny", "--players", "2", "--blocks",
                                 "300", "--report", "--card-blocks", "100", "--out",
                                 str(tour)])  # fmt: skip
    assert result.exit_code == 0, result.output
    text = (tour / "report" / "report.md").read_text()
    verdicts = text[text.index("## Verdicts"):text.index("## Contents")]
    assert "At 2 players, `best` wins most" in verdicts
    assert "The most valuable card to `best` at 2 players" in verdicts
    assert "card 12" in verdicts


def test_the_tiny_game_reports_across_play_strengths(tiny, tmp_path) -> None:
    """Issue 29's proof, play strengths: the tiny game's presets (tests/tiny_presets.toml) have
    tuned versions (tests/tiny_tuned.toml), so its report plays them as a second strength. The
    planted answer: with the hand-written presets `best` wins most; among the tuned ones the
    sharp style wins (it keeps the best card more often). `best`, a policy, has no tuned
    version; the pair both strengths play, sharp and dull, is in the same order in both (sharp
    ahead), so the answers are not told apart (issue 49: "differs" only when a test says two
    named ones change order)."""
    tour = tmp_path / "tour"
    result = runner.invoke(app, ["tournament", "--game", "tiny", "--players", "2", "--blocks",
                                 "300", "--strategies", "dull,sharp,best", "--report",
                                 "--card-blocks", "0", "--out", str(tour)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (tour / "strengths" / "tuned" / "seats.parquet").is_file()
    text = (tour / "report" / "report.md").read_text()
    verdicts = text[text.index("## Verdicts"):text.index("## Contents")]
    assert ("**Best strategy at 2 players: each strength finds something, not the same"
            in verdicts and "Gail and Simon's test that dull − sharp changes sign" in verdicts)
    assert "| Best strategy (2p) | best (+" in verdicts and "| not told apart |" in verdicts
    assert "Hand-written presets: At 2 players, `best` wins most" in verdicts
    assert "Tuned presets: At 2 players, `sharp_tuned_2p` wins most" in verdicts
    assert "not in the tuned presets' tournament: `best`" in verdicts


def test_a_rock_paper_scissors_cycle_in_the_tiny_game_names_no_best_strategy(tiny, tmp_path):
    """Issue 31: "A rock-paper-scissors cycle of three strategies in the tiny test game is found
    as a cycle, and the report names no best strategy; a transitive set is ranked." Hand signs
    (`--set rules.rps=1`): each `sign` keeps its sign when it can, and every sign beats one."""
    signs = "sign:prefer=rock,sign:prefer=paper,sign:prefer=scissors"
    for strategies, rps, cyclic in ((signs, 1, True), ("best,aim,random", 0, False)):
        out = tmp_path / f"rps{rps}"
        result = runner.invoke(app, ["tournament", "--game", "tiny", "--players", "2",
                                     "--strategies", strategies, "--blocks", "400", "--set",
                                     f"rules.rps={rps}", "--set", "rules.hand=3", "--report",
                                     "--card-blocks", "0", "--out", str(out)])  # fmt: skip
        assert result.exit_code == 0, result.output
        text = (out / "report" / "report.md").read_text()
        verdicts = text[text.index("## Verdicts"):text.index("## Contents")]
        assert ("no strategy is best" in verdicts) == cyclic, verdicts
        assert ("`best` wins most" in verdicts) == (not cyclic), verdicts
        head_to_head = text[text.index("## Who beats whom"):]
        assert ("no best strategy: cycle" in head_to_head) == cyclic


def test_a_game_without_a_play_module_says_so(tiny) -> None:
    """Wilds' runs are an analysis, not games of strategies: a tournament says so in one line."""
    result = runner.invoke(app, ["tournament", "--game", "wilds"])
    assert result.exit_code == 2
    assert "Leviathan Wilds has no games of strategies to play" in result.output


def registries():
    """The strategies registry of every registered game that has strategies."""
    import strategies

    found = {}
    for name in games.names():
        try:
            found[name] = strategies.for_game(name)
        except UserError:
            continue  # Wilds: an analysis, no strategies
    assert {"abyss", "conspiracy"} <= set(found)
    return found


@pytest.mark.parametrize("game", ["abyss", "conspiracy"])
def test_every_parameter_of_every_policy_is_documented(game: str) -> None:
    """Each parameter says what it means, its range and what raising it does, once, on its
    field (`strategies.registry.param`); `abyss-mc strategies` explains it. A field without its
    documentation is refused (`parameters` raises), so no parameter can be added undocumented."""
    import dataclasses

    from strategies.registry import Param, parameters

    registry = registries()[game]
    text = registry.text()
    assert max(map(len, text.splitlines())) <= 100
    for policy, cls in registry.policies.items():
        docs = parameters(cls)
        assert list(docs) == [f.name for f in dataclasses.fields(cls) if f.name != "name"]
        if docs:
            assert f"\nParameters of {policy}:\n" in text
        for name, doc in docs.items():
            assert isinstance(doc, Param), (policy, name)
            assert doc.meaning.strip() and doc.effect.strip(), (policy, name)
            assert doc.choices or (doc.path and doc.unit) or (doc.low < doc.high and doc.unit), (
                policy, name)
            assert f"  {name}: {doc.range_text()}; default " in text, (policy, name)
            assert doc.check(name, registry.defaults(policy)[name]) is not None


@pytest.mark.parametrize("game", ["abyss", "conspiracy"])
def test_the_ranges_checked_are_the_documented_ones(game: str) -> None:
    """A spec at either end of a parameter's documented range makes a policy, one step beyond
    is a one-line error (the range check is the documentation's); the presets lie inside."""
    from strategies.registry import StrategyError

    registry = registries()[game]
    for policy in registry.policies:
        for name, space in registry.parameter_space(policy).items():
            if space[0] == "path":  # a file's path: checked on load (tests/abyss/test_learned.py)
                continue
            if space[0] == "choice":
                ok, bad = list(space[1]), ["nosuch"]
            else:
                kind, low, high = space
                step = registry.parameters(policy)[name].step or 1
                ok, bad = [low, high], [round(low - step, 3), round(high + step, 3)]
            for value in ok:
                assert getattr(registry.make_policy(f"{policy}:{name}={value}"), name) == value
            for value in bad:
                with pytest.raises(StrategyError, match=f"{name} (must|is a)") as info:
                    registry.make_policy(f"{policy}:{name}={value}")
                assert "\n" not in str(info.value)
    for preset in registry.presets().values():
        space = registry.parameter_space(preset.policy)
        for name, value in preset.params.items():
            kind, *bounds = space[name]
            assert value in bounds[0] if kind == "choice" else bounds[0] <= value <= bounds[1]


def test_an_undocumented_parameter_is_refused() -> None:
    from dataclasses import dataclass

    from games.abyss.strategies.baseline import GreedyPolicy
    from strategies.registry import parameters

    @dataclass
    class Sloppy(GreedyPolicy):
        bluff: int = 3

    with pytest.raises(TypeError, match="Sloppy.bluff has no documentation"):
        parameters(Sloppy)
    with pytest.raises(TypeError, match="no documentation"):
        Sloppy()


def test_strategies_command_shows_one_strategy_in_full() -> None:
    result = runner.invoke(app, ["strategies", "--game", "conspiracy", "pile_raider"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("pile_raider: takes discard piles")
    assert "  draw = 1: int 1..10 (Lords); default 3\n" in result.stdout
    assert "Raising it: " in result.stdout
    result = runner.invoke(app, ["strategies", "greedy:buy_min=3"])
    assert result.exit_code == 0 and "  buy_min = 3: int 0..10" in result.stdout
    result = runner.invoke(app, ["strategies", "--game", "conspiracy", "greedy"])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and "unknown strategy 'greedy'" in lines[0]


def test_a_game_declares_its_result_columns_or_follows_the_convention(tiny) -> None:
    """The spec gives a game's result columns (Abyss: `games.abyss.engine.schema`, with their
    meanings); a game without a results module follows the common convention (the tiny game)."""
    seats, game_columns = games.get("abyss").result_columns()
    assert {"game", "seat", "strategy", "score", "rank", "score_lords"} <= set(seats)
    assert all(isinstance(meaning, str) and meaning for _, meaning in seats.values())
    assert "turns" in game_columns
    assert tiny.result_columns() is None
