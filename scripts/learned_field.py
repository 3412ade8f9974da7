"""A learned player's share against one field, beside its base's, on the same deals (seats
rotated; docs/learned.md), and the difference paired by deal; each with the games' wall and CPU
time (after a warm-up, so no compiling): their ratio is the learned player's speed beside its
base's. SEED 77 (the default) and 99 chose Conspiracy's shipped run: a figure to report comes from
a seed that chose nothing (docs/learned.md, "Which deals chose and which report").

usage: PYTHONPATH=. python scripts/learned_field.py GAME PLAYERS WEIGHTS FIELD [GAMES] [SEED]
e.g.   PYTHONPATH=. python scripts/learned_field.py conspiracy 2 \
           games/conspiracy/strategies/learned/learned_2p.npz key_hunter_open_2p 4000
"""

from __future__ import annotations

import sys
import time

import numpy as np

from reports.runs.learn import game_shares
from sim import games as registry


def main() -> None:
    game, players, weights, field = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    n_games = int(sys.argv[5]) if len(sys.argv) > 5 else 4000
    seed = int(sys.argv[6]) if len(sys.argv) > 6 else 77
    spec = registry.get(game)
    strategies = spec.strategies()
    player = f"learned:weights={weights}"
    base = strategies.make_policy(player).loaded.meta["base"]
    tables = spec.load_cards(None, [], spec.tournament_expansions)  # (as `learn` plays)
    shares = []
    for who in (player, base):
        policies = strategies.make_policies([who] + [field] * (players - 1), players)
        spec.play().run_games(tables, engine="fast", n_players=players, n_games=100,
                              seed=seed + 1, policies=policies)  # (warm)  # fmt: skip
        t0, c0 = time.perf_counter(), time.process_time()
        played = spec.play().run_games(tables, engine="fast", n_players=players, n_games=n_games,
                                       seed=seed, policies=policies)  # fmt: skip
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        if who == field:  # every seat alike: its share is 1/n by symmetry
            shares.append(x := np.full(n_games, 1 / players))
            share = f"{1 / players:.1%} (itself)"
        else:
            shares.append(x := game_shares(played.seats, policies[0].name))
            share = f"{x.mean():.1%} ± {_half(x):.1%}"
        print(f"{who} against {players - 1} x {field}: {share} ({n_games} games, seed {seed}; "
              f"{wall:.2f} s wall, {cpu:.2f} s CPU)", flush=True)
    d = shares[0] - shares[1]
    print(f"learned minus its base, paired by deal: {100 * d.mean():+.1f} ± {100 * _half(d):.1f} "
          "points")


def _half(x: np.ndarray) -> float:
    return float(1.96 * x.std(ddof=1) / np.sqrt(len(x)))


if __name__ == "__main__":
    main()
