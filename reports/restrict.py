"""`abyss-mc restrict`: what each card is worth to a strategy, by restricted play.

Jaffe & Popovic (2012), "Evaluating competitive game balance with restricted play": a card's
value is how much a strategy loses when it may not use it. For every card of the game's
`restrictions` (Abyss: each Lord and each Location), the strategy forbidden that card plays the
unrestricted strategy in every other seat; its win rate is compared with the unrestricted
strategy's on the very same deals (common random numbers; every rotation of the seats), block by
block. `value` = unrestricted minus restricted win rate, with Holm-adjusted p-values over all
cards and a t interval over blocks at the level Holm's procedure tested each card (95% and
wider): a card is worth something when its interval lies above 0, which is when its Holm-adjusted
p-value is below 0.05; a card the strategy is better off without has one below 0.

The games are those of `reports.tune.evaluate`: the same seating plan, chunks and Dask tasks.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Restricted strategies evaluated per batch (a chunk of a resumable run).
BATCH = 8
#: The finding of a card whose restriction changed no game (the strategy never took it).
NEVER = "never taken"


def batches(n: int) -> list[tuple[int, int]]:
    """(first, count) of the batches of n restricted strategies, after batch 0: the unrestricted
    strategy alone."""
    out = [(0, 1)]
    out += [(1 + i, min(BATCH, n - i)) for i in range(0, n, BATCH)]
    return out


def restricted_specs(start: str, cardlist) -> list[str]:
    """The strategies restricted play compares: `start` unrestricted (row 0), then forbidden
    each card of `cardlist` in turn (row 1 + i)."""
    return [start, *(f"{start}:{forbid}" for _, _, forbid in cardlist)]


def play_restricted(problem, cardlist, *, blocks: int, seed: int, client=None, done=None,
                    save=None, progress=None) -> np.ndarray:  # fmt: skip
    """The win shares of `problem.start` unrestricted (row 0) and forbidden each card of
    `cardlist` (row 1 + i), one column per block; batches in `done` (first -> array) are kept,
    each new batch is passed to `save(first, count, array)`."""
    from reports.tune import evaluate

    specs = restricted_specs(problem.start, cardlist)
    parts = []
    for first, count in batches(len(cardlist)):
        if done and first in done:
            part = done[first]
        else:
            part = evaluate(problem, specs[first:first + count], seed=seed, n_blocks=blocks,
                            client=client)  # fmt: skip
            if save is not None:
                save(first, count, part)
        parts.append(part)
        if progress is not None:
            progress.advance(part.size * problem.n_players)
    return np.concatenate(parts)


def impact_frame(cards: list[tuple[str, str, str]], shares: np.ndarray, n_players: int,
                 conf: float = 0.95) -> pd.DataFrame:  # fmt: skip
    """`shares`: row 0 the unrestricted strategy, row 1 + i the strategy without card i, one
    column per block. One row per card, most valuable first; Holm's correction runs over every
    row (every card and rules question), and `lo`, `hi` are each row's interval at the `level` at
    which that correction tested it (`reports.stats.adjusted_levels`): it excludes 0 exactly when
    the row is a finding."""
    from reports.stats import adjust_pvalues, adjusted_levels, paired_test

    diffs = [shares[0] - shares[1 + i] for i in range(len(cards))]
    p = np.nan_to_num([paired_test(d, conf)[3] for d in diffs], nan=1.0)
    levels = adjusted_levels(p, conf, "holm")
    rows = []
    for i, (kind, name, _) in enumerate(cards):
        value, lo, hi, _ = paired_test(diffs[i], levels[i])
        rows.append({"kind": kind, "card": name, "players": n_players, "value": value,
                     "lo": lo, "hi": hi, "level": levels[i], "p": p[i],
                     "restricted": float(shares[1 + i].mean()),
                     "games": shares.shape[1] * n_players})  # fmt: skip
    df = pd.DataFrame(rows)
    df["p_holm"] = adjust_pvalues(df["p"].to_numpy(), "holm")
    df["finding"] = np.where((df["p_holm"] < 1 - conf) & (df["lo"] > 0), "worth something",
                             np.where((df["p_holm"] < 1 - conf) & (df["hi"] < 0),
                                      "better without", "cannot tell"))  # fmt: skip
    # forbidding it changed no game: the strategy never takes the card on these deals
    unused = [bool(np.all(shares[0] == shares[1 + i])) for i in range(len(cards))]
    df.loc[unused, "finding"] = NEVER
    return df.sort_values(["value", "card"], ascending=[False, True]).reset_index(drop=True)


def summary_text(df: pd.DataFrame, strategy: str, n_players: int, unrestricted: float) -> str:
    lines = [
        f"Restricted play: {strategy} at {n_players} players, forbidden one card at a time, "
        f"against {strategy} in the other seats",
        f"unrestricted win rate {unrestricted:.1%} (parity {1 / n_players:.1%}); value = "
        "unrestricted minus restricted win rate;",
        "p_holm: Holm-adjusted over all rows; each interval over deals at the level at which "
        "Holm's",
        "correction tested it (it excludes 0 exactly when p_holm < 0.05)",
        "",
        f"  {'kind':<9} {'card':<24} {'value':>7}  {'interval':>17}  {'level':>6}  {'p_holm':>7}"
        "  finding",
    ]
    for r in df.itertuples():
        lines.append(f"  {r.kind:<9} {r.card:<24} {r.value:>+7.2%}  [{r.lo:+.2%}, {r.hi:+.2%}]"
                     f"  {r.level:>6.2%}  {r.p_holm:>7.3g}  {r.finding}")  # fmt: skip
    found = df[~df["finding"].isin(["cannot tell", NEVER])]
    never = int((df["finding"] == NEVER).sum())
    lines += ["", f"{len(found)} of {len(df)} cards differ from worthless at 95% (Holm); "
              + (f"{never} were never taken by {strategy} (forbidding them changed no game); "
                 if never else "") + "for the rest the data cannot tell."]  # fmt: skip
    return "\n".join(lines) + "\n"


def chart_png(df: pd.DataFrame, strategy: str, n_players: int) -> bytes:
    from reports.render import render_png

    return render_png(chart(df, strategy, n_players))


def chart(df: pd.DataFrame, strategy: str, n_players: int):
    """Each card's value with its interval, ordered by value, Lords and Locations coloured."""
    from matplotlib.patches import Patch

    from reports.charts import error_bars, figure, legend_outside

    ordered = df[df["finding"] != NEVER].sort_values("value")
    fig = figure(figsize=(7.5, max(3.0, 0.16 * len(ordered) + 1.4)))
    ax = fig.add_subplot()
    palette = {"lord": "#1f4e79", "location": "#c0792b", "rule": "#2e7d32"}
    colours = ordered["kind"].map(palette).fillna("#777777")
    y = np.arange(len(ordered))
    ax.barh(y, ordered["value"] * 100, color=colours)
    ax.errorbar(ordered["value"] * 100, y, xerr=error_bars(ordered["value"] * 100,
                ordered["lo"] * 100, ordered["hi"] * 100), fmt="none", color="black",
                capsize=1.5, lw=0.8)  # fmt: skip
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(y, ordered["card"], fontsize=6)
    ax.set_ylim(-0.7, len(ordered) - 0.3)
    ax.set_xlabel("value: win rate lost when forbidden (points; Holm-adjusted intervals)")
    ax.set_title(f"What each card is worth to {strategy} at {n_players} players", fontsize=9)
    kinds = [k for k in palette if k in set(ordered["kind"])]
    legend_outside(ax, handles=[Patch(color=palette[k], label=k) for k in kinds])
    return fig
