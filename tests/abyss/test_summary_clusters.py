"""The summary's strategy intervals take the game as the unit (issue 17).

A strategy holding several seats of a game has correlated seat-games: they share the game's length
(positive correlation of scores), and its winner (one seat's win is another's loss, unless first
place is shared). The aggregates keep per-game sums by strategy (`CLUSTER_SUMS`), and the summary
uses the ratio estimator's variance with games as clusters. Checked here: the formula by hand, the
coverage by simulation on synthetic games (no game engine), the plain intervals with one seat per
game, and aggregates that stay exact for any chunking.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from games.abyss.engine import state as KN
from games.abyss.engine.aggregate import CLUSTER_SUMS, Aggregates
from games.abyss.engine.state import N_GAME_FIELDS, N_SEAT_FIELDS
from games.abyss.report.summary_text import strategy_rate, strategy_score, summarize_aggregates
from reports.stats.intervals import (
    clustered_mean,
    clustered_rate,
    mean_from_sums,
    t_quantile,
    wilson_interval,
)

Z = 1.959963984540054


def folded(scores: np.ndarray, strategy_of: np.ndarray, strategies: list[str]) -> Aggregates:
    """Aggregates of made-up games: scores[game, seat] ranked by score (ties share first place)."""
    n_games, n = scores.shape
    out_seats = np.zeros((n_games, n, N_SEAT_FIELDS), dtype=np.int32)
    out_seats[:, :, KN.R_SCORE] = scores
    out_seats[:, :, KN.R_RANK] = 1 + (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
    out_games = np.zeros((n_games, N_GAME_FIELDS), dtype=np.int32)
    out_games[:, KN.RG_TURNS] = 40
    agg = Aggregates(strategies, n)
    agg.add(out_seats, out_games, strategy_of)
    return agg


# ------------------------------------------------------------------------------ by hand
def test_clustered_intervals_by_hand():
    """Three games of 3 seats: A holds 2, 2 and 1 of them, scores 6+4, 3+3 and 5 (totals 10, 6
    and 5), wins the first and the third game."""
    scores = np.array([[6, 4, 3], [3, 3, 8], [5, 2, 4]])
    strategy_of = np.array([[0, 0, 1], [0, 0, 1], [0, 1, 1]])
    agg = folded(scores, strategy_of, ["A", "B"])
    sums = dict(zip(CLUSTER_SUMS, agg.clusters[0].tolist(), strict=True))
    assert sums == {
        "games": 3,
        "seats2": 4 + 4 + 1,
        "seats_wins": 2 * 1 + 2 * 0 + 1 * 1,
        "wins2": 1 + 0 + 1,
        "seats_score": 2 * 10 + 2 * 6 + 1 * 5,
        "score2": 100 + 36 + 25,
    }
    # mean 21 / 5 = 4.2; Y - 4.2 M = 1.6, -2.4, 0.8; squares 8.96; var = 3/2 * 8.96 / 25
    mean, half = strategy_score(agg, 0)
    assert mean == pytest.approx(4.2)
    assert half == pytest.approx(t_quantile(0.95, 2) * math.sqrt(1.5 * 8.96 / 25), rel=1e-12)
    assert t_quantile(0.95, 2) == pytest.approx(4.302653, rel=1e-6)
    # win rate 2 / 5; W - 0.4 M = 0.2, -0.8, 0.6; squares 1.04; effective n = 0.24 / (1.04 / 25),
    # 5.77 of the 5 seat-games: a design effect below 1 counts as 1
    assert strategy_rate(agg, 0) == wilson_interval(2, 5)
    # made wider: A's wins W = 2, 0, 1 over M = 2, 2, 1 (3 / 5); W - 0.6 M = 0.8, -1.2, 0.4
    p, n_eff = 0.6, 0.24 / (2.24 / 25)
    assert clustered_rate(5, 3, 9, 2 * 2 + 1, 4 + 1) == pytest.approx(_wilson(p, n_eff), rel=1e-12)


def _wilson(p: float, n: float) -> tuple[float, float]:
    """The textbook Wilson interval, for an effective n."""
    center = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return center - half, center + half


def test_degenerate_cases():
    """No win, or the same share in every game (no spread): the seat-games' Wilson interval;
    one game: no half-width."""
    assert clustered_rate(10, 0, 20, 0, 0) == wilson_interval(0, 10)
    assert clustered_rate(10, 5, 20, 10, 5) == wilson_interval(5, 10)  # 2 seats, 1 win a game
    assert math.isnan(clustered_mean(1, 2, 10, 4, 20, 100)[1])
    assert all(math.isnan(x) for x in clustered_mean(0, 0, 0, 0, 0, 0))


# ------------------------------------------------------------------------------ coverage
def _coverage(intervals, truth) -> float:
    return float(np.mean([lo <= truth <= hi for lo, hi in intervals]))


def _score_replicates(rng, n_rep, n_games, mixed_seats):
    """Strategy A's seats: 2 of 4 (or 1 or 2 at random with `mixed_seats`); each seat scores
    50 + the game's effect (its length, shared) + the seat's own noise: correlation 0.25."""
    m = rng.integers(1, 3, (n_rep, n_games)) if mixed_seats else np.full((n_rep, n_games), 2)
    game = rng.normal(0, 5, (n_rep, n_games))
    seat = rng.normal(0, math.sqrt(75), (n_rep, n_games, 2))
    y_seat = np.round(50 + game[:, :, None] + seat) * (np.arange(2) < m[:, :, None])
    return m, y_seat.sum(axis=2), (y_seat**2).sum(axis=2)


@pytest.mark.parametrize("mixed_seats", [False, True], ids=["two-seats", "one-or-two-seats"])
def test_score_interval_coverage(mixed_seats):
    """The game-clustered t interval covers the true mean IP 93-97% of the time; the interval
    that takes seat-games as independent covers less (here about 92%)."""
    rng = np.random.default_rng(17)
    m, y, y2 = _score_replicates(rng, 2000, 200, mixed_seats)
    clustered, plain = [], []
    for mg, yg, y2g in zip(m, y, y2, strict=True):
        n, total = int(mg.sum()), float(yg.sum())
        mean, h = clustered_mean(len(mg), n, total, float(mg @ mg), float(mg @ yg), float(yg @ yg))
        clustered.append((mean - h, mean + h))
        mean, h = mean_from_sums(n, total, float(y2g.sum()))
        plain.append((mean - h, mean + h))
    cover, cover_plain = _coverage(clustered, 50.0), _coverage(plain, 50.0)
    assert 0.93 <= cover <= 0.97, cover
    assert cover_plain < cover - 0.01, (cover_plain, cover)


def _win_replicates(rng, n_rep, n_games, p_tie):
    """Strategy A holds 2 of 4 seats; each game is a four-way tie (all win) with probability
    p_tie, else one seat wins, A's with probability 0.4: A's true win rate per seat-game is
    p_tie + (1 - p_tie) * 0.2."""
    tie = rng.random((n_rep, n_games)) < p_tie
    a_wins = rng.random((n_rep, n_games)) < 0.4
    return np.where(tie, 2, a_wins.astype(int)), p_tie + (1 - p_tie) * 0.2


def _win_intervals(w: np.ndarray) -> tuple[list, list]:
    """Game-clustered and seat-games' Wilson intervals of each replicate (A: 2 seats a game)."""
    n_games = w.shape[1]
    clustered, plain = [], []
    for wg in w:
        wins = int(wg.sum())
        clustered.append(clustered_rate(2 * n_games, wins, 4 * n_games, 2 * wins, int(wg @ wg)))
        plain.append(wilson_interval(wins, 2 * n_games))
    return clustered, plain


def test_win_rate_interval_coverage_with_shared_first_places():
    """Shared first places make A's two seats win together: the seat-games' Wilson interval is
    too narrow (covers about 90%), the game-clustered one covers 93-97% of the time."""
    w, truth = _win_replicates(np.random.default_rng(18), 2000, 200, p_tie=0.3)
    clustered, plain = _win_intervals(w)
    cover, cover_plain = _coverage(clustered, truth), _coverage(plain, truth)
    assert 0.93 <= cover <= 0.97, cover
    assert cover_plain < cover - 0.01, (cover_plain, cover)


def test_win_rate_interval_is_never_narrower_than_the_seat_games():
    """One winner a game: A's two seats are negatively correlated (one's win is the other's
    loss), the design effect is below 1 and counts as 1, so the interval stays the seat-games'
    Wilson interval, which covers more than 95% (conservative)."""
    w, truth = _win_replicates(np.random.default_rng(18), 2000, 200, p_tie=0.0)
    clustered, plain = _win_intervals(w)
    assert clustered == plain
    assert _coverage(clustered, truth) >= 0.95


# ------------------------------------------------------------------------- one seat per game
def test_one_seat_per_game_gives_the_plain_intervals():
    """Null check: two strategies in rotation at two seats (one seat each per game) get exactly
    the seat-games' Wilson and t intervals, and the summary prints them."""
    rng = np.random.default_rng(3)
    scores = rng.integers(40, 90, (500, 2))
    strategy_of = (np.arange(2)[None, :] + np.arange(500)[:, None]) % 2
    agg = folded(scores, strategy_of, ["A", "B"])
    for k in range(2):
        n, wins = int(agg.seats[k].sum()), int(agg.wins[k].sum())
        assert agg.clusters[k, 0] == 500 and n == 500
        assert strategy_rate(agg, k) == pytest.approx(wilson_interval(wins, n), abs=1e-15)
        plain = mean_from_sums(n, float(agg.sums[k, :, 0].sum()), float(agg.squares[k, :, 0].sum()))
        assert strategy_score(agg, k) == pytest.approx(plain, rel=1e-12)
    text = summarize_aggregates(agg)
    assert "intervals by game" in text
    low, high = wilson_interval(int(agg.wins[0].sum()), 500)
    assert f"[{low:.1%}, {high:.1%}]" in text


def test_aggregates_without_per_game_sums_keep_the_plain_intervals():
    """Aggregates saved by older versions (no `clusters`): seat-games as before, no note."""
    rng = np.random.default_rng(4)
    agg = folded(rng.integers(40, 90, (300, 4)), np.tile([0, 0, 1, 1], (300, 1)), ["A", "B"])
    agg.clusters[:] = 0
    n, wins = int(agg.seats[0].sum()), int(agg.wins[0].sum())
    assert strategy_rate(agg, 0) == wilson_interval(wins, n)
    assert "intervals by game" not in summarize_aggregates(agg)


# ------------------------------------------------------------------------------ additivity
def test_per_game_sums_are_exact_for_any_chunking_and_merge_order(tmp_path):
    """The new sums are int64 and additive: chunk by chunk, merged in any order, saved and
    loaded, the aggregates are identical."""
    rng = np.random.default_rng(5)
    n_games = 400
    scores = rng.integers(0, 120, (n_games, 4))
    lineup = np.array([0, 0, 1, 2])  # A twice, B, C
    strategy_of = lineup[(np.arange(4)[None, :] + np.arange(n_games)[:, None]) % 4]
    names = ["A", "B", "C"]
    whole = folded(scores, strategy_of, names)
    assert whole.clusters.dtype == np.int64 and whole.clusters[:, 0].tolist() == [400] * 3
    for cuts in ([7, 100, 333], [1, 2, 3, 399], [200]):
        parts = [
            folded(s, o, names)
            for s, o in zip(np.split(scores, cuts), np.split(strategy_of, cuts), strict=True)
        ]
        forward, backward = Aggregates(names, 4), Aggregates(names, 4)
        for part in parts:
            forward = forward.merge(part)
        for part in reversed(parts):
            backward = backward.merge(part)
        assert forward == whole and backward == whole
    whole.save(tmp_path / "aggregates.npz")
    assert Aggregates.load(tmp_path / "aggregates.npz") == whole
