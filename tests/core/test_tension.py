"""reports.metrics.tension: known answers on hand-made games, games of different lengths, intervals
over
deals, `compare` on a planted effect and on a null (each over 20 seeds), and `lead_growth` on
planted snowball and catch-up games and on games without either (over 40 to 100 seeds; more in
tests/core/test_tension_report.py), with the deals' constants absorbed (`within` against dense
dummies)."""

from __future__ import annotations

import numpy as np
import pytest

from reports.metrics.tension import (
    NOT_PLAYED,
    clustered_mean,
    comeback,
    compare,
    decisive_point,
    lead_changes,
    lead_growth,
    margin,
    relative_margin,
    rounds_played,
    tension,
    within,
)
from reports.stats.intervals import mean_halfwidth

M = NOT_PLAYED
SEEDS = range(20)


def one(scores) -> np.ndarray:
    return np.array([scores])


# --- known answers --------------------------------------------------------------------------------


def test_a_lead_change_back_and_forth_counts_twice() -> None:
    scores = one([[1, 0], [1, 2], [3, 2]])  # leaders 0, 1, 0
    assert lead_changes(scores).tolist() == [2]
    t = tension(scores, np.array([[1.0, 0.0]]), np.array([[3, 2]]))
    assert t.per_game["lead_changes_per_round"].tolist() == [1.0]  # 2 changes / (3 - 1) rounds


@pytest.mark.parametrize(
    ("scores", "changes"),
    [
        ([[1, 0], [2, 2], [3, 2]], 0),  # 0, tie, 0: the tie neither ends nor starts a lead
        ([[0, 1], [2, 2], [2, 3]], 0),  # 1, tie, 1: seat 0 does not lead in the tie
        ([[1, 0], [2, 2], [2, 3]], 1),  # 0, tie, 1: compared with round 0, the latest sole leader
        ([[0, 0], [1, 0], [1, 2]], 1),  # tie, 0, 1: round 1 only sets the first leader
        ([[2, 2], [3, 3], [4, 4]], 0),  # never a sole leader
    ],
)
def test_a_tie_at_the_top_is_skipped(scores, changes: int) -> None:
    assert lead_changes(one(scores)).tolist() == [changes]


def test_decisive_point_of_hand_made_games() -> None:
    scores = np.array(
        [
            [[1, 0], [0, 1], [2, 1], [2, 3]],  # winner 1 leads for good from round 3: 3/4
            [[1, 0], [1, 2], [1, 3], [1, 4]],  # winner 1 leads from round 1: 1/4
            [[0, 1], [0, 2], [0, 3], [0, 4]],  # winner 1 leads from the start: 0
            [[0, 1], [1, 1], [1, 2], [1, 3]],  # a tie in round 1 breaks the lead: 2/4
            [[1, 0], [2, 0], [3, 0], [4, 0]],  # winner 1 passes only at the final scoring: 1
            [[1, 0], [1, 1], [1, 2], [1, 3]],  # shared win: left out
        ]
    )
    win = np.array([[0, 1], [0, 1], [0, 1], [0, 1], [0, 1], [0.5, 0.5]])
    got = decisive_point(scores, win)
    np.testing.assert_array_equal(got, [0.75, 0.25, 0.0, 0.5, 1.0, np.nan])
    t = tension(scores, win, np.array([[1, 3]] * 6))
    assert t.summary("decisive_point")[3] == 5
    assert t.summary("tied")[0] == pytest.approx(1 / 6)


def test_comeback_weighs_seats_tied_for_last() -> None:
    scores = np.array([[[5, 2, 2], [6, 2, 2]], [[1, 3, 5], [1, 3, 5]]])
    win = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    # game 0: seats 1 and 2 tie for last, each weight 1/2, seat 1 wins: 1/2; game 1: last wins: 1
    np.testing.assert_allclose(comeback(scores, win, 0), [0.5, 1.0])
    t = tension(scores, win, scores[:, -1], ks=[0])
    mean, lo, hi, n = t.summary("comeback_0")
    assert (mean, n) == (0.75, 2)
    half = mean_halfwidth(np.array([0.5, 1.0]))
    assert (lo, hi) == pytest.approx((0.75 - half, 0.75 + half))
    assert "1/n = 0.333 is no null" in t.frame().set_index("metric").loc["comeback_0",
                                                                         "definition"]


def test_margin_is_zero_for_a_tied_game() -> None:
    final = np.array([[10, 10, 3], [10, 7, 8], [4, 9, 1]])
    win = np.array([[0.5, 0.5, 0], [1, 0, 0], [0, 1, 0]])
    np.testing.assert_array_equal(margin(final, win), [0, 2, 5])
    np.testing.assert_allclose(relative_margin(final, win), [0, 0.2, 5 / 9])
    t = tension(np.zeros((3, 1, 3), int), win, final)
    assert t.margin_counts == {0: 1, 2: 1, 5: 1}
    half = 4.302653 * np.std([0, 2, 5], ddof=1) / 3**0.5  # t quantile 0.975 at 2 dof
    assert t.summary("margin") == pytest.approx((7 / 3, 7 / 3 - half, 7 / 3 + half, 3))
    frame = t.frame()
    assert list(frame.columns) == ["metric", "value", "lo", "hi", "deals", "games", "definition"]
    assert frame.set_index("metric").loc["margin", "value"] == pytest.approx(7 / 3)


def test_games_of_different_lengths() -> None:
    scores = np.array(
        [
            [[1, 0], [1, 2], [3, 2]],  # 3 rounds: leaders 0, 1, 0
            [[1, 4], [3, M], [M, M]],  # 2 rounds, seat 1 had no turn in the last: still 4, leads
        ]
    )
    win = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert rounds_played(scores).tolist() == [3, 2]
    assert lead_changes(scores).tolist() == [2, 0]
    np.testing.assert_array_equal(decisive_point(scores, win), [2 / 3, 0.0])
    # after round 1 seat 0 is last in both games (in game 1 seat 1 keeps its 4): it won game 0
    np.testing.assert_array_equal(comeback(scores, win, 1), [1.0, 0.0])
    np.testing.assert_array_equal(comeback(scores, win, 2), [0.0, np.nan])  # game 1 had ended
    t = tension(scores, win, np.array([[3, 2], [3, 4]]))
    assert list(t.per_game) == [
        "lead_changes",
        "lead_changes_per_round",
        "decisive_point",
        "comeback_0",
        "comeback_1",
        "margin",
        "relative_margin",
        "tied",
    ]  # comebacks after rounds below the median length, 2.5
    np.testing.assert_array_equal(t.per_game["lead_changes_per_round"], [1.0, 0.0])
    # a custom sentinel
    other = np.where(scores == M, -1, scores)
    assert lead_changes(other, missing=-1).tolist() == [2, 0]


# --- compare: a planted effect and a null ---------------------------------------------------------


def games(rng: np.random.Generator, n: int = 300, early: bool = False, seats: int = 3):
    """`n` games of 6 to 8 rounds: each seat gains 0-5 points a round (0-30 in the first round
    when `early`), the seats after a random one have no turn in the last round, and end-of-game
    scoring adds 0-3. Returns scores, win shares and final scores."""
    rounds = 8
    length = rng.integers(rounds - 2, rounds + 1, n)
    gains = rng.integers(0, 6, (n, rounds, seats))
    if early:
        gains[:, 0] = rng.integers(0, 31, (n, seats))
    running = gains.cumsum(axis=1)
    r = np.arange(rounds)[None, :, None]
    end = length[:, None, None]
    turns = rng.integers(1, seats + 1, n)[:, None, None]  # seats with a turn in the last round
    played = (r < end - 1) | ((r == end - 1) & (np.arange(seats) < turns))
    scores = np.where(played, running, M)
    game = np.arange(n)[:, None]
    seat = np.arange(seats)[None, :]
    last = np.where(seat < turns[:, :, 0], running[game, length[:, None] - 1, seat],
                    running[game, length[:, None] - 2, seat])  # fmt: skip
    final = last + rng.integers(0, 4, (n, seats))
    top = final == final.max(axis=1, keepdims=True)
    return scores, top / top.sum(axis=1, keepdims=True), final


def verdicts(seed: int, early: bool):
    rng = np.random.default_rng(seed)
    a = tension(*games(rng), ks=[0, 1, 2, 3])
    b = tension(*games(rng, early=early), ks=[0, 1, 2, 3])
    return compare(a, b).set_index("metric")["verdict"]


def test_early_points_decide_earlier_and_allow_fewer_comebacks() -> None:
    found = [verdicts(seed, early=True) for seed in SEEDS]
    for metric in ("decisive_point", "comeback_0", "comeback_1"):
        assert sum(v[metric] == "lower" for v in found) >= 19, metric


def test_the_same_game_twice_cannot_tell() -> None:
    found = [verdicts(100 + seed, early=False) for seed in SEEDS]
    assert sum((v == "cannot tell").all() for v in found) >= 18


# --- the deal as the unit -------------------------------------------------------------------------


def test_the_tables_of_one_deal_are_one_draw() -> None:
    """Each deal played at four tables that all play the same game (the extreme of a
    tournament's rotations): the interval is the one of the deals, not half as wide."""
    values = np.random.default_rng(0).normal(size=30)
    one = clustered_mean(values)
    assert one.hi - one.mean == pytest.approx(mean_halfwidth(values))  # a deal per game: t
    four = clustered_mean(np.repeat(values, 4), np.repeat(np.arange(30), 4))
    assert four[:5] == pytest.approx((*one[:4], 30))
    assert four.games == 120
    scores, win, final = games(np.random.default_rng(1), n=40)
    t = tension(*(np.repeat(x, 4, axis=0) for x in (scores, win, final)), ks=[0],
                deal=np.repeat(np.arange(40), 4))  # fmt: skip
    for metric in ("lead_changes", "decisive_point", "comeback_0", "margin"):
        assert t.summary(metric) == pytest.approx(tension(scores, win, final, ks=[0])
                                                  .summary(metric), nan_ok=True), metric


def test_compare_counts_deals_not_tables() -> None:
    """Two sets from one generator, each game played at four tables of its deal: "cannot tell"
    for every metric in at least 18 of 20 seeds (counting tables, the intervals would be half
    as wide)."""
    found = []
    for seed in SEEDS:
        rng = np.random.default_rng(300 + seed)
        deal = np.repeat(np.arange(150), 4)
        a, b = (tension(*(np.repeat(x, 4, axis=0) for x in games(rng, n=150)), ks=[0, 1, 2, 3],
                        deal=deal) for _ in range(2))  # fmt: skip
        found.append((compare(a, b)["verdict"] == "cannot tell").all())
    assert sum(found) >= 18


# --- lead_growth: does an early lead grow? --------------------------------------------------------


def test_lead_growth_of_a_game_that_halves_every_lead() -> None:
    """Later gains of exactly -0.5 per point of lead after round 0, plus a constant per
    strategy and seat: the slope is -0.5 whatever the constants."""
    rng = np.random.default_rng(2)
    n_games, seats = 60, 3
    seating = np.array([rng.permutation(seats) for _ in range(n_games)])
    at_0 = rng.integers(0, 20, (n_games, seats))
    lead = at_0 - at_0.mean(axis=1, keepdims=True)
    final = at_0 + 10 + 3 * seating + np.arange(seats) - 0.5 * lead
    scores = np.stack([at_0, at_0 + 1], axis=1)  # a second round, so the game went on
    g = lead_growth(scores, final, 0, seating)
    assert g.estimate == pytest.approx(-0.5)
    assert (g.deals, g.games) == (60, 60)
    assert lead_growth(scores, final, 1, seating).games == 0  # no game went on after round 1


def test_within_is_least_squares_on_dense_dummies() -> None:
    """Alternating demeaning leaves what least squares on a constant per level of every factor
    leaves (statsmodels, dense dummies), on an unbalanced design of three crossed factors."""
    import statsmodels.api as sm

    rng = np.random.default_rng(3)
    factors = [rng.integers(0, m, 400) for m in (30, 7, 5)]
    values = rng.normal(size=(400, 2)) + factors[0][:, None] * 0.3 - factors[2][:, None]
    # one constant, then each factor's levels but its first: full rank
    dummies = np.column_stack([np.ones(400), *(np.eye(f.max() + 1)[f][:, 1:] for f in factors)])
    for j in range(2):
        expected = sm.OLS(values[:, j], dummies).fit().resid
        np.testing.assert_allclose(within(values, factors)[:, j], expected, atol=1e-8)


def test_lead_growth_absorbs_what_a_deal_gives_a_seat_and_a_strategy() -> None:
    """Each deal at three tables, the strategies rotating over the seats; later gains of exactly
    -0.5 per point of lead plus a large constant per deal and seat and per deal and strategy,
    which also feed the lead: the slope is still -0.5 (a model without the deal's constants
    reads the deal's favour as growth). With one table per deal they cannot be absorbed."""
    rng = np.random.default_rng(4)
    deals, tables, seats = 40, 3, 3
    deal = np.repeat(np.arange(deals), tables)
    seating = (np.arange(seats)[None, :] + np.tile(np.arange(tables), deals)[:, None]) % seats
    by_seat = rng.normal(0, 10, (deals, seats))[deal]
    by_strategy = np.take_along_axis(rng.normal(0, 10, (deals, seats))[deal], seating, axis=1)
    at_0 = rng.integers(0, 20, (deals * tables, seats)) + 3 * (by_seat + by_strategy)
    lead = at_0 - at_0.mean(axis=1, keepdims=True)
    final = at_0 + by_seat + by_strategy + 2 * seating - 0.5 * lead
    scores = np.stack([at_0, at_0 + 1], axis=1)
    g = lead_growth(scores, final, 0, seating, deal)
    assert g.estimate == pytest.approx(-0.5) and g.absorbed
    assert (g.deals, g.games) == (40, 120)
    alone = lead_growth(scores, final, 0, seating)  # every game its own deal
    assert not alone.absorbed and alone.estimate > -0.25  # the deal's favour read as growth


def test_lead_growth_of_line_ups_of_different_strengths() -> None:
    """Line-ups of 4 drawn from 8 strategies of different strengths, one table per deal; later
    gains exactly what each strategy gives, early scores noisy: the slope is 0. A seat among
    weak opponents leads and goes on gaining more than its table's mean, which a constant per
    strategy and seat fitted after centring on the game's mean does not absorb (that model read
    it as growth); absorbed jointly with a constant per game, it is."""
    rng = np.random.default_rng(5)
    n_games, rounds = 400, 10
    seating = np.array([rng.permutation(8)[:4] for _ in range(n_games)])
    early = rng.poisson(2 + seating[:, None, :], (n_games, 3, 4)).cumsum(axis=1)
    later = early[:, -1:, :] + (2 + seating[:, None, :]) * np.arange(1, rounds - 2)[:, None]
    scores = np.concatenate([early, later], axis=1)
    g = lead_growth(scores, scores[:, -1], 2, seating)
    assert g.estimate == pytest.approx(0, abs=1e-9) and not g.absorbed


@pytest.mark.parametrize("seed", range(20))
def test_crv3_slope_is_statsmodels_cluster_jackknife(seed: int) -> None:
    """The closed-form CRV3 slope and standard error are statsmodels' `cluster-crv3` (its G
    leave-one-cluster-out refits), and so is the interval `lead_growth` builds from them, on
    unbalanced clusters with effects of their own, over 20 seeds."""
    import statsmodels.api as sm

    from reports.metrics.tension import crv3_slope
    from reports.stats.intervals import t_quantile

    rng = np.random.default_rng(seed)
    groups = np.sort(rng.integers(0, rng.integers(3, 60), 500))
    groups = np.unique(groups, return_inverse=True)[1]
    x = rng.normal(size=500) + rng.normal(size=groups.max() + 1)[groups]
    y = 0.3 * x + rng.normal(size=500) * (1 + rng.random(groups.max() + 1)[groups])
    fit = sm.OLS(y, x).fit(cov_type="cluster-crv3", cov_kwds={"groups": groups}, use_t=True)
    slope, se = crv3_slope(x, y, groups)
    assert slope == pytest.approx(fit.params[0], rel=1e-9)
    assert se == pytest.approx(fit.bse[0], rel=1e-9)
    half = t_quantile(0.95, groups.max()) * se  # t on clusters - 1, as lead_growth builds it
    np.testing.assert_allclose([slope - half, slope + half], fit.conf_int(0.05)[0], rtol=1e-9)


def test_crv3_slope_without_x_outside_one_cluster_is_nan() -> None:
    """Leaving out the only cluster whose x is not (nearly) 0 leaves nothing to fit: no
    standard error (statsmodels raises there). The residue alternating demeaning leaves (1e-9)
    would give a huge finite one without the guard."""
    from reports.metrics.tension import crv3_slope

    x = np.array([1e-9, -1e-9, 1.0, -1.0])
    _, se = crv3_slope(x, np.array([1.0, 2.0, 3.0, 5.0]), np.array([0, 0, 1, 1]))
    assert np.isnan(se)


def test_lead_growth_interval_is_statsmodels_crv3_on_the_demeaned_model() -> None:
    """`lead_growth`'s standard error and interval (t on deals - 1) are statsmodels' CRV3 fit
    of the later gain on the lead after absorbing the constants, clustered by deal: a
    multi-table run with noise, so the interval has width to check."""
    import statsmodels.api as sm

    from reports.metrics.tension import _codes, filled_scores, within

    rng = np.random.default_rng(5)
    deals, tables, seats = 30, 3, 3
    deal = np.repeat(np.arange(deals), tables)
    seating = (np.arange(seats)[None, :] + np.tile(np.arange(tables), deals)[:, None]) % seats
    at_0 = rng.integers(0, 20, (deals * tables, seats)).astype(float)
    final = at_0 + 10 - 0.3 * (at_0 - at_0.mean(axis=1, keepdims=True))
    final += rng.normal(0, 4, final.shape)
    scores = np.stack([at_0, at_0 + 1], axis=1)
    g = lead_growth(scores, final, 0, seating, deal)
    games = len(deal)
    unit = np.broadcast_to(deal[:, None], (games, seats))
    seat = np.broadcast_to(np.arange(seats), (games, seats))
    factors = [np.repeat(np.arange(games), seats), _codes((seating, seat)),
               _codes((unit, seat)), _codes((unit, seating))]  # fmt: skip
    lead = filled_scores(scores)[:, 0].astype(float)
    x, y = within(np.column_stack([lead.ravel(), (final - lead).ravel()]), factors).T
    fit = sm.OLS(y, x).fit(cov_type="cluster-crv3", cov_kwds={"groups": _codes(unit)},
                           use_t=True)  # fmt: skip
    assert g.estimate == pytest.approx(fit.params[0], rel=1e-9)
    assert g.se == pytest.approx(fit.bse[0], rel=1e-9)
    np.testing.assert_allclose([g.lo, g.hi], fit.conf_int(0.05)[0], rtol=1e-9)
