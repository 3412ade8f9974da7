"""Head-to-head win rates of one strategy against each other one, from a tournament's seats
(`abyss-mc tournament --design all`, so every pair meets): the strategy's win share over the
tables it shares with that opponent, with a t interval over blocks (docs/search.md).

    python scripts/head_to_head.py RUN_DIR search
"""

from __future__ import annotations

import sys

import pandas as pd
from scipy import stats


def head_to_head(seats: pd.DataFrame, me: str) -> pd.DataFrame:
    """Per opponent: tables, `me`'s win share, its 95% interval over blocks."""
    seats = seats.assign(strategy=seats["strategy"].astype(str))
    key = ["block", "table"]
    mine = seats[seats["strategy"] == me].set_index(key)["win"]
    others = seats[seats["strategy"] != me]
    rows = []
    for opponent, part in others.groupby("strategy"):
        tables = part.set_index(key).index.unique().intersection(mine.index.unique())
        if tables.empty:
            continue
        share = mine.loc[tables].groupby(level="block").mean()
        lo, hi = stats.t.interval(0.95, len(share) - 1, loc=share.mean(), scale=stats.sem(share))
        rows.append({"opponent": opponent, "tables": len(tables), "win_rate": share.mean(),
                     "lo": lo, "hi": hi})  # fmt: skip
    return pd.DataFrame(rows).sort_values("win_rate").set_index("opponent")


if __name__ == "__main__":
    run, me = sys.argv[1], sys.argv[2]
    table = head_to_head(pd.read_parquet(f"{run}/seats.parquet"), me)
    print(f"| opponent | tables | `{me}` wins [95% CI] |\n|---|---:|---|")
    for opponent, r in table.iterrows():
        print(f"| `{opponent}` | {int(r['tables']):,} | {r['win_rate']:.1%} [{r['lo']:.1%}, "
              f"{r['hi']:.1%}] |")
