"""How much the tune's budget buys, over several runs per budget (docs/tuning.md, "The budget").

Tunes `key_hunter` at 4 players (Abyss with Leviathan, within its archetype, against
leviathan_hunter, heuristic, farmer) with 96, 192 and 384 candidates of about 3,000 games each,
once per seed, and prints each budget's held-out gains (tuned minus start, 20,000 games each):
every run's, their mean and their spread. A tuner's run is noisy; one run per budget says little.

    python scripts/compare_budgets.py --seeds 1,2,3 --root runs/budgets
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from tune_presets import ROOT, abyss_mc  # scripts/: this checkout's abyss-mc

FIELD = "leviathan_hunter,heuristic,farmer"


def tune(out: Path, seed: int, candidates: int) -> dict:
    if not (out / "manifest.json").is_file():
        args = ["tune", "--strategy", "key_hunter", "--players", "4", "--against", FIELD,
                "--seed", str(seed), "--candidates", str(candidates),
                "--games", str(3000 * candidates), "--out", str(out)]  # fmt: skip
        abyss_mc(*args)
    return json.loads((out / "manifest.json").read_text())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--budgets", default="96,192,384")
    ap.add_argument("--root", type=Path, default=ROOT / "runs" / "budgets")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    print("| candidates | search games | runs | held-out gain per run (points) | mean | "
          "smallest-largest | seconds per run |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for c in (int(b) for b in args.budgets.split(",")):
        runs = [tune(args.root / f"key_hunter-{c}-seed{s}", s, c) for s in seeds]
        gains = np.array([100 * m["config"]["held_out"]["diff"] for m in runs])
        secs = np.mean([m["timings"]["total"] for m in runs])
        each = ", ".join(f"{g:+.1f}" for g in gains)
        print(f"| {c} | {3000 * c:,} | {len(runs)} | {each} | {gains.mean():+.1f} | "
              f"{gains.min():+.1f} to {gains.max():+.1f} | {secs:.0f} |", flush=True)


if __name__ == "__main__":
    main()
