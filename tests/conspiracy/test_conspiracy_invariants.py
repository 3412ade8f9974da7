"""Invariants of the *Abyss: Conspiracy* reference engine over thousands of random games.

Every game is played by `RandomPolicy` (uniform legal choices from the game's own POLICY stream),
so a game is a pure function of (seed, game index). After every turn the state is checked:

- every Lord card is in exactly one place (the deck, one discard pile of its colour, a Chamber)
  and every Location in one place (the deck, the face-up row, a player);
- a Chamber holds at most 15 Lords; each Location masks a key Lord of its owner's Chamber, and the
  Locations were taken exactly where the key rule says (replayed from the Chamber: seed text
  "two identical keys, or three keys"; Location #13 "any 2 keys");
- Pearls = Pearls of the placed Lords + Pearls of the Locations; the Pearl Master holds the most;
- after the game: the trigger seat has a full Chamber, the turns are "Each opponent then gets to
  play one last turn" (seats before the trigger one more than the trigger, the others as many),
  the score is recomputed independently part by part (adjacency typed in from components.md 3.3,
  Location formulas from components.md 3.5), ranks follow totals then Pearls, and a replay of
  the same seed gives the same trace.

The fast tier plays 2000 games per player count; the `slow` tier 20000.
"""

from __future__ import annotations

from collections import Counter

import pytest
from conspiracy_helpers import RandomPolicy, bonus_tables, tables

from games.conspiracy.engine.cards.loader import ConspiracyTables, KeyKind, LocationPower
from games.conspiracy.engine.rules.game import PILE, Decision, Game

# components.md 3.3, 0-based
NEIGHBOURS = {
    s - 1: [n - 1 for n in ns]
    for s, ns in {
        1: [2, 6],
        2: [1, 3, 6, 7],
        3: [2, 4, 7, 8],
        4: [3, 5, 8, 9],
        5: [4, 9],
        6: [1, 2, 7, 10],
        7: [2, 3, 6, 8, 10, 11],
        8: [3, 4, 7, 9, 11, 12],
        9: [4, 5, 8, 12],
        10: [6, 7, 11, 13],
        11: [7, 8, 10, 12, 13, 14],
        12: [8, 9, 11, 14],
        13: [10, 11, 14, 15],
        14: [11, 12, 13, 15],
        15: [13, 14],
    }.items()
}

FAST_GAMES = 2000
SLOW_GAMES = 20000


class CheckedGame(Game):
    """A Game that checks the state invariants after every turn and counts turns per seat."""

    def __init__(self, *args, **kwargs):
        self.turns_by_seat: Counter = Counter()
        self.forcing = (0, -1)  # (#9 / #10 power, its owner), tracked here independently
        self.placed: dict[int, list[tuple[int, int]]] = {}  # seat -> (spot, Lord) as placed
        super().__init__(*args, **kwargs)
        check_state(self)

    def take_turn(self, seat: int) -> None:
        if self.forcing[1] == seat:  # "until your next turn"
            self.forcing = (0, -1)
        super().take_turn(seat)
        self.turns_by_seat[seat] += 1
        check_state(self)

    def gain_pearls(self, p, n: int) -> None:
        """THE PEARL MASTER, restated: the first to gain Pearls takes the token; an opponent
        reaching the same number or more steals it; otherwise it stays."""
        holder = self.pearl_master
        held = self.players[holder].pearls if holder >= 0 else 0
        super().gain_pearls(p, n)
        if holder < 0 or holder == p.seat or p.pearls >= held:
            assert self.pearl_master == p.seat
        else:
            assert self.pearl_master == holder

    def choose(self, seat: int, decision: Decision, options: list[int]) -> int:
        """Offered options: draw 1-3 (as the deck allows) or any non-empty pile, unless an
        opponent's Location #9 / #10 forces the top 1 / top 2."""
        if decision == Decision.SOURCE:
            deck = len(self.lord_deck)
            power, owner = self.forcing
            if power and owner != seat and deck:
                top = 1 if power == LocationPower.TOP_ONE_ONLY else 2
                assert options == [min(top, deck)]
            else:
                piles = [PILE + c for c, pile in enumerate(self.piles) if pile]
                assert options == list(range(1, min(3, deck) + 1)) + piles
        return super().choose(seat, decision, options)

    def place(self, p, lord: int) -> None:
        self.placed.setdefault(p.seat, []).append((len(p.chamber), lord))
        super().place(p, lord)

    def location_power(self, p, location: int) -> None:
        number = int(self.t.location_number[location])
        if number in (9, 10):  # the last one taken is in force (see test_conspiracy_rules.py)
            power = LocationPower.TOP_ONE_ONLY if number == 9 else LocationPower.TOP_TWO_KEEP_ONE
            self.forcing = (power, p.seat)
        super().location_power(p, location)


# ------------------------------------------------------------------------------ state checks
def supply_exhausted(g: Game) -> bool:
    return not g.location_deck and not g.locations_available


def check_state(g: Game) -> None:
    t = g.t
    # every Lord in exactly one place
    lords = list(g.lord_deck)
    for c, pile in enumerate(g.piles):
        assert all(int(t.lord_colour[x]) == c for x in pile), ("pile colour", c, pile)
        lords += pile
    for p in g.players:
        assert len(p.chamber) <= t.n_spots
        lords += p.chamber
    assert sorted(lords) == list(range(t.n_lords)), "a Lord lost or duplicated"
    # every Location in exactly one place
    locations = g.location_deck + g.locations_available
    for p in g.players:
        locations += p.locations
    assert sorted(locations) == sorted(g_location_supply(t)), "a Location lost or duplicated"

    most = max(p.pearls for p in g.players)
    for p in g.players:
        check_locations(g, p)
        pearls = sum(int(t.lord_pearls[x]) for x in p.chamber)
        pearls += sum(int(t.location_pearls[x]) for x in p.locations)
        assert p.pearls == pearls
    if most == 0:
        assert g.pearl_master == -1
    else:
        assert g.players[g.pearl_master].pearls == most


def g_location_supply(t: ConspiracyTables) -> list[int]:
    return [c for c in range(t.n_locations) if t.bonus_locations or not t.location_bonus[c]]


def check_locations(g: Game, p) -> None:
    """Replay the key rule on the Lords in the order they were placed (the 0 may since have
    swapped them): keys count when a Lord is added, and a Location is taken on the spot where
    the Lord completing the keys was placed."""
    t = g.t
    assert len(p.locations) == len(p.location_spots)
    assert p.location_spots == sorted(set(p.location_spots))
    placed = g.placed.get(p.seat, []) if isinstance(g, CheckedGame) else list(enumerate(p.chamber))
    assert sorted(lord for _, lord in placed) == sorted(p.chamber)
    taken = dict(zip(p.location_spots, p.locations, strict=True))
    numbers = [int(t.location_number[x]) for x in p.locations]
    assert p.any_two_keys == (13 in numbers)
    assert p.whole_deck == (14 in numbers)
    keys: list[int] = []
    any_two = False
    expected: list[int] = []
    for spot, lord in placed:
        key = int(t.lord_key[lord])
        if key == KeyKind.NONE:
            assert spot not in taken
            continue
        keys.append(key)
        identical = len(keys) != len(set(keys))
        if identical or len(keys) >= 3 or (any_two and len(keys) >= 2):
            expected.append(spot)
            keys = []
            if spot in taken and int(t.location_number[taken[spot]]) == 13:
                any_two = True
        else:
            assert spot not in taken, "a Location without the keys for it"
    if supply_exhausted(g):
        # "no_location_left": a due Location may have found no card
        assert set(p.location_spots) <= set(expected)
    else:
        assert p.location_spots == expected
        assert p.keys == keys


# ------------------------------------------------------------------------------ scoring, by hand
def location_value(t: ConspiracyTables, p, loc: int) -> int:
    """components.md 3.5, from the printed number."""
    number = int(t.location_number[loc])
    chamber = p.chamber
    fixed = {1: 7, 2: 5, 3: 4, 4: 3, 9: 3, 10: 3, 11: 3, 12: 3, 13: 3, 14: 3}
    if number in fixed:
        return fixed[number]
    if number == 5:
        return sum(int(t.lord_key[x]) == KeyKind.SILVER for x in chamber)
    if number == 6:
        return 2 * sum(int(t.lord_key[x]) == KeyKind.GOLD for x in chamber)
    if number == 7:
        return p.pearls // 2
    if number == 8:
        return 2 * len(p.locations)
    colour = int(t.location_colour[loc])
    if number == 100:
        return max([int(t.lord_ip[x]) for x in chamber if t.lord_colour[x] == colour], default=0)
    if number == 101:
        return 1 + sum(int(t.lord_colour[x]) == colour for x in chamber)
    if number in (21, 22, 23, 24):
        ip = number - 20
        return (1 if ip == 1 else 2) * group(chamber, lambda x: t.lord_ip[x] == ip)
    if number == 25:
        return 1 + sum(int(t.lord_ip[x]) in (0, 6) for x in chamber)
    raise AssertionError(f"unknown Location #{number}")


def group(chamber: list[int], member) -> int:
    """Largest connected set of spots whose Lord satisfies `member` (components.md 3.3)."""
    best, seen = 0, set()
    for start in range(len(chamber)):
        if start in seen or not member(chamber[start]):
            continue
        todo, size = [start], 0
        seen.add(start)
        while todo:
            s = todo.pop()
            size += 1
            for n in NEIGHBOURS[s]:
                if n < len(chamber) and n not in seen and member(chamber[n]):
                    seen.add(n)
                    todo.append(n)
        best = max(best, size)
    return best


def check_final(g: Game) -> None:
    t, n = g.t, g.n_players
    # the end: a full Chamber for the trigger seat; "Each opponent then gets to play one last turn"
    trigger = g.end_trigger
    assert trigger >= 0
    assert g.end_reason == "chamber_complete"
    assert len(g.players[trigger].chamber) == t.n_spots
    base = g.turns_by_seat[trigger]
    for seat in range(n):
        assert g.turns_by_seat[seat] == base + (1 if seat < trigger else 0), (
            trigger,
            dict(g.turns_by_seat),
        )
    assert g.turn == sum(g.turns_by_seat.values())
    for p in g.players:  # every turn recruits: from the deck or a whole pile
        assert p.draws + p.pile_takes == g.turns_by_seat[p.seat]
    # scores, part by part
    assert len(g.scores) == n
    for p, s in zip(g.players, g.scores, strict=True):
        best: dict[int, int] = {}
        for x in p.chamber:
            best[int(t.lord_colour[x])] = max(best.get(int(t.lord_colour[x]), 0), int(t.lord_ip[x]))
        assert s.lords == sum(best.values())
        assert s.locations == sum(location_value(t, p, loc) for loc in p.locations)
        coalition = max(
            (group(p.chamber, lambda x, c=c: t.lord_colour[x] == c) for c in range(t.n_colours)),
            default=0,
        )
        assert s.coalition == 3 * coalition
        assert s.pearl_master == (5 if p.seat == g.pearl_master else 0)
        assert s.total == s.lords + s.locations + s.coalition + s.pearl_master
    # ranks: highest total first; ties broken by most Pearls; still tied: shared
    keys = [(s.total, p.pearls) for s, p in zip(g.scores, g.players, strict=True)]
    assert min(g.ranks) == 1
    for i in range(n):
        for j in range(n):
            if keys[i] > keys[j]:
                assert g.ranks[i] < g.ranks[j]
            elif keys[i] == keys[j]:
                assert g.ranks[i] == g.ranks[j]
        assert g.ranks[i] == 1 + sum(k > keys[i] for k in keys)


def play(t: ConspiracyTables, n: int, seed: int, game: int) -> CheckedGame:
    g = CheckedGame(t, [RandomPolicy() for _ in range(n)], seed=seed, game=game, record=False)
    g.play()
    check_final(g)
    return g


def run(t: ConspiracyTables, n: int, games: int, seed: int) -> Counter:
    """Play and check `games` games; return a few counts showing what the games went through."""
    seen: Counter = Counter()
    for i in range(games):
        g = play(t, n, seed, i)
        seen["games"] += 1
        seen[f"trigger_{g.end_trigger}"] += 1
        seen["shared_first"] += g.ranks.count(1) > 1
        totals = [s.total for s in g.scores]
        seen["pearl_tiebreak"] += totals.count(max(totals)) > 1 and g.ranks.count(1) == 1
        for p in g.players:
            for loc in p.locations:
                seen[f"location_{int(t.location_number[loc])}"] += 1
        seen["locations_exhausted"] += supply_exhausted(g)
    return seen


# ------------------------------------------------------------------------------ tests
@pytest.mark.parametrize("n", [2, 3, 4])
def test_random_games_keep_every_invariant(n):
    seen = run(tables(), n, FAST_GAMES, seed=20240601 + n)
    assert seen["games"] == FAST_GAMES
    # the games went through the interesting cases (else the checks above proved little)
    for number in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 100, 101):
        assert seen[f"location_{number}"] > 0, number
    assert all(seen[f"trigger_{s}"] > 0 for s in range(n))


def test_random_games_with_bonus_locations_keep_every_invariant():
    t = bonus_tables()
    seen = Counter()
    for n in (2, 3, 4):
        seen += run(t, n, 300, seed=77 + n)
    for number in (21, 22, 23, 24, 25):
        assert seen[f"location_{number}"] > 0, number


@pytest.mark.parametrize("n", [2, 3, 4])
def test_same_seed_same_game(n):
    """Determinism: a game is a pure function of (seed, game index)."""
    t = tables()
    for i in range(50):
        a = Game(t, [RandomPolicy() for _ in range(n)], seed=99, game=i).play()
        b = Game(t, [RandomPolicy() for _ in range(n)], seed=99, game=i).play()
        assert a.trace == b.trace
        assert a.events == b.events
        assert [s.total for s in a.scores] == [s.total for s in b.scores]
        assert a.ranks == b.ranks
    traces = {
        tuple(Game(t, [RandomPolicy()] * n, seed=seed, game=0).play().trace) for seed in range(20)
    }
    assert len(traces) == 20  # different seeds, different games


def test_recording_does_not_change_the_game():
    """`record=False` only drops the event log: same choices, same result."""
    t = tables()
    for i in range(50):
        a = Game(t, [RandomPolicy()] * 3, seed=5, game=i, record=True).play()
        b = Game(t, [RandomPolicy()] * 3, seed=5, game=i, record=False).play()
        assert a.trace == b.trace and a.ranks == b.ranks and b.events == []


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
def test_many_random_games_keep_every_invariant(n):
    seen = run(tables(), n, SLOW_GAMES, seed=777 + n)
    assert seen["games"] == SLOW_GAMES
    assert seen["shared_first"] > 0
    assert seen["pearl_tiebreak"] > 0


@pytest.mark.slow
def test_many_random_bga_games_keep_every_invariant():
    from conspiracy_helpers import bga_tables

    for n in (2, 3, 4):
        run(bga_tables(), n, SLOW_GAMES // 4, seed=31 + n)
