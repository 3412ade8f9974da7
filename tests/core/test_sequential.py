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
