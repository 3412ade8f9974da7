"""Rulebook, End of Game and Scoring in the reference engine, and the finished game's result rows
(mixed into `games.abyss.engine.rules.game.Game`)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from games.abyss.engine.cards.constants import N_RACES, LocationRule
from games.abyss.engine.rules.base import Player, Score
from games.abyss.engine.rules.locations import location_formula

if TYPE_CHECKING:
    from games.abyss.engine.rules.game import Game


class ScoringMixin:
    """The final affiliation, the scores by source and the ranks."""

    def final_scoring(self) -> None:
        """Rulebook, End of Game and Scoring."""
        for p in self.players:
            p.affiliated.extend(self.hand_affiliation(p))
            for a in p.hand:
                if a not in p.affiliated:
                    self.exploration_discard.append(a)
            p.hand = []
        self.scores = [self.score(p) for p in self.players]
        for p, s in zip(self.players, self.scores, strict=True):
            self.log(
                "score",
                who=p.seat,
                total=s.total,
                lords=s.lords,
                locations=s.locations,
                allies=s.allies,
                monsters=s.monsters,
                wounds=s.wounds,
                scourge=s.scourge,
                pearls=p.pearls,
            )
        keys = [self.tiebreak_key(s) for s in range(self.n_players)]
        self.ranks = [1 + sum(1 for k in keys if k > keys[s]) for s in range(self.n_players)]
        self.log("game_end", ranks=list(self.ranks), reason=self.end_reason)

    def hand_affiliation(self, p: Player) -> list[int]:
        """The Allies the final affiliation takes from `p`'s hand: "Players affiliate the
        lowest-value Ally of each Race remaining in their hand" (the lowest index among equal
        values)."""
        low = []
        for race in range(N_RACES):
            mine = [a for a in p.hand if self.race(a) == race]
            if mine:
                low.append(min(mine, key=lambda a: (self.value(a), a)))
        return low

    def score_if_ended(self, p: Player) -> Score:
        """`p`'s score as it would stand if the game ended now: the final affiliation of its
        hand included (the running score of the per-round record)."""
        return self.score(replace(p, affiliated=p.affiliated + self.hand_affiliation(p)))

    def tiebreak_key(self, seat: int) -> tuple[int, int, int]:
        """ "Ties are broken by the most Pearls, then by the highest value Lord." """
        p = self.players[seat]
        best_lord = max((int(self.t.lord_ip[lord]) for lord in p.lords), default=0)
        return (self.scores[seat].total, p.pearls, best_lord)

    def score(self, p: Player) -> Score:
        t = self.t
        best = [0] * N_RACES
        for a in p.affiliated:
            best[self.race(a)] = max(best[self.race(a)], self.value(a))
        return Score(
            lords=sum(int(t.lord_ip[lord]) for lord in p.lords),
            locations=sum(self.location_score(p, loc) for loc in p.locations),
            allies=sum(best),  # "The strongest affiliated Ally from each Race"
            monsters=sum(int(t.monster_token_ip[tok]) for tok in p.tokens),
            wounds=-p.wounds,  # "subtract 1 Influence Point for each Wound token you possess"
            scourge=5 if self.leviathan and self.scourge == p.seat else 0,
        )

    def location_score(self, p: Player, location: int) -> int:
        if self.t.location_rule[location] == LocationRule.CITY_OF_MIRRORS:
            # City of Mirrors copies the best-scoring opponent Location, scored with your cards.
            others = [
                loc
                for s in self.opponents(p.seat)
                for loc in self.players[s].locations
                if self.t.location_rule[loc] != LocationRule.CITY_OF_MIRRORS
            ]
            return max((location_formula(self.t, p, loc) for loc in others), default=0)
        return location_formula(self.t, p, location)


def seat_rows(g: Game, strategies: list[str]) -> list[dict]:
    """One results row per seat (schema: docs/results-schema.md)."""
    rows = []
    for p, s, rank in zip(g.players, g.scores, g.ranks, strict=True):
        rows.append(
            {
                "game": g.game_index,
                "seat": p.seat,
                "strategy": strategies[p.seat],
                "score": s.total,
                "score_lords": s.lords,
                "score_locations": s.locations,
                "score_allies": s.allies,
                "score_monsters": s.monsters,
                "score_wounds": s.wounds,
                "score_scourge": s.scourge,
                "pearls": p.pearls,
                "keys": p.keys,
                "n_lords": len(p.lords),
                "n_locations": len(p.locations),
                "n_affiliated": len(p.affiliated),
                "n_monster_tokens": len(p.tokens),
                "leviathans_killed": len(p.killed),
                "wounds": p.wounds,
                "rank": rank,
                "winner": rank == 1,
                "lord_set": card_set(p.recruited),
                "location_set": card_set(p.locations),
            }
        )
    return rows


def card_set(cards) -> int:
    """Card indices as a bit set (bit i = card i), as the results tables store them."""
    bits = 0
    for c in cards:
        bits |= 1 << int(c)
    return bits


def game_row(g: Game) -> dict:
    return {
        "game": g.game_index,
        "n_players": g.n_players,
        "turns": g.turn,
        "end_reason": g.end_reason or "none",
        "seed": g.seed,
        "n_fights": g.n_fights,
        "n_continues": g.n_continues,
        "n_leviathan_attacks": g.n_leviathan_attacks,
        "n_kills": g.n_kills,
        "trigger_seat": trigger_seat(g),
    }


def trigger_seat(g: Game) -> int:
    """The seat whose turn triggered the end: "The active player finishes their turn, and every
    other player takes one last turn", so the last turn is the trigger's right-hand neighbour's;
    -1 for a game stopped by the turn limit."""
    if g.end_reason in (None, "turn_limit"):
        return -1
    return (g.active + 1) % g.n_players
