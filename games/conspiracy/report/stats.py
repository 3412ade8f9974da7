"""The statistics of the Conspiracy balance report: seats, strategies, points by source,
coalitions, Locations and game length, each a table of a `ConspiracyRun`
(`games.conspiracy.report.run`).

Intervals are 95% (`reports.sections.seat_tables.CONF`); `group_rates` says how they are made for
subgroups of seat-games, with or without the blocks of a tournament as clusters.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from games.conspiracy.report.run import SOURCE_LABELS, ConspiracyRun
from reports.sections.seat_tables import CONF, seat_advantage_blocks
from reports.stats.intervals import t_quantile, wilson_interval

__all__ = [
    "coalition_distribution",
    "end_reasons",
    "game_length",
    "group_rates",
    "location_impact",
    "points_by_source",
    "seat_advantage",
    "strategy_rates",
]


def group_rates(seats: pd.DataFrame, by: str | list[str], cluster: str | None = None):
    """Win rate and mean IP of each group of seat-games, with 95% intervals.

    Columns: ``seat-games``, ``win rate`` (mean of ``win``, the share of first place), ``win lo``,
    ``win hi``, ``mean IP``, ``IP lo``, ``IP hi``. Without `cluster` the seat-games are taken as
    independent: Wilson interval for the rate (on the rounded number of wins), Student t for the
    mean. With `cluster` (a tournament's ``block``) the interval is cluster-robust: the linearised
    variance of the ratio estimator, ``G/(G-1) * sum_b (y_b - r n_b)^2 / N^2`` over the G clusters
    of the frame, with a t quantile on G - 1 degrees of freedom; the rate interval is clipped to
    [0, 1] and never narrower than the Wilson interval.
    """
    keys = [by] if isinstance(by, str) else list(by)
    df = seats[[*keys, "win", "ip", *([cluster] if cluster else [])]].copy()
    df["ip2"] = df["ip"] ** 2
    g = df.groupby(keys, observed=True, sort=True)
    n = g.size()
    wins = g["win"].sum()
    ip = g["ip"].sum()
    ip2 = g["ip2"].sum()
    out = pd.DataFrame(index=n.index)
    out["seat-games"] = n.astype(int)
    out["win rate"] = wins / n
    out["mean IP"] = ip / n
    wilson = [wilson_interval(int(round(w)), int(k), CONF) for w, k in zip(wins, n, strict=True)]
    wl = np.array([lo for lo, _ in wilson])
    wh = np.array([hi for _, hi in wilson])
    if cluster is None:
        out["win lo"], out["win hi"] = wl, wh
        var = (ip2 - ip**2 / n) / (n - 1)
        half = np.array(
            [
                t_quantile(CONF, int(k) - 1) * math.sqrt(max(v, 0.0) / k) if k > 1 else np.nan
                for v, k in zip(var, n, strict=True)
            ]
        )
    else:
        n_clusters = df[cluster].nunique()
        per = df.groupby([*keys, cluster], observed=True, sort=False).agg(
            n=("win", "size"), w=("win", "sum"), s=("ip", "sum")
        )
        group = per.index.droplevel(cluster)
        r_win = out["win rate"].reindex(group).to_numpy()
        r_ip = out["mean IP"].reindex(group).to_numpy()
        per["zw"] = (per["w"] - r_win * per["n"]) ** 2
        per["zs"] = (per["s"] - r_ip * per["n"]) ** 2
        sums = per.groupby(level=list(range(len(keys))), observed=True)[["zw", "zs"]].sum()
        sums = sums.reindex(out.index)
        if n_clusters > 1:
            q = t_quantile(CONF, n_clusters - 1) * math.sqrt(n_clusters / (n_clusters - 1))
            half_w = q * np.sqrt(sums["zw"].to_numpy()) / n.to_numpy()
            half = q * np.sqrt(sums["zs"].to_numpy()) / n.to_numpy()
        else:
            half_w = half = np.full(len(out), np.nan)
        rate = out["win rate"].to_numpy()
        out["win lo"] = np.clip(np.fmin(rate - half_w, wl), 0.0, 1.0)
        out["win hi"] = np.clip(np.fmax(rate + half_w, wh), 0.0, 1.0)
        if n_clusters < 2:
            out["win lo"], out["win hi"] = np.nan, np.nan
    out["IP lo"] = out["mean IP"] - half
    out["IP hi"] = out["mean IP"] + half
    return out[["seat-games", "win rate", "win lo", "win hi", "mean IP", "IP lo", "IP hi"]]


def seat_advantage(run: ConspiracyRun) -> pd.DataFrame:
    """Win rate of each seat (1 = first player) per player count, indexed (players, seat):
    Wilson intervals over seat-games (simulate) or t intervals over blocks (tournament,
    `reports.sections.seat_tables.seat_advantage_blocks`). Columns ``games``, ``win rate``, ``lo``,
    ``hi``."""
    frames = []
    for n in run.counts:
        part = run.seats[run.seats["players"] == n]
        if run.is_tournament:
            frame = seat_advantage_blocks(part)
        else:
            rates = group_rates(part.assign(seat=part["seat"] + 1), "seat")
            frame = pd.DataFrame(
                {
                    "games": rates["seat-games"],
                    "win rate": rates["win rate"],
                    "lo": rates["win lo"],
                    "hi": rates["win hi"],
                }
            )
        frame = frame.reset_index()
        frame.insert(0, "players", n)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True).set_index(["players", "seat"])


def strategy_rates(run: ConspiracyRun, n_players: int) -> pd.DataFrame:
    """Win rate and mean IP per strategy at one player count (simulate: Wilson and t over
    seat-games), sorted by decreasing win rate."""
    part = run.seats[run.seats["players"] == n_players]
    rates = group_rates(part, "strategy")
    return rates.sort_values("win rate", ascending=False, kind="stable")


def points_by_source(run: ConspiracyRun) -> pd.DataFrame:
    """Mean IP per seat-game from each source, per strategy; the last column is the mean total."""
    g = run.seats.groupby(run.strategy_keys, sort=True)
    frame = g[list(SOURCE_LABELS)].mean().rename(columns=SOURCE_LABELS)
    frame["total"] = g["ip"].mean()
    return frame


def coalition_distribution(run: ConspiracyRun) -> pd.DataFrame:
    """Share of each strategy's seat-games ending with a largest same-colour coalition of each
    size (columns: sizes), plus its mean size."""
    table = pd.crosstab(
        [run.seats[k] for k in run.strategy_keys], run.seats["coalition_size"], normalize="index"
    )
    sizes = run.seats["coalition_size"]
    table = table.reindex(columns=range(int(sizes.min()), int(sizes.max()) + 1), fill_value=0.0)
    table.columns = [int(c) for c in table.columns]
    table.columns.name = "coalition size"
    mean = run.seats.groupby(run.strategy_keys)["coalition_size"].mean()
    table["mean"] = mean.reindex(table.index).to_numpy()
    return table


def location_impact(run: ConspiracyRun, n_players: int) -> tuple[pd.DataFrame, float]:
    """For each Location (in card order): ``#`` (printed number), ``held`` (seat-games ending
    with it), ``pick rate`` (share of seat-games), the win rate of its holders with its interval
    (``lo``, ``hi``: Wilson, or cluster-robust over blocks in a tournament) and ``vs overall``
    (minus the win rate of all seats). Returns (table indexed by Location name, overall rate)."""
    part = run.seats[run.seats["players"] == n_players]
    bits = part["location_set"].to_numpy().astype(np.int64) & 0xFFFFFFFF
    tables = run.tables()
    if tables is not None:
        names = list(tables.location_names)
        numbers = [int(x) for x in tables.location_number]
    else:
        top = int(bits.max()).bit_length() if len(bits) else 0
        names = [f"Location {i}" for i in range(top)]
        numbers = [None] * top
    overall = float(part["win"].mean())
    cols = ["win", "ip", *([run.cluster] if run.cluster else [])]
    base = part[cols].reset_index(drop=True)
    rows = []
    for i, name in enumerate(names):
        held = ((bits >> i) & 1).astype(bool)
        win = lo = hi = np.nan
        if held.any():
            # every seat-game stays in the frame: in a tournament the blocks without a holder
            # still count as clusters (a subgroup's size per block is random)
            rates = group_rates(base.assign(held=held), "held", run.cluster).loc[True]
            win, lo, hi = rates["win rate"], rates["win lo"], rates["win hi"]
        rows.append(
            {
                "Location": name,
                "#": numbers[i],
                "held": int(held.sum()),
                "pick rate": held.mean() if len(held) else np.nan,
                "win rate": win,
                "lo": lo,
                "hi": hi,
                "vs overall": win - overall,
            }
        )
    return pd.DataFrame(rows).set_index("Location"), overall


def game_length(run: ConspiracyRun) -> pd.DataFrame:
    """Player turns per game (all players' turns together), per player count."""
    rows = []
    for n in run.counts:
        turns = run.games.loc[run.games["n_players"] == n, "turns"].to_numpy(dtype=float)
        q = np.quantile(turns, [0.05, 0.5, 0.95])
        rows.append(
            {
                "players": n,
                "games": len(turns),
                "mean turns": turns.mean(),
                "sd": turns.std(ddof=1) if len(turns) > 1 else np.nan,
                "mean rounds": turns.mean() / n,
                "min": turns.min(),
                "5%": q[0],
                "median": q[1],
                "95%": q[2],
                "max": turns.max(),
            }
        )
    return pd.DataFrame(rows).set_index("players")


def end_reasons(run: ConspiracyRun) -> pd.DataFrame:
    """Games and share of games per end reason, per player count."""
    games = run.games.assign(end_reason=run.games["end_reason"].astype(str))
    counts = games.groupby(["n_players", "end_reason"]).size().rename("games").reset_index()
    counts["share"] = counts["games"] / counts.groupby("n_players")["games"].transform("sum")
    counts = counts.rename(columns={"n_players": "players", "end_reason": "end reason"})
    return counts.set_index(["players", "end reason"])
