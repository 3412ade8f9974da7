"""The reference engine of *Abyss: Conspiracy*: readable, rules as written, full event log.

Specification: `shared/seeds/004_f62d138e7f50b9bc.txt` (quoted below); card data and Location
powers: `shared/reference/components.md` section 3 (`games/conspiracy/engine/data/*.toml`).
Readings are recorded in docs/rules-notes.md ("Conspiracy").

A turn: "1 Recruit Lords: choose one or more Lords to add to your Senate Chamber. 2 Extend your
Senate Chamber: place your chosen Lord(s) in your Senate Chamber and apply the effects of the
cards you have just placed." Every choice goes to the seat's policy through `Game.choose`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import TYPE_CHECKING

from games.conspiracy.engine.cards.loader import (
    ConspiracyTables,
    KeyKind,
    LocationPower,
    LocationScore,
    LordPower,
    ZeroSwap,
)
from games.conspiracy.engine.state import encode
from sim.core.reference import ReferenceGame, ScoreBySource

if TYPE_CHECKING:
    import numpy as np

TURN_LIMIT = 400  # = games.conspiracy.engine.state.TURN_LIMIT


class Stream(IntEnum):
    """Random streams of one game (each keyed by (seed, game, stream))."""

    LORD_DECK = 0
    LOCATION_DECK = 1
    POLICY = 2


class Decision(IntEnum):
    """What a policy is asked; options are ints as listed."""

    SOURCE = 0  # DRAW_1..DRAW_3: draw that many from the deck; PILE + c: take pile of colour c
    KEEP = 1  # a drawn Lord (card id) to keep
    PLACE = 2  # the next Lord (card id) to place, from those recruited
    SWAP = 3  # NO_SWAP, or i * 16 + j: swap the Lords on spots i < j (0-based)
    LOCATION_SOURCE = 4  # a face-up Location (card id), or LOCATION_DRAW + k: draw k
    LOCATION_KEEP = 5  # a drawn Location (card id)


PILE = 10  # SOURCE option of the discard pile of colour c: PILE + c
NO_SWAP = -1
LOCATION_DRAW = 1000


@dataclass
class Player:
    seat: int
    chamber: list[int] = field(default_factory=list)  # Lord card ids, spot order (0-based)
    locations: list[int] = field(default_factory=list)  # Location card ids, in order taken
    location_spots: list[int] = field(default_factory=list)  # the spot each one masks
    keys: list[int] = field(default_factory=list)  # KeyKind of each key since the last Location
    pearls: int = 0
    any_two_keys: bool = False  # Location power: "you need only 2 keys of any type"
    whole_deck: bool = False  # Location power: choose new Locations from the whole deck
    draws: int = 0  # turns recruiting from the deck (for the report)
    pile_takes: int = 0  # turns taking a whole discard pile
    pile_lords: int = 0  # Lords placed from discard piles


@dataclass
class Score(ScoreBySource):
    """ "1. Your Lords ... 2. Your Locations ... 3. Your Lords Coalition ... 4. The Pearl
    Master"."""

    lords: int = 0
    locations: int = 0
    coalition: int = 0
    pearl_master: int = 0


class Game(ReferenceGame):
    """One game of Conspiracy for 2-4 players, played to the end by `play()`."""

    POLICY_STREAM = Stream.POLICY

    @staticmethod
    def seats_allowed(tables: ConspiracyTables) -> tuple[int, int]:
        return tables.min_players, tables.max_players

    def new_game(self) -> None:
        self.players = [Player(seat=s) for s in range(self.n_players)]
        self.pearl_master = -1  # seat holding the Pearl Master token
        self.restriction = 0  # LocationPower of a "until your next turn" power in force
        self.restriction_owner = -1
        self.end_trigger = -1  # seat that placed its 15th Lord
        self.end_reason = "none"  # games.conspiracy.engine.state.END_REASONS
        self.next_seat = 0  # the turn boundary: the seat to play next,
        self.final_turns = 0  # and the last turns still to play once the end is triggered
        #: (state, stream counters, trace length) at the current turn's start, kept for the
        #: search player (`keep_turn_start`); None: no search seat, or not in `play`.
        self.turn_start: tuple[np.ndarray, np.ndarray, int] | None = None
        self.scores: list[Score] = []
        self.ranks: list[int] = []
        self._setup()

    # ------------------------------------------------------------------ setup
    def _setup(self) -> None:
        t = self.t
        self.lord_deck = list(range(len(t.lord_colour)))
        self.rng.shuffle(self.lord_deck, Stream.LORD_DECK)
        self.piles: list[list[int]] = [[] for _ in range(len(t.colour_names))]
        n_locations = len(t.location_number)
        self.location_deck = [
            c for c in range(n_locations) if t.bonus_locations or not t.location_bonus[c]
        ]
        self.rng.shuffle(self.location_deck, Stream.LOCATION_DECK)
        self.locations_available: list[int] = []
        self.log("setup")

    def log(self, event: str, **data) -> None:
        if self.record:
            self.events.append({"event": event, "turn": self.turn, **data})

    # ------------------------------------------------------------------ play
    def play(self) -> Game:
        """Turns clockwise until a Chamber is complete, then "Each opponent then gets to play
        one last turn"; then the scoring. Resumes from any turn's start (`next_seat`)."""
        while True:
            if self.end_trigger < 0 and self.turn >= TURN_LIMIT:
                # a safety stop (never reached by the shipped data)
                self.end_reason = "turn_limit"
                break
            seat = self.next_seat
            self.keep_turn_start()
            self.take_turn(seat)
            if self.end_of_turn(seat):
                break
        self.score()
        return self

    def end_of_turn(self, seat: int) -> bool:
        """After `seat`'s turn: the next seat (clockwise; once a Chamber is complete, each
        opponent of the player who completed it in turn); True when the game is over."""
        n = self.n_players
        if self.end_trigger < 0:
            self.next_seat = (seat + 1) % n
            return False
        if self.end_reason == "none":  # this turn completed a Chamber
            self.end_reason = "chamber_complete"
            self.final_turns = n - 1
        else:
            self.final_turns -= 1
        if self.final_turns == 0:
            return True
        self.next_seat = (self.end_trigger + n - self.final_turns) % n
        return False

    #: the state as the fast path's arrays (`state.encode`), for the search's replays
    encode = encode

    def take_turn(self, seat: int) -> None:
        p = self.players[seat]
        self.turn += 1
        if self.restriction_owner == seat:  # "until your next turn"
            self.restriction, self.restriction_owner = 0, -1
        self.log("turn", who=seat)
        recruited, pile = self.recruit(p)
        self.extend(p, recruited, pile)
        if len(p.chamber) == self.t.n_spots and self.end_trigger < 0:
            self.end_trigger = seat
            self.log("end_triggered", who=seat)

    # ------------------------------------------------------------------ step 1: recruit
    def source_options(self, p: Player) -> list[int]:
        """ "Draw 1, 2 or 3 cards at the same time from the top of the Lord deck" or "Choose a
        discard pile of one color; take ALL the Lords"; Location powers of an opponent may
        force a draw of the top 1 or top 2."""
        deck = len(self.lord_deck)
        if self.restriction and self.restriction_owner != p.seat and deck:
            forced = 1 if self.restriction == LocationPower.TOP_ONE_ONLY else 2
            return [min(forced, deck)]
        options = list(range(1, min(self.t.draw_max, deck) + 1))
        options += [PILE + c for c, pile in enumerate(self.piles) if pile]
        return options

    def recruit(self, p: Player) -> tuple[list[int], int]:
        """STEP 1. Returns the recruited Lords and the colour of the pile taken (-1: the deck)."""
        options = self.source_options(p)
        if not options:
            self.log("no_lord_left", who=p.seat)
            return [], -1
        source = self.choose(p.seat, Decision.SOURCE, options)
        if source >= PILE:
            colour = source - PILE
            lords, self.piles[colour] = self.piles[colour], []
            p.pile_takes += 1
            self.log("take_pile", who=p.seat, colour=colour, lords=list(lords))
            return lords, colour
        p.draws += 1
        drawn = [self.lord_deck.pop() for _ in range(source)]
        keep = self.choose(p.seat, Decision.KEEP, sorted(drawn))
        self.log("draw", who=p.seat, drawn=list(drawn), keep=keep)
        for lord in drawn:
            if lord != keep:
                # "The remaining cards are discarded faceup and divided according to their
                # color in the different discard piles."
                self.discard(lord)
        return [keep], -1

    def discard(self, lord: int) -> None:
        self.piles[int(self.t.lord_colour[lord])].append(lord)

    # ------------------------------------------------------------------ step 2: extend
    def extend(self, p: Player, recruited: list[int], pile: int) -> None:
        """ "if you recruit more than one Lord, choose the order in which they are placed";
        a pile larger than the free spaces: "they choose enough cards to complete their Chamber
        and replace the remaining cards faceup in the discard pile"."""
        remaining = list(recruited)
        while remaining and len(p.chamber) < self.t.n_spots:
            lord = self.choose(p.seat, Decision.PLACE, sorted(remaining))
            remaining.remove(lord)
            p.pile_lords += pile >= 0
            self.place(p, lord)
        if remaining:
            self.piles[pile].extend(remaining)  # back face up, in their order
            self.log("returned_to_pile", who=p.seat, lords=remaining)

    def place(self, p: Player, lord: int) -> None:
        """Place a Lord in the next spot ("from left to right and from top to bottom") and
        apply its effect."""
        t = self.t
        spot = len(p.chamber)
        p.chamber.append(lord)
        self.log("place", who=p.seat, lord=lord, spot=spot)
        power = int(t.lord_power[lord])
        if power == LordPower.SWAP:
            self.swap(p)
        elif power == LordPower.REVEAL:
            # the 6: "forces the top card of the deck to be discarded"
            if self.lord_deck:
                top = self.lord_deck.pop()
                self.discard(top)
                self.log("reveal", who=p.seat, lord=top)
        if t.lord_pearls[lord]:
            self.gain_pearls(p, int(t.lord_pearls[lord]))
        key = int(t.lord_key[lord])
        if key != KeyKind.NONE:
            p.keys.append(key)
            if self.location_due(p):
                self.take_location(p, spot)

    def swap_options(self, p: Player) -> list[int]:
        """The 0: "One zero (with the power to swap two Lords within your chamber)": any two
        Lords, this one included; with rules.zero_swap = "keyless" (Board Game Arena) never a Lord
        with a key. Declining is allowed."""
        keyless_only = self.t.zero_swap == ZeroSwap.KEYLESS
        spots = [
            i
            for i, lord in enumerate(p.chamber)
            if not keyless_only or self.t.lord_key[lord] == KeyKind.NONE
        ]
        pairs = [i * 16 + j for k, i in enumerate(spots) for j in spots[k + 1 :]]
        return [NO_SWAP, *pairs]

    def swap(self, p: Player) -> None:
        options = self.swap_options(p)
        if len(options) == 1:
            return
        choice = self.choose(p.seat, Decision.SWAP, options)
        if choice == NO_SWAP:
            return
        i, j = divmod(choice, 16)
        p.chamber[i], p.chamber[j] = p.chamber[j], p.chamber[i]
        self.log("swap", who=p.seat, spots=[i, j])

    # ------------------------------------------------------------------ Pearls
    def gain_pearls(self, p: Player, n: int) -> None:
        """THE PEARL MASTER: "The first player that gains one or several Pearls takes the Pearl
        Master token"; "If an opponent reaches the same number of Pearls as held by the Pearl
        Master, they steal the Pearl Master token"."""
        p.pearls += n
        self.log("pearls", who=p.seat, n=n, total=p.pearls)
        holder = self.pearl_master
        if holder == p.seat:
            return
        if holder < 0 or p.pearls >= self.players[holder].pearls:
            self.pearl_master = p.seat
            self.log("pearl_master", who=p.seat)

    # ------------------------------------------------------------------ Keys and Locations
    def location_due(self, p: Player) -> bool:
        """KEYS: "If they are identical, you immediately take control of a Location; If they are
        different, you will take control of a Location only after gaining a third key,
        whatever its color." (rules option `bga`: two identical keys only; Location power:
        "you need only 2 keys of any type")."""
        keys = p.keys
        if len(keys) >= 2 and p.any_two_keys:
            return True
        identical = any(keys.count(k) >= 2 for k in set(keys))
        if self.t.key_rule == 1:  # bga
            return identical
        return identical or len(keys) >= 3

    def take_location(self, p: Player, spot: int) -> None:
        """STEP 1 - Choose a Location (draw 1-3 and keep one, the rest face up; or a face-up
        one). STEP 2 - place it on the Lord just added: "your key count is reset to zero".
        STEP 3 - apply its power."""
        location = self.choose_location(p)
        p.keys.clear()
        if location < 0:
            self.log("no_location_left", who=p.seat)
            return
        p.locations.append(location)
        p.location_spots.append(spot)
        self.log("location", who=p.seat, location=location, spot=spot)
        self.location_power(p, location)

    def choose_location(self, p: Player) -> int:
        t = self.t
        if p.whole_deck:
            # "choose new Locations from the whole deck (then reshuffle)", "not from the
            # available ones": none when the deck is empty
            if not self.location_deck:
                return -1
            deck = sorted(self.location_deck)
            location = self.choose(p.seat, Decision.LOCATION_KEEP, deck)
            self.location_deck.remove(location)
            self.rng.shuffle(self.location_deck, Stream.LOCATION_DECK)
            return location
        draws = min(t.location_draw_max, len(self.location_deck))
        options = sorted(self.locations_available) + [
            LOCATION_DRAW + k for k in range(1, draws + 1)
        ]
        if not options:
            return -1
        choice = self.choose(p.seat, Decision.LOCATION_SOURCE, options)
        if choice < LOCATION_DRAW:
            self.locations_available.remove(choice)
            return choice
        drawn = [self.location_deck.pop() for _ in range(choice - LOCATION_DRAW)]
        keep = self.choose(p.seat, Decision.LOCATION_KEEP, sorted(drawn))
        self.locations_available.extend(c for c in drawn if c != keep)  # "discard the rest faceup"
        return keep

    def location_power(self, p: Player, location: int) -> None:
        t = self.t
        if t.location_pearls[location]:
            self.gain_pearls(p, int(t.location_pearls[location]))
        power = int(t.location_power[location])
        if power in (LocationPower.TOP_ONE_ONLY, LocationPower.TOP_TWO_KEEP_ONE):
            self.restriction, self.restriction_owner = power, p.seat
        elif power == LocationPower.RESHUFFLE_LORDS:
            for pile in self.piles:
                self.lord_deck.extend(pile)
                pile.clear()
            self.rng.shuffle(self.lord_deck, Stream.LORD_DECK)
        elif power == LocationPower.RESHUFFLE_LOCATIONS:
            self.location_deck.extend(self.locations_available)
            self.locations_available.clear()
            self.rng.shuffle(self.location_deck, Stream.LOCATION_DECK)
        elif power == LocationPower.ANY_TWO_KEYS:
            p.any_two_keys = True
        elif power == LocationPower.WHOLE_DECK:
            p.whole_deck = True

    # ------------------------------------------------------------------ scoring
    def score(self) -> None:
        """ "1. Your Lords ... 2. Your Locations ... 3. Your Lords Coalition ... 4. The Pearl
        Master"; "In case of a tie, the tied player with the most Pearls wins. If there is
        still a tie, the victory is shared."."""
        self.scores = [score_player(self.t, p, p.seat == self.pearl_master) for p in self.players]
        keys = [(s.total, p.pearls) for s, p in zip(self.scores, self.players, strict=True)]
        self.ranks = [1 + sum(other > mine for other in keys) for mine in keys]
        self.log("scores", totals=[s.total for s in self.scores], ranks=self.ranks)


def score_player(t: ConspiracyTables, p: Player, pearl_master: bool) -> Score:
    return Score(
        lords=lords_score(t, p.chamber),
        locations=sum(location_score(t, p, c) for c in p.locations),
        coalition=t.coalition_ip * largest_group(t, p.chamber, lambda lord: t.lord_colour[lord]),
        pearl_master=t.pearl_master_ip if pearl_master else 0,
    )


def lords_score(t: ConspiracyTables, chamber: list[int]) -> int:
    """ "the Influence Points from each of the most influential Lord of each race/color"."""
    best: dict[int, int] = {}
    for lord in chamber:
        colour = int(t.lord_colour[lord])
        best[colour] = max(best.get(colour, 0), int(t.lord_ip[lord]))
    return sum(best.values())


def largest_group(t: ConspiracyTables, chamber: list[int], label) -> int:
    """The size of the largest group of adjacent Lords with the same `label` (None: not
    counted): "the biggest group of adjacent Lords of the same color"."""
    seen: set[int] = set()
    best = 0
    for start in range(len(chamber)):
        mine = label(chamber[start])
        if start in seen or mine is None:
            continue
        seen.add(start)
        stack, size = [start], 0
        while stack:
            spot = stack.pop()
            size += 1
            for other in t.adjacency[spot]:
                if 0 <= other < len(chamber) and other not in seen:
                    if label(chamber[other]) == mine:
                        seen.add(int(other))
                        stack.append(int(other))
        best = max(best, size)
    return best


def location_score(t: ConspiracyTables, p: Player, location: int) -> int:
    """The IP of one Location: its printed IP plus `per` times what it counts (components.md
    3.5; `games/conspiracy/engine/data/locations.toml`)."""
    quantity = int(location_quantity(t, p, location))
    return int(t.location_ip[location]) + int(t.location_per[location]) * quantity


def location_quantity(t: ConspiracyTables, p: Player, location: int) -> int:
    """What a Location counts (0 for a fixed one)."""
    kind = LocationScore(int(t.location_score[location]))
    colour = int(t.location_colour[location])
    chamber = p.chamber
    if kind == LocationScore.FIXED:
        return 0
    if kind == LocationScore.SILVER_KEYS:  # "per silver key in your Chamber (used or not)"
        return sum(t.lord_key[lord] == KeyKind.SILVER for lord in chamber)
    if kind == LocationScore.GOLD_KEYS:
        return sum(t.lord_key[lord] == KeyKind.GOLD for lord in chamber)
    if kind == LocationScore.PEARL_PAIRS:
        return p.pearls // 2
    if kind == LocationScore.PER_LOCATION:  # "this one included"
        return len(p.locations)
    if kind == LocationScore.COLOUR_TOP:
        ips = [int(t.lord_ip[lord]) for lord in chamber if t.lord_colour[lord] == colour]
        return max(ips, default=0)
    if kind == LocationScore.COLOUR_COUNT:
        return sum(t.lord_colour[lord] == colour for lord in chamber)
    if kind == LocationScore.NO_KEY_NO_PEARL:
        return sum(
            t.lord_key[lord] == KeyKind.NONE and t.lord_pearls[lord] == 0 for lord in chamber
        )
    ip = GROUP_IP[kind]  # the largest group of adjacent Lords of that IP, any colour
    return largest_group(t, chamber, lambda lord: ip if t.lord_ip[lord] == ip else None)


GROUP_IP = {
    LocationScore.GROUP_1IP: 1,
    LocationScore.GROUP_2IP: 2,
    LocationScore.GROUP_3IP: 3,
    LocationScore.GROUP_4IP: 4,
}
