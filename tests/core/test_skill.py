"""Skill against luck (issue 31): "The skill ladder of a game of pure chance ... shows no skill";
a planted chain of players is measured in skill steps (a step: the stronger wins 75%)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reports.skill import ladder


def _two_player_ladder(shares: list[float], blocks: int, seed: int) -> pd.DataFrame:
    """Every pair of rungs r0 < r1 < ... at its own 2-player table each block (both seatings);
    the stronger of adjacent rungs wins with `shares[k]`, pairs further apart by the product of
    the odds (a Bradley-Terry chain)."""
    rng = np.random.default_rng(seed)
    logit = np.concatenate([[0.0], np.cumsum([np.log(p / (1 - p)) for p in shares])])
    k = len(logit)
    rows, table = [], 0
    for b in range(blocks):
        table = 0
        for i in range(k):
            for j in range(i + 1, k):
                p_j = 1 / (1 + np.exp(logit[i] - logit[j]))
                for seats in ((i, j), (j, i)):
                    j_wins = rng.random() < p_j
                    for s, r in enumerate(seats):
                        won = j_wins if r == j else not j_wins
                        rows.append({"block": b, "table": table, "seat": s,
                                     "strategy": f"r{r}", "win": float(won)})  # fmt: skip
                    table += 1
    return pd.DataFrame(rows)


def test_a_planted_chain_of_one_step_per_rung_is_measured_over_many_seeds():
    covered = 0
    for seed in range(20):
        lad = ladder(_two_player_ladder([0.75, 0.75, 0.75], 300, seed), ["r0", "r1", "r2", "r3"],
                     2)  # fmt: skip
        steps, lo, hi = lad.span
        covered += lo <= 3.0 <= hi
        assert abs(lad.steps["steps"] - 1.0).max() < 0.5
    assert covered >= 17  # a 95% interval, 20 seeds


def test_a_sweep_at_three_players_is_a_bound_not_a_thirty_step_interval():
    """At 3 players a rung that never loses to the one below still shares some games with a
    third player, so the pair's shares vary: the sweep counts as a bound (at least so many
    steps, from the Clopper-Pearson bound of its games), not as an estimate whose interval the
    delta method blows up at the logit's edge (5.7 steps [-27.7, 39.1] on the 3-player Abyss
    ladder before)."""
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
    assert row["sweep"] and row["steps"] == row["steps hi"]  # a sweep: at least so many steps
    assert 2 < row["steps lo"] < row["steps"]  # the Clopper-Pearson bound of 180 games
    assert lad.span[0] == lad.span[2] and 2 < lad.span[1] < lad.span[0]


def test_pure_chance_shows_no_skill_over_many_seeds():
    found = [ladder(_two_player_ladder([0.5, 0.5], 300, seed), ["r0", "r1", "r2"], 2)
             for seed in range(20)]  # fmt: skip
    assert sum(lad.span[1] > 0 for lad in found) <= 2
    assert all(lad.verdict().startswith("cannot tell") or lad.span[1] > 0 for lad in found)


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
    interval is widened over every pair, so players of equal skill give "cannot tell" in at least
    95% of runs, and a planted one-step gap is found."""
    from reports.skill import skill_verdict

    null = [skill_verdict({2: _two_player_ladder([0.5, 0.5, 0.5], 150, seed)})
            for seed in range(40)]  # fmt: skip
    assert sum(v.finding for v in null) <= 3
    assert all(v.cell == "cannot tell" for v in null if not v.finding)
    planted = [skill_verdict({2: _two_player_ladder([0.5, 0.5, 0.75], 300, seed)})
               for seed in range(20)]  # fmt: skip
    assert sum(v.finding for v in planted) >= 16
    hit = next(v for v in planted if v.finding)
    assert hit.topic == "skill" and hit.short.endswith("(2p)") and "`r3`" in hit.sentence


def test_the_skill_row_is_asked_at_the_card_player_count_and_needs_two_strategies():
    from reports.skill import skill_verdict

    two = _two_player_ladder([0.75], 100, 0)
    four = two.copy()  # the same games, labelled as a 4-player part
    assert skill_verdict({2: two, 4: four}).players == 4
    assert skill_verdict({2: two[two["strategy"] == "r0"]}) is None
    assert skill_verdict({2: two.drop(columns="block")}) is None


def test_the_skill_row_of_a_sweep_says_at_least_with_a_finite_bound():
    """A strategy that wins every game against the random policy: the interval of its share is
    one-sided (Clopper-Pearson at the widened level), so the row says "at least" a number of
    steps instead of an interval of zero width or of hundreds of steps."""
    from reports.skill import skill_verdict

    v = skill_verdict({2: _two_player_ladder([1 - 1e-12], 100, 0)})
    assert v.finding and "at least" in v.sentence and v.short.startswith("≥")
    bound = float(v.short[1:].split()[0])
    assert 1.5 < bound < 6  # 200 of 200 games at 97.5%: a share of at least 0.98


def test_the_report_shows_the_ladder_that_skill_measured(tmp_path):
    """`abyss-mc skill RUN_DIR` then `abyss-mc report RUN_DIR`: the report's ladder section
    shows the steps, the chart and the matrix of every pair (the tiny game: a game no command
    names)."""
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
    finally:
        games._EXTRA.pop("tiny", None)
    text = md.read_text()
    assert "Skill against luck: the ladder" not in before
    assert "Skill against luck: the ladder" in text
    verdict = shown.output.splitlines()[0].split(": ", 1)[1]  # "0.7 skill steps [0.5, 0.9] from"
    assert verdict.split(" from ")[0] in text.replace("\\", "")  # the verdict (md unescaped)
    assert "the row's share of the two players' wins" in text  # the matrix
