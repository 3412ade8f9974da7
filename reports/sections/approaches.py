"""Each approach at each play strength, side by side (issue 52): what each archetype does in the
tiers' own tournaments at one player count (the card values' count, `strengths.card_players`),
so that a reader sees whether "the same approach" is still that approach when played well (a
learned archetype that stopped recruiting its guild would be another approach under its name).

Counted from the tournaments' seat tables (the game's `tier_counts`: what a seat ends the game
with), so it plays no game of its own; the decisions behind them (how often it fights, what it
plots with) are in docs/tuning-results.md's signatures (`reports.sections.signature`).
"""

from __future__ import annotations

from reports import strengths as St
from sim.core.runs import read_table


def approach_table(tiers: dict, counts_of, n_players: int):
    """One row per (archetype, strength) at `n_players`: its strategy, win share and the mean of
    each count. `tiers`: strength title -> seat table; `counts_of(seats)`: the game's counts of
    each seat (`tier_counts`), named columns."""
    import pandas as pd

    rows = []
    for title, seats in tiers.items():
        at = seats[seats["n_players"] == n_players] if "n_players" in seats.columns else seats
        if at.empty:
            continue
        counts = counts_of(at)
        counts["win"] = at["win"].astype(float).to_numpy()
        names = at["strategy"].astype(str)
        for name, part in counts.groupby(names.to_numpy(), sort=False):
            if St.family(name) == "random":
                continue
            rows.append({"archetype": St.family(name), "strength": title, "strategy": name,
                         **part.mean().to_dict()})  # fmt: skip
    if not rows:
        return pd.DataFrame()
    table = pd.DataFrame(rows)
    order = {t: i for i, t in enumerate(tiers)}
    table["_o"] = table["strength"].map(order)
    return table.sort_values(["archetype", "_o"], kind="stable").drop(columns="_o")


def add_section(report, tier_dirs: dict, module, tables) -> None:
    """The section, where more than one strength was played (`tier_dirs`: strength -> its run
    directory; `module`: the game's signature module, with `TIER_HEADERS` and `tier_counts`)."""
    if len(tier_dirs) < 2 or tables is None:
        return
    tiers = {}
    for tier, d in tier_dirs.items():
        path = d / "seats.parquet"
        if path.is_file():
            tiers[St.title(tier)] = read_table(path)
    counts = set().union(*(set(s["n_players"].unique()) for s in tiers.values()
                           if "n_players" in s.columns)) or {0}  # fmt: skip
    n = St.card_players(sorted(int(c) for c in counts))
    table = approach_table(tiers, lambda s: module.tier_counts(s, tables), n)
    if table.empty or table["archetype"].nunique() == len(table):
        return
    sec = report.section("Each approach at each strength")
    sec.paragraph(f"At {n} players, each archetype as each strength played it, in that "
                  "strength's own tournament (so against a field of its own strength): its win "
                  "share and what it ends a game with, per game. An approach played well should "
                  "keep what makes it that approach (a guild's Lords, Keys, fights); "
                  "docs/learned.md, \"Archetypes played well\".")  # fmt: skip
    table["win"] = (100 * table["win"]).map("{:.0f}%".format)
    shown = table.rename(columns={"win": "win share", **module.TIER_HEADERS})
    shown = shown.set_index(["archetype", "strength"])
    sec.table(shown, float_format="{:.2f}")
