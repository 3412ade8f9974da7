"""The search player's budget-strength curve (docs/search.md): `search` at several budgets against
three copies of a preset, 4 players, Abyss + Leviathan, the seats rotated game by game. Each point
is one `abyss-mc simulate` run; the win rate has a Wilson interval over games.

    python scripts/search_curve.py --games 40 --budgets 8,16,32,64,128,256 --out /tmp/curve
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--budgets", default="8,16,32,64,128,256")
    ap.add_argument("--opponent", default="pearl_economist_open_4p")
    ap.add_argument("--rollout-policy", default=None, help="default: the strategy's own")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--expansions", default="leviathan", help='"" for the base game')
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--extra", default="", help="more search parameters, e.g. :tree=1")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--chart", type=Path, help="also draw the curve into this PNG")
    a = ap.parse_args()
    from reports.summary import wilson_interval

    a.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for budget in [int(b) for b in a.budgets.split(",")]:
        model = f":rollout_policy={a.rollout_policy}" if a.rollout_policy else ""
        spec = f"search:rollouts={budget}{model}{a.extra}"
        run = a.out / f"b{budget}"
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "reports.cli", "simulate", "--players",
                        str(a.players), "--games", str(a.games), "--engine", "fast", "--seed",
                        str(a.seed), "--expansions", a.expansions, "--strategies",
                        ",".join([spec] + [a.opponent] * (a.players - 1)), "--out", str(run)],
                       check=True, capture_output=True)  # fmt: skip
        seconds = time.perf_counter() - t0
        seats = pd.read_parquet(run / "seats.parquet")
        winners = seats.groupby("game")["winner"].transform("sum")
        seats["win"] = seats["winner"].astype(float) / winners  # a shared first place: a share
        mine = seats[seats["strategy"].astype(str) == spec]
        wins = float(mine["win"].sum())
        lo, hi = wilson_interval(round(wins), len(mine))
        rows.append({"rollouts": budget, "games": len(mine), "win_rate": wins / len(mine),
                     "lo": lo, "hi": hi, "seconds": seconds,
                     "games_per_second": a.games / seconds})  # fmt: skip
        print(json.dumps(rows[-1]), flush=True)
    pd.DataFrame(rows).to_csv(a.out / "curve.csv", index=False)
    if a.chart:
        chart(pd.DataFrame(rows), a).savefig(a.chart, dpi=110, bbox_inches="tight")


def chart(df: pd.DataFrame, a):
    """Win rate with its interval against rollouts per decision (log scale), parity marked."""
    from reports.charts import error_bars, figure

    fig = figure(figsize=(6, 3.6))
    ax = fig.add_subplot()
    ax.errorbar(df["rollouts"], df["win_rate"], yerr=error_bars(df["win_rate"], df["lo"], df["hi"]),
                marker="o", capsize=3, label="search")  # fmt: skip
    ax.axhline(1 / a.players, color="grey", linestyle="--", label=f"parity (1/{a.players})")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("rollouts per decision")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_title(f"search against {a.players - 1} x {a.opponent}", fontsize=9)
    ax.legend(fontsize=8, frameon=False)
    return fig


if __name__ == "__main__":
    main()
