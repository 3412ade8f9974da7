"""Card values as verdicts (`reports.sections.card_verdicts`): the most valuable card, the cards
too weak
to matter and the rules questions of restricted play. Issue 22: planted effects found, null data
"cannot tell"; issue 28: the family counted and the intervals matching the tests; issue 49: "a
designer asks which cards are too weak to matter: name the cards shown to be worth less than a
stated margin (an equivalence test, TOST), and say so when none is", each card with its own
deals, and the quantities the findings rest on for the comparison across play strengths."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from reports import budget as Q
from reports.restrict import MARGIN, NEVER, equivalence, impact_frame
from reports.sections.card_verdicts import WEAK, card_verdicts

META = {"strategy": "s", "players": 4, "blocks": 400}


def _shares(planted: dict[str, float], blocks=400, seed=0, spread=None) -> np.ndarray:
    """Restricted play on synthetic shares: forbidden card c, the strategy's win share per block
    drops by planted[c] (0: a card worth nothing), plus noise of sd spread[c] (0.2 unless
    given: a card seldom taken changes few deals, so its spread is small); then the rules
    question, costing 10 points."""
    spread = spread or {}
    rng = np.random.default_rng(seed)
    base = rng.binomial(4, 0.25, size=blocks) / 4
    rows = [base] + [base - v + rng.normal(0, spread.get(c, 0.2), blocks)
                     for c, v in planted.items()]  # fmt: skip
    rows.append(base - 0.10 + rng.normal(0, 0.2, blocks))
    return np.array(rows)


def _cards(planted) -> list[tuple[str, str, str]]:
    return [("lord", c, "") for c in planted] + [("rule", "no Leviathan fights", "")]


def _impact(planted: dict[str, float], blocks=400, seed=0, spread=None) -> pd.DataFrame:
    return impact_frame(_cards(planted), _shares(planted, blocks, seed, spread), 4)


def _interval(sentence: str, after: str = "") -> tuple[float, float]:
    """The first interval `[+a, +b]` of a sentence after the text `after`."""
    lo, hi = re.search(r"\[([+-][\d.]+), ([+-][\d.]+)\]", sentence[sentence.index(after):]).groups()
    return float(lo), float(hi)


def test_planted_valuable_harmful_and_negligible_cards_are_the_card_verdicts() -> None:
    """Gold worth 8 points, Lead costing 8, Tin worth nothing and seldom taken (its value known
    to a fraction of a point), Iron worth nothing but as noisy as the rest: Gold is the most
    valuable, Tin is too weak to matter, Iron cannot be called so (not told from 0 is no
    evidence of being small), and the strategy is better off without Lead."""
    planted = {"Gold": 0.08, "Lead": -0.08, "Tin": 0.0, "Iron": 0.0}
    most, weak, rule = card_verdicts(_impact(planted, spread={"Tin": 0.02}), META)
    assert most.finding and most.key == "Gold" and "The most valuable card" in most.sentence
    assert weak.topic == WEAK and weak.finding and weak.key == "Tin"
    assert weak.accepts == {"Tin", "Lead"} and "Iron" not in weak.sentence
    assert "1 card shown worth less than ±1 point of win rate either way" in weak.sentence
    assert "better off without 1 card (" in weak.sentence and "most of all Lead (" in weak.sentence
    assert weak.cell == "1 card within ±1 pt · better without Lead"
    lo, hi = _interval(weak.sentence, "Tin (")
    assert -1 < lo <= hi < 1  # the interval that showed it, inside the margin
    assert rule.topic == "rules question: no Leviathan fights" and rule.finding
    assert "costs a player" in rule.sentence


# --- the most valuable card: told apart from every other card, or the cards not told apart ---
def _most_valuable(planted: dict[str, float], seeds, spread=None) -> tuple[int, int, int]:
    """Over `seeds`: how often the most valuable card verdict names one card alone, names a set
    of cards not told apart, and has Gold and Silver both in what it accepts."""
    alone = sets = both = 0
    for seed in seeds:
        most = card_verdicts(_impact(planted, seed=seed, spread=spread), META)[0]
        alone += most.finding and isinstance(most.key, str)
        sets += most.finding and isinstance(most.key, frozenset)
        both += {"Gold", "Silver"} <= most.accepts
    return alone, sets, both


def test_a_clear_top_card_is_named_alone() -> None:
    """Gold worth 8 points, Silver 2, two cards worth nothing, 400 deals, 100 seeds: Gold is
    named alone, told apart from every other card, in at least 95 (the sentence gives its lead
    over the next card with the bound that told it)."""
    planted = {"Gold": 0.08, "Silver": 0.02, "Tin": 0.0, "Lead": 0.0}
    alone, sets, _ = _most_valuable(planted, range(100))
    print(f"\na clear top: named alone in {alone} of 100 seeds, a set in {sets}")
    assert alone >= 95, (alone, sets)
    most = card_verdicts(_impact(planted), META)[0]
    assert most.key == "Gold" and most.accepts == {"Gold"} and most.cell.startswith("Gold (")
    assert "told apart from every other card" in most.sentence
    assert "multiple comparisons with the best" in most.sentence
    lo, hi = _interval(most.sentence, "Gold (")
    assert 0 < lo < hi


def test_two_equal_top_cards_are_a_set_not_one_card() -> None:
    """Issue 49's audit: "Most valuable card is still a maximum over noise". Gold and Silver
    both worth 6 points, two cards worth nothing, 400 seeds: naming either alone is an error
    (neither is worth more); it happens at most at the 5% rate, with room for the seeds' noise
    (about 3% expected: 5% / 3 others, either way round; without the Bonferroni correction over
    the others about 10%; the verdict before named the higher always). Otherwise both are in the
    set not told apart, which the cell names."""
    planted = {"Gold": 0.06, "Silver": 0.06, "Tin": 0.0, "Lead": 0.0}
    alone, sets, both = _most_valuable(planted, range(400))
    print(f"\ntwo equal tops: one named alone in {alone} of 400 seeds, a set in {sets}")
    assert alone / 400 <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400), alone
    assert sets == both == 400 - alone
    most = next(v for s in range(400) if isinstance(
        (v := card_verdicts(_impact(planted, seed=s), META)[0]).key, frozenset))  # fmt: skip
    assert most.finding and most.key == most.accepts == {"Gold", "Silver"}
    assert most.cell in ("top not told apart: Gold, Silver", "top not told apart: Silver, Gold")
    assert "is not told apart among 2 cards" in most.sentence and "(at least -" in most.sentence


def test_the_top_is_told_from_an_equal_card_at_most_at_the_error_rate() -> None:
    """`best_set` on values drawn directly (each card's estimate normal about its value, a
    standard error of 1 point, independent of the others'): two cards worth 6 points among four
    worth nothing, 2,000 draws: the top is told apart from every other card, an error, at most
    at 5% with room for the draws' noise (about 2% expected: 5% / 5 others, either way round;
    without the Bonferroni correction over the others about 10%)."""
    from reports.sections.card_verdicts import best_set

    rng = np.random.default_rng(7)
    errors = 0
    for _ in range(2000):
        values = np.array([0.06, 0.06, 0, 0, 0, 0]) + rng.normal(0, 0.01, 6)
        cards = pd.DataFrame({"card": list("ABCDEF"), "value": values, "se": 0.01,
                              "deals": 400}).sort_values("value", ascending=False)  # fmt: skip
        cards["se_top"] = np.r_[0, np.full(5, np.sqrt(2) * 0.01)]
        errors += bool(best_set(cards.reset_index(drop=True))["told"].iloc[1:].all())
    print(f"\ntwo equal tops among six cards: one told apart in {errors} of 2000 draws")
    assert errors / 2000 <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 2000), errors


def test_worthless_cards_name_no_most_valuable_card() -> None:
    """The null: four cards worth nothing, 200 seeds: the verdict names a card or a set of cards
    at most at the 5% rate (Holm's correction over the rows), with room for the seeds' noise."""
    planted = {"Gold": 0.0, "Silver": 0.0, "Tin": 0.0, "Lead": 0.0}
    alone, sets, _ = _most_valuable(planted, range(200))
    print(f"\nworthless cards: a card named in {alone} of 200 seeds, a set in {sets}")
    assert (alone + sets) / 200 <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 200), (alone, sets)


def test_the_top_is_told_from_each_card_paired_by_deal() -> None:
    """Cards measured on the same deals: the top minus each other card has the standard error
    of its difference deal by deal (`se_top`), not the two standard errors in quadrature. Gold
    (3 points) and Silver (2 points) move together deal by deal (a shared 10 points of noise,
    each 2 of its own), 20 seeds: Gold is told apart from Silver in all of them (paired, about
    0.14 points), in none from an older frame without `se_top` (in quadrature, 0.7 points).
    Cards that move against each other: in quadrature would understate the difference's
    standard error, which `se_top` does not (as measured in restricted play:
    docs/restricted-play.md)."""
    def shares(seed, sign):
        rng = np.random.default_rng(seed)
        base, common = rng.binomial(4, 0.25, size=400) / 4, rng.normal(0, 0.1, 400)
        own = rng.normal(0, 0.02, (4, 400))
        return np.array([base, base - 0.03 - common + own[0], base - 0.02 - sign * common
                         + own[1], base + 0.05 + own[2], base - 0.1 + own[3]])  # fmt: skip

    cards = _cards({"Gold": 0, "Silver": 0, "Tin": 0})
    paired = quadrature = 0
    for seed in range(20):
        df = impact_frame(cards, shares(seed, +1), 4)
        paired += card_verdicts(df, META)[0].key == "Gold"
        quadrature += card_verdicts(df.drop(columns="se_top"), META)[0].key == "Gold"
    assert paired == 20 and quadrature == 0, (paired, quadrature)
    s = shares(0, -1)  # Silver's value moves against Gold's
    df = impact_frame(cards, s, 4).set_index("card")
    expected = (s[2] - s[1]).std(ddof=1) / np.sqrt(400)
    assert df.loc["Silver", "se_top"] == pytest.approx(expected) and df.loc["Gold", "se_top"] == 0
    assert expected > 1.2 * np.hypot(df.loc["Gold", "se"], df.loc["Silver", "se"])
    assert np.isnan(df.loc["no Leviathan fights", "se_top"])


def test_the_standard_error_of_a_difference_counts_the_deals_two_cards_share() -> None:
    """On a time budget two cards decided at different looks share their first fresh deals, an
    open card and a decided one none (`reports.restrict.se_against_top`). Values correlated 0.8
    deal by deal, 100 and 50 deals sharing the first 50, 4,000 draws: the mean squared standard
    error is the variance of the difference over the draws (0.014; the sum of the two variances,
    0.03, would double it), within 10%. In a budgeted run, the top (decided, fresh deals) minus
    an open card has the two standard errors in quadrature."""
    from reports.restrict import _se_of_difference

    rng = np.random.default_rng(3)
    diffs, squares = [], []
    for _ in range(4000):
        common = rng.normal(0, 1, 100)
        a = np.sqrt(0.8) * common + np.sqrt(0.2) * rng.normal(0, 1, 100)
        b = (np.sqrt(0.8) * common + np.sqrt(0.2) * rng.normal(0, 1, 100))[:50]
        diffs.append(a.mean() - b.mean())
        squares.append(_se_of_difference(a, b, shared=True) ** 2)
    print(f"\nvariance of the difference {np.var(diffs):.4f}, mean squared se "
          f"{np.mean(squares):.4f} (true 0.014)")
    assert np.mean(squares) == pytest.approx(0.014, rel=0.1)
    assert np.var(diffs) == pytest.approx(0.014, rel=0.1)
    df, _ = _timed([0.2, 0.12, -0.12, 0.0, 0.0], seed=1)
    top, other = df.iloc[0], df[~df["fresh"]].iloc[0]
    assert top["fresh"] and other["se_top"] == pytest.approx(np.hypot(top["se"], other["se"]))


def test_a_negligible_card_is_found_over_many_seeds() -> None:
    """Tin (worth nothing, seldom taken) among four noisy cards, 100 seeds: shown too weak to
    matter in at least 95 (its interval is a tenth of the margin wide)."""
    found = sum("Tin" in card_verdicts(_impact({"Tin": 0.0, "Iron": 0.0, "Gold": 0.05,
                                                "Lead": 0.0}, seed=s, spread={"Tin": 0.03}),
                                       META)[1].accepts for s in range(100))  # fmt: skip
    print(f"\na worthless card seldom taken: too weak to matter in {found} of 100 seeds")
    assert found >= 95, found


def test_cards_worth_nothing_but_measured_coarsely_cannot_be_told_apart() -> None:
    """Three worthless cards whose intervals are wider than the margin: no card is valuable and
    none is shown too weak to matter; the sentence says so and gives the closest card with an
    interval that reaches beyond ±1 point."""
    most, weak, _ = card_verdicts(_impact({"Tin": 0.0, "Zinc": 0.0, "Lead": 0.0}, seed=2), META)
    assert not most.finding and "cannot tell a valuable card" in most.sentence
    assert not weak.finding and "cannot tell a card too weak to matter" in weak.sentence
    assert "no card is shown worth less than ±1 point" in weak.sentence
    lo, hi = _interval(weak.sentence, "closest, ")
    assert lo <= -1 or hi >= 1


def test_cards_at_the_margin_are_called_too_weak_at_most_at_the_error_rate() -> None:
    """The null of the equivalence test: five cards worth exactly ±1 point, each measured to a
    third of a point, 400 seeds: a run that calls any of them too weak to matter is a
    family-wise error, at most 5% (with room for the seeds' noise). Without Holm's correction
    over the cards it is about 23%; with one one-sided test of the two, far more."""
    planted = {"A": MARGIN, "B": -MARGIN, "C": MARGIN, "D": -MARGIN, "E": MARGIN}
    spread = {c: 0.06 for c in planted}  # se = 0.06 / sqrt(400) = 0.3 points
    errors = sum(card_verdicts(_impact(planted, seed=s, spread=spread), META)[1].sentence
                 .startswith("Too weak to matter") for s in range(400))  # fmt: skip
    print(f"\n5 cards at ±1 point: {errors} of 400 runs call one too weak to matter")
    assert errors / 400 <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400), errors


def test_the_equivalence_test_is_statsmodels_tost() -> None:
    """`equivalence`'s p-value from a card's value and standard error is statsmodels' TOST on
    its deals (Schuirmann's two one-sided t tests), and its interval is inside the margin
    exactly when the card is negligible."""
    from statsmodels.stats.weightstats import DescrStatsW

    planted = {"A": 0.0, "B": 0.004, "C": -0.008, "D": 0.02, "E": 0.0}
    shares = _shares(planted, blocks=300, seed=3, spread={c: 0.03 for c in planted})
    eq = equivalence(impact_frame(_cards(planted), shares, 4)).set_index("card")
    for i, card in enumerate(planted):
        d = shares[0] - shares[1 + i]
        expected = DescrStatsW(d).ttost_mean(-MARGIN, MARGIN)[0]
        assert eq.loc[card, "p_tost"] == pytest.approx(expected, rel=1e-9)
    inside = (eq["tost_lo"] > -MARGIN) & (eq["tost_hi"] < MARGIN)
    assert (inside == eq["negligible"]).all() and inside.any() and not inside.all()


def test_every_card_is_an_effect_of_the_card_verdicts_and_a_rules_question_of_its_own() -> None:
    """The verdict interface: every card measured (not one never taken) is an effect of the card
    verdicts, its value and standard error over deals, and the most valuable card's also the top
    minus each other card, paired by deal (what its finding rests on); a rules question's effect
    is its own value, with the words of a cost and a gain; the deals are the cards' own."""
    df = _impact({"Gold": 0.08, "Tin": 0.0, "Zinc": 0.0}, blocks=300)
    df.loc[df["card"] == "Zinc", "finding"] = NEVER
    shares = _shares({"Gold": 0.08, "Tin": 0.0, "Zinc": 0.0}, blocks=300)
    most, weak, rule = card_verdicts(df, {**META, "blocks": 300})
    assert set(most.effects) == {"Gold", "Tin", "Gold − Tin"} and set(weak.effects) == {"Gold",
                                                                                      "Tin"}
    for v in (most, weak):
        gold = shares[0] - shares[1]
        assert v.effects["Gold"].estimate == pytest.approx(gold.mean()) and v.deals == 300
        assert v.effects["Gold"].se == pytest.approx(gold.std(ddof=1) / np.sqrt(300))
    pair = shares[2] - shares[1]  # Gold's value minus Tin's, deal by deal
    expected = (pair.mean(), pair.std(ddof=1) / np.sqrt(300))
    assert most.effects["Gold − Tin"] == pytest.approx(expected)
    assert most.names == {"Gold", "Tin"}  # (the top and the runner-up)
    assert set(rule.effects) == {"no Leviathan fights"} and rule.words == ("gains", "costs")
    assert rule.effects["no Leviathan fights"].estimate > 0 and rule.deals == 300
    assert rule.family == most.family == 4 and weak.family == 2


def test_an_older_frame_without_standard_errors_gets_them_from_its_intervals() -> None:
    df = _impact({"Gold": 0.08, "Tin": 0.0}, blocks=300)
    old = df.drop(columns=["se", "deals"])
    new_v, old_v = card_verdicts(df, META), card_verdicts(old, META)
    for a, b in zip(new_v, old_v, strict=True):
        for label, e in a.effects.items():
            assert b.effects[label].se == pytest.approx(e.se, rel=1e-6)
        assert a.sentence == b.sentence


def test_card_verdicts_count_the_corrected_family_and_print_matching_intervals() -> None:
    """Issue 28: "The sentence 'after Holm's correction over N cards' must count the family that
    was actually corrected": every row of restricted play (here 6 cards and the rules question,
    one card never taken), not the cards taken. And over 200 seeds of modest planted values, a
    card's interval excludes 0 exactly when it is a finding, in the table and in the sentences;
    a card too weak to matter is printed with an interval inside ±1 point, the closest one of a
    verdict that cannot tell with one reaching beyond it."""
    consistent, findings, misses, weak_found, weak_missed = True, 0, 0, 0, 0
    for seed in range(200):
        df = _impact({"Gold": 0.03, "Silver": 0.02, "Lead": -0.02, "Tin": 0.0, "Zinc": 0.0},
                     blocks=300, seed=seed, spread={"Tin": 0.05})  # fmt: skip
        df.loc[df["card"] == "Zinc", "finding"] = NEVER  # as if never taken
        rows = df[df["finding"] != NEVER]
        excludes = np.where(rows["lo"] > 0, "worth something",
                            np.where(rows["hi"] < 0, "better without", "cannot tell"))  # fmt: skip
        consistent &= bool((excludes == rows["finding"]).all())
        most, weak, _ = card_verdicts(df, {**META, "blocks": 300})
        assert "over the 6 restrictions tested: 5 cards and 1 rules question" in most.sentence
        assert "Holm's correction over the 4 cards it takes" in weak.sentence
        if not most.finding:
            lo, hi = _interval(most.sentence, "highest, ")
            assert lo <= 0 <= hi, (seed, most.sentence)
            misses += 1
        else:
            findings += 1
        shown = weak.sentence.split(" It is better off without")[0]  # (the TOST's clause)
        if shown.startswith("Too weak") and "Tin (" in shown:
            lo, hi = _interval(shown, "Tin (")
            assert -1 <= lo <= hi <= 1, (seed, weak.sentence)  # (rounded to 0.1 point)
            weak_found += 1
        elif not shown.startswith("Too weak"):
            lo, hi = _interval(shown, "closest, ")
            assert lo <= -1 or hi >= 1, (seed, weak.sentence)
            weak_missed += 1
    assert consistent and findings > 20 and misses > 20 and weak_found > 20 and weak_missed > 20


# --- on a time budget: each card on its own deals ----------------------------------------------
def _timed(values, seed):
    """A sequential run (`reports.budget.run`) on simulated restricted play, its fresh deals
    another stream (as tests/core/test_sequential.py)."""
    total = Q.schedule()[-1]

    def stream(k):
        chance = np.array([0.25, *(0.25 - np.asarray(values))])
        return np.array([np.random.default_rng([seed, r, k]).binomial(4, c, total) / 4
                         for r, c in enumerate(chance)])  # fmt: skip

    looks, fresh = stream(0), stream(1)
    result = Q.run(lambda rows, first, count: looks[rows, first:first + count], len(values),
                   confirm=lambda rows, count, look: fresh[rows, :count])  # fmt: skip
    cards = [("lord", f"card {i}", "") for i in range(len(values))]
    meta = {"strategy": "s", "players": 4, "blocks": int(result.deals.max()),
            "looks": result.looks, "stopped_by": result.stopped_by}  # fmt: skip
    return Q.impact_frame(cards, result, 4), meta


def test_on_a_time_budget_each_card_is_stated_with_its_own_deals() -> None:
    """Issue 49: "the sentence states the largest number of deals for every card". Cards decided
    early are stated with their fresh deals, the open ones with all theirs; the sentence never
    claims one number of deals per card, and says how the cards were decided. Each verdict's
    `deals` (what the verdict table says a strength that cannot tell had) are those of the card
    it names, not the most any card had."""
    df, meta = _timed([0.2, 0.12, -0.12, 0.0, 0.0], seed=1)
    assert df["fresh"].any() and not df["fresh"].all()
    most, weak, *_ = card_verdicts(df, meta)
    assert "deals per card" not in most.sentence + weak.sentence
    assert "on a time budget: each card on its own deals" in most.sentence
    assert "then confirmed on fresh deals" in most.sentence
    top = df.iloc[0]
    assert most.key == top["card"] and top["fresh"]
    assert f"{top['card']} ({100 * top['value']:+.1f} points of win rate" in most.sentence
    assert f"{top['deals']:,} fresh deals)" in most.sentence
    assert most.deals == top["deals"] < meta["blocks"]
    closest = equivalence(df).sort_values("p_tost").iloc[0]
    fresh = "fresh " if closest["fresh"] else ""
    assert f"{closest['card']} (" in weak.sentence
    assert f"{int(closest['deals']):,} {fresh}deals)" in weak.sentence
    named = df[df["card"].isin(weak.accepts)]  # (the card it is better off without)
    assert weak.finding and weak.deals == named["deals"].min() < meta["blocks"]
    assert set(df["card"]) <= set(most.effects)


def _budgeted(values, seed: int, spread: float, looks: int):
    """A sequential run whose budget runs out after `looks` looks: card i's value per deal is
    `values[i]` plus noise of sd `spread` (as `_shares`; the fresh deals another stream)."""
    total = Q.schedule()[-1]

    def stream(k):
        rng = np.random.default_rng([seed, k])
        base = rng.binomial(4, 0.25, size=total) / 4
        return np.array([base] + [base - v + rng.normal(0, spread, total) for v in values])

    rows, fresh, played = stream(0), stream(1), []

    def play(which, first, count):
        played.append(count)
        return rows[which, first:first + count]

    result = Q.run(play, len(values), confirm=lambda which, count, look: fresh[which, :count],
                   seconds=1.0, clock=lambda: 0.0 if len(played) < looks else 1e9)  # fmt: skip
    cards = [("lord", f"card {i}", "") for i in range(len(values))]
    meta = {"strategy": "s", "players": 4, "blocks": int(result.deals.max()),
            "looks": result.looks, "stopped_by": result.stopped_by}  # fmt: skip
    return Q.impact_frame(cards, result, 4), meta


def test_cards_at_the_margin_on_a_time_budget_are_called_too_weak_at_most_at_the_error_rate():
    """Issue 49's audit: a card left open on a time budget was chosen for never crossing a bound,
    so its estimate on the looks' deals is pulled toward 0, and a decided card is tested again
    on fresh deals: a card at the margin can be named through either. A card worth exactly +1
    point, measured to a fifth of a point at 400 deals, the budget spent after 4 looks (most
    are decided, some stay open), 1,000 seeds: a run that calls it too weak to matter is an
    error, at most 5% with room for the seeds' noise. Each test at 5% named it in 9.2% (2,000
    seeds); doubling each card's p-value (Bonferroni over its two sources) about 4.9%."""
    errors = decided = 0
    for seed in range(1000):
        df, meta = _budgeted([MARGIN], seed, 0.05, looks=4)
        assert meta["stopped_by"] in ("budget", "decided")
        errors += bool(equivalence(df)["negligible"].any())
        decided += int(df["fresh"].sum())
    print(f"\na card at +1 point on a time budget: too weak to matter in {errors} of 1000 runs "
          f"({decided} decided)")
    assert 500 < decided < 1000
    assert errors / 1000 <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 1000), errors


def test_two_equal_top_cards_on_a_time_budget_are_a_set() -> None:
    """The most valuable card on a time budget, the budget spent after 4 looks: two cards worth
    6 points each among three worth nothing, 200 seeds: either named alone at most at the 5%
    rate (with room for the seeds' noise); a card worth 20 points beside one worth 5, 50
    seeds: named alone in at least 45. (Decided early, a card has few fresh deals: a top less
    clear is seldom told apart on a budget.)"""
    alone = clear = 0
    for seed in range(200):
        df, meta = _budgeted([0.06, 0.06, 0.0, 0.0, 0.0], seed, 0.1, looks=4)
        most = card_verdicts(df, meta)[0]
        alone += most.finding and isinstance(most.key, str)
    for seed in range(50):
        df, meta = _budgeted([0.2, 0.05, 0.0, 0.0, 0.0], seed, 0.1, looks=4)
        clear += card_verdicts(df, meta)[0].key == "card 0"
    print(f"\non a time budget: equal tops named alone in {alone} of 200, a clear top in {clear} "
          "of 50")
    assert alone / 200 <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 200) and clear >= 45, (alone, clear)
