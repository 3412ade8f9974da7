"""Each open preset against N - 1 copies of every other (docs/learned.md, "Choosing the base"):
N players (default 4), Abyss with Leviathan, seats rotated, the same deals in every cell (seed
77, which chooses the bases: it reports nothing).

usage: python scripts/open_cross_table.py [GAMES] [PLAYERS]
"""

from __future__ import annotations

import sys

import numpy as np

from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.play import run_games
from games.abyss.strategies import REGISTRY
from reports.runs.learn import win_share

EXP = ("leviathan",)


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    tables = load_cards(expansions=EXP)
    opens = sorted(s for s in REGISTRY.strategy_names() if s.endswith(f"_open_{n}p"))
    short = [o.removesuffix(f"_open_{n}p") for o in opens]
    print("| player \\ field | " + " | ".join(short) + " | worst | mean |")
    print("|---" * (len(opens) + 3) + "|")
    for player in opens:
        row = []
        for field in opens:
            if field == player:
                row.append(1 / n)
                continue
            policies = REGISTRY.make_policies([player, *[field] * (n - 1)], n)
            played = run_games(tables, engine="fast", n_players=n, n_games=games, seed=77,
                               policies=policies, expansions=EXP)  # fmt: skip
            row.append(win_share(played.seats, policies[0].name)[0])
        cells = " | ".join(f"{x:.1%}" for x in row)
        print(f"| {player} | {cells} | {min(row):.1%} | {np.mean(row):.1%} |", flush=True)


if __name__ == "__main__":
    main()
