"""What Conspiracy's behavioural signature counts (`reports.sections.signature`): Lords placed,
discard
piles taken and their Lords, draws, Lords with Keys and Pearls placed, the Pearl Master held, the
largest coalition, Locations."""

from __future__ import annotations

import numpy as np

from games.conspiracy.engine.rules.game import Game
from reports.sections.signature import win_share

#: The expansions the presets are tuned with (scripts/tune_presets.py): none.
TUNED_EXPANSIONS = ()
#: Every column: name -> what it counts (a mean per game of the seat).
COLUMNS = {
    "win": "share of the win",
    "IP": "final score",
    "lords": "Lords placed",
    "piles": "discard piles taken",
    "pile_lords": "Lords placed from discard piles",
    "draws": "turns drawing from the deck",
    "key_lords": "Lords with a Key placed",
    "pearl_lords": "Lords with Pearls placed",
    "pearl_master": "share of games holding the Pearl Master",
    "coalition": "largest same-colour coalition (Lords)",
    "locations": "Locations at the end",
    "ip_lords": "IP from Lords",
    "ip_locations": "IP from Locations",
    "ip_coalition": "IP from the coalition",
}
#: Columns that are ratios of two sums over the games: none.
RATIOS: dict[str, tuple[str, str]] = {}
#: Short headers of the columns the tables show (docs/tuning-results.md).
HEADERS = {"win": "win", "lords": "Lords", "piles": "piles", "pile_lords": "pile Lords",
               "draws": "draws", "key_lords": "Key Lords", "pearl_lords": "Pearl Lords",
               "pearl_master": "Pearl Master", "coalition": "coalition",
               "locations": "Loc", "ip_lords": "IP Lords", "ip_locations": "IP Loc",
               "ip_coalition": "IP coalition"}  # fmt: skip
#: The reference engine's game, which the signature plays.
GAME = Game


def seat_counts(g, seat: int) -> dict[str, float]:
    """Seat `seat`'s counts in a finished Conspiracy game `g`."""
    t, p, score = g.t, g.players[seat], g.scores[seat]
    chamber = list(p.chamber)
    return {
        "win": win_share(g.ranks, seat),
        "IP": score.total,
        "lords": len(chamber),
        "piles": p.pile_takes,
        "pile_lords": p.pile_lords,
        "draws": p.draws,
        "key_lords": sum(int(t.lord_key[x]) != 0 for x in chamber),
        "pearl_lords": sum(int(t.lord_pearls[x]) > 0 for x in chamber),
        "pearl_master": float(g.pearl_master == seat),
        "coalition": score.coalition / t.coalition_ip if t.coalition_ip else np.nan,
        "locations": len(p.locations),
        "ip_lords": score.lords,
        "ip_locations": score.locations,
        "ip_coalition": score.coalition,
    }


#: What the seat tables of a tournament show of a signature (`tier_counts`; `reports.sections.
#: approaches`): column -> header.
TIER_HEADERS = {"n_lords": "Lords", "pile_takes": "piles", "pile_lords": "pile Lords",
                "draws": "draws", "coalition_size": "coalition", "score_lords": "IP Lords",
                "score_locations": "IP Loc", "score_coalition": "IP coalition",
                "score_pearl_master": "IP Pearl Master"}  # fmt: skip


def tier_counts(seats, tables):
    """Each seat's `TIER_HEADERS` counts, as a tournament's seat table holds them."""
    return seats[list(TIER_HEADERS)].astype(float)
