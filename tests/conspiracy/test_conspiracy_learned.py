"""Conspiracy's learned player (docs/learned.md): both engines play it alike, weights that score
only "the base picks it" play the base, recording changes no game, and a weights file for
another game or shape is refused in one line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conspiracy_helpers import tables

from games.conspiracy.engine import policies as P
from games.conspiracy.engine import state as S
from games.conspiracy.strategies import REGISTRY
from sim import games
from strategies.learned import save_weights
from strategies.registry import StrategyError

SPEC = games.get("conspiracy")
BASE = "key_hunter_open_2p"


def _weights_file(path, weights, game="conspiracy", base=BASE):
    save_weights(path, weights, P.LEARNED_DECISIONS, P.FEATURE_NAMES,
                 {"game": game, "players": 2, "base": base})  # fmt: skip
    return path


def _seats(lineup, engine, n_players=2, n_games=12, seed=5):
    policies = REGISTRY.make_policies(lineup, n_players)
    played = SPEC.play().run_games(tables(), engine=engine, n_players=n_players,
                                   n_games=n_games, seed=seed, policies=policies)  # fmt: skip
    return played.seats.drop(columns="strategy")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_both_engines_play_the_learned_player_alike(tmp_path, seed):
    """Random weights (every feature read, every decision scored): the reference engine, which
    calls the same compiled `choose`, plays the fast path's games (3 players)."""
    rng = np.random.default_rng(seed)
    w = rng.integers(-S.LEARNED_SCALE, S.LEARNED_SCALE, (S.N_LEARNED, S.N_FEATURES),
                     dtype=np.int32)  # fmt: skip
    path = _weights_file(tmp_path / "w.npz", w)
    lineup = [f"learned:weights={path}", "pile_raider_open_3p", "random"]
    fast = _seats(lineup, "fast", 3, 8, seed)
    pd.testing.assert_frame_equal(fast, _seats(lineup, "reference", 3, 8, seed))


def test_heuristic_pick_weights_play_the_base(tmp_path):
    """Weights that score only "the base heuristic picks it" play the base, game for game."""
    w = np.zeros((S.N_LEARNED, S.N_FEATURES), np.int32)
    w[:, 0] = S.LEARNED_SCALE
    path = _weights_file(tmp_path / "w.npz", w)
    mine = _seats([f"learned:weights={path}", "high_ip_open_2p"], "fast", n_games=40)
    base = _seats([BASE, "high_ip_open_2p"], "fast", n_games=40)
    pd.testing.assert_frame_equal(mine, base)


def test_recording_changes_no_game():
    """The search's games with its decisions recorded are its games, byte for byte, and every
    record names a scored decision, an option among its n, and a search seat."""
    from games.conspiracy.engine.fast import lineup_arrays
    from games.conspiracy.engine.kernel import search as KS

    lineup = ["search:rollouts=8", BASE]
    kinds, params = lineup_arrays(REGISTRY.make_policies(lineup, 2))
    gs = np.arange(6, dtype=np.int64)
    seatings = np.tile(np.arange(2, dtype=np.int64), (6, 1))
    template = S.cached_template(tables())
    seats, games_, rec = KS.learn_tables(template, 4, gs, seatings, kinds, params,
                                         KS.N_SEAT_FIELDS, KS.N_GAME_FIELDS)  # fmt: skip
    out_seats = np.zeros_like(seats)
    out_games = np.zeros_like(games_)
    KS.play_tables_searched(template, np.int64(4), gs, seatings, kinds, params, out_seats,
                            out_games)  # fmt: skip
    np.testing.assert_array_equal(seats, out_seats)
    np.testing.assert_array_equal(games_, out_games)
    count, row, n, _, visits, _, chosen, seat, _ = rec
    assert (count > 0).all()
    for i in range(6):
        k = count[i]
        assert ((row[i, :k] >= 0) & (row[i, :k] < S.N_LEARNED)).all()
        assert ((chosen[i, :k] >= 0) & (chosen[i, :k] < n[i, :k])).all()
        assert (seat[i, :k] == 0).all() and (visits[i, :k].sum(axis=1) >= 4).all()


def test_a_weights_file_for_another_game_or_shape_is_refused_in_one_line(tmp_path):
    from games.abyss.strategies.learned import builtin_weights

    shape = tmp_path / "shape.npz"
    save_weights(shape, np.zeros((2, 3), np.int32), (0, 1), ("a", "b", "c"),
                 {"game": "conspiracy", "players": 2, "base": BASE})  # fmt: skip
    for path, words in ((builtin_weights(), "for the game 'abyss'"),
                        (shape, "weights of shape \\(2, 3\\)")):  # fmt: skip
        with pytest.raises(StrategyError, match=words) as err:
            REGISTRY.make_policy(f"learned:weights={path}")
        assert "\n" not in str(err.value)


def test_the_builtin_weights_load_and_name_their_base():
    policy = REGISTRY.make_policy("learned")
    assert policy.loaded.meta["base"] in REGISTRY.strategy_names()
    assert policy.params()[S.L_WEIGHTS:S.N_SLOTS].any()
