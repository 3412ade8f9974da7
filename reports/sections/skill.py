"""The report's "Skill against luck" section and the skill verdict (`reports.metrics.skill`
measures the ladder): each step with its interval, the span, a chart."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from reports.metrics.skill import CONF, Ladder, ladder, saved
from sim.core.runs import read_table


def step_text(row) -> str:
    """A step as the report and docs state it: `0.76 [0.53, 1.01]`, or `at least 3.4` at a
    sweep (`at most -3.4` where the stronger rung is swept)."""
    if not row["sweep"]:
        return f"{row['steps']:.2f} [{row['steps lo']:.2f}, {row['steps hi']:.2f}]"
    if math.isfinite(row["steps lo"]):
        return f"at least {row['steps lo']:.2f}"
    return f"at most {row['steps hi']:.2f}"


def chart(lad: Ladder):
    """Each rung's share against the one below it, with the steps it adds."""
    from reports.render.charts import error_bars, figure

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
        n = int(path.stem.removeprefix("skill-").removesuffix("p"))
        lad = saved(pd.read_csv(path), n, _blocks(Path(run_dir), n))
        if lad is None:
            sec.paragraph(f"{n} players: this ladder was saved by an older `abyss-mc skill`; "
                          "run it again to show it here.")  # fmt: skip
            continue
        sec.figure(chart(lad), f"skill-{n}p", f"{n} players: {lad.verdict()}; each rung's "
                   "share against the one below it, 95% intervals (one-sided at a sweep)")
        steps = lad.steps
        shown = steps[["weaker", "stronger", "stronger's share", "lo", "hi"]].assign(**{
            "steps [95%]": [step_text(r) for _, r in steps.iterrows()],
            "games": steps["games"], "deals": steps["blocks"]})  # fmt: skip
        sec.table(shown, float_format="{:.3f}", caption=f"{n} players: the steps between "
                  "adjacent rungs (a step: the stronger wins 75% head to head; at a sweep, "
                  "at least so many, the Clopper-Pearson bound over the deals)")  # fmt: skip
        matrix = path.with_name(f"skill-{n}p-matrix.csv")
        if matrix.is_file():
            sec.table(pd.read_csv(matrix, index_col=0), float_format="{:.1%}",
                      caption=f"{n} players: the row's share of the two players' wins against "
                      "the column, in the games both play")  # fmt: skip
    sec.paragraph("A skill step is the gap at which the stronger player wins 75% of its games "
                  "head to head; the span from the random policy to the best player is a lower "
                  "bound on the game's depth (chess about 14 steps, backgammon 8, roulette 0). "
                  "docs/metrics.md defines it.")  # fmt: skip


def _blocks(run_dir, n_players: int) -> int | None:
    """The blocks of a tournament's part at `n_players` (for a ladder saved without them)."""
    path = run_dir / "seats.parquet"
    if not path.is_file():
        return None
    seats = read_table(path, columns=["n_players", "block"])
    return int(seats.loc[seats["n_players"] == n_players, "block"].nunique()) or None


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
    skill it includes 0 with at least `conf` probability. A sweep is one-sided: "at least" the
    Clopper-Pearson bound over the pair's deals. `by_count`: a tournament's long-form seats
    (`block`, `table`, `strategy`, `win`) per player count. None when fewer than two strategies
    played or the run has no blocks. No `effects`: strengths play different line-ups, so their
    steps are not one quantity a test across strengths could compare."""
    from reports.sections.verdicts import Verdict, level_text, the
    from reports.strengths import card_players

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
    lo, sweep, deals = step["steps lo"], bool(step["sweep"]), int(step["blocks"])
    if not sweep and not math.isfinite(step["se"]):  # one deal both play: no spread to test
        return Verdict("skill", n, False, f"The data cannot tell whether skill separates these "
                       f"players: `{best}` and `{weakest}` share {the(deals, 'deal')} at {n} "
                       "players, too few to test.", deals=deals)  # fmt: skip
    size = (f"{step['steps']:.1f} skill steps [{lo:.1f}, {step['steps hi']:.1f}]" if not sweep
            else f"at least {lo:.1f} skill steps" if math.isfinite(lo)
            else f"at most {step['steps hi']:.1f} skill steps")  # fmt: skip
    sweeper = best if step["stronger's share"] >= 0.5 else weakest
    how = (f"a one-sided bound at the {level_text(1 - (1 - level) / 2)} level, Clopper-Pearson "
           f"over the {deals} deals both play, as `{sweeper}` wins all or nearly all of them"
           if sweep else f"the interval at the {level_text(level)} level, over the {deals} "
           "deals both play")  # fmt: skip
    figures = (f"`{best}` is {size} above `{weakest}` at {n} players, head to head in the "
               f"games both play (a step: the stronger wins 75%; {how}; Bonferroni over "
               f"{the(pairs, 'pair')} of strategies, as the pair is picked after looking)")
    if lo > 0:
        shown = f"at least {lo:.1f}" if sweep else f"{step['steps']:.1f}"
        return Verdict("skill", n, True, f"Skill separates these players: {figures}.",
                       key="skill", short=f"{shown} steps best over weakest ({n}p)",
                       deals=deals)  # fmt: skip
    return Verdict("skill", n, False, f"The data cannot tell whether skill separates these "
                   f"players: {figures}.", deals=deals)  # fmt: skip
