"""The parts of `abyss-mc design` that know no game (`reports.design`, `reports.design_targets`):
targets and distances, the seat spread's interval (planted and null), the trade-off front, and
the whole command on the tiny test game."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from reports.design import Candidate, finalists, pareto, recommend
from reports.design_targets import Estimate, Target, Vary, _spread, parse_targets, parse_vary

runner = CliRunner()


def test_vary_reads_ranges_and_choices_and_measures_distance_as_a_share_of_the_range() -> None:
    ip, p, court = parse_vary(["lord.a.ip=0..20", "rules.x=0.5..1.5", "rules.c=refill|bga"])
    assert (ip.kind, ip.low, ip.high) == ("int", 0, 20)
    assert p.kind == "float" and court.choices == ("refill", "bga")
    ip = Vary(ip.key, ip.kind, ip.low, ip.high, start=30)  # the data given may lie outside
    assert ip.distance(30) == 0 and ip.distance(10) == 1.0 and ip.distance(25) == 0.25
    court = Vary(court.key, "choice", choices=court.choices, start="refill")
    assert court.distance("refill") == 0 and court.distance("bga") == 1


def test_a_target_holds_on_the_side_it_asks_and_equals_means_not_told_apart() -> None:
    le, ge, eq = parse_targets(["seat_spread<=0.02", "seat_share:4>=24%", "rounds==9"], 4)
    assert ge.bound == pytest.approx(0.24) and ge.name == "seat_share:4"
    assert le.holds(0.019, 0.0, 0.05) and not le.holds(0.021, 0.0, 0.05)
    assert le.shortfall(0.05, 0.04, 0.06) == pytest.approx(0.03)
    assert eq.holds(9.4, 8.9, 9.9) and not eq.holds(9.4, 9.1, 9.7)
    assert eq.shortfall(9.4, 9.1, 9.7) == pytest.approx(0.1)
    assert not le.holds(math.nan, math.nan, math.nan) and le.shortfall(math.nan, 0, 0) == math.inf


def _candidate(number, value, lo, hi, distance, target="m"):
    return Candidate(number, 0, {"k": number}, {target: Estimate(value, lo, hi, 100)}, distance,
                     shortfall=0.0)  # fmt: skip


def test_finalists_are_the_nearest_that_might_hold_and_the_given_data() -> None:
    t = Target("rounds", "", "<=", 10.0)
    cands = [_candidate(0, 12, 11.5, 12.5, 0.0, "rounds"),  # told to miss
             _candidate(1, 10.2, 9.8, 10.6, 0.1, "rounds"),  # might hold: the nearest
             _candidate(2, 9.0, 8.5, 9.5, 0.5, "rounds"),
             _candidate(3, 11.0, 10.8, 11.2, 0.05, "rounds")]  # fmt: skip
    for c, s in zip(cands, [4, 0.4, 0, 2], strict=True):
        c.shortfall = s
    rounds = finalists(cands, [t], 1)
    assert [[c.number for c in g] for g in rounds] == [[2, 0], [1]]  # 2 meets on its point
    assert recommend(rounds[0], [t]).number == 2
    assert recommend([cands[1]], [t]) is None  # 1 might, but misses on its point estimate


def test_the_front_keeps_the_candidates_no_other_beats_on_both_counts() -> None:
    df = pd.DataFrame({"shortfall": [0, 0, 1, 2, 0.5], "distance": [0.9, 1.0, 0.2, 0.0, 0.2]})
    assert pareto(df).tolist() == [True, False, False, True, True]


def _seats(rng, shares, blocks, games_per_block=8):
    """Per-block seat win shares of games won by seat s with probability shares[s]."""
    winners = rng.choice(len(shares), size=(blocks, games_per_block), p=shares)
    return np.stack([(winners == s).mean(axis=1) for s in range(len(shares))], axis=1)


def test_the_seat_spreads_interval_covers_a_planted_spread() -> None:
    """Seats of 30%, 25%, 25% and 20%: a spread of 0.10, covered in at least 36 of 40 seeds."""
    covered = 0
    for seed in range(40):
        per_seat = _seats(np.random.default_rng(seed), [0.3, 0.25, 0.25, 0.2], 400)
        est = _spread(per_seat, 3200)
        covered += est.lo <= 0.10 <= est.hi
    assert covered >= 36


def test_the_seat_spread_of_equal_seats_shrinks_with_more_games() -> None:
    """Null case: equal seats have no spread; the estimate is the noise's range (so a target
    `seat_spread<=X` is harder to meet on few games, never easier) and shrinks like 1/sqrt(n)."""
    small, large = [], []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        small.append(_spread(_seats(rng, [0.25] * 4, 100), 800).value)
        large.append(_spread(_seats(rng, [0.25] * 4, 1600), 12800).value)
    assert np.mean(large) < 0.35 * np.mean(small)
    assert np.mean(large) < 0.02


def test_design_runs_on_a_game_no_command_names(tmp_path, monkeypatch) -> None:
    """The tiny test game (tests/tiny_game.py): `best` wins more the more cards it holds; a
    design search over the hand size toward `best` winning at most 55% against `random` finds
    a hand of one card (no decision: 50%), from the given two (about 64%)."""
    from tiny_game import SPEC

    from sim import games

    monkeypatch.setitem(games._EXTRA, "tiny", SPEC)
    out = tmp_path / "tiny"
    result = runner.invoke(app, [
        "design", "--game", "tiny", "--players", "2", "--strategies", "best,random",
        "--vary", "rules.hand=1..5", "--target", "win_rate:best<=0.55", "--candidates", "8",
        "--blocks", "200", "--reeval-blocks", "800", "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    df = pd.read_parquet(out / "candidates.parquet")
    row = df[df["recommended"]].iloc[0]
    assert row["rules.hand"] == 1 and row["win_rate:best"] <= 0.55
    assert df[df["candidate"] == 0].iloc[0]["win_rate:best_lo"] > 0.55
    assert "Change rules.hand=2 to rules.hand=1" in result.output


def test_minutes_stop_the_search_after_the_batch_that_spends_its_share() -> None:
    """`--minutes M`: no new batch once 60% of M is spent (a fake clock: 1 minute a batch)."""
    from reports.design import Budget, Problem, search
    from reports.design_targets import Field

    calls = {"t": 0.0}

    def clock():
        return calls["t"]

    def measured(*args, **kw):
        calls["t"] += 60.0  # every candidate takes a minute
        return {"rounds": Estimate(9.0, 8.0, 10.0, 100)}

    import reports.design as D

    original = D.measure
    D.measure = measured
    try:
        varies = [Vary("rules.x", "float", 0, 9, start=3.0)]
        problem = Problem(Field(None, ["a", "b"], 2, "a"), varies,
                          [Target("rounds", "", "<=", 5.0)], 1)  # fmt: skip
        out = search(problem, Budget(candidates=40, batch=2, blocks=3, minutes=5), clock=clock)
    finally:
        D.measure = original
    # 3 minutes is 60% of 5: batch 0 (2 min) and batch 1 (4 min) run, then the search stops
    assert [c.batch for c in out] == [0, 0, 1, 1]
    assert out[0].values == {"rules.x": 3.0}  # the data as given comes first
