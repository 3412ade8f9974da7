"""The learned player (docs/learned.md): its weights as data, both engines alike, and the search's
records that train it.

Every check here can fail: each names the defect it guards against.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from games.abyss.engine import policy_params as P
from games.abyss.engine import state as S
from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.fast import lineup_arrays
from games.abyss.engine.fork import seatings_of
from games.abyss.engine.kernel import game as KN
from games.abyss.engine.kernel import workspace as W
from games.abyss.engine.play import run_games
from games.abyss.strategies import REGISTRY
from games.abyss.strategies.learned import builtin_weights
from strategies.learned import save_weights
from strategies.registry import StrategyError

EXP = ("leviathan",)
FIELD = ["farmer_open_4p", "leviathan_hunter_open_4p", "pearl_economist_open_4p"]


@pytest.fixture(scope="module")
def tables():
    return load_cards(expansions=EXP)


def _weights_file(path, weights, base="pearl_economist_open_4p", game="abyss"):
    save_weights(path, weights, P.LEARNED_DECISIONS, P.FEATURE_NAMES,
                 {"game": game, "players": 4, "base": base})  # fmt: skip
    return path


def _random_weights(seed):
    rng = np.random.default_rng(seed)
    return rng.integers(-P.LEARNED_SCALE, P.LEARNED_SCALE, (P.N_LEARNED, P.N_FEATURES),
                        dtype=np.int32)  # fmt: skip


def _seats(tables, lineup, engine, n_games=12, seed=3):
    policies = REGISTRY.make_policies(lineup, 4)
    played = run_games(tables, engine=engine, n_players=4, n_games=n_games, seed=seed,
                       policies=policies, expansions=EXP)  # fmt: skip
    return played.seats.drop(columns="strategy")


def test_heuristic_pick_weights_play_the_base_heuristic(tables, tmp_path):
    """Weights that score only "the base heuristic picks it" play the base, game for game (a
    scorer that read its features or slots wrongly would depart)."""
    w = np.zeros((P.N_LEARNED, P.N_FEATURES), np.int32)
    w[:, 0] = P.LEARNED_SCALE
    path = _weights_file(tmp_path / "base.npz", w)
    learned = _seats(tables, [f"learned:weights={path}", *FIELD], "fast", n_games=200)
    base = _seats(tables, ["pearl_economist_open_4p", *FIELD], "fast", n_games=200)
    assert learned.equals(base)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_both_engines_play_the_learned_player_alike(tables, tmp_path, seed):
    """Random weights (a learned player unlike any heuristic): the reference engine and the fast
    path play the same games; and the games differ from the base's (the weights are read)."""
    path = _weights_file(tmp_path / f"w{seed}.npz", _random_weights(seed))
    lineup = [f"learned:weights={path}", *FIELD]
    fast = _seats(tables, lineup, "fast", seed=seed)
    assert fast.equals(_seats(tables, lineup, "reference", seed=seed))
    assert not fast.equals(_seats(tables, ["pearl_economist_open_4p", *FIELD], "fast", seed=seed))


def test_recording_changes_no_game(tables):
    """`learn_tables` plays the search driver's games byte for byte, and records decisions of
    the search seat only, each with its options' rollouts and the option played among them."""
    from games.abyss.engine.kernel import learn as L

    lineup = ["search:rollouts=8", *FIELD]
    kinds, params = lineup_arrays(REGISTRY.make_policies(lineup, 4))
    g = np.arange(4, dtype=np.int64)
    seatings = seatings_of(g, 4, 4)
    template = W.cached_template(tables)
    plain = np.zeros((4, 4, S.N_SEAT_FIELDS), dtype=np.int32)
    KN.play_tables_searched(template, np.int64(6), g, seatings, kinds, params, plain,
                            np.zeros((4, S.N_GAME_FIELDS), dtype=np.int32),
                            np.full(4, -1, dtype=np.int64),
                            np.zeros((0, W.MAX_ROUNDS, 4, 3), dtype=np.int32))  # fmt: skip
    recorded, _, rec = L.learn_tables(template, 6, g, seatings, kinds, params)
    np.testing.assert_array_equal(recorded, plain)
    count, row, n, _features, visits, _total, chosen, seat, _turn = rec
    assert (count > 20).all()
    for i in range(4):
        k = count[i]
        assert (seat[i, :k] == np.argmax(seatings[i] == 0)).all()  # entry 0 is the search
        assert ((row[i, :k] >= 0) & (row[i, :k] < P.N_LEARNED)).all()
        assert ((chosen[i, :k] >= 0) & (chosen[i, :k] < n[i, :k])).all()
        # UCB1's share of the budget of 8 (the confirmation pairs only when it departs)
        assert (visits[i, :k].sum(axis=1) >= 4).all()


def test_a_weights_file_is_checked_on_load(tmp_path):
    """A missing file, another game's, another shape, or not a weights file: one line."""
    bad_shape = tmp_path / "shape.npz"
    save_weights(bad_shape, np.zeros((3, 4), np.int32), (1, 2, 3), ("a", "b", "c", "d"),
                 {"game": "abyss", "players": 4, "base": "greedy"})  # fmt: skip
    other = _weights_file(tmp_path / "other.npz", np.zeros((P.N_LEARNED, P.N_FEATURES), np.int32),
                          game="conspiracy")  # fmt: skip
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    cases = {tmp_path / "none.npz": "no such file", bad_shape: "weights of shape \\(3, 4\\)",
             other: "for the game 'conspiracy'", junk: "not a learned player's weights"}
    for path, words in cases.items():
        with pytest.raises(StrategyError, match=words) as err:
            REGISTRY.make_policy(f"learned:weights={path}")
        assert "\n" not in str(err.value)


def test_a_file_made_before_features_were_added_plays_as_it_was_made(tables, tmp_path):
    """A weights file names its features: one holding only the first ones (as the built-in
    5-player file does) plays game for game as the same weights with 0 for the features it
    lacks; a file naming a feature the game does not have is refused in one line."""
    w = _random_weights(4)
    first = list(range(2 + P.N_CATEGORIES * P.N_STATE))
    old = tmp_path / "old.npz"
    save_weights(old, w[:, first], P.LEARNED_DECISIONS, [P.FEATURE_NAMES[k] for k in first],
                 {"game": "abyss", "players": 4, "base": "pearl_economist_open_4p"})  # fmt: skip
    padded = np.zeros_like(w)
    padded[:, first] = w[:, first]
    new = _weights_file(tmp_path / "new.npz", padded)
    loaded = REGISTRY.make_policy(f"learned:weights={old}").loaded.weights
    np.testing.assert_array_equal(loaded, padded)
    as_made = _seats(tables, [f"learned:weights={old}", *FIELD], "fast", n_games=40)
    assert as_made.equals(_seats(tables, [f"learned:weights={new}", *FIELD], "fast", n_games=40))
    unknown = tmp_path / "unknown.npz"
    save_weights(unknown, w[:, :3], P.LEARNED_DECISIONS, ["heuristic_pick", "greedy_key", "luck"],
                 {"game": "abyss", "players": 4, "base": "pearl_economist_open_4p"})  # fmt: skip
    with pytest.raises(StrategyError, match="made for other decisions or features") as err:
        REGISTRY.make_policy(f"learned:weights={unknown}")
    assert "\n" not in str(err.value)


def test_the_offered_ally_is_described_as_the_rules_price_it(tables):
    """ "The cost increases during your turn: the first Ally costs 1 Pearl, the second 2 Pearls,
    and the third 3 Pearls. Each opponent can only purchase one Ally during your turn." and an
    opponent is offered the Ally only if it can pay. At every buying decision the search records,
    the offered Ally's price is 1 to 3, at most the buyer's Pearls, and the track holds 1 to 5
    cards; at taking one, no price; declining has none of these features; and over the games
    some buying decision comes after a purchase (a price of 2 or more)."""
    from games.abyss.engine.kernel import learn as L

    lineup = ["search:rollouts=8", *FIELD]
    kinds, params = lineup_arrays(REGISTRY.make_policies(lineup, 4))
    g = np.arange(12, dtype=np.int64)
    _, _, rec = L.learn_tables(W.cached_template(tables), 9, g, seatings_of(g, 4, 4), kinds,
                               params)  # fmt: skip
    count, row, n, features, *_ = rec
    offer = [P.FEATURE_NAMES.index(name) for name in P.OFFER_NAMES]
    pearls = P.FEATURE_NAMES.index("pearls@1")  # (the "buy" option's block)
    buy, take = P.LEARNED_DECISIONS.index(3), P.LEARNED_DECISIONS.index(4)
    prices = []
    for i in range(len(g)):
        for k in range(count[i]):
            if row[i, k] not in (buy, take):
                continue
            options = features[i, k, : n[i, k]]
            described = np.flatnonzero(options[:, offer].any(axis=1))
            assert n[i, k] == 2 and len(described) == 1, (i, k)  # yes is, no is not
            value, price, track = options[described[0], offer]
            assert 1 <= value <= 5 and 1 <= track <= 5, (i, k)
            if row[i, k] == buy:
                assert 1 <= price <= 3 and price <= options[described[0], pearls], (i, k)
                prices.append(price)
            else:
                assert price == 0
    assert len(prices) > 20 and max(prices) >= 2


def test_the_cli_refuses_bad_weights_in_one_line(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "cli.entry", "simulate", "--games", "4",
         "--strategies", f"learned:weights={tmp_path / 'none.npz'},greedy",
         "--out", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode != 0
    assert len(result.stderr.strip().splitlines()) == 1 and "no such file" in result.stderr
    assert not (tmp_path / "run").exists()


def test_the_builtin_weights_load_and_name_their_base():
    policy = REGISTRY.make_policy("learned")
    assert builtin_weights().exists() and policy.loaded.meta["base"] in REGISTRY.strategy_names()
    assert policy.params()[P.L_WEIGHTS:].any()


def test_learned_plays_the_tables_own_weights(monkeypatch, tmp_path):
    """"`learned` (the player count's built-in weights)": at 4 players the built-in file; at a
    count without one, one line saying how to make them, not another count's weights. A file
    given plays at the count it was made for, and is refused in one line at another (naming the
    file, its count and the table's)."""
    from games.abyss.strategies.learned import LearnedPolicy

    four = REGISTRY.make_policies(["learned", "greedy"], 4)[0]
    assert four.loaded.digest == REGISTRY.make_policy("learned").loaded.digest
    five = REGISTRY.make_policies(["learned", "greedy"], 5)[0]
    assert five.loaded.digest != four.loaded.digest  # its own file, learned_5p.npz
    builtin = LearnedPolicy.builtin.__func__
    monkeypatch.setattr(LearnedPolicy, "builtin", classmethod(
        lambda cls, n: builtin(cls, n) if n != 5 else tmp_path / "none.npz"))  # fmt: skip
    with pytest.raises(StrategyError, match="no built-in weights for 5 players") as err:
        REGISTRY.make_policies(["learned", "greedy"], 5)
    assert "\n" not in str(err.value)
    mine = REGISTRY.make_policies([f"learned:weights={builtin_weights()}", "greedy"], 4)[0]
    assert mine.loaded.digest == four.loaded.digest
    for n in (2, 3, 5):
        with pytest.raises(StrategyError) as err:
            REGISTRY.make_policies([f"learned:weights={builtin_weights()}", "greedy"], n)
        message = str(err.value)
        assert "\n" not in message and str(builtin_weights()) in message, message
        assert "made for 4 players" in message and f"this table has {n}" in message, message


def test_a_tournament_of_more_strategies_than_seats_plays_the_weights_of_its_table():
    """A tournament's line-ups draw from one policy per strategy: the learned player among four
    strategies at a 2- or 3-player table plays that count's weights (it once took the number of
    strategies for the table's, and played the 4-player weights at every count)."""
    import hashlib

    from games.abyss.strategies.learned import LearnedPolicy
    from reports.play.tournament import game_policies

    for n in (2, 3, 4):
        learned = game_policies("abyss", ["learned", "farmer", "greedy", "random"], n)[0]
        expected = hashlib.sha256(LearnedPolicy.builtin(n).read_bytes()).hexdigest()
        assert learned.digest == expected, n
