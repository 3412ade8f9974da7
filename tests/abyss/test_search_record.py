"""Fight or explore under search play (issue 21: "`ev` answers the fight-or-explore question also
under search play"): the recording driver changes no game, the check finds a planted answer,
says "cannot tell" without one, and is deterministic from the seed."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from games.abyss.engine.fast import lineup_arrays
from games.abyss.engine.fork import seatings_of
from games.abyss.engine.kernel import game as KN
from games.abyss.engine.kernel import record as KR
from games.abyss.engine.kernel import workspace as W
from games.abyss.report.search_check import check_summary, run_search_check
from sim import games

SPEC = games.get("abyss")
LINEUP = ["search:rollouts=8", "leviathan_hunter", "greedy", "lord_rusher"]


def _tables():
    return SPEC.load_cards(None, [], ("leviathan",))


def _workspace(tables, lineup, game):
    kinds, params = lineup_arrays(SPEC.strategies().make_policies(lineup, len(lineup)))
    seating = seatings_of(np.array([game]), len(lineup), len(lineup))[0]
    s = KN.new_workspace(W.cached_template(tables), kinds[seating], params[seating], 4096)
    KN.new_game(s, 5, game, len(lineup))
    return s


@pytest.mark.parametrize("game", [0, 1, 2])
def test_recording_changes_no_game(game):
    """A game played by the recording driver (its extra rollouts included) is the game the
    search driver plays, byte for byte: the whole workspace, the decision trace included."""
    tables = _tables()
    plain = _workspace(tables, LINEUP, game)
    KN.play_searched(plain)
    recorded = _workspace(tables, LINEUP, game)
    info = np.zeros((64, W.N_FORK_INFO), dtype=np.int32)
    values = np.zeros((64, KR.N_VALUE_ROWS, KR.MAX_OPTIONS))
    n = KR.play_recorded(recorded, np.int64(game), np.int64(77), np.int64(3), info, values)
    assert n > 0  # decisions were recorded and rolled out
    assert (info[:n, KR.INFO_SEAT] >= 0).all()
    assert (values[:n, KR.V_VISITS, :2] >= 1).all()
    np.testing.assert_array_equal(recorded, plain)


def test_recorded_tables_score_as_the_search_driver_does():
    """The parallel drivers agree too: `record_tables` ends every game with the scores
    `play_tables_searched` gives it."""
    from games.abyss.engine import state as S

    tables = _tables()
    kinds, params = lineup_arrays(SPEC.strategies().make_policies(LINEUP, 4))
    g = np.arange(3, dtype=np.int64)
    seatings = seatings_of(g, 4, 4)
    template = W.cached_template(tables)
    plain = np.zeros((3, 4, S.N_SEAT_FIELDS), dtype=np.int32)
    KN.play_tables_searched(template, np.int64(6), g, seatings, kinds, params, plain,
                            np.zeros((3, S.N_GAME_FIELDS), dtype=np.int32),
                            np.full(3, -1, dtype=np.int64),
                            np.zeros((0, W.MAX_ROUNDS, 4, 3), dtype=np.int32))  # fmt: skip
    recorded = np.zeros_like(plain)
    count = np.zeros(3, dtype=np.int32)
    KR.record_tables(template, np.int64(6), g, seatings, kinds, params, np.int64(5), np.int64(2),
                     recorded, np.zeros((3, 64, W.N_FORK_INFO), dtype=np.int32),
                     np.zeros((3, 64, KR.N_VALUE_ROWS, KR.MAX_OPTIONS)), count)  # fmt: skip
    assert count.sum() > 0
    np.testing.assert_array_equal(recorded, plain)


def test_the_plain_fast_path_does_not_import_the_recording():
    """`play_tables` and the search driver compile nothing of the recording: the kernel does
    not import it."""
    code = ("import sys, games.abyss.engine.fast; "
            "print('games.abyss.engine.kernel.record' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _rigged(tables):
    """Fighting is always right: every attack removes every Life Point (Resistance 0), and a
    Leviathan's attack, the risk of continuing, costs 100 Wounds (-100 IP)."""
    return dataclasses.replace(
        tables,
        leviathan_resistance=np.zeros_like(tables.leviathan_resistance),
        leviathan_penalty=np.zeros_like(tables.leviathan_penalty),  # Penalty.WOUNDS
        leviathan_penalty_n=np.full_like(tables.leviathan_penalty_n, 100),
    )


def test_a_planted_answer_is_found():
    """Where fighting is always right the search fights: it agrees with 'always fight' and not
    with a rule that (almost) never fights, and where it differs from that rule its choice wins
    more, in the independent rollouts as in its own."""
    # the search's own best option: not kept to its model's (which fights only at a risk)
    lineup = ["search:confidence=0:rollout_policy=leviathan_hunter", "greedy"]
    check = run_search_check(_rigged(_tables()), n_players=2, strategies=lineup, seed=3,
                             n_games=16, replicates=8)  # fmt: skip
    assert len(check.points) >= 25
    always = check_summary(check.points, "fight_p=0/36")
    assert always["agreement"][0] >= 0.8
    never = check_summary(check.points, "fight_risk=36/36")
    assert never["rule_fights"] == 0.0
    assert never["agreement"][2] < 0.3
    d = never["differ"]["search fights, rule continues"]
    assert d["decisions"] >= 20
    assert d["eval_ip"][1] > 0 and d["eval_reward"][1] > 0 and d["search_reward"][1] > 0
    assert never["verdict"] == "the search's choice"


def test_no_difference_is_cannot_tell():
    """A difference with no signal in it (both options' outcomes from one distribution) is
    "cannot tell"; the same numbers shifted by a clear margin are not."""
    rng = np.random.default_rng(4)
    n = 400
    points = pd.DataFrame({"game": np.arange(n) // 4, "n_options": 2, "chance_36": 20,
                           "arrival_risk": 500,
                           "search_choice": rng.integers(0, 2, n)})  # fmt: skip
    for prefix in ("eval_reward", "eval_ip", "search_mean"):
        for option in ("fight", "continue"):
            points[f"{prefix}_{option}"] = rng.normal(0.3, 0.2, n)
    found = check_summary(points, "fight_risk=6/36")  # fights at every point: risk 18/36
    assert found["rule_fights"] == 1.0 and 150 < found["compared"] - found["agree"] < 250
    assert found["verdict"] == "cannot tell"
    fights = points["search_choice"] == 1
    points.loc[fights, "eval_reward_fight"] += 0.2
    points.loc[~fights, "eval_reward_continue"] += 0.2  # the search's choice: better by 0.2
    assert check_summary(points, "fight_risk=6/36")["verdict"] == "the search's choice"


def test_a_small_real_check_cannot_tell():
    """A few real games: the intervals hold 0 and the check says so."""
    check = run_search_check(_tables(), n_players=4, strategies=LINEUP, seed=1, n_games=4,
                             replicates=4)  # fmt: skip
    found = check_summary(check.points, "fight_risk=6/36")
    assert found["compared"] > 0 and found["compared"] > found["agree"]
    mean, lo, hi = found["differ"]["all"]["eval_reward"]
    assert lo <= 0 <= hi
    assert found["verdict"] == "cannot tell"


def test_the_check_is_deterministic_from_the_seed():
    """The same seed gives the same decisions and values, however the games are chunked; another
    seed other games."""
    tables = _tables()

    def run(seed, chunk):
        return run_search_check(tables, n_players=4, strategies=LINEUP, seed=seed, n_games=3,
                                replicates=2, chunk_games=chunk).points  # fmt: skip

    first = run(2, 3)
    assert len(first) > 0
    pd.testing.assert_frame_equal(first, run(2, 1))
    other = run(9, 3)
    assert len(other) != len(first) or not first.equals(other)
