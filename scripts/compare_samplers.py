"""Which optuna sampler `abyss-mc tune` uses, measured (docs/decisions.md, "Tuning: optuna's TPE").

For each seed and sampler: tune all 15 parameters of `leviathan_hunter` at 4 players (Abyss with
Leviathan) against three copies of itself, 96 candidates x 3,000 games on the same deals; then
the finalists (the best five and the start) play 20,000 fresh games each, and the best of those is
the sampler's result. Parity is 25%; the start scores exactly 25% against copies of itself.

    python scripts/compare_samplers.py
"""

from __future__ import annotations

import time

import numpy as np

from reports.tune import REEVAL, Problem, Search, derived_seed, evaluate, finalists, run_search
from sim import games


def main() -> None:
    spec = games.get("abyss")
    tables = spec.load_cards(None, [], ("leviathan",))
    reg = spec.strategies()
    pol = reg.make_policy("leviathan_hunter")
    space = reg.search_space("heuristic")
    values = {k: getattr(pol, k) for k in space}
    for seed in (1, 2):
        for sampler in ("tpe", "cmaes", "random"):
            p = Problem("abyss", tables, 4, "leviathan_hunter", "heuristic", values, space,
                        ["leviathan_hunter"] * 3, seed, reg)  # fmt: skip
            t = time.time()
            rows = run_search(p, Search(sampler=sampler, candidates=96, batch=8, blocks=750))
            fin = finalists(rows, 5)
            fresh = evaluate(p, [r["spec"] for r in fin], seed=derived_seed(seed, REEVAL),
                             n_blocks=5000).mean(axis=1)  # fmt: skip
            best = int(np.argmax(fresh))
            top = max(r["win_rate"] for r in rows)
            print(f"seed {seed} {sampler:7s} search best {top:.4f} fresh best {fresh[best]:.4f} "
                  f"(candidate {fin[best]['candidate']}) {time.time() - t:.0f} s", flush=True)


if __name__ == "__main__":
    main()
