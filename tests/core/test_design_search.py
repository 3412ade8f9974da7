"""The parts of `abyss-mc design` that know no game (`reports.design`, `reports.design_targets`):
targets and distances, the seat spread's interval (planted and null), the trade-off front, and
the whole command on the tiny test game."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from cli.app import app
from reports.design import Candidate, finalists, pareto, recommend
from reports.design_targets import (
    MARGINS,
    Estimate,
    Target,
    Vary,
    _spread,
    parse_targets,
    parse_vary,
)
from sim.core.errors import UserError

runner = CliRunner()


def test_vary_reads_ranges_and_choices_and_measures_distance_as_a_share_of_the_range() -> None:
    ip, p, court = parse_vary(["lord.a.ip=0..20", "rules.x=0.5..1.5", "rules.c=refill|bga"])
    assert (ip.kind, ip.low, ip.high) == ("int", 0, 20)
    assert p.kind == "float" and court.choices == ("refill", "bga")
    ip = Vary(ip.key, ip.kind, ip.low, ip.high, start=30)  # the data given may lie outside
    assert ip.distance(30) == 0 and ip.distance(10) == 1.0 and ip.distance(25) == 0.25
    court = Vary(court.key, "choice", choices=court.choices, start="refill")
    assert court.distance("refill") == 0 and court.distance("bga") == 1


def test_a_target_is_met_when_its_interval_lies_on_the_side_it_asks() -> None:
    """`<=`/`>=`: met with the 95% interval on the asked side, missed with it wholly on the
    other, "cannot tell" across (the point estimate decides nothing: 0.019 <= 0.02 with an
    interval to 0.05 cannot tell)."""
    le, ge = parse_targets(["seat_spread<=0.02", "seat_share:4>=24%"], 4)
    assert ge.bound == pytest.approx(0.24) and ge.name == "seat_share:4"
    assert le.says(0.019, 0.0, 0.05) == "cannot tell" and not le.holds(0.019, 0.0, 0.05)
    assert le.says(0.01, 0.005, 0.02) == "meets" and le.says(0.03, 0.021, 0.04) == "misses"
    assert ge.says(0.25, 0.24, 0.26) == "meets" and ge.says(0.25, 0.2399, 0.26) == "cannot tell"
    assert ge.says(0.2, 0.19, 0.2399) == "misses"
    assert le.shortfall(0.05, 0.04, 0.06) == pytest.approx(0.03)  # the guide: point estimates
    assert le.says(math.nan, math.nan, math.nan) == "cannot tell"
    assert le.shortfall(math.nan, 0, 0) == math.inf
    assert le.says(0.01, math.nan, math.nan) == "cannot tell"  # no interval, no verdict


def test_equals_is_an_equivalence_test_with_a_margin() -> None:
    """`==X±M` (Schuirmann's TOST): met with the interval inside [X-M, X+M]; an interval that
    merely contains X is no evidence of being near it; `+-` reads as `±`, and without a margin
    the metric's default (MARGINS)."""
    eq, card, rounds = parse_targets(["seat_share:1==0.25±0.02", "card_value:lord.a==0+-1%",
                                      "rounds==9"], 4)  # fmt: skip
    assert (eq.bound, eq.margin) == (0.25, 0.02) and eq.text == "seat_share:1==0.25±0.02"
    assert card.margin == pytest.approx(0.01) and rounds.margin == MARGINS["rounds"]
    from reports.restrict import MARGIN

    assert MARGINS["card_value"] == MARGIN  # restricted play's "too weak to matter"
    assert eq.says(0.25, 0.235, 0.265) == "meets"
    assert eq.says(0.25, 0.2, 0.3) == "cannot tell"  # contains 0.25, but reaches beyond ±0.02
    assert eq.says(0.3, 0.28, 0.32) == "misses" and eq.says(0.2, 0.18, 0.2299) == "misses"
    assert eq.shortfall(0.3, 0.28, 0.32) == pytest.approx(0.03)
    assert rounds.says(9.3, 8.9, 9.45) == "meets" and rounds.says(9.3, 8.9, 9.6) == "cannot tell"


@pytest.mark.parametrize("target, message", [
    ("seat_share:4>=24.5", "reads as a percent: write 0.245 or 24.5%"),
    ("seat_share:4>=245%", "from 0 to 1"),
    ("card_value:lord.a<=5", "reads as a percent: write 0.05 or 5%"),
    ("card_value:lord.a<=-1.5", "from -1 to 1"),
    ("rounds>=-1", "0 or more"),
    ("decisive_point<=1.2", "reads as a percent"),
    ("seat_spread<=nan", "not a finite number"),
    ("rounds<=inf", "not a finite number"),
    ("seat_share:1==0.25±-0.01", "margin must be 0 or more"),
    ("seat_share:1==0.25±nan", "not a finite number"),
    ("seat_share:1<=0.25±0.01", "goes with == only"),
])  # fmt: skip
def test_a_target_that_cannot_be_meant_is_refused(target, message) -> None:
    with pytest.raises(UserError, match=re.escape(message)):
        parse_targets([target], 4)


@pytest.mark.parametrize("targets", [
    ["seat_share:4>=0.3", "seat_share:4<=0.2"],
    ["rounds==9±0.5", "rounds>=9.6"],
    ["rounds==9±0.5", "rounds<=8.4"],
])  # fmt: skip
def test_targets_on_one_metric_that_cannot_all_hold_are_refused(targets) -> None:
    with pytest.raises(UserError, match="cannot both hold"):
        parse_targets(targets, 4)


def test_a_band_that_can_hold_is_accepted() -> None:
    low, high = parse_targets(["seat_share:4>=0.2", "seat_share:4<=0.3"], 4)
    assert low.says(0.25, 0.22, 0.28) == high.says(0.25, 0.22, 0.28) == "meets"
    assert parse_targets(["rounds==9±0.5", "rounds>=9.5"], 4)[1].bound == 9.5  # touching


def _candidate(number, value, lo, hi, distance, target="m"):
    return Candidate(number, 0, {"k": number}, {target: Estimate(value, lo, hi, 100)}, distance,
                     shortfall=0.0)  # fmt: skip


def test_finalists_are_the_nearest_that_might_hold_and_the_given_data() -> None:
    t = Target("rounds", "", "<=", 10.0)
    cands = [_candidate(0, 12, 11.5, 12.5, 0.0, "rounds"),  # told to miss
             _candidate(1, 10.2, 9.8, 10.6, 0.1, "rounds"),  # might hold: the nearest
             _candidate(2, 9.0, 8.5, 9.5, 0.5, "rounds"),
             _candidate(3, 9.9, 9.5, 10.3, 0.3, "rounds"),
             _candidate(4, 11.0, 10.8, 11.2, 0.05, "rounds")]  # fmt: skip
    for c, s in zip(cands, [4, 0.4, 0, 0, 2], strict=True):
        c.shortfall = s
    rounds = finalists(cands, [t], 1)
    # likely to meet on a round's deals (2), in turn with the point estimates meeting (3), then
    # those that might (1); 4 is told to miss
    assert [[c.number for c in g] for g in rounds] == [[2, 0], [3], [1]]
    # with 25 times the deals 3's interval would lie below 10: likely too, and nearer
    assert [[c.number for c in g] for g in finalists(cands, [t], 2, shrink=0.2)] == \
        [[3, 2, 0], [1]]  # fmt: skip
    assert recommend(rounds[0], [t]).number == 2
    assert recommend(rounds[1], [t]) is None  # 3's interval reaches above 10: cannot tell
    assert recommend(cands[1:4], [t]).number == 2  # not 3, nearer but not shown to meet


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
    a hand of one card (no decision: 50%), from the given two (about 64%), confirmed on deals of
    its own; the manifest names the deals of every purpose."""
    import json

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
    assert row["stage"] == "confirmation" and row["rules.hand"] == 1
    assert row["win_rate:best_hi"] <= 0.55 and bool(row["meets"])
    given = df[(df["candidate"] == 0) & (df["stage"] == "finalists 1")].iloc[0]
    assert given["win_rate:best_lo"] > 0.55
    assert "Change rules.hand=2 to rules.hand=1" in result.output
    seeds = json.loads((out / "manifest.json").read_text())["config"]["purposes"]
    assert seeds["confirmation (reports)"] == row["seed"]
    assert len(set(seeds.values())) == len(seeds)  # a purpose, its own deals


# --- a knob of known truth through the procedure (`Problem.measure`) ---------------------------
def knob(truth, sigma: float = 0.21, clock=None, per_game: float = 0.0):
    """`measure` of a knob `rules.x` whose metric is `truth(x)` plus noise of standard error
    sigma/sqrt(deals): a deal-level noise common to a stage's candidates (common random numbers)
    and one of each candidate, a pure function of (seed, deals, x); its 95% interval +-1.96 se.
    With `clock` (a one-item list), each call advances it by `per_game` a game played."""

    def measure(fld, values, targets, *, seed, blocks, client=None):
        x = values["rules.x"]
        common = np.random.default_rng([seed, blocks]).normal()
        own = np.random.default_rng([seed, blocks, round(1000 * x)]).normal()
        se = sigma / math.sqrt(blocks)
        v = truth(x) + se * (0.6 * common + 0.8 * own)
        if clock is not None:
            clock[0] += per_game * blocks * fld.n_players
        return {t.name: Estimate(v, v - 1.96 * se, v + 1.96 * se, blocks) for t in targets}

    return measure


#: the last seat's share with x extra Pearls, as in issue 50: 1 misses 0.231 by a hair (0.2305),
#: 2 meets it well (0.261)
SLOPE = staticmethod(lambda x: 0.20 + 0.0305 * x)
TARGET = Target("seat_share", "4", ">=", 0.231)
KNOB_BUDGET = dict(candidates=16, batch=8, blocks=200, finalists=4, reeval_blocks=800)


def _knob_run(truth, seed: int, measure=None, **budget):
    """The search, the rounds of finalists and the confirmation of a run on the knob."""
    from reports.design import Budget, Outcome, Problem, decide, search
    from reports.design_targets import Field

    problem = Problem(Field(None, ["a"] * 4, 4, "a"), [Vary("rules.x", "int", 0, 10, start=0)],
                      [TARGET], seed, measure or knob(truth))  # fmt: skip
    b = Budget(**{**KNOB_BUDGET, **budget})
    searched = search(problem, b)
    return Outcome(problem, searched, *decide(problem, b, searched), budget=b)


def _truly_misses(outcome, truth) -> bool:
    rec = outcome.recommended
    return rec is not None and truth(rec.values["rules.x"]) < TARGET.bound


def _recommendations(truth, seeds) -> tuple[int, int]:
    """(runs recommending a change that truly meets, runs recommending one that truly misses)."""
    outcomes = [_knob_run(truth, s) for s in seeds]
    wrong = sum(_truly_misses(o, truth) for o in outcomes)
    return sum(o.recommended is not None for o in outcomes) - wrong, wrong


def test_a_borderline_recommendation_truly_meets_its_target_or_says_it_cannot_tell() -> None:
    """Issue 50: chosen on the deals that report it, 1 extra Pearl (truly 0.2305) was
    recommended for 'seat_share:4>=0.231' in 69 of 400 runs of this knob (17%, the code before
    issue 50). Chosen on rounds of their own and confirmed on deals nothing chose on, a change
    that truly misses is recommended at most as often as a confirmation interval lies wholly on
    the wrong side of the truth (2.5%; 10 expected of 400 at worst, sd 3.1): at most 5% (20) of
    400 runs (0 when written). The planted effect is found: a change that truly meets (2 Pearls,
    truly 0.261, most often) recommended in 391 of 400 runs when written, at least 360 (10 sd
    below)."""
    right, wrong = _recommendations(SLOPE, range(400))
    assert wrong <= 20
    assert right >= 360


def test_a_target_every_candidate_misses_by_a_hair_is_never_said_to_be_met() -> None:
    """Null case: every value truly gives 0.229, a hair below 0.231 (0.27 standard errors of a
    finalist): the run says it cannot tell (or the choice is not confirmed) and recommends a
    change in at most 5% (20) of 400 runs (2.5% at worst). The code before issue 50 recommended
    one in 180 of 200; this code in 1 of 400 when written."""
    outcomes = [_knob_run(lambda x: 0.229, s) for s in range(400)]
    assert sum(o.recommended is not None for o in outcomes) <= 20
    assert {o.verdict for o in outcomes} <= {"cannot tell", "not confirmed", "change",
                                             "no change needed"}  # fmt: skip
    assert sum(o.verdict in ("cannot tell", "not confirmed") for o in outcomes) >= 380


@pytest.mark.slow
def test_the_borderline_knob_over_2000_seeds() -> None:
    """The same as the fast test over 2,000 seeds: at most 5% (100) wrong, 7 sd above the
    worst case of 2.5% (50); at least 1,850 right (about 1,955 expected, 15 sd above)."""
    right, wrong = _recommendations(SLOPE, range(2000))
    assert wrong <= 100 and right >= 1850


def test_every_purpose_plays_deals_of_its_own() -> None:
    """The search, each round, the confirmation and the checks: one seed each (reports/seeds)."""
    from reports.design import ADAPT, CONFIRM, LEARNED, round_seed
    from reports.play.seeds import derived_seed

    o = _knob_run(lambda x: 0.225, 3, candidates=16, finalists=1)  # three rounds, none meets
    seeds = [c.seed for c in o.fresh]
    assert len(o.rounds) == 3 and o.verdict == "cannot tell"
    assert [r[0].seed for r in o.rounds] == [round_seed(3, r) for r in range(3)]
    others = [3, derived_seed(3, CONFIRM), derived_seed(3, ADAPT), derived_seed(3, LEARNED)]
    assert len(set(seeds)) == 3 and not set(seeds) & set(others)
    o = _knob_run(SLOPE, 3)
    assert o.confirmation.seed == derived_seed(3, CONFIRM) and o.verdict == "change"
    assert o.confirmation.seed not in {c.seed for c in o.fresh} | {3}


def test_a_choice_the_confirmation_does_not_meet_is_not_recommended() -> None:
    """A candidate chosen on its round's deals but not met on the confirmation's: "not
    confirmed", nothing recommended, and no other candidate chosen on those deals."""
    from reports.design import CONFIRM
    from reports.play.seeds import derived_seed

    confirm_seed = derived_seed(0, CONFIRM)
    base = knob(SLOPE)

    def measure(fld, values, targets, *, seed, blocks, client=None):
        est = base(fld, values, targets, seed=seed, blocks=blocks)
        if seed == confirm_seed:  # the confirmation reads 0.23 [0.215, 0.245]
            est = {k: Estimate(0.23, 0.215, 0.245, blocks) for k in est}
        return est

    o = _knob_run(SLOPE, 0, measure)
    assert o.verdict == "not confirmed" and o.recommended is None
    assert o.confirmation.values == {"rules.x": 2}


# --- --minutes bounds the whole run -------------------------------------------------------------
def _timed_run(monkeypatch, minutes: float, compile_seconds: float = 30.0):
    """A knob of reals (every candidate new) whose every game takes 5 ms of a fake clock (the
    first call 30 s more: numba compiling), two strategies to re-tune (22 candidates' games
    each) and a learned check."""
    import types

    import reports.design as D
    from reports.design import Budget, Problem, Retune, Timer, answer
    from reports.design_targets import Field

    clock = [0.0]
    rate = 0.005
    measure = knob(SLOPE, clock=clock, per_game=rate)
    first = {"done": False}

    def measured(*args, **kw):
        if not first["done"]:
            first["done"] = True
            clock[0] += compile_seconds
        return measure(*args, **kw)

    def retuned(problem, values, budget, client=None, progress=None):
        clock[0] += rate * D.retune_games(problem, budget, 2)
        return {"a": "a_retuned", "b": "b_retuned"}

    def learned(problem, c, budget, client=None):
        est = problem.measure(problem.field, c.values, problem.targets, seed=5, blocks=800)
        return D.Candidate(c.number, c.batch, c.values, est, c.distance, stage="learned"), ""

    plan = [Retune(0, "a", "p", {}, {}, {}), Retune(1, "b", "p", {}, {}, {})]
    monkeypatch.setattr(D, "retune_plan", lambda problem: plan)
    monkeypatch.setattr(D, "retuned_lineup", retuned)
    monkeypatch.setattr(D, "learned_check", learned)
    spec = types.SimpleNamespace(title="Knob")
    problem = Problem(Field(spec, ["a", "b"] * 2, 4, "a"),
                      [Vary("rules.x", "float", 0, 10, start=0.0)], [TARGET], 1,
                      measured)  # fmt: skip
    budget = Budget(candidates=400, batch=8, blocks=200, finalists=4, reeval_blocks=800,
                    retune_candidates=16, retune_blocks=100, minutes=minutes)  # fmt: skip
    return answer(problem, budget, timer=Timer(minutes, lambda: clock[0])), clock[0]


def test_minutes_bound_the_whole_run(monkeypatch) -> None:
    """`--minutes 10` where the search alone would take 27 minutes: the search stops in time for
    the first round (80 s) and the confirmation (16 s); the re-tunes (104 s with their check) do
    not fit and are skipped, and the summary says so; the whole run within 10% of 10 minutes."""
    from reports.sections.design import summary_text

    o, seconds = _timed_run(monkeypatch, 10)
    assert seconds <= 1.1 * 600 and seconds > 0.8 * 600
    assert o.verdict == "change" and len(o.searched) < 400
    assert any("re-tuned players" in s for s in o.skipped)
    assert "Skipped to keep within --minutes: the re-tuned players' check" in summary_text(o)


def test_minutes_that_leave_room_play_every_stage(monkeypatch) -> None:
    """With 40 minutes the whole search (27 min) and every check fit: nothing skipped."""
    o, seconds = _timed_run(monkeypatch, 40)
    assert len(o.searched) == 400 and not o.skipped and seconds <= 40 * 60
    assert o.adapted is not None and o.learned is not None


def test_a_candidates_values_reach_the_card_data_as_the_same_set_text_would() -> None:
    """`Field.tables` passes values, not `--set` text: the same card data as the text, the run's
    own `--set` under them, a candidate's value over the run's."""
    from reports.design_targets import Field
    from sim import games

    spec = games.get("abyss")
    base = ["game.starting_pearls=2", "rules.court_end=bga"]
    fld = Field(spec, ["greedy"] * 3, 3, "greedy", None, base, ("leviathan",))
    values = {"game.starting_pearls": 4, "rules.landlord_immediate_pearl": False,
              "rules.ambassador_mode": "keys", "leviathan_game.hand_limit": 9}  # fmt: skip
    text = ["game.starting_pearls=4", "rules.landlord_immediate_pearl=false",
            "rules.ambassador_mode=keys", "leviathan_game.hand_limit=9"]  # fmt: skip
    given = spec.load_cards(None, base + text, ("leviathan",))
    assert fld.tables(values).digest == given.digest
    assert fld.tables({}).digest == spec.load_cards(None, base, ("leviathan",)).digest
    assert fld.tables({}).digest != given.digest
