"""What Abyss's behavioural signature counts (`reports.sections.signature`): Lords recruited (by
guild),
Allies bought and taken, Council stacks requested, how often it fights when it may (a Monster
revealed on its exploration: the Threat Track's fight, or with Leviathan a Leviathan's), attacks
and kills, Pearls spent at plotting, on Allies and on Lords, Lords with Keys recruited, Key tokens
gained, Locations at the end."""

from __future__ import annotations

from games.abyss.engine.rules.base import lord_key_count
from games.abyss.engine.rules.game import Game
from reports.sections.signature import win_share

#: The expansions the presets are tuned with (scripts/tune_presets.py).
TUNED_EXPANSIONS = ("leviathan",)
#: Abyss' guilds, in the order of `games.abyss.engine.cards.constants.Guild`, as columns.
GUILDS = ("mage", "soldier", "farmer", "merchant", "politician", "ambassador")
#: Decisions where a seat may fight (`games.abyss.engine.rules.base.Decision.FIGHT_MONSTER`,
#: `games.abyss.engine.rules.leviathan.LevDecision.MONSTER_CHOICE`); option 1 is fighting in both.
FIGHT_DECISIONS, FIGHT = (5, 30), 1

#: Every column: name -> what it counts (a mean per game of the seat).
COLUMNS = {
    "win": "share of the win",
    "IP": "final score",
    "lords": "Lords recruited",
    **{g: f"{g.capitalize()} Lords recruited" for g in GUILDS},
    "bought": "Allies bought from another's exploration",
    "taken": "Allies taken on its own exploration",
    "council": "Council stacks requested",
    "chances": "Monsters revealed on its exploration that it may fight",
    "fights": "... of them fought",
    "fight_share": "fights / chances, over all its games",
    "attacks": "attacks on Leviathans",
    "kills": "Leviathans killed",
    "plot_pearls": "Pearls spent plotting at Court",
    "ally_pearls": "Pearls spent buying Allies",
    "lord_pearls": "Pearls paid for Lords",
    "key_lords": "Lords with a Key recruited",
    "key_tokens": "Key tokens gained",
    "locations": "Locations at the end",
}
#: Columns that are ratios of two sums over the games, not means of per-game values.
RATIOS = {"fight_share": ("fights", "chances")}
#: Short headers of the columns the tables show (docs/tuning-results.md).
HEADERS = {"win": "win", "lords": "Lords", "mage": "Mag", "soldier": "Sol", "farmer": "Far",
          "merchant": "Mer", "politician": "Pol", "ambassador": "Amb", "bought": "bought",
          "taken": "taken", "council": "Council", "fight_share": "fights", "attacks": "attacks",
          "plot_pearls": "plot Pearls", "key_lords": "Key Lords", "key_tokens": "Key tokens",
          "locations": "Loc"}  # fmt: skip
#: The reference engine's game, which the signature plays (with its event log).
GAME = Game


def seat_counts(g, seat: int) -> dict[str, float]:
    """Seat `seat`'s counts in a finished Abyss game `g` (played with its event log)."""
    t = g.t
    out = dict.fromkeys(COLUMNS, 0.0)
    mine = [e for e in g.events if e.get("who") == seat]
    for e in mine:
        kind = e["event"]
        if kind == "recruit":
            out["lords"] += 1
            out[GUILDS[int(t.lord_guild[e["lord"]])]] += 1
            out["key_lords"] += lord_key_count(t, e["lord"]) > 0
            out["lord_pearls"] += e["pearls"]
        elif kind == "keys" and e["n"] > 0:
            out["key_tokens"] += e["n"]
        elif kind == "buy":
            out["bought"] += 1
            out["ally_pearls"] += e["cost"]
        elif kind in ("take", "council"):
            out["taken" if kind == "take" else "council"] += 1
        elif kind in ("attack", "kill"):
            out["attacks" if kind == "attack" else "kills"] += 1
        elif kind == "pearls" and e["why"] == "plot" and e["n"] < 0:
            out["plot_pearls"] -= e["n"]
    chances = [c for s, d, opts, c in getattr(g, "asked", ())
               if s == seat and d in FIGHT_DECISIONS and FIGHT in opts]  # fmt: skip
    out["chances"], out["fights"] = len(chances), sum(c == FIGHT for c in chances)
    del out["fight_share"]  # a ratio over all games (RATIOS)
    out["locations"] = len(g.players[seat].locations)
    out["IP"], out["win"] = g.scores[seat].total, win_share(g.ranks, seat)
    return out


#: What the seat tables of a tournament show of a signature (`tier_counts`; `reports.sections.
#: approaches`): column -> header.
TIER_HEADERS = {"lords": "Lords", **{g: HEADERS[g] for g in GUILDS}, "locations": "Loc",
                "keys": "Key tokens", "monsters": "Monster tokens", "kills": "Leviathans killed",
                "affiliated": "affiliated", "pearls": "Pearls left"}  # fmt: skip


def tier_counts(seats, tables):
    """Each seat's `TIER_HEADERS` counts from a tournament's seat table (what it ends the game
    with: the seat tables keep no decisions): its Lords by guild from `lord_set` (bit i: the Lord
    of index i), Locations, Key tokens, Monster tokens, Leviathans killed, affiliated Allies and
    Pearls."""
    import numpy as np
    import pandas as pd

    bits = seats["lord_set"].to_numpy(dtype=np.int64)
    guild = np.asarray(tables.lord_guild)
    lords = np.arange(len(guild), dtype=np.int64)
    out = pd.DataFrame({"lords": np.bitwise_count(bits).astype(np.int64)}, index=seats.index)
    for g, name in enumerate(GUILDS):  # the guild's Lords owned: the bits of its mask that are set
        mask = np.bitwise_or.reduce(np.int64(1) << lords[guild == g], initial=np.int64(0))
        out[name] = np.bitwise_count(bits & mask).astype(np.int64)
    for col, src in (("locations", "n_locations"), ("keys", "keys"),
                     ("monsters", "n_monster_tokens"), ("kills", "leviathans_killed"),
                     ("affiliated", "n_affiliated"), ("pearls", "pearls")):  # fmt: skip
        out[col] = seats[src].to_numpy()
    return out
