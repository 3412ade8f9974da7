"""Games per second of the fast path: 4 open presets, Abyss + Leviathan, 20,000 games, best of 3
(docs/benchmarks.md). usage: PYTHONPATH=ROOT python scripts/fast_speed.py LABEL"""

import sys
import time

try:
    from games.abyss.engine.cards.loader import load_cards
except ImportError:  # a checkout before the engine's cards/ folder
    from games.abyss.engine.cards import load_cards
from games.abyss.engine.play import run_games
from games.abyss.strategies import REGISTRY

EXP = ("leviathan",)
LINEUP = ["pearl_economist_open_4p", "farmer_open_4p", "leviathan_hunter_open_4p",
          "key_hunter_open_4p"]  # fmt: skip

tables = load_cards(expansions=EXP)
policies = REGISTRY.make_policies(LINEUP, 4)
run_games(tables, engine="fast", n_players=4, n_games=500, seed=1, policies=policies,
          expansions=EXP)  # warm  # fmt: skip
best = 0.0
for r in range(3):
    t0 = time.perf_counter()
    run_games(tables, engine="fast", n_players=4, n_games=20000, seed=2 + r, policies=policies,
              expansions=EXP)  # fmt: skip
    best = max(best, 20000 / (time.perf_counter() - t0))
print(sys.argv[1], f"{best:,.0f} games/s (best of 3)")
