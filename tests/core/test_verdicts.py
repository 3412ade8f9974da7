"""The report's `Verdicts` (issue 22): "A claim is shown as a finding only when its test is
significant; otherwise the report says that the data cannot tell." Planted effects must be found,
null data must give "cannot tell"."""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.balance import seat_advantage_blocks
from reports.render import Report
from reports.verdicts import (
    Verdict,
    add_strength_verdicts,
    add_verdicts,
    best_strategy_blocks,
    best_strategy_rates,
    card_verdicts,
    fight_verdict,
    holds,
    seat_verdict,
)


def _tournament(p_first_seat: float, strength: dict[str, float], blocks=2000, n=4, seed=0):
    """Long-form seats of a tournament: one table per block, strategies rotated over the seats;
    the winner drawn with weights = seat weight x strategy strength."""
    rng = np.random.default_rng(seed)
    names = list(strength)
    rows = []
    for b in range(blocks):
        order = [names[(b + s) % len(names)] for s in range(n)]
        w = np.array([strength[x] for x in order]) * np.r_[p_first_seat, np.ones(n - 1)]
        winner = rng.choice(n, p=w / w.sum())
        for s in range(n):
            rows.append({"block": b, "table": 0, "seat": s, "strategy": order[s],
                         "win": float(s == winner), "ip": 0, "rank": 1 if s == winner else 2})
    return pd.DataFrame(rows)


EVEN = {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0}


def _seats(df: pd.DataFrame) -> pd.DataFrame:
    """Seat win rates over blocks, intervals Bonferroni-widened for 4 seats (as the report)."""
    return seat_advantage_blocks(df.rename(columns={"ip": "score"}), 1 - 0.05 / 4)


def test_a_planted_first_seat_advantage_is_found() -> None:
    df = _tournament(2.0, EVEN)
    v = seat_verdict(_seats(df), 4)
    assert v.finding and "seat 1 has an advantage" in v.sentence


def test_fair_seats_cannot_be_told_apart() -> None:
    df = _tournament(1.0, EVEN, seed=3)
    v = seat_verdict(_seats(df), 4)
    assert not v.finding and "cannot tell a seat advantage" in v.sentence


def test_a_planted_strong_strategy_is_the_best() -> None:
    v = best_strategy_blocks(_tournament(1.0, {"a": 1.0, "b": 1.0, "strong": 2.0, "d": 1.0}), 4)
    assert v.finding and v.sentence.startswith("At 4 players, `strong` wins most")


def test_equal_strategies_give_no_best() -> None:
    v = best_strategy_blocks(_tournament(1.0, EVEN, seed=5), 4)
    assert not v.finding and "cannot tell the best strategy" in v.sentence


def test_a_simulation_needs_separate_intervals() -> None:
    rates = pd.DataFrame({"win rate": [0.30, 0.20], "win lo": [0.28, 0.18],
                          "win hi": [0.32, 0.22]}, index=["a", "b"])  # fmt: skip
    assert best_strategy_rates(rates, 2).finding
    rates.loc["b", "win hi"] = 0.29
    assert not best_strategy_rates(rates, 2).finding


def test_the_fight_rule_is_a_finding_only_when_its_gain_is_significant() -> None:
    rule = {"sentence": "Fight when the risk reaches 1/6.", "gain_win": (0.02, 0.01, 0.03)}
    assert fight_verdict(rule).finding
    rule["gain_win"] = (0.005, -0.004, 0.014)
    v = fight_verdict(rule)
    assert not v.finding and v.sentence.startswith("The data cannot tell")


def test_verdicts_come_first_then_the_contents() -> None:
    report = Report("A report")
    report.section("About this run", "text")
    report.section("Seats", "text")
    add_verdicts(report, [Verdict("x", 4, True, "Found."), Verdict("y", 4, False, "No.")], [])
    md = report.to_markdown()
    assert md.index("## Verdicts") < md.index("## Contents") < md.index("## About this run")
    assert "**Cannot tell.** No." in md
    html = report.to_html()
    assert html.index(">Verdicts<") < html.index(">Contents<")
    assert ">Verdicts</a>" not in html  # not in the contents: it is already on top


# --- card values and play strengths ------------------------------------------------------------
def _impact(planted: dict[str, float], blocks=400, seed=0):
    """Restricted play on synthetic shares: forbidden card c, the strategy's win share per block
    drops by planted[c] (0: a card worth nothing)."""
    from reports.restrict import impact_frame

    rng = np.random.default_rng(seed)
    base = rng.binomial(4, 0.25, size=blocks) / 4
    cards = [("lord", c, "") for c in planted] + [("rule", "no Leviathan fights", "")]
    rows = [base] + [base - v + rng.normal(0, 0.2, blocks) for v in planted.values()]
    rows.append(base - 0.10 + rng.normal(0, 0.2, blocks))
    return impact_frame(cards, np.array(rows), 4)


META = {"strategy": "s", "players": 4, "blocks": 400}


def test_a_planted_valuable_card_and_a_planted_harmful_card_are_the_card_verdicts() -> None:
    most, least, rule = card_verdicts(_impact({"Gold": 0.08, "Lead": -0.08, "Tin": 0.0,
                                               "Zinc": 0.0}), META)  # fmt: skip
    assert most.finding and most.key == "Gold" and "The most valuable card" in most.sentence
    assert least.finding and least.key == "Lead" and "better off without 1 card" in least.sentence
    assert rule.topic == "rules question: no Leviathan fights" and rule.finding
    assert "costs a player" in rule.sentence


def test_cards_worth_nothing_cannot_be_told_apart() -> None:
    most, least, _ = card_verdicts(_impact({"Tin": 0.0, "Zinc": 0.0, "Lead": 0.0}, seed=2), META)
    assert not most.finding and "cannot tell a valuable card" in most.sentence
    assert not least.finding and "cannot tell a card" in least.sentence


def test_a_verdict_holds_when_every_strength_finds_the_same() -> None:
    a = Verdict("best strategy", 4, True, "", key="pearl_economist")
    b = Verdict("best strategy", 4, True, "", key="pearl_economist")
    c = Verdict("best strategy", 4, True, "", key="leviathan_hunter")
    no = Verdict("best strategy", 4, False, "")
    assert holds([a, b]) == "holds" and holds([a, c]) == "differs"
    assert holds([a, no]) == "cannot tell" and holds([no, no]) == "none"
    wide = Verdict("most valuable card", 4, True, "", key="X", accepts=frozenset({"X", "Y"}))
    assert holds([wide, Verdict("most valuable card", 4, True, "", key="Y",
                                accepts=frozenset({"Y", "X"}))]) == "holds"  # fmt: skip


def test_verdicts_across_strengths_say_whether_each_holds_with_both_figures() -> None:
    report = Report("A report")
    tiers = {"hand-written": [Verdict("best strategy", 4, True, "H best.", key="a"),
                              Verdict("seat advantage", 4, False, "H seats.")],
             "tuned": [Verdict("best strategy", 4, True, "T best.", key="b"),
                       Verdict("seat advantage", 4, False, "T seats.")]}  # fmt: skip
    add_strength_verdicts(report, tiers, [])
    md = report.to_markdown()
    assert ("**Best strategy at 4 players: depends on play strength.** Hand-written presets: "
            "H best. Tuned presets: T best.") in md
    assert "**Seat advantage at 4 players: no play strength can tell.**" in md


def test_a_search_player_is_of_its_rollouts_models_family() -> None:
    """The search tier's best strategy agrees with the presets' when its rollouts model the
    same hand-written preset: `search` over `farmer_tuned_4p` is of the farmer family."""
    from reports.strengths import family

    assert family("search:rollout_policy=farmer_tuned_4p:rollouts=32") == "farmer"
    assert family("search:rollouts=8:rollout_policy=council_hoarder") == "council_hoarder"
    assert family("search") == "search" and family("farmer_tuned_2p") == "farmer"
    planted = _tournament(1.0, {"search:rollout_policy=farmer_tuned_4p:rollouts=32": 2.0,
                                "b": 1.0, "c": 1.0, "d": 1.0}, seed=2)  # fmt: skip
    searched = best_strategy_blocks(planted, 4)
    preset = best_strategy_blocks(_tournament(1.0, {"farmer": 2.0, **EVEN}, seed=4), 4)
    assert searched.finding and preset.finding and holds([searched, preset]) == "holds"
