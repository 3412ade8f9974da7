"""Verdicts on real games (issue 22): "Tests with planted cards and a planted seat advantage (a
rules override that gives the first player extra Pearls) that the verdicts must find"."""

from __future__ import annotations

import numpy as np
from typer.testing import CliRunner

from cli.app import app
from sim import games

runner = CliRunner()


def _verdicts(run_dir) -> str:
    md = (run_dir / "report" / "report.md").read_text()
    start = md.index("## Verdicts")
    return md[start:md.index("\n## ", start + 5)]


def test_the_first_player_pearls_override_gives_seat_1_its_pearls_on_both_engines() -> None:
    """rules.toml `first_player_pearls`: "The first player (seat 1) starts with this many Pearls
    more than the others"; the Pearl ledger still balances (the audit)."""
    from games.abyss.engine.audit import audit

    spec = games.get("abyss")
    tables = spec.load_cards(None, ["rules.first_player_pearls=5"], ())
    assert tables.rules.first_player_pearls == 5
    policies = spec.strategies().make_policies(["greedy", "greedy"], 2)
    runs = [spec.play().run_games(tables, engine=e, n_players=2, n_games=20, seed=4,
                                  policies=policies) for e in ("fast", "reference")]  # fmt: skip
    assert runs[0].seats.equals(runs[1].seats)
    from games.abyss.engine.rules.game import Game

    g = Game(tables, policies, seed=4, game=0)
    assert [p.pearls for p in g.players] == [6, 1]
    assert audit(g.play()) == []
    plain = spec.play().run_games(spec.load_cards(None, [], ()), engine="fast", n_players=2,
                                  n_games=20, seed=4, policies=policies)  # fmt: skip
    assert not np.array_equal(plain.seats["score"], runs[0].seats["score"])


def test_a_planted_first_player_advantage_is_a_verdict(tmp_path):
    """With 4 extra Pearls the first player wins about two games in three at 2 players (66.3%
    [64.8%, 67.8%] in 4,000 games): the verdict names seat 1. (The rules as printed give seat 1 a
    small edge of their own, 52.0% [50.5%, 53.5%], so the null case is planted data:
    tests/core/test_verdicts.py.)"""
    out = tmp_path / "planted"
    result = runner.invoke(app, [
        "simulate", "--players", "2", "--games", "600", "--strategies", "greedy",
        "--expansions", "", "--seed", "2", "--set", "rules.first_player_pearls=4",
        "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    assert "At 2 players seat 1 has an advantage" in _verdicts(out)
