"""The balance report's verdicts across play strengths and its card values (issue 22): reads what
`abyss-mc tournament --report` plays for `reports.strengths` (the tuned tier in strengths/tuned/,
restricted play in card_values/<tier>/) beside the run, and writes the `Verdicts` section, the
"What each card is worth" section and the tuned tier's rankings."""

from __future__ import annotations

from reports import strengths as St
from reports import verdicts as V


def tier_dirs(run) -> dict:
    """Play strength -> its run directory: the run itself, and the tuned tier when it was
    played (`run`: any run read from a directory, with `dir` and `config`)."""
    labels = run.config.get("strengths") or [St.HAND]
    out = {labels[0]: run.dir}
    if St.TUNED in labels and (run.dir / St.TUNED_DIR / "manifest.json").is_file():
        out[St.TUNED] = run.dir / St.TUNED_DIR
    return out


def fight_rule(run_dir):
    """The learnt fight-or-explore rule of a run's rollouts (`reports.fight_rule`), or None."""
    from reports.balance import FIGHT_DIR
    from reports.fight_rule import recommended_rule
    from reports.rollout import is_rollout_run, load_rollouts

    sub = run_dir / FIGHT_DIR
    rollouts = load_rollouts(sub) if is_rollout_run(sub) else None
    return recommended_rule(rollouts) if rollouts is not None and rollouts.n_points else None


def add_verdicts(report, run, verdicts_of) -> None:
    """`Verdicts`, first in the report: one play strength's verdicts, or each verdict across
    the strengths played. `verdicts_of(directory, main)`: the game's verdicts of one strength's
    run directory (`main`: the report's own run)."""
    tiers = {}
    for label, d in tier_dirs(run).items():
        found = verdicts_of(d, d == run.dir)
        cards = St.load_card_values(run.dir, label)
        if cards is not None:
            found += V.card_verdicts(*cards)
        tiers[label] = found
    has_cards = any(St.load_card_values(run.dir, t) is not None for t in tiers)
    notes = [] if has_cards else [V.CARD_NOTE]
    if len(tiers) == 1:
        V.add_verdicts(report, next(iter(tiers.values())), notes)
    else:
        V.add_strength_verdicts(report, tiers, notes)


def add_card_values(report, run) -> None:
    """What each card is worth to each play strength's best strategy (restricted play)."""
    from reports.restrict import NEVER, chart

    labels = run.config.get("strengths") or [St.HAND]
    found = {t: St.load_card_values(run.dir, t) for t in labels}
    found = {t: x for t, x in found.items() if x is not None}
    if not found:
        return
    sec = report.section("What each card is worth (restricted play)")
    sec.paragraph(
        "A card's value is the win rate a strategy loses when it may not take that card, "
        "against copies of itself that may, on the same deals with the seats rotated "
        "(restricted play, Jaffe & Popovic 2012; `abyss-mc restrict` measures one strategy "
        "with more deals). Intervals are 95% over deals; a card is worth something (or the "
        "strategy is better off without it) only when its Holm-corrected test says so."
    )
    for tier, (df, meta) in found.items():
        sec.figure(chart(df, meta["strategy"], meta["players"]), f"card_values_{tier}",
                   f"{tier.capitalize()} presets: each card's value to `{meta['strategy']}`, "
                   f"{meta['blocks']:,} deals per card, ordered by value")  # fmt: skip
        never = df.loc[df["finding"] == NEVER, "card"]
        if len(never):
            sec.paragraph(f"Never taken by `{meta['strategy']}` on these deals, so not shown "
                          f"(forbidding them changed no game): {', '.join(sorted(never))}.")
        shown = df[~df["finding"].isin(["cannot tell", NEVER])]
        if len(shown):
            table = shown[["kind", "card", "value", "lo", "hi", "p_holm", "finding"]]
            sec.table(table.set_index("card"), float_format="{:.3f}")
        else:
            sec.paragraph(f"{tier.capitalize()} presets: no card's value can be told from 0.")


def add_strength_rankings(report, run) -> None:
    """The tuned tier's strategy rankings per player count (its verdicts are in `Verdicts`)."""
    import pandas as pd

    from reports import stats

    d = tier_dirs(run).get(St.TUNED)
    if d is None:
        return
    seats = pd.read_parquet(d / "seats.parquet")
    sec = report.section("Tuned presets: rankings")
    sec.paragraph(
        "The tuned presets made for each player count (`abyss-mc tune`, docs/tuning-results.md) "
        "played their own tournament with the same blocks and seed: win rates with 95% "
        "intervals over blocks."
    )
    for n, part in seats.groupby("n_players", sort=True):
        df = part.rename(columns={"score": "ip"})
        df["strategy"] = df["strategy"].astype(str)
        table = stats.strategy_summary(df)[["games", "win_rate", "win_lo", "win_hi"]]
        sec.paragraph(f"**{n} players**")
        sec.table(table, float_format="{:.3f}")
