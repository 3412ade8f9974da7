"""Time the card values phase with and without the skip (`reports.probe`), alternating, in one
process: R.play_restricted for the strategies of a finished report's card values (its
card_values/<tier>/meta.json: strategy, players, blocks), at its seed.

PYTHONPATH=. python scripts/time_card_values.py REPORT_DIR [ROUNDS]
Prints, per round and mode, the CPU seconds of this process (all threads) and the wall seconds.
"""

import json
import sys
import time
from pathlib import Path

from reports import restrict as R
from reports.play.seeds import card_seed
from reports.tune import Problem
from sim import games

run, rounds = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 2
manifest = json.loads((run / "manifest.json").read_text())
seed = manifest["seed"]
spec = games.get("abyss")
tables = spec.load_cards(None, [], tuple(manifest.get("expansions", ("leviathan",))))
cardlist = spec.report().restrictions(tables)
jobs = []
for meta_path in sorted((run / "card_values").glob("*/meta.json")):
    meta, tier = json.loads(meta_path.read_text()), meta_path.parent.name
    n, best = meta["players"], meta["strategy"]
    problem = Problem("abyss", tables, n, best, "", {}, {}, [best] * (n - 1),
                      card_seed(seed, tier), spec.strategies())  # fmt: skip
    jobs.append((tier, problem, meta["blocks"]))
print([(t, p.start, b) for t, p, b in jobs])
R.play_restricted(jobs[0][1], cardlist, blocks=2, seed=jobs[0][1].seed)  # warm: load kernels
for r in range(rounds):
    for skip in (False, True) if r % 2 == 0 else (True, False):
        c0, w0 = time.process_time(), time.perf_counter()
        out = [R.play_restricted(p, cardlist, blocks=b, seed=p.seed, skip=skip)
               for _, p, b in jobs]  # fmt: skip
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        print(f"round {r} {'skip' if skip else 'full'}: cpu {cpu:.1f} s, wall {wall:.1f} s",
              flush=True)  # fmt: skip
