"""Parity: Conspiracy's fast path (`games.conspiracy.engine.kernel.game`) plays exactly the
reference
engine's
games: the same decisions with the same options in the same order, the same final state (every
card's place, every counter, the random streams' positions) and the same scores; with the search
player too (`games.conspiracy.engine.kernel.search`)."""

from __future__ import annotations

import numpy as np
import pytest

from games.conspiracy.engine import state as S
from games.conspiracy.engine.cards.loader import load_cards
from games.conspiracy.engine.kernel import game as KN
from games.conspiracy.engine.kernel.search import play_game
from games.conspiracy.engine.policies import SEARCH
from games.conspiracy.engine.rules.game import Game
from games.conspiracy.strategies import REGISTRY, HeuristicPolicy, RandomPolicy
from sim.core.rng import N_STREAMS
from sim.core.workspace import trace_of, with_trace

TRACE_CAP = 4000


def policies(lineup):
    made = {"random": RandomPolicy, "heuristic": HeuristicPolicy}
    return [made[name]() if name in made else REGISTRY.make_policy(name) for name in lineup]


def kernel_game(t, lineup, seed, game):
    base = S.template(t)
    s = with_trace(base, S.WORKSPACE_BASE, TRACE_CAP)
    ps = policies(lineup)
    for seat, p in enumerate(ps):
        s[S.POLICY_KIND + seat] = p.kind
        s[S.POLICY_PARAMS + seat * S.N_PARAMS : S.POLICY_PARAMS + (seat + 1) * S.N_PARAMS] = (
            p.params()
        )
    out_seats = np.zeros((len(lineup), KN.N_SEAT_FIELDS), dtype=np.int32)
    out_game = np.zeros(KN.N_GAME_FIELDS, dtype=np.int32)
    if any(p.kind == SEARCH for p in ps):  # the search's driver (play_tables_searched's)
        KN.new_game(s, np.int64(seed), np.int64(game), np.int64(len(lineup)))
        play_game(s)
        KN.results(s, out_seats, out_game)
    else:
        KN.play_one(s, np.int64(seed), np.int64(game), np.int64(len(lineup)), out_seats, out_game)
    trace = trace_of(s, S.TRACE)
    return s, out_seats, out_game, trace


def compare(t, lineup, seed, game):
    g = Game(t, policies(lineup), seed, game, record=False).play()
    s, out_seats, out_game, trace = kernel_game(t, lineup, seed, game)
    assert trace == g.trace, "different decisions"
    state, counters = S.encode(g)
    assert (S.canonical(s) == state).all(), "different final state"
    kcounters = s[S.RNG_COUNTERS : S.RNG_COUNTERS + 2 * N_STREAMS].copy().view(np.int64)
    assert (kcounters == counters).all(), "different random stream positions"
    for seat, score in enumerate(g.scores):
        row = out_seats[seat]
        assert (row[KN.R_SCORE], row[KN.R_LORDS], row[KN.R_LOCATIONS]) == (
            score.total,
            score.lords,
            score.locations,
        )
        assert (row[KN.R_COALITION], row[KN.R_PEARL_MASTER]) == (
            score.coalition,
            score.pearl_master,
        )
        assert row[KN.R_RANK] == g.ranks[seat]
    assert out_game[KN.RG_TURNS] == g.turn


@pytest.fixture(scope="module")
def tables():
    return {
        "seed": load_cards(),
        "options": load_cards(
            overrides={
                "rules.bonus_locations": True,
                "rules.key_rule": "bga",
                "rules.zero_swap": "keyless",
                "game.draw_max": 2,
            }
        ),
    }


LINEUPS = (["random"], ["heuristic"], ["heuristic", "random"])


@pytest.mark.parametrize("n_players", [2, 3, 4])
@pytest.mark.parametrize("lineup", LINEUPS, ids=["random", "heuristic", "mixed"])
@pytest.mark.parametrize("data", ["seed", "options"])
def test_parity_ci(tables, data, lineup, n_players):
    t = tables[data]
    for game in range(15):
        compare(t, [lineup[i % len(lineup)] for i in range(n_players)], seed=11, game=game)


@pytest.mark.parametrize("n_players", [2, 3, 4])
@pytest.mark.parametrize("data", ["seed", "options"])
def test_parity_search(tables, data, n_players):
    """The search player (games/conspiracy/strategies/search.py): the reference engine calls the
    compiled search from each turn's start, and plays the fast path's very games."""
    lineup = ["search:rollouts=6:rollout_policy=heuristic", "random", "key_hunter"]
    for game in range(3):
        compare(tables[data], [lineup[i % 3] for i in range(n_players)], seed=12, game=game)


@pytest.mark.slow
@pytest.mark.parametrize("n_players", [2, 3, 4])
@pytest.mark.parametrize("lineup", LINEUPS, ids=["random", "heuristic", "mixed"])
def test_parity_3000_seeds(tables, lineup, n_players):
    t = tables["seed"]
    for seed in range(3000):
        compare(t, [lineup[i % len(lineup)] for i in range(n_players)], seed=seed, game=seed % 5)
