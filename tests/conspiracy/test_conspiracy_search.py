"""The search player for Abyss: Conspiracy (docs/search.md): it never peeks, it is deterministic
from the run's seed, it takes a planted winning move, it only plays legal moves, and the
reference engine plays the very same games by calling the same compiled search.

What a player cannot see, from the rulebook (shared/seeds/004_f62d138e7f50b9bc.txt): only the
order of the two face-down decks. "Draw 1, 2 or 3 cards at the same time from the top of the Lord
deck, and then place them on the table in plain view"; "The remaining cards are discarded faceup";
Locations: "Draw 1, 2 or 3 Location cards at the same time. Choose one of them, then discard the
rest faceup.-OR- take 1 of the available faceup Locations". Chambers, piles, Pearls and Keys are
in plain view.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conspiracy_helpers import bonus_tables, tables

from sim import games
from sim.conspiracy import kernel as KN
from sim.conspiracy import kernel_search as KS
from sim.conspiracy import state as S
from sim.conspiracy.fast import lineup_arrays
from sim.conspiracy.policies import D_KEEP, D_LOCATION_SOURCE, D_PLACE, D_SOURCE
from sim.conspiracy.rules import Game

SPEC = games.get("conspiracy")
SEARCH = "search:rollouts=24"


def _policies(specs, n):
    return SPEC.strategies().make_policies(specs, n)


def _workspace(t, specs):
    kinds, params = lineup_arrays(_policies(specs, len(specs)))
    s = S.cached_template(t).copy()
    s[S.POLICY_KIND : S.POLICY_KIND + len(specs)] = kinds
    s[S.POLICY_PARAMS : S.POLICY_PARAMS + len(specs) * S.N_PARAMS] = params.reshape(-1)
    return s


def _reach(s, seed, game, n_players, wanted):
    """Play game `game` turn by turn as the driver does (the search deciding on the way) up to
    the first search decision for which `wanted(s)` holds; the active seat and the turn's start
    there."""
    KN.new_game(s, seed, game, n_players)
    while not KN.turn_limit(s):
        seat = int(s[S.NEXT_SEAT])
        start = s[: S.SEARCH_BEGIN].copy()
        s[S.SCRIPT] = 0
        while True:
            s[: S.SEARCH_BEGIN] = start
            s[S.SEARCH_MODE], s[S.SEARCH_COUNT], s[S.SEARCH_FOUND] = KN.PROBE, 0, 0
            KN.take_turn(s, seat)
            if s[S.SEARCH_FOUND] == 0:
                break
            if wanted(s):
                return seat, start
            k = s[S.SCRIPT]
            s[S.SCRIPT + 1 + k] = _decide(s, start, seat)[0]
            s[S.SCRIPT] = k + 1
        s[S.SEARCH_MODE] = 0
        assert not KN.end_of_turn(s, seat), "the game ended before the wanted decision"
    raise AssertionError("turn limit")


def _decide(s, start, active):
    n = int(s[S.SEARCH_N])
    visits, total = np.zeros(n, np.int64), np.zeros(n)
    rows = np.zeros((S.MAX_PLAYERS, KN.N_SEAT_FIELDS), np.int32)
    option = KS.search_decision(s, start, s.copy(), rows, np.int32(active), visits, total)
    return int(option), visits, total


def _bottom_swap(start, deck):
    """Swap the two bottom cards of a face-down deck (the top is drawn: these are not seen)."""
    assert start[deck] >= 8
    start[deck + 1], start[deck + 2] = start[deck + 2], start[deck + 1]


@pytest.mark.parametrize("n_players", [2, 4])
def test_the_search_never_peeks_at_the_face_down_decks(n_players):
    t = tables()
    specs = [SEARCH] + ["key_hunter_open_2p"] * (n_players - 1)
    s = _workspace(t, specs)
    # a recruitment with a discard pile on offer: turn 4 on, the piles hold Lords seen face up
    active, start = _reach(s, 3, 5, n_players, lambda s: s[S.SEARCH_DECISION] == D_SOURCE
                           and s[S.TURN] >= 4 and s[S.SEARCH_N] >= 4)  # fmt: skip
    option, visits, total = _decide(s, start.copy(), active)
    assert visits.sum() >= 24 and len(visits) >= 4
    # the same turn with the decks' hidden cards in another order: every rollout the same
    hidden = start.copy()
    _bottom_swap(hidden, S.LORD_DECK)
    _bottom_swap(hidden, S.LOC_DECK)
    again = _decide(s, hidden, active)
    assert again[0] == option
    np.testing.assert_array_equal(again[1], visits)
    np.testing.assert_array_equal(again[2], total)
    # a card in plain view changed (a discard pile's Lord for the deck's bottom card, of the
    # same colour so the pile stays a pile of one colour): the rollouts see it
    seen = start.copy()
    colour = next(c for c in range(S.MAX_COLOURS) if seen[S.PILES + c * S.PILE_STRIDE] > 0)
    pile = S.PILES + colour * S.PILE_STRIDE
    deck = seen[S.LORD_DECK + 1 : S.LORD_DECK + 1 + seen[S.LORD_DECK]]
    i = next(i for i, lord in enumerate(deck) if seen[S.T_LORD_COLOUR + lord] == colour
             and seen[S.T_LORD_IP + lord] != seen[S.T_LORD_IP + seen[pile + 1]])  # fmt: skip
    seen[pile + 1], seen[S.LORD_DECK + 1 + i] = seen[S.LORD_DECK + 1 + i], seen[pile + 1]
    changed = _decide(s, seen, active)
    assert not np.array_equal(changed[2], total)


def test_search_games_are_deterministic_and_independent_of_the_batch_and_threads():
    t = tables()
    policies = _policies([SEARCH, "key_hunter_open_2p"], 2)
    run = SPEC.play().run_games
    both = run(t, engine="fast", n_players=2, n_games=3, seed=8, policies=policies, threads=2)
    again = run(t, engine="fast", n_players=2, n_games=3, seed=8, policies=policies, threads=1)
    pd.testing.assert_frame_equal(both.seats, again.seats)
    pd.testing.assert_frame_equal(both.games, again.games)
    one = run(t, engine="fast", n_players=2, n_games=1, seed=8, policies=policies, threads=1)
    pd.testing.assert_frame_equal(one.seats, both.seats[both.seats["game"] == 0])
    other = run(t, engine="fast", n_players=2, n_games=3, seed=9, policies=policies, threads=1)
    assert not other.seats["score"].equals(both.seats["score"])


def test_a_planted_winning_lord_is_always_kept():
    """"Choose ONE CARD ONLY to add to your Senate Chamber. The remaining cards are discarded
    faceup": offered three Lords, one of them made worth 60 IP (the card table's IP; a colour's
    most influential Lord scores), the search keeps it, whichever it is. Left in a discard
    pile, the opponent would take it."""
    t = tables()
    s = _workspace(t, [SEARCH, "key_hunter_open_2p"])
    active, start = _reach(s, 4, 2, 2, lambda s: s[S.SEARCH_DECISION] == D_KEEP
                           and s[S.SEARCH_N] >= 3)  # fmt: skip
    options = s[S.SEARCH_OPTS : S.SEARCH_OPTS + s[S.SEARCH_N]].copy()
    plain = _decide(s, start.copy(), active)[0]
    for lord in options:
        planted = start.copy()
        planted[S.T_LORD_IP + lord] = 60
        assert _decide(s, planted, active)[0] == lord, (lord, plain)


class Checked:
    """A seat that plays `random` until turn `from_turn`, then searches; every option it
    picks is recorded with the legal options the rules gave (`rules.Game.choose`)."""

    REPLAYS_TURNS = True

    def __init__(self, search, random, from_turn):
        self.search, self.random, self.from_turn = search, random, from_turn
        self.name, self.kind = "checked", search.kind
        self.picked: list[tuple[int, list[int], int]] = []

    def params(self):
        return self.search.params()

    def choose(self, game, seat, decision, options):
        if game.turn < self.from_turn:
            return self.random.choose(game, seat, decision, options)
        option = self.search.choose(game, seat, decision, options)
        self.picked.append((int(decision), list(options), option))
        return option


@pytest.mark.parametrize("cards", ["seed", "bonus"])
def test_the_search_plays_only_legal_moves_from_random_states(cards, n_games=40):
    """Random games to a random turn, then the search in one seat: each of its options is one
    the rules offered (rules.Game lists them: sources, kept and placed Lords, swaps,
    Locations)."""
    t = tables() if cards == "seed" else bonus_tables()
    rng = np.random.default_rng(5)
    decisions, picked = set(), 0
    for game in range(n_games):
        n_players = int(rng.integers(2, 5))
        search, random = _policies(["search:rollouts=6", "random"], 2)
        seat = Checked(search, random, from_turn=int(rng.integers(1, 12 * n_players)))
        lineup = [seat] + _policies(["random"], n_players - 1)
        Game(t, lineup, seed=31, game=game, record=False).play()
        for decision, options, option in seat.picked:
            assert option in options, (decision, options, option)
            decisions.add(decision)
        picked += len(seat.picked)
    assert picked >= 5 * n_games  # (a game may end before its random turn)
    assert {D_SOURCE, D_KEEP, D_PLACE, D_LOCATION_SOURCE} <= decisions


def test_the_reference_engine_plays_the_same_search_games():
    t = tables()
    policies = _policies(["search:rollouts=8", "key_hunter_open_2p"], 2)
    play = SPEC.play().run_games
    fast = play(t, engine="fast", n_players=2, n_games=3, seed=4, policies=policies)
    reference = play(t, engine="reference", n_players=2, n_games=3, seed=4, policies=policies)
    pd.testing.assert_frame_equal(fast.seats, reference.seats)
    pd.testing.assert_frame_equal(fast.games, reference.games)


def test_a_search_the_reference_engine_cannot_replay_is_one_clear_error():
    from conspiracy_helpers import Scripted

    from strategies.registry import StrategyError

    search = _policies(["search"], 1)[0]
    with pytest.raises(StrategyError, match="games played by `Game.play`") as info:
        search.choose(Game(tables(), [search, search], 1), 0, D_SOURCE, [1, 2, 3])
    assert "\n" not in str(info.value)
    with pytest.raises(StrategyError, match="all must be built-in strategies or presets"):
        Game(tables(), [search, Scripted()], 1).play()
