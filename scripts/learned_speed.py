"""Games per second of four learned archetypes and of their tuned presets, Abyss + Leviathan, 4
players, one thread, 10,000 games, best of 3 (docs/benchmarks.md).
usage: PYTHONPATH=ROOT python scripts/learned_speed.py LABEL"""

import sys
import time

from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.play import run_games
from games.abyss.strategies import REGISTRY

EXP = ("leviathan",)
ARCHETYPES = ("farmer", "key_hunter", "leviathan_hunter", "pearl_economist")
LINEUPS = {"learned": [f"learned:archetype={a}" for a in ARCHETYPES],
           "tuned": [f"{a}_tuned_4p" for a in ARCHETYPES]}  # fmt: skip

tables = load_cards(expansions=EXP)
for label, lineup in LINEUPS.items():
    policies = REGISTRY.make_policies(lineup, 4)
    run_games(tables, engine="fast", n_players=4, n_games=500, seed=1, policies=policies,
              expansions=EXP, threads=1)  # warm  # fmt: skip
    best = 0.0
    for r in range(3):
        t0 = time.perf_counter()
        run_games(tables, engine="fast", n_players=4, n_games=10000, seed=2 + r,
                  policies=policies, expansions=EXP, threads=1)  # fmt: skip
        best = max(best, 10000 / (time.perf_counter() - t0))
    print(sys.argv[1], label, f"{best:,.0f} games/s (1 thread, best of 3)")
