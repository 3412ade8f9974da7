"""Restricted play forbids every route in Abyss: Conspiracy (issue 28): a seat forbidden a Lord
(a colour and value) or a Location gains it only where the rules left no other choice.

The decisions by which a player gains a Lord or a Location, read from the rule text (this file's
own reading, not the filter's code): "Draw 1, 2 or 3 cards ... Choose ONE CARD ONLY" (the Lord
kept; the draw itself is unseen); "Choose a discard pile of one color; take ALL the Lords" and
"if a player chooses to recruit Lords using a discard pile that contains more cards than free
spaces in their Senate Chamber, they choose enough cards to complete their Chamber and replace
the remaining cards faceup in the discard pile" (a pile gains the forbidden Lord unless the
other Lords fill the spaces left, and then the Lords placed); "Draw 1, 2 or 3 Location cards ...
Choose one of them ... -OR- take 1 of the available faceup Locations" (and Location #14's whole
deck).

The enumeration plays many games with every card forbidden in turn to every seat. Each seat is
an adversary that wants the card: at such a decision it takes, half the time, an option gaining
a forbidden card if the filter (`games.conspiracy.engine.policies.restricted`, the built-in
strategies'
own) leaves one, else any option the filter leaves; elsewhere any option; all at random. Each
such decision and each gain is recorded: no option gaining the forbidden card may be chosen while
another does not gain it, and every gain must follow such a forced choice.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
from conspiracy_helpers import Scripted, lord, new_game, set_pile, tables
from restricted_helpers import Adversary, RouteRecorder, audit_routes

from games.conspiracy.engine import policies as P
from games.conspiracy.engine import state as S
from games.conspiracy.engine.rules.game import PILE, Decision, Game
from games.conspiracy.strategies import HeuristicPolicy

D = Decision


def forbidden_lord(t, lord_id: int, colour: int, ip: int) -> bool:
    return int(t.lord_colour[lord_id]) == colour and (ip < 0 or int(t.lord_ip[lord_id]) == ip)


def gains(g: Game, seat: int, decision, options: list[int], forbid: dict):
    """For each option: does choosing it gain the seat a forbidden card? None: the decision
    gains no Lord or Location."""
    t, p = g.t, g.players[seat]
    colour, ip, location = forbid["forbid_colour"], forbid["forbid_ip"], forbid["forbid_location"]
    free = t.n_spots - len(p.chamber)
    if colour >= 0 and decision == D.SOURCE:
        out = []
        for o in options:
            pile = g.piles[o - PILE] if o >= PILE else []
            allowed = sum(not forbidden_lord(t, x, colour, ip) for x in pile)
            out.append(allowed < min(len(pile), free))  # a forbidden Lord must be placed
        return out
    if colour >= 0 and decision == D.KEEP:
        return [forbidden_lord(t, o, colour, ip) for o in options]
    if colour >= 0 and decision == D.PLACE:
        bad = [forbidden_lord(t, o, colour, ip) for o in options]
        return [any(bad)] * len(options) if len(options) <= free else bad  # all are placed
    if location >= 0 and decision in (D.LOCATION_SOURCE, D.LOCATION_KEEP):
        return [o == location for o in options]
    return None


class Recorder(RouteRecorder, Game):
    """A game recording the routes to its `forbid` cards (`restricted_helpers`)."""

    forbid: dict = {"forbid_colour": -1, "forbid_ip": -1, "forbid_location": -1}

    def route_gains(self, seat: int, decision, options: list[int]):
        return gains(self, seat, decision, options, self.forbid)


def audit_gains(g: Recorder, tally: Counter) -> list[str]:
    """A choice of a forbidden card with another option at hand, or a gain no forced choice
    explains; the routes met are counted in `tally`."""
    colour, ip, location = (g.forbid[k] for k in ("forbid_colour", "forbid_ip", "forbid_location"))

    def gained(e: dict, previous: dict | None) -> str | None:
        if e["event"] == "place" and forbidden_lord(g.t, e["lord"], colour, ip):
            return "forced"
        if e["event"] == "location" and e["location"] == location:
            return "forced"
        return None

    return audit_routes(g.events, "turn", gained, lambda d: D(d).name, tally)


def play_restricted(t, forbid: dict, n_players: int, seed: int, game: int, tally: Counter):
    forbid = {"forbid_colour": -1, "forbid_ip": -1, "forbid_location": -1, **forbid}
    policies = [Adversary(HeuristicPolicy(**forbid), kept) for _ in range(n_players)]
    g = Recorder(t, policies, seed=seed, game=game)
    g.forbid = forbid
    g.play()
    return audit_gains(g, tally)


def test_every_route_is_filtered():
    """Every Lord kind (colour and value) and every Location forbidden in turn to every seat of
    2- and 4-player games (8 games each)."""
    t = tables()
    kinds = sorted({(int(c), int(v)) for c, v in zip(t.lord_colour, t.lord_ip, strict=True)})
    cards = [{"forbid_colour": c, "forbid_ip": v} for c, v in kinds]
    cards += [{"forbid_location": x} for x in range(len(t.location_number))]
    tally: Counter = Counter()
    for k, forbid in enumerate(cards):
        for game in range(8):
            n_players = 2 + 2 * (game % 2)
            problems = play_restricted(t, forbid, n_players, 300 + k, game, tally)
            assert not problems, (forbid, game, problems[:3])
    for route in ("SOURCE", "KEEP", "PLACE", "LOCATION_SOURCE", "LOCATION_KEEP"):
        assert tally[route, "avoided"] > 0, (route, tally)
    assert tally["gained", "forced"] > 0


# ------------------------------------------------------------------ each route, by itself
def kept(g: Game, seat: int, decision, options: list[int], policy) -> list[int]:
    """The options the compiled filter leaves for `seat` playing `policy` (the heuristic's
    `forbid_*` slots)."""
    w = policy.workspace(g)
    n = len(options)
    w[S.OPT : S.OPT + n] = options
    first = S.POLICY_PARAMS + seat * S.N_PARAMS
    w[first : first + S.N_PARAMS] = policy.params()
    m = P.restricted(w, np.int64(seat), np.int64(decision), np.int64(n))
    return [int(x) for x in w[S.OPT : S.OPT + m]]


def fill_chamber(g: Game, seat: int, free: int) -> None:
    """Seat's Chamber full but for `free` spaces (Lords from the deck)."""
    p = g.players[seat]
    while len(p.chamber) < g.t.n_spots - free:
        p.chamber.append(g.lord_deck.pop())


def test_a_pile_larger_than_the_spaces_left_may_be_taken_without_the_forbidden_lord():
    """ "they choose enough cards to complete their Chamber and replace the remaining cards
    faceup in the discard pile": with one space left, a pile of a forbidden and an allowed Lord
    may be taken (the allowed one is placed), and the forbidden one is not placed while another
    can be; with two spaces left the pile would place it and is not taken."""
    t = tables()
    g = new_game(policies=[Scripted(), Scripted()])
    red6, red4 = lord(t, "red", 6), lord(t, "red", 4)
    set_pile(g, "red", [red6, red4])
    policy = HeuristicPolicy(forbid_colour=1, forbid_ip=6)  # red 6
    options = [1, 2, 3, PILE + 1]
    fill_chamber(g, 0, 2)
    assert kept(g, 0, D.SOURCE, options, policy) == [1, 2, 3]
    fill_chamber(g, 0, 1)
    assert kept(g, 0, D.SOURCE, options, policy) == options
    assert kept(g, 0, D.PLACE, sorted([red6, red4]), policy) == [red4]
    g.players[0].chamber.pop()  # two spaces: both are placed, in any order
    assert kept(g, 0, D.PLACE, sorted([red6, red4]), policy) == sorted([red6, red4])


def test_the_recorder_finds_a_choice_of_a_forbidden_lord():
    """The enumeration's check can fail: a seat that keeps a forbidden drawn Lord while another
    was drawn is reported."""
    t = tables()
    red6 = lord(t, "red", 6)
    pick = lambda g, seat, options: red6 if red6 in options else options[0]  # noqa: E731
    g = Recorder(t, [Scripted({D.SOURCE: [3], D.KEEP: pick}), Scripted()], seed=0, game=0)
    g.forbid = {"forbid_colour": 1, "forbid_ip": 6, "forbid_location": -1}
    g.lord_deck.remove(red6)
    g.lord_deck.append(red6)  # drawn first
    g.take_turn(0)
    problems = audit_gains(g, Counter())
    assert len(problems) == 1 and "other options" in problems[0]
