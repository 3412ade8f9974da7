"""Issue 49: "differs" only on a test of the difference between play strengths, corrected over
the verdict table's rows. An A/A — two strengths made of the same players, one with fewer
strategies and so fewer games, each with deals of its own — says "differs" anywhere in its table
in at most 5% of runs; a planted difference between strengths is found."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports.sections.across_strengths import cochran_q, judge_table, pooled, status
from reports.sections.seat_tables import seat_advantage_blocks
from reports.sections.verdict_table import verdict_frame
from reports.sections.verdicts import Effect, Verdict, best_strategy_blocks, seat_verdict

#: each seat's chance to win at 3 and 4 players (a real first-seat advantage, as in Abyss)
SEATS = {3: (0.36, 0.34, 0.30), 4: (0.27, 0.27, 0.24, 0.22)}


def _tournament(names: list[str], strength: np.ndarray, seats: tuple, blocks: int,
                rng: np.random.Generator) -> pd.DataFrame:  # fmt: skip
    """Blocks of n tables (a deal each): block b's line-up is n strategies of the rotation, and
    its tables seat that line-up in each of its n rotations, so every pair of strategies meets
    in every seat order (as the project's balanced design); the winner drawn with weights seat
    chance x strategy strength."""
    n, k = len(seats), len(names)
    lineup = (np.arange(blocks)[:, None] + np.arange(n)[None, :]) % k  # [block, position]
    turn = (np.arange(n)[:, None] + np.arange(n)[None, :]) % n  # [table, seat] -> position
    who = lineup[:, turn].reshape(blocks * n, n)  # [block x table, seat]
    w = np.asarray(seats)[None, :] * strength[who]
    cum = np.cumsum(w / w.sum(axis=1, keepdims=True), axis=1)
    winner = (rng.random(blocks * n)[:, None] > cum[:, :-1]).sum(axis=1)
    win = (np.arange(n)[None, :] == winner[:, None]).astype(float).ravel()
    return pd.DataFrame({"block": np.repeat(np.arange(blocks), n * n),
                         "table": np.tile(np.repeat(np.arange(n), n), blocks),
                         "seat": np.tile(np.arange(n), blocks * n),
                         "strategy": np.asarray(names)[who.ravel()], "win": win, "ip": 0,
                         "score": 0, "rank": np.where(win > 0, 1, 2)})  # fmt: skip


def _verdicts(df: pd.DataFrame, n: int) -> list[Verdict]:
    seats = seat_advantage_blocks(df, 1 - 0.05 / n, se=True)
    return [best_strategy_blocks(df, n), seat_verdict(seats, n)]


def _fight(rng: np.random.Generator, points: int) -> Verdict:
    """The fight row of a strength whose decision points gain +2 points by fighting (sd 0.25 a
    point, as 16 rollouts each way give)."""
    from games.abyss.report.balance import fight_verdict

    d = 0.02 + 0.25 * rng.standard_normal(points)
    return fight_verdict(None, pd.DataFrame({"d_win": d, "d_ip": 10 * d}))


def _tiers(seed: int, strength_b=None, seats_b=None) -> dict[str, list[Verdict]]:
    """Two strengths at 3 and 4 players: eight copies of one player (`f1`..`f8`) and their four
    "tuned" versions, identical to them (`f1_tuned_4p`..), on deals of their own; the second
    strength's blocks are a quarter of the first's; and the fight row, the second strength on a
    quarter of the decision points."""
    rng = np.random.default_rng(seed)
    hand, tuned = [f"f{i}" for i in range(1, 9)], [f"f{i}_tuned_4p" for i in range(1, 5)]
    tiers: dict[str, list[Verdict]] = {"hand-written": [], "tuned": []}
    for n, seats in SEATS.items():
        tiers["hand-written"] += _verdicts(_tournament(hand, np.ones(8), seats, 800, rng), n)
        b_strength = np.ones(4) if strength_b is None else np.asarray(strength_b)
        b_seats = seats if seats_b is None else seats_b[n]
        tiers["tuned"] += _verdicts(_tournament(tuned, b_strength, b_seats, 200, rng), n)
    tiers["hand-written"].append(_fight(rng, 2000))
    tiers["tuned"].append(_fight(rng, 500))
    return tiers


def _differs(tiers) -> bool:
    return (verdict_frame(tiers)["status"] == "differs").any()


def test_cochran_q_and_the_pooled_estimate_have_their_known_values() -> None:
    """Q = sum w (x - pooled)^2 with w = 1/se^2: for 0.02 and 0.05 with se 0.01 each, pooled
    0.035 (se 0.01/sqrt 2), Q = 2 x 0.015^2 / 0.01^2 = 4.5 on 1 df (p = 0.0339)."""
    effects = [Effect(0.02, 0.01), Effect(0.05, 0.01)]
    q, df, p = cochran_q(effects)
    assert q == pytest.approx(4.5) and df == 1 and p == pytest.approx(0.03389, abs=1e-4)
    est, se = pooled(effects)
    assert est == pytest.approx(0.035) and se == pytest.approx(0.01 / np.sqrt(2))


def _aa(seeds) -> tuple[int, int]:
    """Tables saying "differs" anywhere, and tables where the trap of the issue occurs (the
    strengths' findings not the same on the seats at 4 players or the fight)."""
    differs, trap = 0, 0
    for seed in seeds:
        tiers = _tiers(seed)
        differs += _differs(tiers)
        a, b = tiers["hand-written"], tiers["tuned"]
        trap += any(x.finding != y.finding or x.key != y.key for x, y in ((a[3], b[3]),
                                                                          (a[4], b[4])))
    return differs, trap


def test_an_aa_table_says_differs_anywhere_in_at_most_5_percent_of_runs() -> None:
    """Two strengths of the same players (the A/A of the issue: it said "differs" in 5 of 8
    reports, the strength with fewer games finding a subset of the other's seats). Over 120
    seeds, each a table of 5 rows, "differs" anywhere in at most 13 runs (5% is 6 expected; 13
    is 2.9 standard deviations above); the trap the issue saw (the weaker strength finds less)
    occurs in most of them. The slow tier runs 600 seeds with a bound that a 10% rate fails."""
    differs, trap = _aa(range(120))
    assert differs <= 13, differs
    assert trap >= 60, trap  # findings not the same, yet no test says they differ


@pytest.mark.slow
def test_an_aa_table_over_600_seeds() -> None:
    """600 seeds: at most 46 (5% is 30 expected; 46 is 3 standard deviations above, and 2
    standard deviations below the 60 a 10% rate would give: such a rate fails with chance
    0.97)."""
    differs, _ = _aa(range(10_000, 10_600))
    assert differs <= 46, differs


def test_a_planted_difference_between_strengths_is_found() -> None:
    """Planted: the hand-written strength's best is `f1` (its weight 1.6 against 1), the tuned
    strength's `f2_tuned_4p`, and the tuned strength's seats are reversed (the last seats
    ahead): "differs" on both questions in every one of 20 seeds, naming its test."""
    for seed in range(20):
        rng = np.random.default_rng(10_000 + seed)
        hand, tuned = [f"f{i}" for i in range(1, 9)], [f"f{i}_tuned_4p" for i in range(1, 5)]
        n, seats = 4, SEATS[4]
        a = _verdicts(_tournament(hand, np.r_[1.6, np.ones(7)], seats, 800, rng), n)
        b = _verdicts(_tournament(tuned, np.array([1.0, 1.6, 1.0, 1.0]), (0.22, 0.24, 0.27,
                                                                             0.27), 800, rng), n)
        rows = judge_table({("best strategy", 4): {"h": a[0], "t": b[0]},
                            ("seat advantage", 4): {"h": a[1], "t": b[1]}})  # fmt: skip
        assert [j.status for j in rows.values()] == ["differs", "differs"], seed
        assert "Gail and Simon's test" in rows[("best strategy", 4)].sentence
        assert "Cochran's Q" in rows[("seat advantage", 4)].sentence


def test_a_strength_that_cannot_tell_for_want_of_deals_is_named_with_its_deals() -> None:
    """"Otherwise say what is known: which strength finds it, which cannot tell, and why (its
    games)"."""
    strong = Verdict("seat advantage", 4, True, "", key="k", words=("behind", "ahead"), family=1,
                     effects={"4": Effect(-0.03, 0.005)}, deals=40_000)  # fmt: skip
    weak = Verdict("seat advantage", 4, False, "", words=("behind", "ahead"), family=1,
                   effects={"4": Effect(+0.01, 0.02)}, deals=2_500)  # fmt: skip
    judged = judge_table({("seat advantage", 4): {"hand-written": strong, "learned": weak}})
    j = judged[("seat advantage", 4)]
    assert j.status == "cannot tell" and j.cell == "partly"
    assert "the learned archetypes cannot tell (2,500 deals: an interval 4.0 times as wide" \
        in j.sentence  # fmt: skip
    # on the same side and pooled significant: holds, pooled
    weak_same = Verdict("seat advantage", 4, False, "", words=("behind", "ahead"), family=1,
                        effects={"4": Effect(-0.02, 0.02)}, deals=2_500)  # fmt: skip
    assert status([strong, weak_same]) == "holds"


def test_two_strengths_naming_the_same_set_hold() -> None:
    """A set verdict's key is the set (the cards not told apart from the top): two strengths
    that name the same set find the same."""
    def named(cards) -> Verdict:
        return Verdict("most valuable card", 4, True, "", key=frozenset(cards),
                       accepts=frozenset(cards))  # fmt: skip

    assert status([named({"A", "B"}), named({"B", "A"})]) == "holds"
    assert status([named({"A", "B"}), named({"A", "C"})]) != "holds"


def test_gail_and_simons_crossing_test_keeps_its_level_and_finds_a_crossing() -> None:
    """Known answer: estimates +2 and -2 with standard errors 1 give Q+ = Q- = 4 and p = 1/2 x
    P(chi2_1 >= 4) = 0.02275. At its least favourable null (one effect at 0, the other far on
    one side) it rejects about 5% of 4,000 draws (band 4.0%-6.0%, 3 standard errors; with three
    strengths, two at 0); elsewhere on the null, less; a real crossing (+3, -3) is found in
    most draws."""
    from reports.sections.across_strengths import crossing

    c, df, p = crossing([Effect(2.0, 1.0), Effect(-2.0, 1.0)])
    assert c == pytest.approx(4.0) and df == 1 and p == pytest.approx(0.02275, abs=1e-4)
    rng = np.random.default_rng(7)

    def rate(means) -> float:
        z = rng.standard_normal((4000, len(means))) + np.asarray(means)
        return float(np.mean([crossing([Effect(x, 1.0) for x in row])[2] < 0.05 for row in z]))

    assert 0.040 <= rate([0.0, 10.0]) <= 0.060
    assert 0.040 <= rate([0.0, 0.0, 10.0]) <= 0.065  # three strengths at their least favourable
    assert rate([0.0, 10.0, 10.0]) <= 0.060
    assert rate([0.0, 0.0]) < 0.02
    assert rate([3.0, -3.0]) > 0.6
