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
from games.conspiracy.engine.kernel import core as K
from games.conspiracy.strategies import REGISTRY
from sim import games
from strategies.learned import save_weights
from strategies.registry import StrategyError

SPEC = games.get("conspiracy")
BASE = "key_hunter_open_2p"


def _weights_file(path, weights, game="conspiracy", base=BASE, players=2):
    save_weights(path, weights, P.LEARNED_DECISIONS, P.FEATURE_NAMES,
                 {"game": game, "players": players, "base": base})  # fmt: skip
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
    path = _weights_file(tmp_path / "w.npz", w, players=3)  # (a file plays at its own count)
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


def _seat(w, seat, pearls=0, keys=(), any_two=0):
    b = K.pb(seat)
    w[b + S.P_PEARLS], w[b + S.P_ANY_TWO] = pearls, any_two
    w[b + S.P_KEYS] = len(keys)
    w[b + S.P_KEYS + 1 : b + S.P_KEYS + 1 + len(keys)] = keys


def test_a_location_due_is_the_rules_threshold_of_keys():
    """ "When you have either two identical keys, or three keys, you must take control of a
    Location" (and "If they are different, you will take control of a Location only after
    gaining a third key"): the learned player's `location_due` and the game's own check are one
    function (kernel.core.keys_complete), here on set keys."""
    w = S.cached_template(tables()).copy()
    silver, gold = K.KEY_SILVER, K.KEY_GOLD
    cases = [((), 1, 0, False), ((), 2, 0, True), ((), 1, 1, False), ((), 1, 2, True),
             ((silver,), 0, 1, False), ((silver,), 1, 0, True), ((silver, gold), 0, 1, True),
             ((gold,), 0, 0, False)]  # fmt: skip
    for keys, more_silver, more_gold, due in cases:
        _seat(w, 0, keys=keys)
        assert K.keys_complete(w, 0, more_silver, more_gold) == due, (keys, more_silver, more_gold)
    _seat(w, 0, keys=(silver,), any_two=1)  # a Location's power: any two keys
    assert K.keys_complete(w, 0, 0, 1) and not K.keys_complete(w, 0, 0, 0)


def test_the_pearl_master_is_taken_by_reaching_the_holders_pearls():
    """ "The first player that gains one or several Pearls takes the Pearl Master token" and "If
    an opponent reaches the same number of Pearls as held by the Pearl Master, they steal the
    Pearl Master token": the learned player's `pearl_master` and the game's gain of Pearls are
    one function (kernel.core.takes_master)."""
    w = S.cached_template(tables()).copy()
    _seat(w, 0, pearls=1)
    _seat(w, 1, pearls=3)
    w[S.PEARL_MASTER] = -1
    assert K.takes_master(w, 0, 1)
    w[S.PEARL_MASTER] = 1
    assert K.takes_master(w, 0, 2) and not K.takes_master(w, 0, 1)
    w[S.PEARL_MASTER] = 0
    assert not K.takes_master(w, 0, 5)


def test_the_recorded_thresholds_are_live():
    """At the search's recorded decisions, `location_due` and `pearl_master` are 0 or 1, 1 at
    some of them, and only on a Lord kept or placed, or a pile taken (`pearl_master` also on
    a Location, whose Pearls count the same)."""
    from games.conspiracy.engine.fast import lineup_arrays
    from games.conspiracy.engine.kernel import search as KS

    kinds, params = lineup_arrays(REGISTRY.make_policies(["search:rollouts=8", BASE], 2))
    gs = np.arange(8, dtype=np.int64)
    seatings = np.tile(np.arange(2, dtype=np.int64), (8, 1))
    *_, rec = KS.learn_tables(S.cached_template(tables()), 6, gs, seatings, kinds, params,
                              KS.N_SEAT_FIELDS, KS.N_GAME_FIELDS)  # fmt: skip
    count, row, n, features, *_ = rec
    due, master = P.FEATURE_NAMES.index("location_due"), P.FEATURE_NAMES.index("pearl_master")
    lords = [P.LEARNED_DECISIONS.index(d) for d in (P.D_SOURCE, P.D_KEEP, P.D_PLACE)]
    places = [P.LEARNED_DECISIONS.index(d) for d in (P.D_LOCATION_SOURCE, P.D_LOCATION_KEEP)]
    seen = np.zeros(2, dtype=int)
    for i in range(len(gs)):
        for k in range(count[i]):
            f = features[i, k, : n[i, k]][:, [due, master]]
            assert np.isin(f, (0, 1)).all()
            assert row[i, k] in lords or not f[:, 0].any()
            assert row[i, k] in lords + places or not f[:, 1].any()
            seen += f.sum(axis=0)
    assert (seen > 0).all(), seen


def _chamber(w, seat, lords, locations=()):
    b = K.pb(seat)
    w[b + S.P_CHAMBER] = len(lords)
    w[b + S.P_CHAMBER + 1 : b + S.P_CHAMBER + 1 + len(lords)] = lords
    w[b + S.P_LOCATIONS] = len(locations)
    w[b + S.P_LOCATIONS + 1 : b + S.P_LOCATIONS + 1 + len(locations)] = locations


def _unchanged(w, before):
    scratch = np.zeros(len(w), dtype=bool)
    scratch[S.ROW3 : S.ROW3 + S.ROW_WIDTH] = True
    return np.array_equal(w[~scratch], before[~scratch])


def _scored(w, seat):
    from games.conspiracy.engine.kernel import game as KN

    row = np.zeros(KN.N_SEAT_FIELDS, dtype=np.int64)
    KN.seat_score(w, seat, row)
    return row[KN.R_COALITION], row[KN.R_LOCATIONS]


def test_a_lords_coalition_and_locations_gain_are_the_games_score():
    """ "Your Lords Coalition: the biggest group of adjacent Lords of the same color is identified
    and 3 points are scored for each Lord within it", and "Your Locations: the total of Influence
    Points from the Locations you control": `coalition_gain` and `locations_gain` of a Lord kept
    or a pile taken are what the game's own score gains when they take the next spots; the
    workspace is left as it was (but for the scoring's scratch row)."""
    t = tables()
    w = S.cached_template(t).copy()
    blue = [i for i in range(t.n_lords) if t.lord_colour[i] == 1 and t.lord_ip[i] > 0]
    red = [i for i in range(t.n_lords) if t.lord_colour[i] == 0 and t.lord_ip[i] > 0]
    count_red = int(np.flatnonzero((t.location_score == 6) & (t.location_colour == 0))[0])
    _chamber(w, 0, [red[0], blue[0]], locations=[count_red])  # spots 1 and 2 (adjacent)
    f = np.zeros(S.N_FEATURES, dtype=np.int64)
    pile = S.PILES + 1 * S.PILE_STRIDE
    w[pile], w[pile + 1], w[pile + 2] = 2, blue[1], blue[2]
    gain = P.FEATURE_NAMES.index("coalition_gain"), P.FEATURE_NAMES.index("locations_gain")
    cases = [(P.D_KEEP, blue[3], [blue[3]]), (P.D_KEEP, red[1], [red[1]]),
             (P.D_PLACE, blue[3], [blue[3]]),
             (P.D_SOURCE, P.PILE + 1, [blue[1], blue[2]])]  # fmt: skip
    seen = set()
    for decision, o, placed in cases:
        before = w.copy()
        P.lords_gains(w, 0, decision, o, f)
        assert _unchanged(w, before)
        coalition, locations = _scored(w, 0)
        _chamber(w, 0, [red[0], blue[0], *placed], locations=[count_red])
        after = _scored(w, 0)
        _chamber(w, 0, [red[0], blue[0]], locations=[count_red])
        assert f[gain[0]] * t.coalition_ip == after[0] - coalition, (decision, o)
        assert f[gain[1]] == after[1] - locations, (decision, o)
        seen.add((int(f[gain[0]]), int(f[gain[1]])))
    assert seen == {(1, 0), (0, 1), (2, 0)}, seen  # a blue closes a coalition, a red counts


def test_a_location_on_offer_is_scored_as_the_game_scores_it():
    """A Location scores its printed IP and `per` times its quantity ("the total of Influence
    Points from the Locations you control"); one scoring per Location controlled counts itself
    and raises another held. `location_ip` is the IP the seat's Locations gain by taking it; its
    power is one of five kinds (the two that restrict the opponents' next draw are one)."""
    t = tables()
    w = S.cached_template(t).copy()
    red = [i for i in range(t.n_lords) if t.lord_colour[i] == 0 and t.lord_ip[i] > 0]
    count_red = int(np.flatnonzero((t.location_score == 6) & (t.location_colour == 0))[0])
    per_location = int(np.flatnonzero(t.location_score == 4)[0])
    fixed = int(np.flatnonzero(t.location_score == 0)[0])
    ip, per = t.location_ip, t.location_per
    f = np.zeros(S.N_FEATURES, dtype=np.int64)
    k = P.FEATURE_NAMES.index("location_ip")
    _chamber(w, 0, red[:2], locations=[fixed])
    for location, expected in ((count_red, ip[count_red] + 2 * per[count_red]),
                               (per_location, ip[per_location] + 2 * per[per_location]),
                               (fixed, ip[fixed])):  # fmt: skip
        before = w.copy()
        P.location_features(w, 0, location, f)
        assert _unchanged(w, before)
        assert f[k] == expected and f[k + 1] == per[location], location
    _chamber(w, 0, red[:2], locations=[per_location])  # a second Location raises the first
    P.location_features(w, 0, fixed, f)
    assert f[k] == ip[fixed] + per[per_location]
    powers = [P.FEATURE_NAMES.index(f"location_{name}") for name in
              ("restricts", "reshuffles_lords", "reshuffles_locations", "any_two", "whole_deck")]
    for power, at in ((1, 0), (2, 0), (3, 1), (4, 2), (5, 3), (6, 4), (0, None)):
        location = int(np.flatnonzero(t.location_power == power)[0])
        f[:] = 0
        P.location_features(w, 0, location, f)
        assert f[powers].tolist() == [int(i == at) for i in range(5)], power
