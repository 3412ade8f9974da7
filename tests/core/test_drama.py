"""Drama and decisiveness with an oracle (issue 31: "the drama and decisiveness of Ludii measured
with [a state-value estimate] on a sample of games"): known answers on hand-made estimates, then
the oracle on both engines (its rows are chances that sum to 1, its last row the game's result,
its numbers a pure function of the game), with a planted strong player against a null of equal
ones."""

from __future__ import annotations

import numpy as np
import pytest

from reports.drama import per_game, summary

NAN = np.nan


def _game(rows, length=8):
    """A game's estimates [row, seat], NaN past its last (result) row."""
    out = np.full((length, len(rows[0])), NAN)
    out[: len(rows)] = rows
    return out


def test_known_answers():
    # seat 1 wins; it trails 0.6-0.4 before round 0, then leads: drama (0.2 + 0 + 0) / 3, peak
    # 0.2; the loser's best is 0.6, first beaten by the winner's 0.7 at row 1 of 3
    a = _game([[0.6, 0.4], [0.3, 0.7], [0.1, 0.9], [0.0, 1.0]])
    # seat 0 always the favourite and wins: no drama; the loser's best 0.45 beaten at once
    b = _game([[0.55, 0.45], [0.8, 0.2], [1.0, 0.0]])
    df = per_game(np.stack([a, b]))
    assert df["rounds"].tolist() == [3, 2]
    np.testing.assert_allclose(df["drama"], [0.2 / 3, 0.0])
    np.testing.assert_allclose(df["drama_peak"], [0.2, 0.0])
    np.testing.assert_allclose(df["decisiveness"], [1 / 3, 0.0])
    # a shared win (seats 0 and 1): the favourite against the winners' mean; the loser (seat 2)
    # peaks at 0.3, which seat 0's 0.5 exceeds at once
    c = per_game(_game([[0.5, 0.2, 0.3], [0.4, 0.3, 0.3], [0.5, 0.5, 0.0]])[None])
    np.testing.assert_allclose(c[["drama", "drama_peak", "decisiveness"]].iloc[0],
                               [(0.15 + 0.05) / 2, 0.15, 0.0])  # fmt: skip


def test_a_game_decided_only_at_the_end_has_decisiveness_one():
    late = _game([[0.7, 0.3], [0.6, 0.4], [0.0, 1.0]])
    df = per_game(late[None])
    assert df["decisiveness"].iloc[0] == 1.0 and df["drama_peak"].iloc[0] == pytest.approx(0.4)
    s = summary(np.stack([late, late]))
    assert s["games"] == 2 and s["decisiveness"] == 1.0


def _oracle(game, lineup, n_players, rollouts=8, n_games=24, seed=3):
    """The oracle over games 0 .. n_games - 1 (rotated: line-up entry 0 sits at seat g mod 2),
    and what the kernel's own run of those games needs."""
    from reports.tournament import game_policies
    from sim import games
    from sim.core.batch import rotated_seatings

    spec = games.get(game)
    tables = spec.load_cards(None, [])
    g = np.arange(n_games, dtype=np.int64)
    seatings = rotated_seatings(g, n_players)
    policies = game_policies(game, lineup, n_players)
    values = spec.play().oracle_values(tables, seed=seed, games=g, seatings=seatings,
                                       strategies=policies, n_rollouts=rollouts)  # fmt: skip
    return values, (spec, tables, g, seatings, policies)


@pytest.mark.parametrize("game, strong", [("conspiracy", "key_hunter"), ("abyss", "farmer")])
def test_the_oracle_reads_chances_and_ends_on_the_result(game, strong):
    values, (spec, tables, g, seatings, policies) = _oracle(game, [strong, "random"], 2)
    played = ~np.isnan(values[:, :, 0])
    np.testing.assert_allclose(values[played].sum(axis=1), 1.0)  # chances, every row
    assert (played.sum(axis=1) >= 4).all()
    # the last row is the game's result: the seats' win shares in the kernel's own game
    seats, _, _ = spec.play().run_tables(tables, seed=3, games=g, seatings=seatings,
                                         strategies=policies)  # fmt: skip
    result = values[np.arange(len(g)), played.sum(axis=1) - 1]
    np.testing.assert_allclose(result.ravel(), np.asarray(seats["win"], dtype=float))
    again, _ = _oracle(game, [strong, "random"], 2)
    np.testing.assert_array_equal(np.nan_to_num(again, nan=-1), np.nan_to_num(values, nan=-1))


@pytest.mark.parametrize("game, strong", [("conspiracy", "key_hunter"), ("abyss", "farmer")])
def test_a_strong_player_is_the_favourite_from_the_start_and_equal_players_are_not(game, strong):
    """Planted: a heuristic against the random policy is the oracle's favourite before the first
    round. Null: two copies of one strategy, seated in turn, average a chance of 1/2."""
    from scipy import stats

    planted, (_, _, g, _, _) = _oracle(game, [strong, "random"], 2)
    start = planted[np.arange(len(g)), 0, g % 2]  # line-up entry 0's seat
    assert start.mean() > 0.8
    null, _ = _oracle(game, [strong, strong], 2)
    first = null[np.arange(len(g)), 0, g % 2]
    assert stats.ttest_1samp(first, 0.5).pvalue > 0.001
