"""Skill against luck: a ladder of players of increasing strength played against each other, and
how many *skill steps* separate its bottom from its top (docs/metrics.md).

A skill step is the gap at which the stronger player wins 75% of its games against the weaker
one, head to head (the "skill differentials" of the chess and backgammon literature: counted
from a beginner to the world's best, Go has about 40, chess 14, poker 10, backgammon 8,
blackjack 2, roulette 0). Between two rungs, the stronger's win share p in the games both play
gives logit(p) / ln 3 steps (ln 3 is the logit of 75%); the ladder's span is the sum over its
adjacent rungs, the chain of the literature's definition. A game of pure chance has no steps:
every rung wins its fair share. With more than two players, p is the stronger's share of the
two players' wins in the games both play (the head-to-head of `reports.cycles`), so the same
scale holds for every player count.

The ladder's bottom is the random policy and its top the strongest player we have, so the span
is a lower bound on the game's depth (better players would add steps).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reports import cycles as Y

#: the logit of a 75% win: one skill step
STEP = math.log(3.0)
CONF = 0.95


def _steps(p: float) -> float:
    return math.log(p / (1 - p)) / STEP


@dataclass
class Ladder:
    rungs: list[str]
    matrix: pd.DataFrame  # head to head: row's share of the two players' wins against column
    steps: pd.DataFrame  # per adjacent pair: share, interval, steps and their interval, games
    span: tuple[float, float, float]  # the ladder's skill steps and their interval
    n_players: int

    def verdict(self) -> str:
        steps, lo, hi = self.span
        if lo > 0:
            return f"{steps:.1f} skill steps [{lo:.1f}, {hi:.1f}] from `{self.rungs[0]}` to " \
                f"`{self.rungs[-1]}`"  # fmt: skip
        return f"cannot tell any skill: {steps:.1f} steps [{lo:.1f}, {hi:.1f}]"


def ladder(seats: pd.DataFrame, rungs: list[str], n_players: int, conf: float = CONF) -> Ladder:
    """The ladder of `rungs` (weakest first) from a tournament's long-form seats (`block`,
    `table`, `strategy`, `win`) in which every pair of rungs shares games."""
    from scipy.special import ndtri

    table = Y.head_to_head(seats[seats["strategy"].isin(rungs)], n_players)
    index = [table.names.index(r) for r in rungs]
    d = table.share - table.share.T  # i's win share minus j's in their shared games
    se_d = np.hypot(table.se, table.se.T)
    # the stronger's share of the two players' wins: (1 + d / (w_i + w_j)) / 2 at 2 players;
    # with more players, the pair's shares are normalised to the two of them
    pair_total = _pair_totals(seats, rungs)
    z = float(ndtri(0.5 + conf / 2))
    rows = []
    for a, b in zip(rungs, rungs[1:], strict=False):
        i, j = table.names.index(b), table.names.index(a)
        w = pair_total.get((a, b), 1.0)
        p = 0.5 + d[i, j] / (2 * w)
        se_p = se_d[i, j] / (2 * w)
        n = int(table.n[i, j])
        lo_p, hi_p = p - z * se_p, p + z * se_p
        s, s_lo, s_hi, sweep = share_steps(p, lo_p, hi_p, n, conf)
        rows.append({"weaker": a, "stronger": b, "stronger's share": p, "lo": lo_p,
                     "hi": hi_p, "steps": s, "steps lo": s_lo, "steps hi": s_hi, "games": n,
                     "sweep": sweep})  # fmt: skip
    share = pd.DataFrame(table.share, index=table.names, columns=table.names)
    matrix = (0.5 + (share - share.T) / 2).iloc[index, index]
    steps = pd.DataFrame(rows)
    return Ladder(list(rungs), matrix, steps, span_of(steps), n_players)


def span_of(steps: pd.DataFrame) -> tuple[float, float, float]:
    """The ladder's span: the sum of its steps, each step's distance to its interval's ends added
    in quadrature on each side."""
    s = steps["steps"].to_numpy(float)
    below = math.sqrt(float(((s - steps["steps lo"].to_numpy(float)) ** 2).sum()))
    above = math.sqrt(float(((steps["steps hi"].to_numpy(float) - s) ** 2).sum()))
    return float(s.sum()), float(s.sum()) - below, float(s.sum()) + above


def share_steps(p: float, lo: float, hi: float, games: int,
                conf: float) -> tuple[float, float, float, bool]:  # fmt: skip
    """A head-to-head share and its interval in skill steps: each end carried through the logit
    (monotone; the delta method blows up at the edge, where a third player's wins still vary a
    pair's shares: 5.2 steps [-2.9, 13.2] for greedy over random at 4 players), clipped at a
    near-sweep (1/(2(n+1)) from the edge: a sweep counts as almost one). At a near-sweep the
    far end is the Clopper-Pearson bound of the games (the steps are then "at least" that end).
    Returns (steps, lo, hi, near-sweep)."""
    edge = 0.5 / (games + 1)
    sweep = bool(hi >= 1 - edge or lo <= edge)
    if sweep and np.isfinite(p):
        from scipy.stats import beta

        won = round(min(max(p, 0.0), 1.0) * games)
        if p >= 0.5:  # the normal interval fails at the edge: [0.949, 1.051] for 360 of 360
            lo = float(beta.ppf((1 - conf) / 2, won, games - won + 1))
        else:
            hi = float(beta.ppf(1 - (1 - conf) / 2, won + 1, games - won))
    steps, s_lo, s_hi = (_steps(min(max(x, edge), 1 - edge)) for x in (p, lo, hi))
    return steps, s_lo, s_hi, sweep


def _pair_totals(seats: pd.DataFrame, rungs: list[str]) -> dict:
    """For each adjacent pair, the mean of the two players' summed win shares in the games both
    play (1 at two players; less with more seats, where a third player may win)."""
    wide = Y.wins_by_game(seats)
    out = {}
    for a, b in zip(rungs, rungs[1:], strict=False):
        both = wide[[a, b]].dropna()
        total = float((both[a] + both[b]).mean()) if len(both) else math.nan
        out[(a, b)] = total if total > 0 else 1.0
    return out


def chart(lad: Ladder):
    """Each rung's share against the one below it, with the steps it adds."""
    from reports.charts import error_bars, figure

    s = lad.steps
    fig = figure(figsize=(max(6.5, 1.5 + 1.5 * len(s)), 2.8))
    ax = fig.add_subplot()
    x = np.arange(len(s))
    ax.bar(x, s["stronger's share"], color="#4C72B0")
    ax.errorbar(x, s["stronger's share"], yerr=error_bars(s["stronger's share"], s["lo"],
                s["hi"]), fmt="none", color="black", capsize=3)  # fmt: skip
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=0.8, label="no skill (50%)")
    ax.axhline(0.75, color="grey", linestyle=":", linewidth=0.8, label="one step (75%)")
    ax.set_xticks(x, [f"{_short(b)}\nvs {_short(a)}" for a, b in
                      zip(s["weaker"], s["stronger"], strict=True)], fontsize=7)  # fmt: skip
    ax.set_ylabel("stronger's share", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=7, frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def add_section(report, run_dir) -> None:
    """`Skill against luck: the ladder`, when `abyss-mc skill` measured one in `run_dir`
    (skill/skill-<N>p.csv and the matrix of every pair, skill-<N>p-matrix.csv)."""
    from pathlib import Path

    found = sorted(Path(run_dir, "skill").glob("skill-*p.csv"))
    if not found:
        return
    sec = report.section("Skill against luck: the ladder")
    for path in found:
        steps = pd.read_csv(path)
        n = int(path.stem.removeprefix("skill-").removesuffix("p"))
        lad = Ladder([*steps["weaker"][:1], *steps["stronger"]], pd.DataFrame(), steps,
                     span_of(steps), n)  # fmt: skip
        sec.figure(chart(lad), f"skill-{n}p", f"{n} players: {lad.verdict()}; each rung's "
                   "share against the one below it, 95% intervals")  # fmt: skip
        shown = steps[["weaker", "stronger", "stronger's share", "lo", "hi", "steps",
                       "steps lo", "steps hi", "games"]]  # fmt: skip
        sec.table(shown, float_format="{:.3f}", caption=f"{n} players: the steps between "
                  "adjacent rungs (a step: the stronger wins 75% head to head)")  # fmt: skip
        matrix = path.with_name(f"skill-{n}p-matrix.csv")
        if matrix.is_file():
            sec.table(pd.read_csv(matrix, index_col=0), float_format="{:.1%}",
                      caption=f"{n} players: the row's share of the two players' wins against "
                      "the column, in the games both play")  # fmt: skip
    sec.paragraph("A skill step is the gap at which the stronger player wins 75% of its games "
                  "head to head; the span from the random policy to the best player is a lower "
                  "bound on the game's depth (chess about 14 steps, backgammon 8, roulette 0). "
                  "docs/metrics.md defines it.")  # fmt: skip


def _short(name: str) -> str:
    """A strategy's name for an axis: its policy and its first parameter's value
    (`search:rollouts=16:rollout_policy=x` -> `search 16`), cut to 20 characters."""
    head, *params = name.split(":")
    return (head + (f" {params[0].partition('=')[2]}" if params else ""))[:20]


# --- the verdict table's skill row ---------------------------------------------------------------
def skill_verdict(by_count: dict, conf: float = CONF):
    """Does skill separate one play strength's players? At the report's card player count
    (`reports.strengths.card_players`), the strategy that wins most against the one that wins
    least, head to head in the games both play, in skill steps. The pair is picked after looking,
    so its interval is Bonferroni-widened over every pair of strategies: with players of equal
    skill it includes 0 with at least `conf` probability. `by_count`: a tournament's long-form
    seats (`block`, `table`, `strategy`, `win`) per player count. None when fewer than two
    strategies played or the run has no blocks."""
    from reports.strengths import card_players
    from reports.verdicts import Verdict

    usable = {n: df for n, df in by_count.items() if df is not None and len(df)
              and {"block", "table"} <= set(df.columns) and df["strategy"].nunique() > 1}
    if not usable:
        return None
    n = card_players(list(usable))
    seats = usable[n].astype({"strategy": str})
    rates = seats.groupby("strategy")["win"].mean().sort_values(kind="stable")
    weakest, best = str(rates.index[0]), str(rates.index[-1])
    pairs = len(rates) * (len(rates) - 1) // 2
    level = 1 - (1 - conf) / pairs
    step = ladder(seats, [weakest, best], n, conf=level).steps.iloc[0]
    steps, lo, hi, sweep = (step["steps"], step["steps lo"], step["steps hi"],
                            bool(step["sweep"]))  # fmt: skip
    size = (f"at least {lo:.1f} skill steps" if sweep else
            f"{steps:.1f} skill steps [{lo:.1f}, {hi:.1f}]")  # fmt: skip
    figures = (f"`{best}` is {size} above `{weakest}` at "
               f"{n} players, head to head in the games both play (a step: the stronger wins "
               f"75%; the interval at the {level:.1%} level, Bonferroni over the {pairs} pairs "
               "of strategies, as the pair is picked after looking)")
    if lo > 0:
        shown = f"≥{lo:.1f}" if sweep else f"{steps:.1f}"
        return Verdict("skill", n, True, f"Skill separates these players: {figures}.",
                       key="skill", short=f"{shown} steps best over weakest ({n}p)")
    return Verdict("skill", n, False, f"The data cannot tell whether skill separates these "
                   f"players: {figures}.")  # fmt: skip
