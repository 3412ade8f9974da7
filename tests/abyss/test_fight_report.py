"""The fight-or-explore report (games/abyss/report/fight_*.py): exact heatmaps and tables that match
`games.abyss.engine.odds.fight_table`, the section with and without rollouts, and the standalone
page.

Rollouts here are synthetic point frames with the columns of
`games.abyss.report.rollout.point_rows` (the
report only reads them), so these tests do not depend on the compiled kernel; the notebook test
runs the real thing.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from games.abyss.engine.cards.loader import load_cards
from games.abyss.engine.cards.tables import CardTables
from games.abyss.engine.odds import fight_table
from games.abyss.report import fight_odds as odds
from games.abyss.report import fight_report as fr
from games.abyss.report import fight_rollouts as worth
from games.abyss.report import fight_rule
from games.abyss.report.rollout import (
    Rollouts,
    learn_rule,
    one_step_rule,
    rule_sentence,
    save_rollouts,
)
from reports.render.report import Report

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def tables() -> CardTables:
    return load_cards(None, {}, expansions=("leviathan",))


@pytest.fixture(scope="module")
def table(tables: CardTables) -> pd.DataFrame:
    return fight_table(tables)


def synthetic_points(n: int = 240, seed: int = 0, unpaired: bool = True) -> pd.DataFrame:
    """Decision points with every column `point_rows` gives (plus the unpaired check)."""
    rng = np.random.default_rng(seed)
    n_border = rng.integers(1, 6, n)
    risk_36 = np.minimum(36, n_border * 4 + rng.integers(-1, 2, n))
    chance_36 = rng.integers(0, 37, n)
    base = rng.integers(0, 5, n) / 4
    fight_win = np.clip(base + (risk_36 >= 8) * 0.25 - 0.125, 0, 1)
    fight_ip = rng.normal(60, 10, n)
    continue_ip = fight_ip - rng.normal(1, 3, n)
    df = pd.DataFrame(
        {
            "game": np.arange(n) * 3,
            "point": rng.integers(1, 4, n),
            "seat": rng.integers(0, 4, n),
            "turn": rng.integers(1, 80, n),
            "round": rng.integers(1, 20, n),
            "pearls": rng.integers(0, 9, n),
            "n_border": n_border,
            "best_ally_value": rng.integers(1, 6, n),
            "resistance": rng.integers(3, 10, n),
            "chance_36": chance_36,
            "own_choice": rng.integers(0, 2, n),
            "arrival_risk": risk_36 * 1000 // 36,
            "ip": rng.integers(0, 80, n),
            "hand": rng.integers(0, 8, n),
            "keys": rng.integers(0, 3, n),
            "target": rng.integers(0, 20, n),
            "life_index": rng.integers(0, 3, n),
            "lives_left": rng.integers(1, 4, n),
            "strategy": rng.choice(["greedy", "leviathan_hunter", "lord_rusher"], n),
            "chance": chance_36 / 36,
            "fight_ip": fight_ip,
            "continue_ip": continue_ip,
            "fight_win": fight_win,
            "continue_win": base,
            "var_d_ip": rng.uniform(50, 150, n),
        }
    )
    df["d_ip"] = df["fight_ip"] - df["continue_ip"]
    df["d_win"] = df["fight_win"] - df["continue_win"]
    if unpaired:
        df["continue_ip_unpaired"] = continue_ip + rng.normal(0, 4, n)
        df["continue_win_unpaired"] = base
        df["var_d_ip_unpaired"] = df["var_d_ip"] * 1.5
    return df


RULES = ("own", "fight_risk=4/36", "fight_risk=8/36", "fight_p=18/36")


def synthetic_rules(points: pd.DataFrame, n: int, seed: int = 1) -> pd.DataFrame:
    """Rule rollouts of the first `n` points (the columns of `rule_rows`); fight_risk=8/36
    wins 5 points more often than the own rules."""
    rng = np.random.default_rng(seed)
    first = points.iloc[:n]
    base = rng.integers(0, 5, n) / 4
    frames = []
    for rule in RULES:
        bonus = 0.05 if rule == "fight_risk=8/36" else 0.0
        frames.append(
            pd.DataFrame(
                {
                    "game": first["game"].to_numpy(),
                    "point": np.ones(n, dtype=np.int64),
                    "strategy": first["strategy"].to_numpy(),
                    "rule": rule,
                    "win": np.clip(base + bonus + rng.normal(0, 0.05, n), 0, 1),
                    "ip": rng.normal(60, 5, n) + 20 * bonus,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def synthetic_rollouts(rule_points: int = 0, **kw) -> Rollouts:
    points = synthetic_points(**kw)
    meta = {
        "seed": 7,
        "players": 4,
        "strategies": ["greedy", "leviathan_hunter", "lord_rusher"],
        "points": len(points),
        "replicates": 4,
        "paired": True,
        "games_played": len(points) * 16,
        "seconds": 1.25,
        "command": f"abyss-mc ev rollout --points {len(points)}",
        "rule_points": rule_points,
        "rule_replicates": 2 if rule_points else 0,
        "rule_candidates": list(RULES) if rule_points else [],
        "rule_test": "chosen" if rule_points else None,
    }
    rules = synthetic_rules(points, rule_points) if rule_points else None
    return Rollouts(points, meta, rules)


# --- exact tables ----------------------------------------------------------------------------


def test_in_36ths() -> None:
    assert odds.in_36ths(0.5) == "18/36"
    assert odds.in_36ths(Fraction(11, 36)) == "11/36"
    assert odds.in_36ths(Fraction(1, 1)) == "36/36"
    assert odds.in_36ths(Fraction(1, 7)) == "5.14/36"


@pytest.mark.parametrize("kind", ["plain", "two_dice"])
def test_damage_grid_matches_fight_table(table: pd.DataFrame, kind: str) -> None:
    grid = odds.damage_by_resistance(table, kind)
    assert list(grid.index) == sorted(table["resistance"].unique())
    assert list(grid.columns) == [1, 2, 3, 4, 5]
    rows = table[(table["ally_kind"] == kind) & (table["pearls_available"] == 0)]
    for row in rows.itertuples():
        assert grid.at[row.resistance, row.ally_value] == pytest.approx(row.p_damage)


def test_plain_3_against_resistance_7_is_18_of_36(table: pd.DataFrame) -> None:
    """3 + die >= 7 for die 4, 5, 6: 18 of the 36 outcomes; a two-dice Ally: 27/36."""
    assert odds.damage_by_resistance(table, "plain").at[7, 3] == 0.5
    shown = odds.damage_table(table)
    assert shown.at[7, "plain Ally 3"] == "18/36"
    assert shown.at[7, "two-dice Ally 3"] == "27/36"


def test_pearls_grid(table: pd.DataFrame) -> None:
    """Each Pearl adds 1 to the Attack Power: against Resistance 7, value v with p Pearls hits
    as a plain Ally of value v + p would (capped at certain)."""
    grid = odds.damage_by_pearls(table, 7)
    assert list(grid.index) == [0, 1, 2, 3, 4, 5]
    for pearls in grid.index:
        for value in grid.columns:
            die_min = 7 - value - pearls  # the smallest die that hits
            assert grid.at[pearls, value] == pytest.approx(min(1, max(0, 7 - die_min) / 6))


def test_full_health_rows(table: pd.DataFrame, tables: CardTables) -> None:
    kill = odds.full_health(table, tables, "p_kill")
    assert len(kill) == len(tables.leviathan_number)
    assert kill.index[19] == "20 none (7)"
    # Leviathan 20: one Life space of Resistance 7: a plain 3 kills it half the time
    assert kill.loc["20 none (7)", 3] == 0.5
    tokens = odds.full_health(table, tables, "expected_tokens")
    assert tokens.loc["20 none (7)", 3] == 0.5


def test_border_risk_is_exact(tables: CardTables) -> None:
    """Zone weights: sums 2-3 (3/36), 4, 5, 6, 7 (6/36), 8, 9, 10, 11-12 (3/36)."""
    risk = odds.border_risk(tables, threshold_36=7)
    assert list(risk.index) == list(range(1, 10))
    one = risk.loc[1]
    assert one["least likely zones"] == Fraction(3, 36)
    assert one["most likely zones"] == Fraction(6, 36)
    assert one["uniformly random zones"] == Fraction(1, 9)
    assert one["rule fights (dice-filled)"] == 0  # no single zone reaches 7/36
    for k in risk.index:
        assert risk.at[k, "uniformly random zones"] == Fraction(k, 9)
        assert isinstance(risk.at[k, "zones the dice fill"], Fraction)
    assert all(v == 1 for v in risk.loc[9, risk.columns])
    # the first Leviathan lands by the dice: the expected risk is the sum of p_land squared
    assert risk.at[1, "zones the dice fill"] == Fraction(
        3**2 * 4 + 4**2 * 2 + 5**2 * 2 + 6**2, 36**2
    )


def test_landing_occupancy_is_a_distribution(tables: CardTables) -> None:
    for k in (1, 2, 5):
        states = odds.landing_occupancy(tables, k)
        assert sum(states.values()) == 1
        assert all(len(s) == k for s in states)


def test_border_risk_display() -> None:
    risk = pd.DataFrame(
        {"least likely zones": [Fraction(1, 2)], "rule fights (dice-filled)": [Fraction(1, 4)]},
        index=pd.Index([1], name="Leviathans"),
    )
    shown = odds.border_risk_display(risk)
    assert shown.iat[0, 0] == "18/36 (50.0%)"
    assert shown.iat[0, 1] == "25%"


# --- the section -----------------------------------------------------------------------------


def _figures(section) -> int:
    return sum(type(b).__name__ == "_Figure" for b in section.blocks)


def test_section_without_rollouts(tables: CardTables) -> None:
    report = Report("test")
    sec = fr.add_fight_section(report, tables)
    assert report.sections == [sec]
    assert sec.title == "Fight or explore?"
    assert _figures(sec) == 4  # damage, Pearls, full health, explore risk
    md = report.to_markdown()
    assert "| 7 | 6/36 | 12/36 | 18/36 | 24/36 | 30/36 | 11/36 | 20/36 | 27/36 |" in md
    assert "No rollouts given" in md
    assert "Rollouts." not in md
    assert "Common random numbers" not in md


def test_section_with_one_step_rollouts(tables: CardTables) -> None:
    """Without rule rollouts the rule comes from the one-decision forks."""
    rollouts = synthetic_rollouts()
    report = Report("test")
    report.section("before")
    sec = fr.add_fight_section(report, tables, rollouts, title="Leviathans")
    assert len(report.sections) == 2 and report.sections[1] is sec
    assert sec.title == "Leviathans"
    # 4 exact + 6 situations + border x chance + rule grid
    assert _figures(sec) == 12
    md = report.to_markdown()
    step = one_step_rule(rollouts.points)
    sentence = rule_sentence(f"fight_risk={step['fitted_on_half']}/36")  # the rule measured
    assert fight_rule.recommended_rule(rollouts)["sentence"] == sentence
    assert f"**{sentence}**" in md
    assert md.index(sentence) < md.index("With the Leviathan expansion")
    assert "Suggested by the one-decision forks alone" in md
    assert "Rule rollouts." not in md
    assert "Common random numbers" in md
    assert "paired (common random numbers)" in md
    assert "seen at the decision points (estimated)" in md
    assert "18/36" in md


def test_section_with_rule_rollouts(tables: CardTables) -> None:
    rollouts = synthetic_rollouts(rule_points=120)
    rule = fight_rule.recommended_rule(rollouts)
    learnt = learn_rule(rollouts.rules)
    assert rule["source"] == "rule rollouts"
    assert rule["rule"] == learnt["rule"] == "fight_risk=8/36"
    assert rule["sentence"] == learnt["sentence"] == rule_sentence("fight_risk=8/36")
    report = Report("test")
    sec = fr.add_fight_section(report, tables, rollouts)
    assert _figures(sec) == 13  # and the chart of the candidate rules
    md = report.to_markdown()
    assert f"**{rule['sentence']}**" in md
    assert "The best of 4 candidate rules" in md
    assert f"`{learnt['spec']}`" in md
    assert "Rule rollouts." in md
    assert "reaches 8/36 (the recommended rule's threshold)" in md
    table = fight_rule.rule_rollout_table(learnt)
    assert list(table.index) == list(RULES)
    assert table.at["own", "win pp"] == 0


def test_the_one_decision_rule_named_is_the_one_measured(monkeypatch) -> None:
    """Without rule rollouts the recommended rule is the even games' choice, whose held-out gain
    is reported, not the choice made again on all points (which no held-out test measured)."""
    import games.abyss.report.rollout as ro

    step = {"risk_36": 8, "fitted_on_half": 5, "held_out_points": 40,
            "gain_vs_own": (0.02, 0.01, 0.03)}  # fmt: skip
    monkeypatch.setattr(ro, "one_step_rule", lambda points: step)
    rule = fight_rule.recommended_rule(synthetic_rollouts())
    assert rule["source"] == "one decision"
    assert rule["rule"] == rule["fitted_on_half"] == "fight_risk=5/36"
    assert rule["sentence"] == rule_sentence("fight_risk=5/36")
    assert rule["gain_win"] == step["gain_vs_own"]


@pytest.mark.parametrize(("name", "points", "says"), [
    ("own", 0, "No candidate beat the strategies' own rules on the even-numbered games"),
    ("fight_risk=6/36", 0, "no odd-numbered game measured it, so it is not checked out of sample"),
    ("fight_risk=6/36", 40, "on the 40 decision points of the odd-numbered games, which did not"),
])  # fmt: skip
def test_the_rule_headline_claims_only_a_measured_gain(name, points, says) -> None:
    """The headline states a held-out gain only when odd-numbered games measured the rule named
    (the own rules chosen, or no odd game: no figure, not a 0 it never tested)."""
    gain = (0.01, 0.002, 0.02) if points else (float("nan"),) * 3
    rule = {"rule": name, "sentence": rule_sentence(name), "spec": "", "source": "rule rollouts",
            "held_out_points": points, "gain_win": gain, "gain_ip": gain,
            "learnt": {"table": list(RULES)}}  # fmt: skip
    report = Report("test")
    sec = report.section("s")
    fr._rule_headline(sec, rule, {"rule_points": 80, "rule_replicates": 2})
    md = report.to_markdown()
    assert says in md
    assert ("nan" in md) is False


def test_a_gain_that_excludes_0_never_reads_as_0() -> None:
    """An interval whose bound rounds to +0.0 at one decimal gets two, so that a finding (its
    lower bound above 0) is not printed beside "+0.0"."""
    assert fr._ci_text((0.0055, 0.0001, 0.0109), 100, "pp") == (
        "+0.55 pp (95% interval +0.01 to +1.09)")
    assert fr._ci_text((0.02, 0.01, 0.03), 100, "pp") == "+2.0 pp (95% interval +1.0 to +3.0)"


def test_risk_threshold_36() -> None:
    assert fight_rule.risk_threshold_36("fight_risk=6/36") == 6
    assert fight_rule.risk_threshold_36("fight_p=18/36") is None
    assert fight_rule.risk_threshold_36("own") is None


def test_section_without_unpaired_check(tables: CardTables) -> None:
    rollouts = synthetic_rollouts(unpaired=False)
    report = Report("test")
    fr.add_fight_section(report, tables, rollouts)
    md = report.to_markdown()
    assert "Common random numbers" not in md
    assert "decision points of the odd-numbered games" in md


def test_pairing_table() -> None:
    gain = {
        "points": 10,
        "halfwidth_paired": 1.0,
        "halfwidth_unpaired": 2.0,
        "replicate_var_paired": 3.0,
        "replicate_var_unpaired": 6.0,
        "variance_ratio": 0.5,
    }
    frame = worth.pairing_table(gain)
    assert list(frame["paired / unpaired"]) == [0.5, 0.5]


# --- the page --------------------------------------------------------------------------------


def test_fight_page_writes_html_markdown_and_pngs(tables: CardTables, tmp_path) -> None:
    rollouts = synthetic_rollouts(rule_points=100)
    paths = fr.write_fight_page(None, tmp_path / "out", tables, rollouts)
    assert paths["html"] == tmp_path / "out" / "report.html"
    assert paths["markdown"].is_file() and paths["html"].is_file()
    assert len(paths["figures"]) == 13
    for png in paths["figures"]:
        assert png.read_bytes()[:8] == PNG
    md = paths["markdown"].read_text()
    assert md.startswith("# Fight or explore? Leviathans in Abyss")
    assert "## How this was made" in md
    assert "seed 7" in md and "3,840 games played" in md and "4 replicates" in md
    assert "`abyss-mc ev rollout --points 240`" in md
    assert ("rule rollouts included (100 games x 2 replicates: 4 candidate rules on the "
            "even-numbered games, the chosen one (unless the own) and the own rules on the odd "
            "ones)") in md
    sentence = learn_rule(rollouts.rules)["sentence"]
    html = paths["html"].read_text()
    assert "<strong>" + sentence.replace("'", "&#x27;") + "</strong>" in html
    assert "18/36" in html


def test_fight_page_without_rollouts(tables: CardTables, tmp_path) -> None:
    report = fr.fight_page(tables)
    assert report.title == fr.PAGE_TITLE
    assert [s.title for s in report.sections] == ["Fight or explore?", "How this was made"]
    paths = report.write(tmp_path)
    assert len(paths["figures"]) == 4
    assert "No rollouts were given" in paths["markdown"].read_text()


def test_write_fight_page_from_run_dir(tables: CardTables, tmp_path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    save_rollouts(synthetic_rollouts(rule_points=60, n=120), run)
    paths = fr.write_fight_page(run, None, tables)
    assert paths["html"] == run / "report" / "report.html"
    md = paths["markdown"].read_text()
    assert "120 forked decision points" in md
    assert "Rule rollouts." in md
    with pytest.raises(ValueError):
        fr.write_fight_page(None, None, tables)
