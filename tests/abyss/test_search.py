"""The search player (issue 21): "It never peeks: a test gives two states that differ only in
hidden cards the player has not seen and checks that the decision does not depend on them (same
decision for the same search seed)"; "Deterministic from the run's seed"."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from sim import games
from sim.abyss import kernel as KN
from sim.abyss import kernel_base as B
from sim.abyss import state as S
from sim.abyss import workspace as W
from sim.abyss.fast import lineup_arrays

SPEC = games.get("abyss")
SEARCH = "search:rollouts=24"


def _policies(specs, n):
    return SPEC.strategies().make_policies(specs, n)


def _workspace(tables, specs):
    kinds, params = lineup_arrays(_policies(specs, len(specs)))
    s = KN.new_workspace(W.cached_template(tables), kinds, params)
    return s


def _reach(s, seed, game, n_players, wanted):
    """Play game `game` turn by turn as the driver does (the search deciding on the way) up to
    the first decision of a search seat for which `wanted(s)` holds; the active seat and the
    turn's start there."""
    KN.new_game(s, seed, game, n_players)
    while True:
        seat = int(s[S.NEXT_SEAT])
        start = s[: W.SEARCH_BEGIN].copy()
        s[W.SCRIPT] = 0
        while True:
            s[: W.SEARCH_BEGIN] = start
            s[W.SEARCH_MODE], s[W.SEARCH_COUNT], s[W.SEARCH_FOUND] = B.PROBE, 0, 0
            KN.take_turn(s, seat)
            if s[W.SEARCH_FOUND] == 0:
                break
            if wanted(s):
                return seat, start
            k = s[W.SCRIPT]
            s[W.SCRIPT + 1 + k] = _decide(s, start, seat)[0]
            s[W.SCRIPT] = k + 1
        s[W.SEARCH_MODE] = 0
        assert not KN.end_of_turn(s, seat)


def _decide(s, start, active):
    n = int(s[W.SEARCH_N])
    visits, total = np.zeros(n, np.int64), np.zeros(n)
    rows = np.zeros((S.MAX_PLAYERS, S.N_SEAT_FIELDS), np.int32)
    option = KN.search_decision(s, start, s.copy(), rows, active, visits, total)
    return int(option), visits, total


def _bottom_swap(start, deck):
    """Swap the two bottom cards of a face-down deck (drawn last: not seen this turn)."""
    n = int(start[deck])
    assert n >= 12
    start[deck + 1], start[deck + 2] = start[deck + 2], start[deck + 1]


@pytest.mark.parametrize("expansions, n_players", [((), 2), (("leviathan",), 4)])
def test_the_search_never_peeks_at_the_hidden_cards(expansions, n_players):
    tables = SPEC.load_cards(None, [], expansions)
    specs = [SEARCH] + ["leviathan_hunter"] * (n_players - 1)
    s = _workspace(tables, specs)
    active, start = _reach(s, 3, 5, n_players, lambda s: s[W.SEARCH_N] >= 2)
    option, visits, total = _decide(s, start.copy(), active)
    assert visits.sum() >= 24 and len(visits) >= 2
    # the same turn with hidden cards in another order: every rollout the same
    hidden = start.copy()
    _bottom_swap(hidden, S.EXP_DECK)
    _bottom_swap(hidden, S.LORD_DECK)
    again = _decide(s, hidden, active)
    assert again[0] == option
    np.testing.assert_array_equal(again[1], visits)
    np.testing.assert_array_equal(again[2], total)
    # a seen card changed (the Court's first Lord): the rollouts see it
    seen = start.copy()
    court = S.COURT
    seen[court + 1] = seen[S.LORD_DECK + 1]  # replace it by a card from the deck's bottom
    changed = _decide(s, seen, active)
    assert not np.array_equal(changed[2], total)


def test_search_games_are_deterministic_and_independent_of_the_batch():
    tables = SPEC.load_cards(None, [], ())
    policies = _policies([SEARCH, "leviathan_hunter"], 2)
    run = SPEC.play().run_games
    both = run(tables, engine="fast", n_players=2, n_games=2, seed=8, policies=policies)
    again = run(tables, engine="fast", n_players=2, n_games=2, seed=8, policies=policies)
    pd.testing.assert_frame_equal(both.seats, again.seats)
    one = run(tables, engine="fast", n_players=2, n_games=1, seed=8, policies=policies)
    pd.testing.assert_frame_equal(one.seats, both.seats[both.seats["game"] == 0])


def test_the_reference_engine_says_the_search_plays_on_the_fast_path():
    from strategies.registry import StrategyError

    tables = SPEC.load_cards(None, [], ())
    with pytest.raises(StrategyError, match="fast path only"):
        SPEC.play().run_games(tables, engine="reference", n_players=2, n_games=1, seed=1,
                              policies=_policies([SEARCH, "greedy"], 2))  # fmt: skip


def test_a_planted_winning_move_is_found():
    """Recruiting a Lord worth 60 IP wins the game outright: offered it among other Lords, the
    search takes it, whichever Lord that is."""
    from sim.abyss import ktables as T
    from sim.abyss.policies import D_RECRUIT_LORD

    tables = SPEC.load_cards(None, [], ())
    s = _workspace(tables, [SEARCH, "leviathan_hunter"])
    active, start = _reach(s, 4, 2, 2, lambda s: s[W.SEARCH_DECISION] == D_RECRUIT_LORD
                           and s[W.SEARCH_N] >= 2)  # fmt: skip
    options = s[W.SEARCH_OPTS : W.SEARCH_OPTS + s[W.SEARCH_N]].copy()
    plain = _decide(s, start.copy(), active)[0]
    for lord in options:
        planted = start.copy()
        planted[T.LORD_IP + lord] = 60
        assert _decide(s, planted, active)[0] == lord, (lord, plain)
