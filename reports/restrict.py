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

A card too weak to matter is one shown to be worth less than a margin (`MARGIN`, in win rate)
either way: Schuirmann's (1987) two one-sided tests (`equivalence`), Holm's correction over the
cards the strategy takes. A card whose interval merely includes 0 is not one: "not told from 0"
is no evidence of being small.

The games are those of `reports.tune.evaluate`: the same seating plan, chunks and Dask tasks
(`reports.play.blocks`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Restricted strategies evaluated per batch (a chunk of a resumable run).
BATCH = 8
#: The finding of a card whose restriction changed no game (the strategy never took it).
NEVER = "never taken"
#: "Too weak to matter": a card whose value is shown within ±MARGIN of 0 (1 point of win rate).
MARGIN = 0.01


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
                    save=None, progress=None, skip: bool = True) -> np.ndarray:  # fmt: skip
    """The win shares of `problem.start` unrestricted (row 0) and forbidden each card of
    `cardlist` (row 1 + i), one column per block; batches in `done` (first -> array) are kept,
    each new batch is passed to `save(first, count, array)`. With `skip`, a restricted row
    plays only the tables its forbid can change (`reports.probe`): the same numbers."""
    from reports import probe as Pr
    from reports.tune import evaluate

    specs = restricted_specs(problem.start, cardlist)
    marks = Pr.columns(problem, specs) if skip else None
    found = None  # row 0 probed, once, when a batch is to be played
    parts = []
    for first, count in batches(len(cardlist)):
        stored = bool(done) and first in done
        if stored:
            part = done[first]
        elif marks is None:
            part = evaluate(problem, specs[first:first + count], seed=seed, n_blocks=blocks,
                            client=client)  # fmt: skip
        else:
            if found is None:
                found = Pr.probe(problem, specs[0], seed=seed, n_blocks=blocks, client=client)
            part = found.shares if first == 0 else Pr.touched(
                problem, specs[first:first + count], marks[first - 1:first - 1 + count], found,
                seed=seed, n_blocks=blocks, client=client)  # fmt: skip
        if save is not None and not stored:
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
    which that correction tested it (`reports.stats.blocks.adjusted_levels`): it excludes 0 exactly
    when
    the row is a finding; `se` its standard error over its `deals` (every row: all blocks);
    `se_top` that of the top card's value minus its own, paired by deal (`se_against_top`)."""
    from reports.stats.blocks import adjust_pvalues, adjusted_levels, paired_test

    diffs = [shares[0] - shares[1 + i] for i in range(len(cards))]
    p = np.nan_to_num([paired_test(d, conf)[3] for d in diffs], nan=1.0)
    levels = adjusted_levels(p, conf, "holm")
    tests = [paired_test(d, level) for d, level in zip(diffs, levels, strict=True)]
    value, lo, hi = (np.array([t[k] for t in tests], dtype=float) for k in range(3))
    p_holm = adjust_pvalues(p, "holm")
    found = p_holm < 1 - conf
    finding = np.where(found & (lo > 0), "worth something",
                       np.where(found & (hi < 0), "better without", "cannot tell"))  # fmt: skip
    # forbidding it changed no game: the strategy never takes the card on these deals
    unused = [bool(np.all(shares[0] == shares[1 + i])) for i in range(len(cards))]
    finding = np.where(unused, NEVER, finding)
    # (one frame built at once: the many-seed tests build thousands)
    df = pd.DataFrame({"kind": [c[0] for c in cards], "card": [c[1] for c in cards],
                       "players": n_players, "value": value, "lo": lo, "hi": hi,
                       "level": levels, "p": p,
                       "se": [float(d.std(ddof=1) / np.sqrt(len(d))) for d in diffs],
                       "deals": [len(d) for d in diffs],
                       "restricted": [float(shares[1 + i].mean()) for i in range(len(cards))],
                       "games": shares.shape[1] * n_players, "p_holm": p_holm,
                       "finding": finding})  # fmt: skip
    df = df.sort_values(["value", "card"], ascending=[False, True]).reset_index(drop=True)
    df["se_top"] = se_against_top(df, dict(zip([c[1] for c in cards], diffs, strict=True)))
    return df


def se_against_top(df: pd.DataFrame, diffs: dict, sources: dict | None = None) -> np.ndarray:
    """Each card's value subtracted from the top's (the first card taken of `df`, most valuable
    first): its standard error (`se_top`, for the most valuable card's test in
    `reports.sections.card_verdicts`), 0 for the top itself, NaN for a rules question or a card
    never
    taken. `diffs`: card -> its values per deal (unrestricted minus restricted win share), deal
    k the same deal for every card of one source (a card may stop early: its first deals);
    cards of different `sources` (card -> stream) share no deal. Stored, not derived from the
    two standard errors: two cards' values per deal can be negatively correlated (measured in
    docs/restricted-play.md), and then the sum of variances understates the difference's."""
    card, taken = df["card"].to_numpy(dtype=object), taken_cards(df)
    out = np.full(len(df), np.nan)
    if not taken.any():
        return out
    top = card[taken][0]
    sources = sources or {}
    for i in np.flatnonzero(taken):
        shared = sources.get(card[i], 0) == sources.get(top, 0)
        out[i] = 0.0 if card[i] == top else _se_of_difference(diffs[top], diffs[card[i]], shared)
    return out


def taken_cards(df: pd.DataFrame) -> np.ndarray:
    """Per row of an impact frame: a card the strategy takes (not a rules question, not a card
    never taken)."""
    return ((df["kind"].to_numpy(dtype=object) != "rule")
            & (df["finding"].to_numpy(dtype=object) != NEVER))  # fmt: skip


def _se_of_difference(a: np.ndarray, b: np.ndarray, shared: bool) -> float:
    """The standard error of mean(a) - mean(b): their variances, less twice their covariance
    over the deals they share (the first min(len) deals when `shared`; none otherwise)."""
    na, nb = len(a), len(b)
    if min(na, nb) < 2:
        return float("nan")
    var = a.var(ddof=1) / na + b.var(ddof=1) / nb
    n = min(na, nb)
    if shared and n > 1:
        var -= 2 * np.cov(a[:n], b[:n])[0, 1] * n / (na * nb)
    return float(np.sqrt(max(var, 0.0)))


def equivalence(df: pd.DataFrame, margin: float = MARGIN, alpha: float = 0.05) -> pd.DataFrame:
    """Which cards are too weak to matter: each card the strategy takes (not a rules question,
    not one never taken) tested for a value within ±`margin` by Schuirmann's two one-sided t
    tests on its deals (`p_tost`: the larger of the two p-values), Holm's correction over those
    cards (`p_tost_holm`); `tost_lo`..`tost_hi` the interval that matches the test at the level
    Holm's procedure tested the card (a one-sided level 1 - a: the two-sided 1 - 2a interval),
    inside ±`margin` exactly when the card is `negligible`. Returns those cards' rows.

    On a time budget (`fresh` in `df`: `reports.budget`) a card's figures come from one of
    two sources, chosen by its own data: the looks' deals if it stayed open, fresh deals if a
    look decided it. Each source's test holds its level, but a card at the margin can be named
    through either, so each card's p-value is doubled (Bonferroni over the two sources):
    without it, a card at exactly +1 point was named in 10.7% of runs (`tests/core/
    test_card_verdicts.py`)."""
    from scipy.stats import t as student

    from reports.stats.blocks import adjust_pvalues, adjusted_levels

    out = df[taken_cards(df)]
    se, deals = standard_errors(out)
    dof = np.maximum(deals - 1, 1)
    value = out["value"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        below = student.sf((value + margin) / se, dof)  # H0: value <= -margin
        above = student.cdf((value - margin) / se, dof)  # H0: value >= +margin
    sources = 2 if "fresh" in out else 1
    p_tost = np.minimum(1.0, sources * np.nan_to_num(np.maximum(below, above), nan=1.0))
    p_tost_holm = adjust_pvalues(p_tost, "holm")
    level = adjusted_levels(p_tost, 1 - alpha, "holm")  # each one-sided test's
    half = student.ppf(1 - (1 - level) / sources, dof) * se
    return out.assign(p_tost=p_tost, p_tost_holm=p_tost_holm, tost_lo=value - half,
                      tost_hi=value + half, negligible=p_tost_holm < alpha, margin=margin)


def standard_errors(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each row's standard error and deals; a frame saved before they were stored: from its
    interval, its level (95% before the levels were stored) and its games."""
    from scipy.stats import t as student

    if "se" in df and "deals" in df:
        return df["se"].to_numpy(dtype=float), df["deals"].to_numpy(dtype=int)
    deals = (df["games"] // df["players"]).to_numpy(dtype=int)
    level = df["level"].to_numpy(dtype=float) if "level" in df else np.full(len(df), 0.95)
    t = student.ppf((1 + level) / 2, np.maximum(deals - 1, 1))
    return ((df["hi"] - df["lo"]).to_numpy(dtype=float) / (2 * t)), deals


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
    lines.append(weak_text(equivalence(df)))
    return "\n".join(lines) + "\n"


def weak_text(eq: pd.DataFrame) -> str:
    """The cards shown too weak to matter, in a sentence (`eq`: `equivalence`'s rows)."""
    points = 100 * (eq["margin"].iloc[0] if len(eq) else MARGIN)
    within = f"±{points:g} point{'' if points == 1 else 's'} of win rate either way"
    test = (f"Schuirmann's two one-sided tests, Holm's correction over the {len(eq)} cards "
            "taken")  # fmt: skip
    weak = eq[eq["negligible"]].sort_values("p_tost")
    if weak.empty:
        return f"No card is shown worth less than {within} ({test})."
    told = "1 card is" if len(weak) == 1 else f"{len(weak)} cards are"
    return f"{told} shown worth less than {within} ({test}): {', '.join(weak['card'])}."


def chart_png(df: pd.DataFrame, strategy: str, n_players: int) -> bytes:
    from reports.render.report import render_png

    return render_png(chart(df, strategy, n_players))


def chart(df: pd.DataFrame, strategy: str, n_players: int):
    """Each card's value with its interval, ordered by value, Lords and Locations coloured."""
    from matplotlib.patches import Patch

    from reports.render.charts import error_bars, figure, legend_outside

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
