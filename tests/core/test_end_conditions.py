"""How games end (issue 31): "how often each end trigger ends the game and who triggers it (seat,
strategy), and whether the trigger's player wins". Planted and null cases over many seeds."""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.end_conditions import by_strategy, end_table, end_verdicts, triggers


def _tournament(p_trigger_wins: float, blocks: int, seed: int, n: int = 3):
    """Blocks of one table each: a random seat triggers the end (reason `a` or `b`), and wins
    with probability p_trigger_wins (else another seat wins)."""
    rng = np.random.default_rng(seed)
    seats, games = [], []
    for b in range(blocks):
        trigger = int(rng.integers(n))
        winner = trigger if rng.random() < p_trigger_wins else \
            int((trigger + 1 + rng.integers(n - 1)) % n)  # fmt: skip
        games.append({"block": b, "table": 0, "n_players": n, "game": b,
                      "end_reason": "a" if b % 4 else "b", "trigger_seat": trigger})
        for s in range(n):
            seats.append({"block": b, "table": 0, "n_players": n, "game": b, "seat": s,
                          "strategy": f"s{(s + b) % n}", "win": float(s == winner),
                          "rank": 1 if s == winner else 2})
    return pd.DataFrame(seats), pd.DataFrame(games)


def test_the_end_table_counts_each_trigger_and_the_triggers_win_share():
    seats, games = _tournament(1.0, 400, 0)
    trig = triggers(seats, games)
    assert len(trig) == 400 and (trig["win"] == 1.0).all()
    table = end_table(games, trig)
    assert abs(table.loc[(3, "a"), "share of games"] - 0.75) < 1e-9
    assert table.loc[(3, "b"), "trigger's win share"] == 1.0
    shares = by_strategy(trig, seats)["ends its games"]
    assert abs(shares.sum() - 1.0) < 1e-9  # every game ended by one of the three


def test_a_planted_trigger_advantage_is_found_and_fair_triggers_cannot_be_told():
    planted = [end_verdicts(*_tournament(0.6, 400, seed)) for seed in range(20)]
    assert all(v[0].finding and v[0].key == "pays" for v in planted)
    null = [end_verdicts(*_tournament(1 / 3, 400, seed)) for seed in range(40)]
    assert sum(v[0].finding for v in null) <= 5  # a 5% test, 40 seeds


def test_win_shares_come_from_ranks_when_a_run_has_no_win_column():
    seats, games = _tournament(1.0, 50, 1)
    trig = triggers(seats.drop(columns="win"), games)
    assert (trig["win"] == 1.0).all()
