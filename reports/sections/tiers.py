"""The balance report's verdicts across play strengths and its card values (issue 22): reads what
`abyss-mc tournament --report` plays for `reports.strengths` (the tuned tier in strengths/tuned/,
restricted play in card_values/<tier>/) beside the run, and writes the `Verdicts` section, the
"What each card is worth" section and the tuned tier's rankings."""

from __future__ import annotations

from reports import strengths as St
from reports.sections import card_verdicts as C
from reports.sections import verdict_table as T
from sim.core.runs import read_table


def tier_dirs(run) -> dict:
    """Play strength -> its run directory: the run itself, and the tuned and search tiers when
    they were played (`run`: any run read from a directory, with `dir` and `config`)."""
    labels = run.config.get("strengths") or [St.HAND]
    out = {labels[0]: run.dir}
    for tier, d in ((St.TUNED, St.TUNED_DIR), (St.LEARNED, St.LEARNED_DIR),
                    (St.SEARCH, St.SEARCH_DIR)):  # fmt: skip
        if tier in labels and (run.dir / d / "manifest.json").is_file():
            out[tier] = run.dir / d
    return out


def add_verdicts(report, run, verdicts_of) -> None:
    """`Verdicts`, first in the report: one play strength's verdicts, or each verdict across
    the strengths played. `verdicts_of(directory, main)`: the game's verdicts of one strength's
    run directory (`main`: the report's own run)."""
    tiers, has_cards = {}, False
    for label, d in tier_dirs(run).items():
        found = verdicts_of(d, d == run.dir)
        cards = St.load_card_values(run.dir, label)
        if cards is not None:
            found += C.card_verdicts(*cards)
            has_cards = True
        tiers[label] = found
    notes = [] if has_cards else [C.CARD_NOTE]
    untuned = St.tuned_note(run.config["tuned_versions"]) \
        if run.config.get("tuned_versions") else None  # fmt: skip
    notes += [untuned] if untuned else []
    if St.SEARCH in tiers:
        notes.append(SEARCH_NOTE.format(**search_config(tiers_config(run, St.SEARCH))))
    elif len(tiers) > 1 and _has_search(run.config.get("game", "abyss")):
        notes.append(NO_SEARCH_NOTE)
    if len(tiers) == 1:
        T.add_verdicts(report, next(iter(tiers.values())), notes)
    else:
        T.add_strength_verdicts(report, tiers, notes)


def add_tension(report, run, samples_of, proxy: str) -> None:
    """The `Tension` section over the play strengths played (`reports.sections.tension`):
    `samples_of(directory, main)` gives a strength's sampled games by player count."""
    from reports.sections.tension import add_tension as add

    samples = {St.title(t): samples_of(d, d == run.dir) for t, d in tier_dirs(run).items()}
    add(report, {t: s for t, s in samples.items() if s}, proxy)
    from reports.sections.drama import add_section

    add_section(report, {St.title(t): d for t, d in tier_dirs(run).items()})


def add_approaches(report, run, game: str, tables) -> None:
    """`Each approach at each strength` (`reports.sections.approaches`), where strengths were
    played; `tables`: the run's card tables (None: not shown)."""
    from reports.sections.approaches import add_section
    from reports.sections.signature import counts_of

    add_section(report, tier_dirs(run), counts_of(game), tables)


def add_head_to_head(report, run) -> None:
    """`Who beats whom, head to head` over the play strengths' tournaments
    (`reports.sections.cycles`)."""

    from reports.sections.cycles import add_section

    wanted = ["block", "table", "n_players", "strategy", "win"]
    tiers = {}
    for tier, d in tier_dirs(run).items():
        path = d / "seats.parquet"
        if path.is_file():
            seats = read_table(path)
            if set(wanted) <= set(seats.columns):
                tiers[St.title(tier)] = seats[wanted].astype({"strategy": str})
    add_section(report, tiers)
    from reports.sections.skill import add_section as add_ladder

    add_ladder(report, run.dir)


SEARCH_NOTE = (
    "The search player's verdicts come from a tournament among search players ({rollouts} "
    "rollouts per decision, {blocks} blocks) whose rollouts model the {contenders} best "
    "approaches of each player count: each player looks ahead, modelling every player by that "
    "approach, played at the learned strength where the learned tier played the count (else "
    "its tuned preset; docs/learned.md, \"The search tier\"). Its card values and "
    "fight-or-explore rule are not measured (restricted play of a search player takes hours; "
    "docs/restricted-play.md)."
)


NO_SEARCH_NOTE = (
    "Players that look ahead (the search player, docs/search.md) were not played: "
    "`abyss-mc tournament --report --strengths search` adds them (minutes, not seconds)."
)


def _has_search(game: str) -> bool:
    from sim import games

    return "search" in games.get(game).strategies().policies


def tiers_config(run, tier: str) -> dict:
    import json

    d = tier_dirs(run)[tier]
    return json.loads((d / "manifest.json").read_text())["config"]


def search_config(config: dict) -> dict:
    """The search tier's rollouts, blocks and contenders, from its manifest."""
    names = [s for lineup in config["lineups"].values() for s in lineup]
    rollouts = {int(s.split(":rollouts=")[1].split(":")[0]) for s in names if ":rollouts=" in s}
    return {"rollouts": ", ".join(map(str, sorted(rollouts))),
            "blocks": config.get("search_blocks", "?"),
            "contenders": max(len(v) for v in config["lineups"].values())}  # fmt: skip


def add_card_values(report, run) -> None:
    """What each card is worth to each play strength's best strategy (restricted play)."""
    from reports.restrict import MARGIN, NEVER, chart, standard_errors

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
        "with more deals). A card is worth something (or the strategy is better off without it) "
        "only when its Holm-corrected test says so, its interval at the level that correction "
        "tested it; it is too weak to matter only when its value is shown within a margin either "
        "way (Schuirmann's two one-sided tests, Holm's correction over the cards taken). Each "
        "card is stated with its own deals: on a time budget the looks only choose which cards "
        "are decided, and a decided card's figures come from as many fresh deals."
    )
    for tier, (df, meta) in found.items():
        df = df.assign(deals=standard_errors(df)[1])
        deals = (f"{meta['blocks']:,} deals per card" if "looks" not in meta else
                 f"on a time budget ({meta['looks']} looks of up to {meta['blocks']:,} deals; "
                 "the cards decided early valued on fresh deals)")  # fmt: skip
        sec.figure(chart(df, meta["strategy"], meta["players"]), f"card_values_{tier}",
                   f"{St.title(tier).capitalize()}: each card's value to `{meta['strategy']}`, "
                   f"{deals}, ordered by value")  # fmt: skip
        never = df.loc[df["finding"] == NEVER, "card"]
        if len(never):
            sec.paragraph(f"Never taken by `{meta['strategy']}` on these deals, so not shown "
                          f"(forbidding them changed no game): {', '.join(sorted(never))}.")
        shown = df[~df["finding"].isin(["cannot tell", NEVER])]
        columns = ["kind", "card", "value", "lo", "hi", "deals", "p_holm", "finding"]
        if len(shown):
            sec.table(shown[columns + (["fresh"] if "fresh" in df else [])].set_index("card"),
                      float_format="{:.3f}")  # fmt: skip
        else:
            sec.paragraph(f"{St.title(tier).capitalize()}: no card's value can be told from 0.")
        _weak_cards(sec, tier, df, float(meta.get("margin", MARGIN)))


def _weak_cards(sec, tier: str, df, margin: float) -> None:
    """The cards shown too weak to matter (`reports.restrict.equivalence`), or that none is."""
    from reports.restrict import equivalence

    eq = equivalence(df, margin)
    weak = eq[eq["negligible"]].sort_values("p_tost")
    within = f"±{100 * margin:g} point{'' if 100 * margin == 1 else 's'} of win rate"
    if weak.empty:
        sec.paragraph(f"{St.title(tier).capitalize()}: no card is shown worth less than "
                      f"{within} either way (Schuirmann's two one-sided tests, Holm's "
                      f"correction over the {len(eq)} cards taken).")  # fmt: skip
        return
    sec.paragraph(f"{St.title(tier).capitalize()}: too weak to matter, each shown worth less "
                  f"than {within} either way (Schuirmann's two one-sided tests, Holm's "
                  f"correction over the {len(eq)} cards taken; each interval at the level that "
                  "correction tested it, inside the margin):")  # fmt: skip
    table = weak[["kind", "card", "value", "tost_lo", "tost_hi", "deals", "p_tost_holm"]]
    sec.table(table.rename(columns={"tost_lo": "lo", "tost_hi": "hi"}).set_index("card"),
              float_format="{:.3f}")  # fmt: skip


RANKINGS = {
    St.TUNED: "The tuned presets made for each player count (`abyss-mc tune`, "
    "docs/tuning-results.md) played their own tournament with the same blocks and seed: win "
    "rates with 95% intervals over blocks.",
    St.LEARNED: "The tuned presets' archetypes played at the learned strength "
    "(`learned:archetype=X`, docs/learned.md \"Archetypes played well\": the archetype decides "
    "where its own parameters steer, the learned player everywhere else; its tuned version where "
    "that had the higher mean on the deals that chose) at each player count the learned player has "
    "weights for, with the same blocks and seed: win rates with 95% intervals over blocks.",
    St.SEARCH: "Search players (docs/search.md) modelling the best approaches of each player "
    "count (their rollouts play each at the learned strength where the learned tier played the "
    "count, else its tuned preset: docs/learned.md \"The search tier\") played their own "
    "tournament with the same seed: win rates with 95% intervals over blocks.",
}


def add_strength_rankings(report, run) -> None:
    """The tuned and search tiers' strategy rankings per player count (their verdicts are in
    `Verdicts`)."""
    for tier, lead in RANKINGS.items():
        d = tier_dirs(run).get(tier)
        if d is not None:
            _rankings(report, d, tier, lead)


def _rankings(report, d, tier: str, lead: str) -> None:

    from reports.stats import blocks as stats

    seats = read_table(d / "seats.parquet")
    sec = report.section(f"{St.title(tier).capitalize()}: rankings")
    sec.paragraph(lead)
    for n, part in seats.groupby("n_players", sort=True):
        df = part.rename(columns={"score": "ip"})
        df["strategy"] = df["strategy"].astype(str)
        table = stats.strategy_summary(df)[["games", "win_rate", "win_lo", "win_hi"]]
        sec.paragraph(f"**{n} players**")
        sec.table(table, float_format="{:.3f}")
