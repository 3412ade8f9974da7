"""What the fight rollouts' rule search costs (docs/benchmarks.md): the default line-up's fight
rollouts at 4 players, 2,000 points and 16 forks each way, with the rule search on 1,000 points
(25 candidates x 4 replicates on the even-numbered games, the chosen and the own on the odd
ones) and without it, warm (a first call of 4 points loads the kernels).
usage: PYTHONPATH=ROOT python scripts/fight_rule_cost.py"""

import time

from games.abyss.report import rollout_lineup
from games.abyss.report.rollout import run_rollouts
from sim import games

spec = games.get("abyss")
tables = spec.load_cards(None, [], ("leviathan",))
lineup = rollout_lineup(spec.default_tournament.split(","))
lineup = [lineup[i % len(lineup)] for i in range(max(4, len(lineup)))]
for points, rule_points in ((4, 2), (2000, 1000), (2000, 0), (2000, 1000)):
    t0, c0 = time.perf_counter(), time.process_time()
    run_rollouts(tables, n_players=4, strategies=lineup, seed=1, n_points=points, replicates=16,
                 rule_points=rule_points, rule_replicates=4, progress=False)  # fmt: skip
    print(f"{points} points, rule search on {rule_points}: {time.perf_counter() - t0:.1f} s wall, "
          f"{time.process_time() - c0:.1f} s CPU", flush=True)
