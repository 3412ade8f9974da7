"""Drama and decisiveness with an oracle (issue 31: "the drama and decisiveness of Ludii measured
with [a state-value estimate] on a sample of games"; issue 49: above their noise floor): known
answers on hand-made estimates; synthetic rollouts, a null in which every seat's chance is equal
all game (drama reads 0, decisiveness its floor, within their intervals over deals) and planted
games with drama and an early decision; then the oracle on both engines (its rows are chances
that sum to 1, its last row the game's result, its folds consecutive rollouts, its numbers a
pure function of the game, its chance at the start each seat's win rate)."""

from __future__ import annotations

import numpy as np
import pytest

from reports.metrics.drama import Measured, decisiveness_floor, per_game, summary

NAN = np.nan
#: `abyss-mc drama`'s default rollouts and the oracle's folds (`sim.core.oracle.FOLDS`)
ROLLOUTS, FOLDS = 16, 4


def _game(rows, length=8, folds=2):
    """A game's estimates [row, fold, seat], the same in every fold, NaN past its last (result)
    row."""
    out = np.full((length, folds, len(rows[0])), NAN)
    out[: len(rows)] = np.asarray(rows, dtype=float)[:, None, :]
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


def test_the_favourite_is_picked_on_the_other_folds():
    """Fold 0 makes seat 0 the favourite, fold 1 seat 1 (the winner): each fold's favourite is
    the other fold's, read on this fold. Round 0: fold 0 reads seat 1 (the winner) against
    itself, 0; fold 1 reads seat 0 at 0.4 against the winner's 0.6, -0.2: drama -0.1 (a round
    read on the fold that chose it would say 0.1). Round 1 agrees in both folds: 0.6."""
    g = np.full((4, 2, 2), NAN)
    g[0] = [[0.6, 0.4], [0.4, 0.6]]
    g[1] = [[0.8, 0.2], [0.8, 0.2]]
    g[2] = [[0.0, 1.0], [0.0, 1.0]]
    df = per_game(g[None])
    assert df["drama"].iloc[0] == pytest.approx((-0.1 + 0.6) / 2)
    # the peak round is picked on the other fold too: round 1 (0.6) in both folds
    assert df["drama_peak"].iloc[0] == pytest.approx(0.6)
    # decisiveness reads all the rollouts (the folds' mean): the loser's best 0.8 at round 1,
    # never beaten before the result
    assert df["decisiveness"].iloc[0] == 1.0


def test_a_game_decided_only_at_the_end_has_decisiveness_one():
    late = _game([[0.7, 0.3], [0.6, 0.4], [0.0, 1.0]])
    df = per_game(late[None])
    assert df["decisiveness"].iloc[0] == 1.0 and df["drama_peak"].iloc[0] == pytest.approx(0.4)


def test_the_deal_is_the_unit():
    """The tables of one deal are averaged before the t interval: a deal seated four times
    gives the interval of the deal seated once."""
    rng = np.random.default_rng(0)
    once = _synthetic(rng, deals=12, tables=1, players=2, rounds=(6, 12))
    games = np.repeat(np.arange(12), 4)
    four = Measured(np.repeat(once.values, 4, axis=0), games, ROLLOUTS)
    a, b = summary(once), summary(four)
    assert (a["deals"], b["deals"], b["games"]) == (12, 12, 48)
    for key in ("drama_lo", "drama_hi", "drama_peak_hi", "below_floor_lo"):
        assert b[key] == pytest.approx(a[key])


# --- synthetic rollouts: a null with equal chances, planted drama and an early decision -------
def _rollouts(rng, chances: np.ndarray) -> np.ndarray:
    """[round, fold, seat]: each fold the win shares of ROLLOUTS / FOLDS rollouts drawn with the
    true `chances` [round, seat]."""
    per_fold = ROLLOUTS // FOLDS
    p = np.broadcast_to(chances[:, None, :], (len(chances), FOLDS, chances.shape[1]))
    return rng.multinomial(per_fold, p) / per_fold


def _synthetic(rng, deals, tables, players, rounds, chances=None, winner=None):
    """A tournament's measurement: each deal a game of a random number of rounds in `rounds`
    with true chances `chances(rounds)` [round, seat] (default: 1/players all game) and winner
    `winner` (default: drawn with the last row's chances), seated at `tables` rotations of its
    seats (the extreme of a shared deal: the same game at every table). Drawn for all deals at
    once (the rollouts of every round one multinomial draw, as `_rollouts`)."""
    length, per_fold = rounds[1] + 2, ROLLOUTS // FOLDS
    r = rng.integers(rounds[0], rounds[1] + 1, size=deals)
    p = np.full((deals, length - 1, players), 1 / players)  # (past a game's rounds: unused)
    if chances is not None:
        for d in range(deals):
            p[d, : r[d]] = chances(int(r[d]))
    last = p[np.arange(deals), r - 1]
    won = ((rng.random(deals)[:, None] > np.cumsum(last, axis=1)[:, :-1]).sum(axis=1)
           if winner is None else np.full(deals, winner))  # fmt: skip
    game = np.full((deals, length, FOLDS, players), NAN)
    game[:, :-1] = rng.multinomial(per_fold, np.repeat(p[:, :, None], FOLDS, axis=2)) / per_fold
    row = np.arange(length)[None, :]
    game[row > r[:, None]] = NAN
    game[np.arange(deals), r] = np.eye(players)[won][:, None, :]
    values = np.stack([np.roll(game, t, axis=3) for t in range(tables)], axis=1)
    return Measured(values.reshape(deals * tables, length, FOLDS, players),
                    np.repeat(np.arange(deals), tables), ROLLOUTS)  # fmt: skip


def _covers(s: dict, m: str, value: float) -> bool:
    return s[f"{m}_lo"] <= value <= s[f"{m}_hi"]


#: seeds of the null: its t intervals over 64 deals cover 0 in about 94% of them (600 seeds
#: measured: 93.3% to 95.7% by metric and player count), 24 misses of 400 (sd 4.7); "at least
#: 90%" allows 40, more than three standard deviations above. Not so for the floor of
#: decisiveness at 4 players: 91.6% on seeds 400-1199 (733 of 800), and these 400 seeds give
#: 363 of the 360 needed: its interval under-covers a little, and this test has little margin
SEEDS, LEAST = 400, 0.90


@pytest.mark.parametrize("players", [2, 4])
def test_equal_chances_read_zero_drama_and_the_floor_of_decisiveness(players):
    """Null: every seat's chance equal all game, 16 rollouts a round in 4 folds, 64 deals seated
    at 2 rotations. Drama and peak drama read 0 and decisiveness its floor, within their
    intervals over deals, in at least 90% of 400 seeds (the uncorrected maximum read 0.10 to
    0.13 drama and 0.37 to 0.48 peak drama here)."""
    covered = {"drama": 0, "drama_peak": 0, "below_floor": 0}
    for seed in range(SEEDS):
        rng = np.random.default_rng([seed, players])
        s = summary(_synthetic(rng, deals=64, tables=2, players=players, rounds=(12, 24)))
        for m in covered:
            covered[m] += _covers(s, m, 0.0)
    assert all(c >= LEAST * SEEDS for c in covered.values()), covered


def _comeback(r: int) -> np.ndarray:
    """True chances of a game the eventual winner (seat 1) trails 0.2 to 0.8 for its first half
    and leads 0.8 to 0.2 after: drama 0.6 in half the rounds, peak 0.6."""
    p = np.tile([0.8, 0.2], (r, 1))
    p[r // 2 :] = [0.2, 0.8]
    return p


def test_a_planted_comeback_is_found_near_its_true_size():
    """Planted: the winner trails 0.2 to 0.8 for half the game (drama 0.6 in those rounds, 0.3
    a game; peak 0.6). Found above 0 in every seed of 40; with a favourite this clear (12
    rollouts pick the wrong one or a tie 2% of the time) read at most its true size (the mean
    over the seeds not 4 standard errors above it) and within 0.02 of it."""
    drama, peak, truth = [], [], []
    for seed in range(40):
        rng = np.random.default_rng(seed)
        m = _synthetic(rng, deals=32, tables=2, players=2, rounds=(10, 20), chances=_comeback,
                       winner=1)  # fmt: skip
        s = summary(m)
        assert s["drama_lo"] > 0 and s["drama_peak_lo"] > 0
        drama.append(s["drama"])
        peak.append(s["drama_peak"])
        rounds = per_game(m.values)["rounds"].to_numpy()
        truth.append(np.mean((rounds // 2) / rounds * 0.6))
    for x, true in ((np.array(drama), np.array(truth)), (np.array(peak), 0.6)):
        miss = x - true
        assert -0.02 < miss.mean() < 4 * miss.std(ddof=1) / np.sqrt(len(x)), miss.mean()


def _race(rng, rounds: int) -> tuple[np.ndarray, int]:
    """A 2-player race of `rounds` rounds, each seat gaining N(0, 1) points a round, the larger
    total winning: its true chances before every round (normal tail of the lead over the
    spread still to come) and its winner."""
    from scipy.stats import norm

    totals = np.vstack([np.zeros(2), np.cumsum(rng.normal(size=(rounds, 2)), axis=0)])
    to_come = np.sqrt(2 * (rounds - np.arange(rounds)))
    first = norm.cdf((totals[:-1, 0] - totals[:-1, 1]) / to_come)
    return np.stack([first, 1 - first], axis=1), int(totals[-1, 1] > totals[-1, 0])


def test_a_close_race_reads_at_most_its_true_drama():
    """A fair race (chances near 1/2 most of the game, so the favourite of 12 rollouts is often
    not the true one): drama and peak drama are found above 0 and read below their values at
    the true chances, each by more than 4 standard errors over 2000 games (a lower bound, as
    docs/metrics.md says); the uncorrected maximum reads above them."""
    rng = np.random.default_rng(11)
    values = np.full((2000, 22, FOLDS, 2), NAN)
    true, naive = [], []
    for i in range(len(values)):
        chances, won = _race(rng, 20)
        est = _rollouts(rng, chances)
        values[i, :20], values[i, 20] = est, np.eye(2)[won]
        behind = chances.max(axis=1) - chances[:, won]
        true.append((behind.mean(), behind.max()))
        seen = est.mean(axis=1).max(axis=1) - est.mean(axis=1)[:, won]
        naive.append((seen.mean(), seen.max()))
    df = per_game(values)
    for j, m in enumerate(("drama", "drama_peak")):
        miss = df[m].to_numpy() - np.array(true)[:, j]
        se = miss.std(ddof=1) / np.sqrt(len(miss))
        assert df[m].mean() > 4 * df[m].std() / np.sqrt(len(df))
        assert miss.mean() < -4 * se, (m, miss.mean(), se)
        assert np.array(naive)[:, j].mean() > np.array(true)[:, j].mean()


def test_the_report_counts_the_rows_above_their_floors():
    """The section's sentence counts the rows whose intervals clear their floors: a planted
    comeback clears drama's and peak drama's (found in every seed above)."""
    from reports.sections.drama import readings

    rng = np.random.default_rng(0)
    m = _synthetic(rng, deals=32, tables=2, players=2, rounds=(10, 20), chances=_comeback,
                   winner=1)  # fmt: skip
    text = readings({"planted": {2: m}})
    assert "Of the one row" in text and "above its floor of 0 in 1, peak drama's in 1" in text


def test_values_measured_before_the_folds_are_not_read(tmp_path):
    """A run measured before the oracle kept folds holds [game, row, seat]: the report names it
    to measure again rather than read a maximum over noise."""
    from reports.metrics.drama import load

    one = _game([[0.6, 0.4], [0.0, 1.0]])
    np.savez(tmp_path / "drama-2p.npz", values=one[None], games=np.zeros(1, dtype=np.int64),
             rollouts=np.int64(16))  # fmt: skip
    np.savez(tmp_path / "drama-3p.npz", values=one[None, :, 0], games=np.zeros(1, dtype=np.int64),
             rollouts=np.int64(16))  # fmt: skip
    found, stale = load({"tier": tmp_path})
    assert list(found["tier"]) == [2] and [p.name for p in stale] == ["drama-3p.npz"]


def _early(r: int) -> np.ndarray:
    """Seat 0 (the winner) at 1/2 for two rounds, then 0.9."""
    p = np.tile([0.9, 0.1], (r, 1))
    p[:2] = 0.5
    return p


def test_a_planted_early_decision_reads_below_the_floor():
    """Planted: the winner's chance 0.9 from round 2 on (decided at about 2 of 12 to 24
    rounds): decisiveness below its floor in every seed of 20; the floor itself is what equal
    chances read (above 0.7 at 2 players and 16 rollouts, true value 1)."""
    for seed in range(20):
        rng = np.random.default_rng(seed)
        s = summary(_synthetic(rng, deals=32, tables=2, players=2, rounds=(12, 24),
                               chances=_early, winner=0))  # fmt: skip
        assert s["below_floor_hi"] < 0 and s["decisiveness"] < 0.3
    assert 0.7 < decisiveness_floor(12, 2, 1, ROLLOUTS) < 1.0


def test_the_floor_is_the_null_mean():
    """The floor is the mean decisiveness of equal chances: against an independent simulation
    of 4000 such games, within 4 standard errors of their difference."""
    rng = np.random.default_rng(7)
    m = _synthetic(rng, deals=4000, tables=1, players=3, rounds=(15, 15))
    df = per_game(m.values)
    won1 = df["winners"] == 1
    x = df.loc[won1, "decisiveness"]
    se = x.std() / np.sqrt(len(x)) * np.sqrt(2)  # the floor's own draws are as many
    assert abs(x.mean() - decisiveness_floor(15, 3, 1, ROLLOUTS)) < 4 * se


# --- the oracle on both engines ---------------------------------------------------------------
def _oracle(game, lineup, n_players, rollouts=8, n_games=24, seed=3):
    """The oracle over games 0 .. n_games - 1 (rotated: line-up entry 0 sits at seat g mod 2),
    and what the kernel's own run of those games needs."""
    from reports.play.tournament import game_policies
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


def _results(values: np.ndarray) -> np.ndarray:
    """Each game's result row [game, seat] (fold 0)."""
    played = ~np.isnan(values[:, :, 0, 0])
    return values[np.arange(len(values)), played.sum(axis=1) - 1, 0]


@pytest.mark.parametrize("game, strong", [("conspiracy", "key_hunter"), ("abyss", "farmer")])
def test_the_oracle_reads_chances_and_ends_on_the_result(game, strong):
    values, (spec, tables, g, seatings, policies) = _oracle(game, [strong, "random"], 2)
    assert values.shape[2] == FOLDS
    played = ~np.isnan(values[:, :, 0, 0])
    np.testing.assert_allclose(values[played].sum(axis=2), 1.0)  # chances, every row and fold
    assert (played.sum(axis=1) >= 4).all()
    # the last row is the game's result in every fold: the seats' win shares in the kernel's
    # own game
    seats, _, _ = spec.play().run_tables(tables, seed=3, games=g, seatings=seatings,
                                         strategies=policies)  # fmt: skip
    last = values[np.arange(len(g)), played.sum(axis=1) - 1]
    np.testing.assert_allclose(last, np.repeat(_results(values)[:, None], FOLDS, axis=1))
    np.testing.assert_allclose(_results(values).ravel(), np.asarray(seats["win"], dtype=float))
    again, _ = _oracle(game, [strong, "random"], 2)
    np.testing.assert_array_equal(np.nan_to_num(again, nan=-1), np.nan_to_num(values, nan=-1))
    # the folds hold consecutive rollouts: at the start (rollouts keyed 0, 1, ...) 8 rollouts'
    # fold 0 is 4 rollouts' folds 0 and 1
    four, _ = _oracle(game, [strong, "random"], 2, rollouts=4)
    np.testing.assert_allclose(values[:, 0, 0], four[:, 0, :2].mean(axis=1))


@pytest.mark.parametrize("game, strong", [("conspiracy", "key_hunter"), ("abyss", "farmer")])
@pytest.mark.parametrize("planted", [True, False])
def test_the_chance_at_the_start_is_the_seats_win_rate(game, strong, planted):
    """Before any turn the oracle redeals only what a fresh deal would, so a chance at the
    start is an unbiased estimate of the win rate: over 64 games, the mean of result minus
    chance is 0 within 4 standard errors. Planted: a heuristic against the random policy, for
    the heuristic's seat, and the heuristic the favourite at the start (above 0.8). Null: two
    copies of one strategy, for seat 0 (the seats differ only in their order; averaged over
    the rotated seats, a line-up entry's chance is 1/2 whatever the oracle reads). The folds
    are independent rollouts: their spread at the start is the rollouts' binomial spread (a
    ratio near 1, above 0.5; 0 if they repeated the same rollouts)."""
    lineup = [strong, "random"] if planted else [strong, strong]
    values, (_, _, g, _, _) = _oracle(game, lineup, 2, n_games=64)
    start, result = values[:, 0].mean(axis=1), _results(values)
    # what differs: the strategies (line-up entry 0's seat) or, between copies, the seats
    seat = g % 2 if planted else np.zeros(len(g), dtype=int)
    miss = (result - start)[np.arange(len(g)), seat]
    se = miss.std(ddof=1) / np.sqrt(len(g))
    assert abs(miss.mean()) <= 4 * se, (miss.mean(), se)
    if planted:
        assert start[np.arange(len(g)), g % 2].mean() > 0.8  # line-up entry 0's seat
    if not planted:  # (Abyss's farmer wins every rollout against the random policy: no spread)
        folds = values[:, 0, :, 0]  # seat 0's chance at the start, by fold
        per_fold, total = 8 // FOLDS, 8
        binomial = start[:, 0] * (1 - start[:, 0]) * total / (total - 1) / per_fold
        ratio = folds.var(axis=1, ddof=1).mean() / binomial.mean()
        assert ratio > 0.5, ratio  # measured: 1.05 (Conspiracy), 1.02 (Abyss)
