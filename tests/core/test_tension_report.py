"""The snowball-or-catch-up verdict (issue 49): planted games with a catch-up mechanism, with a
snowball (a bonus to the leader, or a bonus that grows with the lead) and without either (gains
that do not depend on the standing, seats of different strengths), each over many seeds with a
bound several standard errors from the expected count; the seat last after a third of the game
wins far less than 1/n in all of them, so a test against 1/n would call each a snowball."""

from __future__ import annotations

import numpy as np

from reports.tension_report import Sample, comeback_verdict, tension_frame, tension_verdicts


def race(rng, mechanism=None, push=1.0, deals=150, tables=3, seats=3, rounds=12,
         rotate=True) -> Sample:  # fmt: skip
    """`deals` deals, each at `tables` tables: the line-up of `seats` strategies (strength 0,
    1, 2, ... points a round) in turn at each seat (`rotate` False: the same seats at every
    table, so the tables of a deal play one game), the tables of a deal drawing the same luck
    at each seat. Each round a seat gains Poisson(2 + its strength); then `mechanism`:
    "catch-up": the seat(s) last before the round gain `push` more; "leader": the sole leader
    gains `push` more; "compound": each seat gains `push` times its lead over the seats' mean
    (rounded); None: nothing."""
    n_games = deals * tables
    table = np.tile(np.arange(tables), deals)
    seating = (np.arange(seats)[None, :] + rotate * table[:, None]) % seats
    luck = np.repeat(rng.random((deals, rounds, seats)), tables, axis=0)  # a deal's luck by seat
    score = np.zeros((n_games, seats))
    scores = np.zeros((n_games, rounds, seats), dtype=np.int64)
    for r in range(rounds):
        gain = _poisson(2 + seating, luck[:, r])
        if r and mechanism == "catch-up":
            gain += push * (score == score.min(axis=1, keepdims=True))
        elif r and mechanism == "leader":
            top = score == score.max(axis=1, keepdims=True)
            gain += push * (top & (top.sum(axis=1, keepdims=True) == 1))
        elif r and mechanism == "compound":
            gain += np.round(push * (score - score.mean(axis=1, keepdims=True)))
        score = score + gain
        scores[:, r] = score
    final = scores[:, -1]
    top = final == final.max(axis=1, keepdims=True)
    return Sample(scores, top / top.sum(axis=1, keepdims=True), final,
                  np.repeat(np.arange(deals), tables), seating)  # fmt: skip


def _poisson(mean: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Poisson(mean) drawn by inversion of the uniform `u` (so tables sharing `u` share luck)."""
    from scipy.stats import poisson

    return poisson.ppf(u, mean)


def verdicts(mechanism, push, seeds, **kw) -> list[str]:
    return [(v.key if v.finding else "cannot tell") for v in
            (comeback_verdict(race(np.random.default_rng(s), mechanism, push, **kw), 3)
             for s in seeds)]  # fmt: skip


def test_a_catch_up_mechanism_is_found() -> None:
    # power about 1 at this size; 36 of 40 is several standard errors below
    assert verdicts("catch-up", 2.0, range(40)).count("catches up") >= 36


def test_a_bonus_to_the_leader_is_a_snowball() -> None:
    assert verdicts("leader", 1.0, range(100, 140)).count("snowballs") >= 36


def test_a_bonus_that_grows_with_the_lead_is_a_snowball() -> None:
    assert verdicts("compound", 0.1, range(200, 240)).count("snowballs") >= 36


def test_gains_that_ignore_the_standing_cannot_tell() -> None:
    """Strategies of different strengths, no mechanism: a 5% test finds something in at most
    12 of 100 seeds (5 expected, 2.2 the standard deviation), although the seat last after a
    third of the game wins about 4% (fair 33%)."""
    found = verdicts(None, 0.0, range(300, 400))
    assert 100 - found.count("cannot tell") <= 12
    t = tension_frame({"x": {3: race(np.random.default_rng(0))}})
    assert t.loc[0, "comeback"] < 0.1 and t.loc[0, "deals"] == 150 and t.loc[0, "games"] == 450


def test_three_tables_that_replay_one_game_are_one_deal() -> None:
    """Every deal's three tables play the same game: counted as three draws, the interval would
    be 1/sqrt(3) as wide and a 5% test would find something in about a quarter of the seeds."""
    found = verdicts(None, 0.0, range(400, 500), rotate=False)
    assert 100 - found.count("cannot tell") <= 12


def test_the_verdict_states_its_null_and_its_effect() -> None:
    v = tension_verdicts({3: race(np.random.default_rng(1), "catch-up", 2.0)})[0]
    assert v.finding and v.key == "catches up" and v.words == ("catches up", "snowballs")
    assert "against seats of the same strategy in the same seat" in v.sentence
    assert "t interval over 150 deals, 450 sampled games" in v.sentence
    (effect,) = v.effects.values()
    assert effect.estimate < 0 and effect.se > 0 and v.deals == 150 and v.per_count
