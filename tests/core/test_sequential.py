"""Card values on a time budget (`reports.budget`, issue 30): "a sequential procedure whose
error rates are tested (planted and null cases)"; issue 49: an estimate after early stopping is
confirmed on fresh deals, never reported from the deals that stopped it. Restricted play is
simulated: each deal's win shares drawn for every row from a seeded stream, the same deal for
every row (as the common random numbers of real restricted play), a card's planted value
subtracted from its row's chance to win; the fresh deals are another stream. Every rate is
measured over many seeds, with a band several standard errors wide."""

from __future__ import annotations

import numpy as np

from reports import budget as Q

PLAYERS = 4


def _band(rate: float, n: int, k: float = 3.0) -> float:
    """`rate` plus k binomial standard errors over n runs."""
    return rate + k * np.sqrt(rate * (1 - rate) / n)


def _game(values, seed, fresh_values=None):
    """`play` and `confirm` for cards of the given true values (on the fresh deals:
    `fresh_values`, the same by default): deal j of row r is four rotations of a 4-player game,
    each won with chance 1/4 (unrestricted) or 1/4 - value (forbidden card r - 1). A row's deals
    come from its own stream, drawn whole once: the same deal whoever asks. Returns (play,
    confirm, asked): `asked` lists the looks' requests."""
    total = Q.schedule()[-1]

    def stream(vals, k):
        chance = np.array([1 / PLAYERS, *(1 / PLAYERS - np.asarray(vals))])
        return [np.random.default_rng([seed, r, k]).binomial(PLAYERS, c, total) / PLAYERS
                for r, c in enumerate(chance)]  # fmt: skip

    rows = stream(values, 0)
    fresh = stream(values if fresh_values is None else fresh_values, 1)
    asked = []

    def play(which, first, count):
        asked.append((tuple(which), first, count))
        return np.array([rows[r][first:first + count] for r in which])

    def confirm(which, count, look):
        return np.array([fresh[r][:count] for r in which])

    return play, confirm, asked


def _run(values, seed, **kw):
    play, confirm, asked = _game(values, seed, kw.pop("fresh_values", None))
    return Q.run(play, len(values), confirm=confirm, **kw), asked


def _open_cards_played_every_look(result) -> bool:
    """Without a budget a run stops only when every card is decided or the looks are spent: an
    open card has played the last look's deals."""
    open_ = result.decided_at < 0
    return (result.stopped_by == "decided") == (not open_.any()) and \
        bool((result.deals[open_] == Q.schedule()[-1]).all())  # fmt: skip


def test_null_cards_are_cannot_tell_at_the_stated_error_rate():
    """Twenty worthless cards, 300 seeds: a run that calls any of them a finding is a family-wise
    error; it happens at most at the 5% rate (with room for the 300 seeds' noise)."""
    errors = 0
    for seed in range(300):
        result, _ = _run([0.0] * 20, seed)
        errors += any(f != "cannot tell" for f in Q.findings(result))
        assert _open_cards_played_every_look(result), seed
    print(f"\n20 worthless cards: {errors} of 300 runs call one a finding")
    assert errors / 300 <= _band(0.05, 300), errors


def test_planted_cards_are_found_and_stop_early_while_the_rest_play_on():
    """Three cards worth 8 points and three costing 8 (the strategy is better off without them)
    among fourteen worthless ones: over 100 seeds the planted ones are found (decided in the
    looks and confirmed on fresh deals) nearly always, each with its sign, and on fewer deals
    than the undecided ones, which play every look; no worthless card is called a finding more
    often than the error rate allows."""
    values = [0.08] * 3 + [-0.08] * 3 + [0.0] * 14
    found, early, false = 0, 0, 0
    for seed in range(100):
        result, asked = _run(values, seed)
        f = Q.findings(result)
        found += sum(f[i] == "worth something" for i in range(3))
        found += sum(f[i] == "better without" for i in range(3, 6))
        false += any(x != "cannot tell" for x in f[6:])
        early += sum(result.deals[i] < result.deals[6:].max() for i in range(6))
        assert _open_cards_played_every_look(result), seed
        assert set(asked[-1][0]) <= {0, *(1 + np.flatnonzero(result.decided_at < 0))} | {
            1 + i for i in np.flatnonzero(result.decided_at == result.looks - 1)}
    print(f"\nplanted ±8 points: {found} of 600 found, {early} on fewer deals; {false} of 100 "
          "runs call a worthless card a finding")
    assert found >= 0.88 * 600 and early >= 0.95 * 600 and false <= 100 * _band(0.05, 100), (
        found, early, false)


def test_early_stopped_estimates_are_biased_and_the_reported_ones_are_not():
    """Issue 49: "cards decided at the first look are ... biased away from 0 by the stopping".
    Five cards worth 4 points each, 200 seeds: over the cards the looks decide, their estimate
    on the looks' deals exceeds 4 points by many standard errors (the winner's curse of
    stopping, measured), while the value the run reports (its fresh deals) is within 3 standard
    errors of 4 points."""
    true = 0.04
    looked, reported = [], []
    for seed in range(200):
        result, _ = _run([true] * 5, 10_000 + seed)
        frame = Q.estimates(result)
        for i in np.flatnonzero(result.decided_at >= 0):
            n = result.deals[i]
            looked.append(np.mean(result.shares[0, :n] - result.shares[1 + i, :n]))
            reported.append(frame.at[i, "value"])
    looked, reported = np.array(looked) - true, np.array(reported) - true
    assert len(looked) >= 300, len(looked)
    se = lambda x: x.std(ddof=1) / np.sqrt(len(x))  # noqa: E731
    print(f"\n{len(looked)} decided cards worth 4 points: bias on the looks' deals "
          f"{100 * looked.mean():+.2f} ± {100 * se(looked):.2f} points, on the fresh deals "
          f"{100 * reported.mean():+.2f} ± {100 * se(reported):.2f}")
    assert looked.mean() > 6 * se(looked), (looked.mean(), se(looked))
    assert abs(reported.mean()) < 3 * se(reported), (reported.mean(), se(reported))


def test_a_decided_card_is_a_finding_only_when_its_fresh_deals_confirm_it():
    """A card worth 20 points on the looks' deals and nothing on the fresh ones (as a lucky
    streak would be) is decided at an early look, but its finding and its figures are the fresh
    deals': "cannot tell", an interval that includes 0, on as many fresh deals."""
    result, _ = _run([0.2, 0.0], 4, fresh_values=[0.0, 0.0])
    assert result.decided_at[0] >= 0
    row = Q.estimates(result).iloc[0]
    assert row["fresh"] and row["deals"] == result.deals[0]
    assert row["finding"] == "cannot tell" and row["lo"] <= 0 <= row["hi"], row
    assert abs(row["value"]) < 0.1


def test_fewer_deals_than_the_fixed_design_when_cards_are_decided():
    """The budget goes where it is needed: with most cards planted, the run plays far fewer
    card-deals, confirmation included, than every card at the last look's deals."""
    values = [0.1] * 15 + [0.0] * 5
    result, _ = _run(values, 1)
    confirmed = result.deals[result.decided_at >= 0].sum()
    assert result.deals.sum() + confirmed < 0.5 * len(values) * Q.schedule()[-1]


def test_a_budget_stops_at_a_look_and_keeps_what_was_decided():
    """`seconds`: a look that does not fit is cut to the deals that fit, or not played when
    fewer than `MIN_LOOK` do; a run out of time says so, keeps its decided cards and leaves the
    rest "cannot tell"."""
    values = [0.1] * 2 + [0.0] * 4
    play, confirm, asked = _game(values, 3)
    ticks = iter(np.arange(0, 1000, 1.0))
    result = Q.run(play, len(values), confirm=confirm, seconds=10, clock=lambda: next(ticks))
    assert result.stopped_by == "budget" and result.looks < Q.LOOKS
    assert len(asked) == result.looks
    f = Q.findings(result)
    assert f[2:] == ["cannot tell"] * 4


def _on_the_clock(values, seed, pace=1e-3):
    """`_game`'s play and confirm on a clock of their own: each row and deal takes `pace`
    seconds, give or take a tenth (a seeded draw per call, as a shared machine is noisy)."""
    play, confirm, _ = _game(values, seed)
    rng, now = np.random.default_rng([seed, 99]), [0.0]

    def tick(rows, count):
        now[0] += pace * len(rows) * count * rng.uniform(0.9, 1.1)

    def timed_play(rows, first, count):
        tick(rows, count)
        return play(rows, first, count)

    def timed_confirm(rows, count, look):
        tick(rows, count)
        return confirm(rows, count, look)

    return timed_play, timed_confirm, lambda: now[0]


#: a report's restrictions: 64 cards and a rules question, a few of them worth something
CARDS = [0.15, 0.1, 0.05, 0.03, 0.02] + [0.0] * 60


def test_a_budget_is_spent_to_within_a_tenth():
    """Issue 54: `--minutes M` keeps its budget within 10%. Over 200 seeds and budgets from one
    and a half first looks' time to most of the schedule's, a run the budget stops took between
    90% and 110% of it: its last look is cut to the deals that fit (with doubling looks that
    had to fit whole, a run stopped anywhere from a third to all of its budget). The clock here
    is the model `last_look` foresees with (time per row and deal), give or take a tenth."""
    spent = []
    for seed in range(200):
        seconds = float(np.random.default_rng(seed).uniform(5.0, 100.0))
        play, confirm, clock = _on_the_clock(CARDS, seed)
        result = Q.run(play, len(CARDS), confirm=confirm, seconds=seconds, clock=clock)
        if result.stopped_by == "budget":
            spent.append(clock() / seconds)
    print(f"\nbudget spent: {min(spent):.3f} to {max(spent):.3f} over {len(spent)} runs")
    assert len(spent) > 150
    assert 0.9 <= min(spent) and max(spent) <= 1.1


def test_null_cards_stay_cannot_tell_when_the_budget_cuts_a_look():
    """The look cut to the budget is tested like the others (Holm at 5% / LOOKS): twenty
    worthless cards on budgets that end inside the schedule, 300 seeds; a run in which the looks
    decide any of them (before the fresh deals, which would catch it) happens at most at the 5%
    rate. Its size depends on the cards still open and the clock, not fixed in advance, so this
    is measured, not proved (docs/restricted-play.md)."""
    errors, cut = 0, 0
    for seed in range(300):
        seconds = float(np.random.default_rng([seed, 1]).uniform(2.0, 40.0))
        play, confirm, clock = _on_the_clock([0.0] * 20, seed)
        result = Q.run(play, 20, confirm=confirm, seconds=seconds, clock=clock)
        cut += result.history[-1][0] not in Q.schedule()
        errors += bool((result.decided_at >= 0).any())
    print(f"\n20 worthless cards, budgets cutting a look in {cut} of 300 runs: the looks "
          f"decide one in {errors}")
    assert cut > 200, cut
    assert errors / 300 <= _band(0.05, 300), errors


def test_a_run_that_decides_everything_stops_before_its_last_look():
    result, asked = _run([0.2] * 4, 2)
    assert result.stopped_by == "decided" and len(asked) < Q.LOOKS
    assert Q.findings(result) == ["worth something"] * 4
    cards = [("lord", f"card {i}", f"forbid_lord={i}") for i in range(4)]
    frame = Q.impact_frame(cards, result, PLAYERS)
    assert (frame["lo"] <= frame["value"]).all() and (frame["value"] <= frame["hi"]).all()
    assert (frame["lo"] > 0).all() and (frame["finding"] == "worth something").all()
    assert frame["fresh"].all() and (frame["p_holm"] < 0.05).all()


def test_every_interval_excludes_0_exactly_when_its_card_is_a_finding():
    """Over 60 seeds of modest planted values, decided or open, confirmed or not: a card's
    interval excludes 0 exactly when it is a finding, and `p_holm` < 5% exactly then."""
    values = [0.05, 0.04, -0.04, 0.03, 0.0, 0.0]
    cards = [("lord", f"card {i}", "") for i in range(len(values))]
    kinds = set()
    for seed in range(60):
        result, _ = _run(values, 500 + seed)
        frame = Q.impact_frame(cards, result, PLAYERS)
        excludes = (frame["lo"] > 0) | (frame["hi"] < 0)
        assert (excludes == (frame["finding"] != "cannot tell")).all(), (seed, frame)
        assert ((frame["p_holm"] < 0.05) == excludes).all(), (seed, frame)
        kinds |= set(zip(frame["fresh"], frame["finding"], strict=True))
    assert {(True, "worth something"), (True, "cannot tell"), (False, "cannot tell")} <= kinds


def test_the_batched_p_values_are_the_paired_t_tests():
    from scipy.stats import ttest_1samp

    from reports.stats.blocks import paired_test

    rng = np.random.default_rng(5)
    d = np.vstack([rng.normal(0.1, 1, 40), rng.normal(0, 1, 40), np.zeros(40), np.full(40, .5)])
    expected = [paired_test(row, 0.95)[3] for row in d]
    np.testing.assert_allclose(Q._p_values(d), expected, rtol=1e-9)
    sign = np.array([1, -1, 1, 1])
    one_sided = [ttest_1samp(row, 0, alternative="greater" if s > 0 else "less").pvalue
                 for row, s in zip(d[:2], sign[:2], strict=True)]  # fmt: skip
    np.testing.assert_allclose(Q._p_values(d, sign)[:2], one_sided, rtol=1e-9)
    assert Q._p_values(d, sign)[2:].tolist() == [1.0, 0.0]


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
    from reports.sections.verdicts import best_strategy_blocks

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
    from reports.stats.blocks import paired_test

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
