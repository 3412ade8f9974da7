"""Card values on a time budget (`reports.sequential`, issue 30): "a sequential procedure whose
error rates are tested (planted and null cases)". Restricted play is simulated: each deal's
win shares drawn for every row from a seeded stream, the same deal for every row (as the common
random numbers of real restricted play), a card's planted value subtracted from its row's
chance to win. Every rate is measured over many seeds."""

from __future__ import annotations

import numpy as np

from reports import sequential as Q

PLAYERS = 4


def _game(values, seed):
    """`play` for cards of the given true values: deal j of row r is four rotations of a
    4-player game, each won with chance 1/4 (unrestricted) or 1/4 - value (forbidden card r - 1).
    A row's deals come from its own stream, drawn whole once: the same deal whoever asks."""
    total = Q.schedule()[-1]
    chance = np.array([1 / PLAYERS, *(1 / PLAYERS - np.asarray(values))])
    rows = [np.random.default_rng([seed, r]).binomial(PLAYERS, c, total) / PLAYERS
            for r, c in enumerate(chance)]  # fmt: skip
    asked = []

    def play(which, first, count):
        asked.append((tuple(which), first, count))
        return np.array([rows[r][first:first + count] for r in which])

    return play, asked


def test_null_cards_are_cannot_tell_at_the_stated_error_rate():
    """Twenty worthless cards, 300 seeds: a run that calls any of them a finding is a family-wise
    error; it happens at most at the 5% rate (with room for the 300 seeds' noise)."""
    errors = 0
    for seed in range(300):
        play, _ = _game([0.0] * 20, seed)
        result = Q.run(play, 20)
        errors += any(f != "cannot tell" for f in Q.findings(result))
        assert result.stopped_by == "looks" or (result.decided_at >= 0).any()
    assert errors / 300 <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 300), errors


def test_planted_cards_are_found_and_stop_early_while_the_rest_play_on():
    """Three cards worth 8 points and three costing 8 (the strategy is better off without them)
    among fourteen worthless ones: over 100 seeds the planted ones are found nearly always, each
    with its sign, and on fewer deals than the undecided ones, which play every look; no
    worthless card is called a finding more often than the error rate allows."""
    values = [0.08] * 3 + [-0.08] * 3 + [0.0] * 14
    found, early, false = 0, 0, 0
    for seed in range(100):
        play, asked = _game(values, seed)
        result = Q.run(play, len(values))
        f = Q.findings(result)
        found += sum(f[i] == "worth something" for i in range(3))
        found += sum(f[i] == "better without" for i in range(3, 6))
        false += any(x != "cannot tell" for x in f[6:])
        early += sum(result.deals[i] < result.deals[6:].max() for i in range(6))
        assert (result.deals[6:] == Q.schedule()[-1]).all() or (result.decided_at[6:] >= 0).any()
        assert set(asked[-1][0]) <= {0, *(1 + np.flatnonzero(result.decided_at < 0))} | {
            1 + i for i in np.flatnonzero(result.decided_at == result.looks - 1)}
    assert found >= 0.95 * 600 and early >= 0.95 * 600 and false <= 10, (found, early, false)


def test_fewer_deals_than_the_fixed_design_when_cards_are_decided():
    """The budget goes where it is needed: with most cards planted, the run plays far fewer
    card-deals than every card at the last look's deals."""
    values = [0.1] * 15 + [0.0] * 5
    play, _ = _game(values, 1)
    result = Q.run(play, len(values))
    assert result.deals.sum() < 0.5 * len(values) * Q.schedule()[-1]


def test_a_budget_stops_at_a_look_and_keeps_what_was_decided():
    """`seconds`: a look starts only if twice the last one's time still fits; a run out of time
    says so, keeps its decided cards and leaves the rest "cannot tell"."""
    values = [0.1] * 2 + [0.0] * 4
    play, asked = _game(values, 3)
    ticks = iter(np.arange(0, 1000, 1.0))
    result = Q.run(play, len(values), seconds=10, clock=lambda: next(ticks))
    assert result.stopped_by == "budget" and result.looks < Q.LOOKS
    assert len(asked) == result.looks
    f = Q.findings(result)
    assert f[2:] == ["cannot tell"] * 4


def test_a_run_that_decides_everything_stops_before_its_last_look():
    play, asked = _game([0.2] * 4, 2)
    result = Q.run(play, 4)
    assert result.stopped_by == "decided" and len(asked) < Q.LOOKS
    assert Q.findings(result) == ["worth something"] * 4
    cards = [("lord", f"card {i}", f"forbid_lord={i}") for i in range(4)]
    frame = Q.impact_frame(cards, result, PLAYERS)
    assert (frame["lo"] <= frame["value"]).all() and (frame["value"] <= frame["hi"]).all()
    assert (frame["lo"] > 0).all() and (frame["finding"] == "worth something").all()



def test_the_batched_p_values_are_the_paired_t_tests():
    from reports.stats import paired_test

    rng = np.random.default_rng(5)
    d = np.vstack([rng.normal(0.1, 1, 40), rng.normal(0, 1, 40), np.zeros(40), np.full(40, .5)])
    expected = [paired_test(row, 0.95)[3] for row in d]
    np.testing.assert_allclose(Q._p_values(d), expected, rtol=1e-9)


# --- the best strategy in looks (`extend`) ----------------------------------------------------
def _tournament(edge: float, seed: int, strategies=("a", "b")):
    """`play_to` for a 2-player tournament of two strategies whose first wins each game with
    chance 1/2 + edge; a block is two tables (both seatings), drawn once per block from the seed
    (the same block whoever asks). Returns (play_to, asked)."""
    import pandas as pd

    total = Q.schedule(40)[-1]
    rng = np.random.default_rng(seed)
    first_wins = rng.random((total, 2)) < 0.5 + edge
    asked = []

    class Result:
        def __init__(self, seats, n):
            self.seats, self.n_stored = seats, n
            # per block: the first strategy's win share minus the second's (both tables)
            self.diffs = (2 * first_wins[:n].astype(float) - 1).mean(axis=1)

    def play_to(blocks):
        asked.append(blocks)
        block, table, seat = (x.ravel() for x in np.meshgrid(
            np.arange(blocks), [0, 1], [0, 1], indexing="ij"))  # fmt: skip
        first = (seat + table) % 2 == 0  # the seat of strategies[0]
        win = (first_wins[block, table] == first).astype(float)
        seats = pd.DataFrame({"block": block, "table": table, "seat": seat,
                              "strategy": np.where(first, *strategies), "win": win,
                              "ip": 50.0 + win, "rank": 2 - win.astype(int)})  # fmt: skip
        return Result(seats, blocks)

    return play_to, asked


def _best_found(result, conf):
    from reports.verdicts import best_strategy_blocks

    return best_strategy_blocks(result.seats, 2, conf).finding


def test_a_best_strategy_is_found_in_looks_and_stops_early():
    """A strategy planted 12 points ahead is found, at an early look, over 40 seeds."""
    early = 0
    for seed in range(40):
        play_to, asked = _tournament(0.12, seed)
        _, looks = Q.extend(play_to, _best_found, 40, seconds=1e9)
        assert looks.decided and looks.stopped_by == "decided"
        early += len(asked) < Q.LOOKS
    assert early >= 38


def _pair_told(result, conf):
    """`_best_found` for two strategies, faster: Holm over one pair is the paired t test over
    blocks (checked against it below)."""
    from reports.stats import paired_test

    _, lo, hi, _ = paired_test(result.diffs, conf)
    return lo > 0 or hi < 0


def test_the_fast_pair_test_is_the_verdicts():
    for seed in range(12):
        play_to, _ = _tournament(0.03 * (seed % 3), seed)
        for blocks in (40, 160):
            result = play_to(blocks)
            for conf in (0.95, Q.look_conf(0), Q.look_conf(3)):
                assert _pair_told(result, conf) == _best_found(result, conf)


def test_equal_strategies_are_never_told_apart_beyond_the_error_rate():
    """Two equal strategies, 400 seeds, every look tested: a run that ever calls one of them
    best is an error; it happens at most at the 5% rate (with room for the seeds' noise),
    though each run looks at the data up to LOOKS times."""
    errors = 0
    for seed in range(400):
        play_to, asked = _tournament(0.0, 1000 + seed)
        _, looks = Q.extend(play_to, _pair_told, 40, seconds=1e9)
        errors += looks.decided
        assert looks.decided or len(asked) == Q.LOOKS
    assert errors / 400 <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400), errors


def test_a_look_starts_only_if_it_fits_the_budget_unless_already_stored():
    """A look starts only if twice the last one's time fits; a run that stored part of a later
    look (killed during it) plays on to it whatever the clock says."""
    play_to, asked = _tournament(0.0, 7)
    ticks = iter(np.arange(0, 1000, 1.0))
    _, looks = Q.extend(play_to, _best_found, 40, seconds=5, clock=lambda: next(ticks))
    assert looks.stopped_by == "budget" and asked == [40, 80]  # (the first look is free)
    config = looks.config()
    assert (config["blocks"], config["looks"], config["decided"]) == (80, 2, False)
    assert config["conf"] == Q.look_conf(1) == 1 - 0.05 / 10

    def resumed(blocks):  # the store already holds 320 blocks
        result = play_to(blocks)
        result.n_stored = 320
        return result

    asked.clear()
    ticks = iter(np.arange(0, 1000, 1.0))
    _, looks = Q.extend(resumed, _best_found, 40, seconds=5, clock=lambda: next(ticks))
    assert asked[:4] == [40, 80, 160, 320]


def test_the_looks_spend_the_error_rate_once():
    """Half of alpha at the first look, half over the others: the sum over all looks is alpha."""
    for looks in (1, 2, 6):
        spent = sum(1 - Q.look_conf(k, 0.05, looks) for k in range(looks))
        assert abs(spent - 0.05) < 1e-12
    assert Q.look_conf(0) == 0.975


def test_a_pool_passes_on_what_a_part_left():
    pool = Q.Pool(100, 4)
    assert pool.share() == 25
    pool.spend(5.0)  # the first part took 5 s of its 25
    assert pool.share() == 95 / 3
    pool.spend(200.0)
    assert pool.share() == 0 and pool.left() == 0
