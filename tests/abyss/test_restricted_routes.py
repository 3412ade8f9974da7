"""Restricted play forbids every route (issue 28): a seat forbidden a Lord or a Location gains it
only where the rules left no other choice.

Every decision by which a player gains a Lord or a Location, read from the rules (this file's
own reading, not the filter's code): recruiting (the action, when the forbidden Lord is the only
affordable one, and the Lord recruited), the Corruptor's and the Traitor's Lord from the Court
(the Traitor's replacement, when the forbidden Lord is the only one in the Court), a Location
face up or kept among those drawn (also an Ambassador's), the Illusionist's exchange (the
Location taken; the exchange itself, when the forbidden Location is the only one available) and
Black Smokers' swap (the Location swapped for; keeping Black Smokers when it is the forbidden
one). The Schemer's replacement is the top of the Lord deck, unseen: not a choice of the card.

The enumeration plays many games with every card forbidden in turn to every seat. Each seat is
an adversary that wants the card: at such a decision it takes, half the time, an option gaining
the card if the filter (`games.abyss.engine.policies.restricted`, the built-in strategies' own)
leaves one, else any option the filter leaves, at random; elsewhere any option, at random (so every
power is met: the built-in strategies never use some, e.g. the Illusionist). Each such decision
and each gain is recorded: no decision may choose an option that gains the forbidden card while
another option does not, and every gain must follow such a forced choice (or the Schemer's
unseen draw), so that a route missing from the list above shows up as an unexplained gain.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
from abyss_helpers import (
    Scripted,
    give_location,
    give_lord,
    lev_tables,
    location_id,
    new_game,
    put_in_court,
    tables,
)
from restricted_helpers import Adversary, RouteRecorder, audit_routes

from games.abyss.engine import policies as P
from games.abyss.engine.cards.constants import LocationRule, Power
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.rules.base import DECLINE, LOCATION_DRAW, Action
from games.abyss.engine.rules.base import Decision as D
from games.abyss.engine.rules.game import Game
from games.abyss.strategies import REGISTRY
from games.abyss.strategies.baseline import GreedyPolicy


def gains(g: Game, seat: int, decision, options: list[int], kind: str, card: int):
    """For each option: does choosing it gain the seat `card` (a "lord" or a "location" id)?
    None: the decision gains no Lord or Location."""
    p = g.players[seat]
    if kind == "lord" and decision == D.ACTION:
        only = g.affordable_lords(p) == [card]
        return [o == Action.RECRUIT and only for o in options]
    if kind == "lord" and decision in (D.RECRUIT_LORD, D.COURT_LORD):
        return [o == card for o in options]
    if kind == "lord" and decision == D.OWN_LORD:  # the Traitor's (the Lord just gained)
        traitor = g.lord_power(p.lords[-1]) == Power.TRAITOR
        return [o != DECLINE and traitor and g.court == [card] for o in options]
    if kind == "location" and decision in (D.LOCATION_SOURCE, D.LOCATION_KEEP):
        return [o == card for o in options]  # (a draw from the stack is unseen)
    if kind == "location" and decision == D.ILLUSIONIST_TAKE:
        return [o == card for o in options]
    if kind == "location" and decision == D.ILLUSIONIST_GIVE:
        return [o != DECLINE and g.locations_available == [card] for o in options]
    if kind == "location" and decision == D.BLACK_SMOKERS:
        keeps_it = g.t.location_rule[card] == LocationRule.BLACK_SMOKERS
        return [o == card or (i == 0 and keeps_it) for i, o in enumerate(options)]
    return None


class Recorder(RouteRecorder, Game):
    """A game recording the routes to its `forbidden` card (`restricted_helpers`)."""

    forbidden: tuple[str, int] = ("lord", -1)

    def route_gains(self, seat: int, decision, options: list[int]):
        return gains(self, seat, decision, options, *self.forbidden)


def audit_gains(g: Recorder, tally: Counter) -> list[str]:
    """A choice of the forbidden card with another option at hand, or a gain no forced choice
    explains (the Schemer's replacement is unseen); the routes met are counted in `tally`."""
    kind, card = g.forbidden

    def gained(e: dict, previous: dict | None) -> str | None:
        if kind == "lord" and e["event"] == "gain_lord" and e["lord"] == card:
            return "unseen" if previous is not None and previous["event"] == "schemer" else "forced"
        if kind == "location" and e["event"] in ("control_location", "illusionist"):
            return "forced" if e.get("location", e.get("took")) == card else None
        return None

    return audit_routes(g.events, "turn_start", gained, lambda d: D(d).name, tally)


def adversary(**forbid) -> Adversary:
    return Adversary(GreedyPolicy(**forbid), kept)


def enumerate_games(t, n_players: int, games: dict[str, int], seed: int) -> Counter:
    """Every Lord and every Location forbidden in turn to every seat (all adversaries),
    games[kind] games each; fails on the first problem. Returns the routes met."""
    tally: Counter = Counter()
    cards = [("lord", c) for c in range(t.n_lords)] + [
        ("location", c) for c in range(t.n_locations)
    ]
    for k, (kind, card) in enumerate(cards):
        forbid = {"forbid_lord": card} if kind == "lord" else {"forbid_location": card}
        policies = [adversary(**forbid) for _ in range(n_players)]
        for game in range(games[kind]):
            g = Recorder(t, policies, seed=seed + k, game=game)
            g.forbidden = (kind, card)
            g.play()
            problems = audit_gains(g, tally)
            assert not problems, (kind, card, game, problems[:3])
    return tally


def test_every_route_is_filtered_base_game():
    """The base game, 4 players: each of the 35 Lords in 4 games, each of the 20 Locations in
    16 (their routes are rarer)."""
    tally = enumerate_games(tables(), 4, {"lord": 4, "location": 16}, seed=100)
    assert tally["gained", "forced"] > 0  # forced gains exist: the rules do force some
    routes = ("ACTION", "RECRUIT_LORD", "COURT_LORD", "LOCATION_SOURCE", "LOCATION_KEEP",
              "ILLUSIONIST_TAKE", "BLACK_SMOKERS")  # fmt: skip
    for route in routes:  # met and avoided (the Traitor's and the exchange's refusals are rarer:
        assert tally[route, "avoided"] > 0, (route, tally)  # tested below by themselves)


def test_every_route_is_filtered_with_leviathan():
    """With the Leviathan expansion, 5 players: each of the 44 Lords in 3 games, each of the 20
    Locations in 8."""
    tally = enumerate_games(lev_tables(), 5, {"lord": 3, "location": 8}, seed=200)
    assert tally["RECRUIT_LORD", "avoided"] > 0 and tally["LOCATION_SOURCE", "avoided"] > 0


# ------------------------------------------------------------------ each route, by itself
def kept(g: Game, seat: int, decision, options: list[int], policy) -> list[int]:
    """The options the compiled filter leaves for `seat` playing `policy` (greedy's `forbid_*`
    slots)."""
    w = policy.workspace(g)
    n = len(options)
    w[W.OPT : W.OPT + n] = options
    w[W.POLICY_KIND + seat] = P.GREEDY
    w[W.POLICY_PARAMS + seat * W.N_PARAMS : W.POLICY_PARAMS + (seat + 1) * W.N_PARAMS] = (
        policy.params()
    )
    m = P.restricted(w, np.int64(seat), np.int64(decision), np.int64(n))
    return [int(x) for x in w[W.OPT : W.OPT + m]]


def left(g: Game, decision, options: list[int], **forbid) -> list[int]:
    """`kept` for seat 0 forbidden `forbid`."""
    return kept(g, 0, decision, options, GreedyPolicy(**forbid))


def test_illusionist_never_takes_the_forbidden_location_by_choice():
    """The Illusionist: "You can exchange one of your Locations for a different available one":
    the forbidden Location is not taken while another is available; when it is the only one,
    the exchange itself is declined (giving a Location is still allowed otherwise)."""
    g = new_game()
    jail = give_location(g, 0, "The Jail")
    parliament = location_id(g, "Parliament")
    available = list(g.locations_available)
    options = available + [parliament]
    assert left(g, D.ILLUSIONIST_TAKE, options, forbid_location=parliament) == available
    g.location_deck.extend(g.locations_available)
    g.locations_available[:] = [parliament]
    g.location_deck.remove(parliament)
    assert left(g, D.ILLUSIONIST_GIVE, [DECLINE, jail], forbid_location=parliament) == [DECLINE]
    other = location_id(g, "The Barracks")
    assert left(g, D.ILLUSIONIST_GIVE, [DECLINE, jail], forbid_location=other) == [DECLINE, jail]


def test_black_smokers_swap_never_takes_the_forbidden_location():
    """Black Smokers: "you may immediately swap it for a Location of your choice from the deck":
    not for the forbidden one; and when Black Smokers is the forbidden one, keeping it (the
    first option) is dropped, so it is swapped away while the deck has a Location."""
    g = new_game()
    bs, jail = location_id(g, "Black Smokers"), location_id(g, "The Jail")
    deck = sorted(x for x in g.location_deck if x != bs)
    options = [bs, *deck]
    assert left(g, D.BLACK_SMOKERS, options, forbid_location=jail) == [
        o for o in options if o != jail
    ]
    assert left(g, D.BLACK_SMOKERS, options, forbid_location=bs) == deck
    assert left(g, D.BLACK_SMOKERS, [bs], forbid_location=bs) == [bs]  # forced: kept


def test_traitor_declines_when_only_the_forbidden_lord_is_in_the_court():
    """The Traitor: "You can discard one of your other free Lords and replace it with any Lord
    from the Court": declined when the Court holds only the forbidden Lord; the Schemer's
    replacement (the top of the deck, unseen) is not affected."""
    g = new_game()
    keeper = give_lord(g, 0, "Keeper")
    (miller,) = put_in_court(g, "Miller", clear=True)
    options = [DECLINE, keeper]
    give_lord(g, 0, "Traitor")  # the Lord whose power asks: the last gained
    assert left(g, D.OWN_LORD, options, forbid_lord=miller) == [DECLINE]
    reaper = give_lord(g, 1, "Reaper")
    assert left(g, D.OWN_LORD, options, forbid_lord=reaper) == options
    put_in_court(g, "Shepherd")  # another Lord to take: the Court choice is filtered instead
    assert left(g, D.OWN_LORD, options, forbid_lord=miller) == options
    assert left(g, D.COURT_LORD, list(g.court), forbid_lord=miller) == [g.court[1]]
    g.court.pop()
    give_lord(g, 0, "Schemer")
    assert left(g, D.OWN_LORD, options, forbid_lord=miller) == options


def test_opportunist_discard_is_not_a_gain():
    """The Opportunist: "discard a Lord from the Court and replace it with the top one from the
    deck" gains nothing: discarding the forbidden Lord stays allowed (COURT_DISCARD)."""
    g = new_game()
    court = list(g.court)
    assert left(g, D.COURT_DISCARD, court, forbid_lord=court[0]) == court


def test_restricted_heuristic_plays_the_same_games_on_both_engines():
    """The filter is the compiled policy both engines run: restricted presets play the same
    games on the fast path and the reference engine (a Location with its new routes forbidden:
    Black Smokers)."""
    from sim import games

    spec = games.get("abyss")
    t = spec.load_cards(None, [], ())
    bs = t.location_name.index("Black Smokers")
    policies = REGISTRY.make_policies(
        [f"greedy:forbid_location={bs}", "key_hunter:forbid_location=0", "random"], 3
    )
    runs = [spec.play().run_games(t, engine=e, n_players=3, n_games=20, seed=4,
                                  policies=policies) for e in ("fast", "reference")]  # fmt: skip
    pd.testing.assert_frame_equal(runs[0].seats, runs[1].seats)
    pd.testing.assert_frame_equal(runs[0].games, runs[1].games)


def test_the_recorder_finds_a_choice_of_the_forbidden_card():
    """The enumeration's check can fail: a seat that ignores the restriction (scripted to take
    the forbidden face-up Location with another on offer) is reported."""
    pick = lambda g, seat, options: location_id(g, "Parliament")  # noqa: E731
    g = Recorder(tables(), [Scripted({D.LOCATION_SOURCE: pick}), Scripted()], seed=0, game=0)
    parliament = location_id(g, "Parliament")
    g.forbidden = ("location", parliament)
    if parliament in g.location_deck:
        g.location_deck.remove(parliament)
        g.locations_available.append(parliament)
    keeper, reaper, shepherd = (give_lord(g, 0, n) for n in ("Keeper", "Reaper", "Shepherd"))
    g.take_location(g.players[0], [keeper, reaper, shepherd])
    problems = audit_gains(g, Counter())
    assert len(problems) == 1 and "with other options" in problems[0]
    assert LOCATION_DRAW + 1 in g.events[-2]["options"]
