"""Skill against luck (issue 31): "The skill ladder of a game of pure chance ... shows no skill";
a planted chain of players is measured in skill steps (a step: the stronger wins 75%). A rung
that sweeps the one below it makes the span one-sided (issue 49): "at least", a bound over the
deals that holds over many seeds, never an interval whose top is set by the number of games.

Tests of a random procedure run over many seeds, each bound 3.5 standard errors of a binomial
count from the count the procedure's level expects (`_band`)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from reports.metrics.skill import STEP, ladder, saved, span_difference, step_row


def _two_player_ladder(shares: list[float], blocks: int, seed: int,
                       deal_decides: bool = False) -> pd.DataFrame:  # fmt: skip
    """Every pair of rungs r0 < r1 < ... at its own 2-player table each block (both seatings);
    the stronger of adjacent rungs wins with `shares[k]`, pairs further apart by the product of
    the odds (a Bradley-Terry chain). `deal_decides`: a pair's two seatings of a block take one
    draw (the deal decides who wins whoever sits first), so its two games are one unit."""
    rng = np.random.default_rng(seed)
    logit = np.concatenate([[0.0], np.cumsum([np.log(p / (1 - p)) for p in shares])])
    i, j = np.triu_indices(len(logit), 1)
    u = rng.random((blocks, len(i), 2))  # block, pair, seating
    if deal_decides:
        u[..., 1] = u[..., 0]
    j_wins = u < (1 / (1 + np.exp(logit[i] - logit[j])))[None, :, None]
    rung = np.stack([np.stack([i, j], -1), np.stack([j, i], -1)], 1)  # pair, seating, seat
    rung = np.broadcast_to(rung, (blocks, *rung.shape))
    win = (rung == j[None, :, None, None]) == j_wins[..., None]
    b, pair, seating, seat = np.indices(rung.shape)
    return pd.DataFrame({"block": b.ravel(), "table": (2 * pair + seating).ravel(),
                         "seat": seat.ravel(), "strategy": [f"r{r}" for r in rung.ravel()],
                         "win": win.ravel().astype(float)})  # fmt: skip


def _band(runs: int, rate: float) -> float:
    """The most of `runs` a procedure may miss at `rate`: 3.5 binomial standard errors above."""
    return runs * rate + 3.5 * math.sqrt(runs * rate * (1 - rate))


def _steps(share: float) -> float:
    return math.log(share / (1 - share)) / STEP


def test_a_ladder_without_sweeps_keeps_a_two_sided_interval_that_covers_over_many_seeds():
    """Two steps of one skill step each, a deal deciding both of a pair's games (so counting
    games would narrow the intervals): the span is two-sided in every seed and each end misses
    the planted 2 steps in at most its 2.5% (band) of 300 seeds."""
    spans = [ladder(_two_player_ladder([0.75, 0.75], 100, seed, deal_decides=True),
                    ["r0", "r1", "r2"], 2).span for seed in range(300)]  # fmt: skip
    assert all(s.bounded and s.lo < s.steps < s.hi for s in spans)
    assert sum(s.lo > 2.0 for s in spans) <= _band(300, 0.025)  # 7 measured (31 at 80%)
    assert sum(s.hi < 2.0 for s in spans) <= _band(300, 0.025)  # 4 measured
    assert np.mean([s.steps for s in spans]) == pytest.approx(2.0, abs=0.1)


def test_a_sweeping_top_rung_is_at_least_a_bound_that_holds_over_many_seeds():
    """The top rung wins 99.95% of its games (6.9 steps, beyond the 5.5 at which the old code
    clipped a sweep of 200 games): the span is "at least" a bound, never an interval, and the
    bound is below the planted 7.9 steps in all but its 5% (band) of 150 seeds, and above 3."""
    truth = 1 + _steps(0.9995)
    lads = [ladder(_two_player_ladder([0.75, 0.9995], 100, seed), ["r0", "r1", "r2"], 2)
            for seed in range(150)]  # fmt: skip
    assert all(lad.steps["sweep"].iloc[1] and math.isnan(lad.steps["steps"].iloc[1])
               for lad in lads)  # fmt: skip
    assert all(not lad.span.bounded and lad.span.hi == math.inf for lad in lads)
    assert all(lad.verdict().startswith(f"at least {lad.span.lo:.1f} skill steps from `r0`")
               for lad in lads)  # fmt: skip
    missed = sum(not lad.span.lo <= truth <= lad.span.hi for lad in lads)
    assert missed <= _band(150, 0.05)  # 0 measured (150 of 150 on the old clip)
    assert min(lad.span.lo for lad in lads) > 3  # 3.2 measured


def test_a_sweeps_bound_counts_deals_not_games_over_many_seeds():
    """A deal decides both of a pair's games and the stronger wins 98% of deals (3.5 steps): in
    most seeds it sweeps or nearly (one-sided), and the bound over the 100 deals stays below the
    truth in all but its 5% (band) of 400 seeds; a bound over the 200 games would miss in the
    13% of seeds with a sweep (0.98^100)."""
    truth = _steps(0.98)
    spans = [ladder(_two_player_ladder([0.98], 100, seed, deal_decides=True), ["r0", "r1"],
                    2).span for seed in range(400)]  # fmt: skip
    assert sum(not s.bounded for s in spans) >= 320  # 375 measured
    missed = sum(not s.lo <= truth <= s.hi for s in spans)
    assert missed <= _band(400, 0.05)  # 0 measured (53 with the old bound over games)


def test_a_sweep_at_three_players_is_a_bound_over_its_deals():
    """At 3 players a rung that never loses to the one below still shares some games with a
    third player, so the pair's shares vary: the sweep is a bound, the Clopper-Pearson bound over
    its 60 deals (all 60 won: 0.025^(1/60) as a share for the step, 0.05^(1/60) for the span of
    this one step), not a 30-step interval from the delta method (5.7 steps [-27.7, 39.1] on the
    3-player Abyss ladder before) nor an upper end set by its 180 games."""
    rows = []
    rng = np.random.default_rng(3)
    for b in range(60):
        for t, seats in enumerate([("weak", "strong", "third"), ("strong", "third", "weak"),
                                   ("third", "weak", "strong")]):  # fmt: skip
            winner = "strong" if rng.random() < 0.6 else "third"  # weak never wins
            for s, name in enumerate(seats):
                rows.append({"block": b, "table": t, "seat": s, "strategy": name,
                             "win": float(name == winner)})  # fmt: skip
    lad = ladder(pd.DataFrame(rows), ["weak", "strong"], 3)
    row = lad.steps.iloc[0]
    assert row["stronger's share"] == pytest.approx(1.0)
    assert row["sweep"] and row["blocks"] == 60 and row["games"] == 180
    assert math.isnan(row["steps"]) and row["steps hi"] == math.inf
    assert row["steps lo"] == pytest.approx(_steps(0.025 ** (1 / 60)))  # 2.51
    assert math.isnan(lad.span.steps) and lad.span.hi == math.inf
    assert lad.span.lo == pytest.approx(_steps(0.05 ** (1 / 60)))  # 2.70
    assert lad.verdict().startswith("at least 2.7 skill steps from `weak` to `strong`")


def test_pure_chance_shows_no_skill_over_many_seeds():
    """Three equal players: the span's two-sided 95% interval lies above 0 (skill) in at most its
    2.5% (band) of 300 seeds, and below 0 as rarely; no sweep."""
    spans = [ladder(_two_player_ladder([0.5, 0.5], 100, seed), ["r0", "r1", "r2"], 2).span
             for seed in range(300)]  # fmt: skip
    assert all(s.bounded for s in spans)
    assert sum(s.lo > 0 for s in spans) <= _band(300, 0.025)  # 9 measured
    assert sum(s.hi < 0 for s in spans) <= _band(300, 0.025)  # 8 measured


@pytest.mark.parametrize("shares, said", [
    ([0.75], "1.0 skill steps [0.7, 1.3] from `r0` to `r1`"),
    ([0.5], "cannot tell any skill: 0.0 steps [-0.3, 0.3]"),
    # 100 of 100 deals: a share of 0.05^(1/100), 3.2 steps; 0.0 [-0.3, 0.3] then at most -3.0
    ([1.0], "at least 3.2 skill steps from `r0` to `r1` (a one-sided 95% bound: `r1` wins all"),
    ([0.5, 0.0], "cannot tell any skill: at most -2.7 steps (a one-sided 95% bound: `r1` wins"),
    ([1.0, 0.0], "cannot tell any skill: rungs sweep both ways, so the span has no bound"),
])  # fmt: skip
def test_the_ladder_says_what_its_span_shows(shares, said):
    """The verdict of a span: an interval when bounded, "at least" (or "at most") at a sweep,
    naming the rungs that sweep, and "cannot tell" when the bound does not exclude 0."""
    rows = [step_row(f"r{k}", f"r{k + 1}", p, math.sqrt(p * (1 - p) / 200), 200, 100)
            for k, p in enumerate(shares)]  # fmt: skip
    assert saved(pd.DataFrame(rows), 2).verdict().startswith(said)


def test_spans_are_compared_only_when_both_are_bounded_over_many_seeds():
    """Two ladders on their own deals: the difference of equal spans (one step each) has an
    interval excluding 0 in at most its 5% (band) of 150 seeds, a planted difference of one step
    (2 against 1) is found in at least 135, and a span with a sweep is compared with nothing."""
    def span(share, seed):
        return ladder(_two_player_ladder([share], 100, seed), ["r0", "r1"], 2).span

    one, two = ([span(share, seed) for seed in range(150)] for share in (0.75, 0.9))
    other = [span(0.75, 1000 + seed) for seed in range(150)]
    null = [span_difference(a, b) for a, b in zip(one, other, strict=True)]
    assert sum(d.lo > 0 or d.hi < 0 for d in null) <= _band(150, 0.05)  # 10 measured
    planted = [span_difference(a, b) for a, b in zip(two, other, strict=True)]
    assert sum(d.lo > 0 for d in planted) >= 135  # 145 measured
    wider = span_difference(two[0], other[0], conf=0.99)  # e.g. Bonferroni over 5 comparisons
    assert planted[0].steps - planted[0].lo == pytest.approx(
        (wider.steps - wider.lo) * 1.959964 / 2.575829)  # the normal quantiles of 95% and 99%
    assert span_difference(span(1 - 1e-12, 0), span(0.75, 1)) is None
    assert span_difference(span(0.75, 1), span(1 - 1e-12, 0)) is None


@pytest.mark.parametrize("hand, skill", [(1, False), (2, True)])
def test_the_tiny_game_without_a_decision_shows_no_skill(tmp_path, hand, skill):
    """The tiny game dealt one card each (`--set rules.hand=1`: nothing to decide) against the
    same game dealt two (keep the best): random and best are one player in the first."""
    from tiny_game import SPEC
    from typer.testing import CliRunner

    from cli.app import app
    from sim import games

    games.register(SPEC)
    try:
        out = tmp_path / "run"
        args = ["tournament", "--game", "tiny", "--players", "2", "--strategies", "random,best",
                "--blocks", "1500", "--set", f"rules.hand={hand}", "--out", str(out)]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
    finally:
        games._EXTRA.pop("tiny", None)
    lad = ladder(pd.read_parquet(out / "seats.parquet").astype({"strategy": str}),
                 ["random", "best"], 2)  # fmt: skip
    assert (lad.span[1] > 0) == skill, lad.verdict()
    shown = CliRunner().invoke(app, ["skill", str(out), "--rungs", "random,best"])
    assert shown.exit_code == 0, shown.output
    assert lad.verdict() in shown.output and (out / "skill" / "skill-2p.csv").is_file()
    wrong = CliRunner().invoke(app, ["skill", str(out), "--rungs", "random,nobody"])
    assert wrong.exit_code == 2 and "not in it: nobody" in wrong.output


def test_the_skill_row_finds_a_planted_gap_and_keeps_its_error_rate_when_players_are_equal():
    """The verdict table's skill row picks the best and the weakest strategy after looking: its
    interval is widened over every pair, so four players of equal skill give "cannot tell" in
    all but the 5% (band) of 200 seeds, and a planted one-step gap is found."""
    from reports.sections.skill import skill_verdict

    null = [skill_verdict({2: _two_player_ladder([0.5, 0.5, 0.5], 150, seed)})
            for seed in range(200)]  # fmt: skip
    assert sum(v.finding for v in null) <= _band(200, 0.05)  # 10 measured (31 unwidened)
    assert all(v.cell == "cannot tell" for v in null if not v.finding)
    planted = [skill_verdict({2: _two_player_ladder([0.5, 0.5, 0.75], 300, seed)})
               for seed in range(20)]  # fmt: skip
    assert sum(v.finding for v in planted) >= 16
    hit = next(v for v in planted if v.finding)
    assert hit.topic == "skill" and hit.short.endswith("(2p)") and "`r3`" in hit.sentence
    assert hit.deals == 300 and hit.effects == {}  # different line-ups: nothing to pool


def test_the_skill_row_is_asked_at_the_card_player_count_and_needs_two_strategies():
    from reports.sections.skill import skill_verdict

    two = _two_player_ladder([0.75], 100, 0)
    four = two.copy()  # the same games, labelled as a 4-player part
    assert skill_verdict({2: two, 4: four}).players == 4
    assert skill_verdict({2: two[two["strategy"] == "r0"]}) is None
    assert skill_verdict({2: two.drop(columns="block")}) is None


def test_the_skill_row_of_a_sweep_says_at_least_the_bound_over_its_deals():
    """A strategy that wins every game against the random policy: its step is one-sided, the
    Clopper-Pearson bound over the 100 deals both play (at 97.5%, the lower end of the row's 95%
    level: a share of 0.025^(1/100)), so the row and its cell say "at least", with no interval."""
    from reports.sections.skill import skill_verdict

    v = skill_verdict({2: _two_player_ladder([1 - 1e-12], 100, 0)})
    bound = _steps(0.025 ** (1 / 100))  # 2.98
    assert v.finding and v.short == f"at least {bound:.1f} steps best over weakest (2p)"
    assert f"is at least {bound:.1f} skill steps above `r0`" in v.sentence
    assert "Clopper-Pearson over the 100 deals" in v.sentence and "[" not in v.sentence
    assert v.deals == 100 and v.effects == {}


def test_the_report_shows_the_ladder_that_skill_measured(tmp_path):
    """`abyss-mc skill RUN_DIR` then `abyss-mc report RUN_DIR`: the report's ladder section
    shows the steps, the chart and the matrix of every pair (the tiny game: a game no command
    names); a ladder saved before the deals were counted is made again from the run's blocks."""
    from tiny_game import SPEC
    from typer.testing import CliRunner

    from cli.app import app
    from sim import games

    run = CliRunner()
    games.register(SPEC)
    try:
        out = tmp_path / "run"
        assert run.invoke(app, ["tournament", "--game", "tiny", "--players", "2", "--strategies",
                                "random,best,aim", "--blocks", "300", "--out", str(out)]
                          ).exit_code == 0  # fmt: skip
        md = (out / "report" / "report.md")
        before = md.read_text() if md.is_file() else ""
        shown = run.invoke(app, ["skill", str(out), "--rungs", "random,aim,best"])
        assert shown.exit_code == 0, shown.output
        assert run.invoke(app, ["report", str(out)]).exit_code == 0
        text = md.read_text()
        csv = out / "skill" / "skill-2p.csv"
        old = pd.read_csv(csv)
        old.drop(columns=["se", "blocks"]).to_csv(csv, index=False)
        assert run.invoke(app, ["report", str(out)]).exit_code == 0
    finally:
        games._EXTRA.pop("tiny", None)
    assert "Skill against luck: the ladder" not in before
    assert "Skill against luck: the ladder" in text
    verdict = shown.output.splitlines()[0].split(": ", 1)[1]  # "0.7 skill steps [0.5, 0.9] from"
    assert verdict.split(" from ")[0] in text.replace("\\", "")  # the verdict (md unescaped)
    assert "the row's share of the two players' wins" in text  # the matrix
    assert verdict.split(" from ")[0] in md.read_text().replace("\\", "")  # made again: the same
