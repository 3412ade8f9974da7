"""The discard piles of the Conspiracy balance report: recruiting from a pile or by drawing.

Per strategy, how often a seat takes a discard pile; the win rate by the share of recruitment
turns spent on piles; and `pile_raider` against the other heuristics. All of it is descriptive:
the causal effect of the pile threshold needs a tournament of strategies that differ only in
`pile_min` (`pile_min_pairs` finds them).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from games.conspiracy.report.run import ConspiracyRun
from games.conspiracy.report.stats import group_rates
from reports.sections.seat_tables import CONF

__all__ = [
    "PILE_LABELS",
    "RAIDER",
    "param_differences",
    "pile_min_pairs",
    "pile_raider_head_to_head",
    "pile_share",
    "pile_share_rates",
    "pile_summary",
]

#: Bins of the share of a seat's recruitment turns spent taking a discard pile.
PILE_BINS = (-np.inf, 0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
PILE_LABELS = ("none", "(0, 20%]", "(20%, 40%]", "(40%, 60%]", "(60%, 80%]", "(80%, 100%]")
RAIDER = "pile_raider"


def pile_summary(run: ConspiracyRun) -> pd.DataFrame:
    """Per strategy: mean pile takes, draws and Lords from piles per seat-game, the mean Lords,
    and the pooled shares of recruitment turns (pile takes / (pile takes + draws)) and of Lords
    that came from discard piles."""
    g = run.seats.groupby(run.strategy_keys, sort=True)
    sums = g[["pile_takes", "draws", "pile_lords", "n_lords"]].sum()
    means = g[["pile_takes", "draws", "pile_lords", "n_lords"]].mean()
    return pd.DataFrame(
        {
            "pile takes": means["pile_takes"],
            "draws": means["draws"],
            "Lords from piles": means["pile_lords"],
            "Lords": means["n_lords"],
            "turns from piles": sums["pile_takes"] / (sums["pile_takes"] + sums["draws"]),
            "Lords from piles (share)": sums["pile_lords"] / sums["n_lords"],
        }
    )


def pile_share(seats: pd.DataFrame) -> pd.Categorical:
    """Each seat-game's share of recruitment turns that took a discard pile, binned
    (`PILE_LABELS`; NaN for a seat that never recruited)."""
    takes = seats["pile_takes"].to_numpy(dtype=float)
    turns = takes + seats["draws"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(turns > 0, takes / turns, np.nan)
    return pd.cut(share, PILE_BINS, labels=list(PILE_LABELS), right=True)


def pile_share_rates(run: ConspiracyRun) -> pd.DataFrame:
    """Win rate and mean IP by binned share of recruitment turns from piles (all strategies
    together; per player count if several), with ``share`` = the bin's share of seat-games."""
    df = run.seats.assign(**{"from piles": pile_share(run.seats)})
    keys = ["players", "from piles"] if run.multi else ["from piles"]
    rates = group_rates(df.dropna(subset=["from piles"]), keys, run.cluster)
    total = rates.groupby(level=0)["seat-games"].transform("sum") if run.multi else None
    share = rates["seat-games"] / (total if total is not None else rates["seat-games"].sum())
    rates.insert(1, "share", share)
    return rates


def _policy(spec: str):
    try:
        from games.conspiracy.strategies import REGISTRY

        return REGISTRY.make_policy(spec)
    except Exception:  # a user preset not loaded here, or a renamed one
        return None


def _is_heuristic(spec: str) -> bool:
    from games.conspiracy.strategies import HeuristicPolicy

    policy = _policy(spec)
    if policy is None:
        return spec.split(":")[0] != "random"
    return isinstance(policy, HeuristicPolicy)


def _params(spec: str) -> dict | None:
    import dataclasses

    policy = _policy(spec)
    if policy is None:
        return None
    return {f.name: getattr(policy, f.name) for f in dataclasses.fields(policy) if f.name != "name"}


def param_differences(a: str, b: str) -> str:
    """The parameters in which two strategies differ, as ``key a/b`` text."""
    pa, pb = _params(a), _params(b)
    if pa is None or pb is None or type(_policy(a)) is not type(_policy(b)):
        return "unknown" if pa is None or pb is None else "different policies"
    diff = [f"{k} {pa[k]}/{pb[k]}" for k in pa if pa[k] != pb[k]]
    return ", ".join(diff) or "none"


def pile_min_pairs(strategies: list[str]) -> list[tuple[str, str]]:
    """Pairs of heuristic strategies that differ in `pile_min` and in nothing else."""
    out = []
    for i, a in enumerate(strategies):
        for b in strategies[i + 1 :]:
            pa, pb = _params(a), _params(b)
            if pa is None or pb is None or not (_is_heuristic(a) and _is_heuristic(b)):
                continue
            if set(pa) == set(pb) and [k for k in pa if pa[k] != pb[k]] == ["pile_min"]:
                out.append((a, b))
    return out


def pile_raider_head_to_head(run: ConspiracyRun) -> pd.DataFrame | None:
    """`pile_raider` minus each other heuristic strategy of the run: the difference in win rate
    and mean IP, paired within games (simulate) or blocks (tournament), t intervals over those,
    p-values Holm-adjusted over the comparisons; None without `pile_raider` or another
    heuristic. Descriptive: the strategies differ in more than their use of the piles."""
    from reports.stats import blocks as stats

    names = run.strategies
    raider = (
        RAIDER if RAIDER in names else next((s for s in names if s.split(":")[0] == RAIDER), None)
    )
    if raider is None:
        return None
    others = [s for s in names if s != raider and _is_heuristic(s)]
    if not others:
        return None
    rows = []
    for n in run.counts:
        part = run.seats[
            (run.seats["players"] == n) & run.seats["strategy"].isin([raider, *others])
        ]
        df = pd.DataFrame(
            {
                "block": part["block"] if run.is_tournament else part["game"],
                "table": part["table"] if run.is_tournament else 0,
                "seat": part["seat"],
                "strategy": part["strategy"],
                "win": part["win"],
                "ip": part["ip"],
                "rank": part["rank"],
            }
        )
        found = {}
        for metric in ("win", "ip"):
            pairs = stats.pairwise(df, metric=metric, conf=CONF, correction="none")
            for row in pairs.itertuples(index=False):
                if raider not in (row.a, row.b):
                    continue
                sign = 1.0 if row.a == raider else -1.0
                other = row.b if row.a == raider else row.a
                lo, hi = (row.lo, row.hi) if sign > 0 else (-row.hi, -row.lo)
                entry = found.setdefault(other, {"pairs": row.n_blocks})
                entry[metric] = (sign * row.diff, lo, hi, row.p)
        if not found:
            continue
        others_here = [o for o in others if o in found]
        p_win = stats.adjust_pvalues([found[o]["win"][3] for o in others_here], "holm")
        p_ip = stats.adjust_pvalues([found[o]["ip"][3] for o in others_here], "holm")
        for o, pw, pi in zip(others_here, p_win, p_ip, strict=True):
            e = found[o]
            rows.append(
                {
                    "players": n,
                    "versus": o,
                    "games" if not run.is_tournament else "blocks": e["pairs"],
                    "win diff": e["win"][0],
                    "win lo": e["win"][1],
                    "win hi": e["win"][2],
                    "win p (Holm)": pw,
                    "IP diff": e["ip"][0],
                    "IP lo": e["ip"][1],
                    "IP hi": e["ip"][2],
                    "IP p (Holm)": pi,
                    "differs in": param_differences(raider, o),
                }
            )
    if not rows:
        return None
    frame = pd.DataFrame(rows).set_index(["players", "versus"])
    return frame if run.multi else frame.droplevel("players")
