"""A kernel's first call in a process against the next ones (docs/benchmarks.md): the default
line-up's 2-player tournament, 1,000 blocks, three times in one process, warm cache.
usage: PYTHONPATH=ROOT python scripts/first_call_cost.py"""

import time

from reports.play.tournament import run_tournament
from sim import games

spec = games.get("abyss")
tables = spec.load_cards(None, [], ("leviathan",))
names = spec.default_tournament.split(",")
for _ in range(3):
    t0, c0 = time.perf_counter(), time.process_time()
    run_tournament(tables, names, n_players=2, n_blocks=1000, seed=1, design="balanced",
                   crn="auto", threads=2, progress=False, game="abyss", store=None,
                   client=None)  # fmt: skip
    print(f"2p tournament: {time.perf_counter() - t0:.2f} s wall, "
          f"{time.process_time() - c0:.2f} s CPU", flush=True)
