"""Each open preset against three copies of every other (docs/learned.md, "Choosing the base"):
4 players, Abyss with Leviathan, seats rotated, the same deals in every cell.

usage: python scripts/open_cross_table.py [GAMES]
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
    tables = load_cards(expansions=EXP)
    opens = sorted(n for n in REGISTRY.strategy_names() if n.endswith("_open_4p"))
    short = [o.removesuffix("_open_4p") for o in opens]
    print("| player \\ field | " + " | ".join(short) + " | worst | mean |")
    print("|---" * (len(opens) + 3) + "|")
    for player in opens:
        row = []
        for field in opens:
            if field == player:
                row.append(0.25)
                continue
            policies = REGISTRY.make_policies([player, field, field, field], 4)
            played = run_games(tables, engine="fast", n_players=4, n_games=games, seed=77,
                               policies=policies, expansions=EXP)  # fmt: skip
            row.append(win_share(played.seats, policies[0].name)[0])
        cells = " | ".join(f"{x:.1%}" for x in row)
        print(f"| {player} | {cells} | {min(row):.1%} | {np.mean(row):.1%} |", flush=True)


if __name__ == "__main__":
    main()
