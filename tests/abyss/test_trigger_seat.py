"""Whose turn ended the game (issue 31's end conditions): "The active player finishes their turn,
and every other player takes one last turn", so the trigger is the seat after the one that
played the last turn. Checked against the reference engine's own record of the trigger, over many
games and every end reason that occurs, and the fast path gives the same column."""

from __future__ import annotations

from games.abyss.engine.rules.game import Game
from games.abyss.engine.rules.scoring import trigger_seat
from sim import games

LINEUP = ["farmer", "greedy", "key_hunter", "lord_rusher"]


def test_the_trigger_seat_is_the_seat_whose_turn_triggered_the_end():
    spec = games.get("abyss")
    tables = spec.load_cards(None, [], ("leviathan",))
    policies = spec.strategies().make_policies(LINEUP, 4)
    reasons = set()
    for g in range(60):
        game = Game(tables, policies, 3, g, record=True).play()
        logged = [e["seat"] for e in game.events if e["event"] == "end_triggered"]
        assert logged and trigger_seat(game) == logged[0], g
        reasons.add(game.end_reason)
    assert {"seventh_lord", "monster_tokens_empty"} <= reasons


def test_both_engines_record_the_same_trigger_seat():
    spec = games.get("abyss")
    tables = spec.load_cards(None, [], ("leviathan",))
    policies = spec.strategies().make_policies(LINEUP, 4)
    runs = [spec.play().run_games(tables, engine=e, n_players=4, n_games=24, seed=3,
                                  policies=policies) for e in ("fast", "reference")]  # fmt: skip
    fast, ref = (r.games["trigger_seat"].tolist() for r in runs)
    assert fast == ref and min(fast) >= 0
