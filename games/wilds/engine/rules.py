"""The reference engine of the warped-crystal rules of *Leviathan Wilds: Shattered Peak*.

Specification: `shared/seeds/002_8a2710faf18c39bc.txt` (quoted below). Only the warped crystals
are specified; the map, the crystals, the warp deck and the climber are PLACEHOLDER data
(`games/wilds/engine/data/wilds.toml`, components.md 4.2). The simulated task: one climber clears
every
crystal of the map, turn by turn, walking over non-open spaces and striking; the analyses measure
the strikes and turns that takes, warped crystals against plain ones.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from enum import IntEnum

from games.wilds.engine.cards import MAX_HP, OPEN, WARP_CLIMBER, WildsTables
from sim.core.rng import GameRng

TURN_LIMIT = 500  # a safety stop (a crystal walled off from the climber is never reached)
#: The 8 directions, in the order the engine tries them (orthogonal first, then diagonal).
DIRECTIONS = ((-1, 0), (0, -1), (0, 1), (1, 0), (-1, -1), (-1, 1), (1, -1), (1, 1))


class Stream(IntEnum):
    WARP_DECK = 0
    STRIKES = 1


@dataclass
class Crystal:
    row: int
    col: int
    hp: int
    warped: bool
    broken: bool = False
    strikes: int = 0  # strikes it took
    warps: int = 0  # warp cards drawn for it
    broken_turn: int = 0


class Game:
    """One climber clearing the map's crystals (`play`)."""

    def __init__(
        self, t: WildsTables, seed: int, game: int = 0, strike_value: int = 0, record: bool = True
    ) -> None:
        self.t = t
        self.seed, self.game_index = seed, game
        self.rng = GameRng(seed, game)
        self.strike_value = strike_value  # > 0: every strike has this value (an analysis)
        self.record = record
        self.events: list[dict] = []
        self.rows, self.cols = t.shape
        self.crystals = [
            Crystal(int(t.crystal_row[i]), int(t.crystal_col[i]), int(t.crystal_hp[i]),
                    bool(t.crystal_warped[i]))
            for i in range(t.n_crystals)
        ]  # fmt: skip
        self.deck = list(range(len(t.warp_regain)))
        self.rng.shuffle(self.deck, Stream.WARP_DECK)
        self.discard: list[int] = []
        self.climber = t.start
        self.turn = 0

    def log(self, event: str, **data) -> None:
        if self.record:
            self.events.append({"event": event, "turn": self.turn, **data})

    # ------------------------------------------------------------------ the map
    def on_map(self, r: int, c: int) -> bool:
        return 0 <= r < self.rows and 0 <= c < self.cols

    def is_open(self, r: int, c: int) -> bool:
        return int(self.t.terrain[r, c]) == OPEN

    def surrounding(self, r: int, c: int) -> list[tuple[int, int]]:
        """ "Any space that is either orthogonally or diagonally adjacent to a point of reference
        ... is considered to be a surrounding space to that point of reference." (on the map)"""
        return [(r + dr, c + dc) for dr, dc in DIRECTIONS if self.on_map(r + dr, c + dc)]

    # ------------------------------------------------------------------ striking
    def strike(self, crystal: Crystal, value: int) -> None:
        """ "When a climber strikes a warped crystal, if the strike value was greater than 2,
        reduce the strike value to 2. Then, if the crystal did not break, that climber draws a
        card from the warp deck and resolves its effect.\""""
        if crystal.warped and value > 2:
            value = 2
        crystal.hp -= value
        crystal.strikes += 1
        self.log("strike", crystal=self.crystals.index(crystal), value=value, hp=crystal.hp)
        if crystal.hp <= 0:
            crystal.hp = 0
            crystal.broken = True
            crystal.broken_turn = self.turn
            self.log("break", crystal=self.crystals.index(crystal))
        elif crystal.warped:
            self.warp(crystal, self.draw_warp())

    def draw_warp(self) -> int:
        """The top warp card; an empty deck is the discard pile reshuffled."""
        if not self.deck:
            self.deck, self.discard = self.discard, []
            self.rng.shuffle(self.deck, Stream.WARP_DECK)
        card = self.deck.pop()
        self.discard.append(card)
        return card

    def warp(self, crystal: Crystal, card: int) -> None:
        """ "If a diagram is drawn, the crystal moves according to that diagram." A card without
        a diagram (placeholder: the crystal regains HP) is resolved as written on it. A climber
        diagram (placeholder) moves the climber who drew it: "If a warp card diagram would cause a
        crystal or climber to be moved off the map, that crystal or climber moves as far as it can
        in that direction instead." Only a crystal snaps off an open space."""
        crystal.warps += 1
        regain = int(self.t.warp_regain[card])
        if regain:
            crystal.hp = min(MAX_HP, crystal.hp + regain)
            self.log("regain", crystal=self.crystals.index(crystal), hp=crystal.hp)
            return
        dr, dc = (int(x) for x in self.t.warp_move[card])
        if int(self.t.warp_target[card]) == WARP_CLIMBER:
            self.climber = self.slide(*self.climber, dr, dc)
            self.log("warp_climber", crystal=self.crystals.index(crystal), card=card,
                     to=list(self.climber))  # fmt: skip
            return
        r, c = self.slide(crystal.row, crystal.col, dr, dc)
        r, c = self.snap(r, c, dr, dc)
        self.log("warp", crystal=self.crystals.index(crystal), card=card, to=[r, c])
        crystal.row, crystal.col = r, c

    def slide(self, r: int, c: int, dr: int, dc: int) -> tuple[int, int]:
        """ "If a warp card diagram would cause a crystal or climber to be moved off the map, that
        crystal or climber moves as far as it can in that direction instead." The diagram is
        followed one space at a time (`steps` of the unit direction)."""
        steps = max(abs(dr), abs(dc))
        ur, uc = _sign(dr), _sign(dc)
        for k in range(steps, 0, -1):
            if abs(dr) == abs(dc) or dr == 0 or dc == 0:
                nr, nc = r + ur * k, c + uc * k
            else:  # a knight-like diagram: scale it (placeholder data has none)
                nr, nc = r + dr * k // steps, c + dc * k // steps
            if self.on_map(nr, nc):
                return nr, nc
        return r, c

    def snap(self, r: int, c: int, dr: int, dc: int) -> tuple[int, int]:
        """ "When moving a warped crystal, if it would be placed in an open space, it is placed in
        the closest non-open space instead." Closest: the fewest king steps (surrounding spaces
        are at 1). Ties (Example 2: "must be moved to either adjacent non-open space"): rules
        option `snap_tie`, "reading" (top row first, then left to right) or "continue" (the one
        furthest along the move's direction, then reading order)."""
        if not self.is_open(r, c):
            return r, c
        for ring in range(1, max(self.rows, self.cols)):
            best = None
            for rr in range(r - ring, r + ring + 1):
                for cc in range(c - ring, c + ring + 1):
                    if max(abs(rr - r), abs(cc - c)) != ring or not self.on_map(rr, cc):
                        continue
                    if self.is_open(rr, cc):
                        continue
                    key = (-((rr - r) * dr + (cc - c) * dc) if self.t.snap_tie == 1 else 0, rr, cc)
                    if best is None or key < best[0]:
                        best = (key, rr, cc)
            if best is not None:
                return best[1], best[2]
        raise RuntimeError("no non-open space on the map")  # the loader forbids it

    # ------------------------------------------------------------------ the climber
    def draw_strike(self) -> int:
        """A strike value from the climber's cards (weights), or the fixed one of an analysis."""
        if self.strike_value:
            return self.strike_value
        weights = [int(w) for w in self.t.strike_weights]
        x = self.rng.below(Stream.STRIKES, sum(weights))
        for value, w in zip(self.t.strike_values, weights, strict=True):
            if x < w:
                return int(value)
            x -= w
        raise AssertionError("unreachable")

    def target(self) -> Crystal | None:
        """The unbroken crystal the climber goes for: the first in the data's order."""
        return next((c for c in self.crystals if not c.broken), None)

    def in_reach(self, crystal: Crystal) -> bool:
        """The climber strikes a crystal in its own or a surrounding space (placeholder rule,
        components.md 4.2)."""
        r, c = self.climber
        return max(abs(r - crystal.row), abs(c - crystal.col)) <= 1

    def step_cost(self, dr: int, dc: int) -> int:
        return self.t.climb_cost if dr == 0 or dc == 0 else self.t.diagonal_cost

    def next_step(self, crystal: Crystal) -> tuple[int, int] | None:
        """The first space of a cheapest path over non-open spaces to a space within reach of
        the crystal (Dijkstra; ties by `DIRECTIONS` order), or None if none is reachable."""
        start = self.climber
        goal = {(crystal.row, crystal.col), *self.surrounding(crystal.row, crystal.col)}
        dist = {start: 0}
        first: dict[tuple[int, int], tuple[int, int]] = {}
        heap = [(0, 0, start)]
        order = 0
        while heap:
            d, _, (r, c) = heapq.heappop(heap)
            if d > dist[(r, c)]:
                continue
            if (r, c) in goal and (r, c) != start:
                return first[(r, c)]
            for dr, dc in DIRECTIONS:
                nr, nc = r + dr, c + dc
                if not self.on_map(nr, nc) or self.is_open(nr, nc):
                    continue
                nd = d + self.step_cost(dr, dc)
                if nd < dist.get((nr, nc), 1 << 30):
                    dist[(nr, nc)] = nd
                    first[(nr, nc)] = first.get((r, c), (nr, nc)) if (r, c) != start else (nr, nc)
                    order += 1
                    heapq.heappush(heap, (nd, order, (nr, nc)))
        return None

    def take_turn(self) -> None:
        """Spend the turn's AP: walk towards the target crystal, strike it when in reach."""
        self.turn += 1
        ap = self.t.ap_per_turn
        while ap > 0:
            crystal = self.target()
            if crystal is None:
                return
            if self.in_reach(crystal):
                if ap < self.t.strike_cost:
                    return
                ap -= self.t.strike_cost
                self.strike(crystal, self.draw_strike())
                continue
            step = self.next_step(crystal)
            if step is None:
                return
            cost = self.step_cost(step[0] - self.climber[0], step[1] - self.climber[1])
            if ap < cost:
                return
            ap -= cost
            self.climber = step
            self.log("move", to=list(step))

    def play(self) -> Game:
        while self.target() is not None and self.turn < TURN_LIMIT:
            self.take_turn()
        return self


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)
