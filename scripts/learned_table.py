"""The learned player's strength table and speed (docs/learned.md): against three copies of every
open preset at 4 players (Abyss with Leviathan, seats rotated), and games per second of a line-up
with it against four open presets, in one run.

usage: python scripts/learned_table.py WEIGHTS [GAMES]  (GAMES 0: the speed only)
"""

from __future__ import annotations

import sys
import time

from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.play import run_games
from games.abyss.strategies import REGISTRY
from reports.learn_run import win_share

EXP = ("leviathan",)


def main() -> None:
    weights, games = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    tables = load_cards(expansions=EXP)
    player = f"learned:weights={weights}"
    base = REGISTRY.make_policy(player).loaded.meta["base"]
    opens = sorted(n for n in REGISTRY.strategy_names() if n.endswith("_open_4p"))
    opens = opens if games > 0 else []
    print(f"| field (three of) | learned | base ({base}) |")
    print("|---|---|---|")
    for name in opens:
        row = []
        for who in (player, base):
            if who == name:
                row.append("25% (itself)")
                continue
            policies = REGISTRY.make_policies([who, name, name, name], 4)
            played = run_games(tables, engine="fast", n_players=4, n_games=games, seed=77,
                               policies=policies, expansions=EXP)  # fmt: skip
            share, half, _ = win_share(played.seats, policies[0].name)
            row.append(f"{share:.1%} ± {half:.1%}")
        print(f"| {name} | {row[0]} | {row[1]} |", flush=True)
    for label, lineup in (("learned + 3 open presets", [player, "farmer_open_4p",
                           "leviathan_hunter_open_4p", "pearl_economist_open_4p"]),
                          ("4 open presets", ["pearl_economist_open_4p", "farmer_open_4p",
                           "leviathan_hunter_open_4p", "pearl_economist_open_4p"])):  # fmt: skip
        policies = REGISTRY.make_policies(lineup, 4)
        run_games(tables, engine="fast", n_players=4, n_games=200, seed=1, policies=policies,
                  expansions=EXP)  # warm  # fmt: skip
        t0, c0 = time.perf_counter(), time.process_time()
        run_games(tables, engine="fast", n_players=4, n_games=20000, seed=2, policies=policies,
                  expansions=EXP)  # fmt: skip
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"{label}: {20000 / wall:,.0f} games/s wall, {cpu:.1f} s CPU for 20,000 games")


if __name__ == "__main__":
    main()
