"""Card values as verdicts: one play strength's restricted play (`reports.restrict`,
`reports.budget`) and its rules questions.

- The most valuable card: worth something (Holm's correction over every restriction tested, each
  interval at the level that correction tested it) and told apart from every other card taken
  (`best_set`: multiple comparisons with the best); otherwise the cards not told apart from it.
- Cards too weak to matter: the cards shown worth less than a margin either way (Schuirmann's
  two one-sided tests, `reports.restrict.equivalence`, Holm over the cards taken), and the cards
  the strategy is better off without (Holm, as the most valuable).
- Each rules question: what playing by it costs (or gains).

Every card is stated with its own deals. On a time budget the looks only choose which cards are
decided; a decided card's figures are from as many fresh deals (`reports.budget`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from reports.restrict import MARGIN, NEVER, equivalence, standard_errors
from reports.sections.verdicts import Effect, Verdict, cap, level_text, pts, the

CARD_NOTE = (
    "What a card is worth is not measured in this report: its card sections show how often "
    "winners recruited each Lord or took each Location, a correlation (strong players recruit "
    "more), not a value."
)
#: the verdict of the cards a strategy would not miss
WEAK = "cards too weak to matter"


def card_verdicts(df: pd.DataFrame, meta: dict) -> list[Verdict]:
    """The most valuable card, the cards too weak to matter and the rules questions of one play
    strength's restricted play (`reports.restrict.impact_frame` or
    `reports.budget.impact_frame`; `meta`: `reports.strengths.save_card_values`'s, its
    `margin` the margin of "too weak", MARGIN if absent). Every verdict carries every card's
    value (`effects`, the deal the unit; the most valuable card's also the top minus each other
    card, paired by deal) for the comparison across play strengths, and the deals of the cards
    it names."""
    who = f"`{meta['strategy']}` at {meta['players']} players"
    per = _per_card(meta)
    family = _family(df)
    se, deals = standard_errors(df)  # (a frame saved before they were stored: from its intervals)
    df = df.assign(se=se, deals=deals)
    cards = df[(df["kind"] != "rule") & (df["finding"] != NEVER)]
    cards = cards.sort_values(["value", "card"], ascending=[False, True]).reset_index(drop=True)
    effects = {r.card: Effect(float(r.value), float(r.se)) for r in cards.itertuples()}
    rules = [rule_verdict(r, who, meta["players"], family, len(df))
             for _, r in df[df["kind"] == "rule"].iterrows()]  # fmt: skip
    return [most_valuable(cards, who + per, meta["players"], family, len(df), effects),
            too_weak(cards, who + per, meta, family, effects), *rules]


def most_valuable(cards: pd.DataFrame, who: str, n_players: int, family: str, m: int,
                  effects: dict) -> Verdict:  # fmt: skip
    """The top card (`cards` most valuable first) when it is worth something (Holm over the `m`
    rows) and told apart from every other card (`best_set`); when it is worth something but
    not told apart, the cards not told apart from it."""
    levels = _tested("each interval", cards["level"] if "level" in cards else None)
    top, best = cards.iloc[0], best_set(cards)
    pairs = {f"{top['card']} − {r.card}": Effect(float(r.diff), float(r.se))
             for r in best.iloc[1:].itertuples()}  # fmt: skip
    told = dict(effects={**effects, **pairs}, family=m,
                names=frozenset(cards["card"].iloc[:2]))  # (the top and the runner-up)
    if top["finding"] != "worth something":
        includes = ", so it includes 0" if "level" in cards else ""
        return Verdict("most valuable card", n_players, False,
                       f"The data cannot tell a valuable card to {who}: the highest, "
                       f"{_card(top)}, is not told from 0 after {family} ({levels}{includes}).",
                       deals=int(top["deals"]), **told)  # fmt: skip
    worth = int((cards["finding"] == "worth something").sum())
    n_worth = (f"{worth} of the {len(cards)} cards it takes {'is' if worth == 1 else 'are'} "
               f"worth something (restricted play; {family}; {levels})")  # fmt: skip
    near = best.iloc[1:][~best["told"].iloc[1:]]
    if near.empty:
        gap = best.iloc[1] if len(best) > 1 else None
        ahead = (f", told apart from every other card: {pts(gap['diff'])} points ahead of the "
                 f"next, {gap['card']} (at least {pts(gap['lower'])}; {_mcb(best, cards)})"
                 if gap is not None else ", the only card it takes")  # fmt: skip
        return Verdict("most valuable card", n_players, True,
                       f"The most valuable card to {who}: {_card(top)} lost when it may not "
                       f"take it{ahead}; {n_worth}.", key=top["card"], deals=int(top["deals"]),
                       short=f"{top['card']} ({pts(top['value'])} pts)", **told)  # fmt: skip
    tied = cards[cards["card"].isin({top["card"], *near["card"]})]
    closest = near.sort_values("p").iloc[-1]
    more = f", and {len(tied) - 3} more" if len(tied) > 3 else ""
    listed = ", ".join(tied["card"].iloc[:3]) + (f" +{len(tied) - 3}" if len(tied) > 3 else "")
    return Verdict("most valuable card", n_players, True,
                   f"The most valuable card to {who} is not told apart among {len(tied)} cards: "
                   f"{', '.join(_card(r) for _, r in tied.iloc[:3].iterrows())}{more}; the "
                   f"highest, {top['card']}, is worth something but {pts(closest['diff'])} "
                   f"points ahead of {closest['card']} (at least {pts(closest['lower'])}: not "
                   f"told apart; {_mcb(best, cards)}); {n_worth}.",
                   key=frozenset(tied["card"]), accepts=frozenset(tied["card"]),
                   deals=int(tied["deals"].min()), short=f"top not told apart: {listed}",
                   **told)  # fmt: skip


def best_set(cards: pd.DataFrame, alpha: float = 0.05) -> pd.DataFrame:
    """The top card (the first of `cards`, most valuable first) against each other card: the
    difference `diff`, its standard error `se` (paired by deal: the frame's `se_top`; a frame
    saved before it was stored: the two standard errors in quadrature), one-sided `p`, the
    `lower` bound and whether the top is `told` apart from it. One row per card, the top first.

    Multiple comparisons with the best (Hsu 1996, ch. 4): one-sided bounds on the top minus
    each of the m - 1 others, Bonferroni over them. Valid though the top is picked after
    looking: let b be the truly best card; with chance 1 - alpha every card's estimate minus b's
    lies below its true difference (at most 0) plus its bound, so no other card is told apart
    from all, and b is never told apart from the top (it stays in the set). On a time budget
    (`fresh` in the frame) a card's figures come from one of two sources chosen by its own data
    (the looks' deals, or fresh ones): Bonferroni over both, alpha / (2 (m - 1))."""
    from scipy.stats import t as student

    top = cards.iloc[0]
    if _paired(cards):
        se = cards["se_top"].to_numpy(dtype=float)
    else:
        se = np.hypot(cards["se"].to_numpy(dtype=float), float(top["se"]))
    diff = float(top["value"]) - cards["value"].to_numpy(dtype=float)
    dof = np.maximum(np.minimum(cards["deals"].to_numpy(), int(top["deals"])) - 1, 1)
    a = alpha / (max(len(cards) - 1, 1) * (2 if "fresh" in cards else 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(se > 0, student.sf(diff / se, dof), np.where((se == 0) & (diff > 0), 0, 1))
    out = pd.DataFrame({"card": cards["card"], "diff": diff, "se": se, "p": p,
                        "lower": diff - student.ppf(1 - a, dof) * np.nan_to_num(se),
                        "told": p < a})  # fmt: skip
    out.loc[0, "told"] = False  # (the top itself)
    return out


def _paired(cards: pd.DataFrame) -> bool:
    """Whether the frame has the top minus each card paired by deal (`se_top`, 0 for the top it
    was measured against: a frame whose top changed, or saved before, has not)."""
    return "se_top" in cards and cards["se_top"].iloc[0] == 0


def _mcb(best: pd.DataFrame, cards: pd.DataFrame) -> str:
    """The test that tells the top from the others (`best_set`), in words."""
    paired = "paired by deal" if _paired(cards) else "standard errors added in quadrature"
    sources = (", and over the two sources a card's figures may come from on a time budget"
               if "fresh" in cards else "")  # fmt: skip
    return (f"multiple comparisons with the best: the top minus each of the {len(best) - 1} "
            f"other cards, {paired}, one-sided bounds simultaneous at 95% (Bonferroni over "
            f"them{sources}), valid though the top is picked after looking")


def too_weak(cards: pd.DataFrame, who: str, meta: dict, family: str, effects: dict) -> Verdict:
    """The cards shown worth less than the margin either way (TOST, Holm over the cards taken),
    and those the strategy is better off without: a finding when there is either. Its deals:
    the fewest of the cards it names (else of the closest card)."""
    margin = float(meta.get("margin", MARGIN))
    eq = equivalence(cards, margin)
    weak = eq[eq["negligible"]].sort_values("p_tost")
    worse = cards[cards["finding"] == "better without"].sort_values("value")
    within = f"±{100 * margin:g} point{'' if 100 * margin == 1 else 's'}"
    test = (f"Schuirmann's two one-sided tests against {within}, Holm's correction over "
            f"{the(len(eq), 'card')} it takes{_doubled(cards)}; each interval at the level at "
            "which that correction tested it")  # fmt: skip
    close = eq.sort_values("p_tost").iloc[0]
    if len(weak):
        more = f", and {len(weak) - 3} more" if len(weak) > 3 else ""
        first = (f"Too weak to matter to {who}: {_cards(len(weak))} shown worth less than "
                 f"{within} of win rate either way ({test}, inside {within}), most clearly "
                 f"{', '.join(_card(r, tost=True) for _, r in weak.iloc[:3].iterrows())}{more}.")
    else:
        first = (f"The data cannot tell a card too weak to matter to {who}: no card is shown "
                 f"worth less than {within} of win rate either way ({test}); the closest, "
                 f"{_card(close, tost=True)}, reaches beyond it.")  # fmt: skip
    second = ""
    if len(worse):
        low = worse.iloc[0]
        levels = _tested("each interval", cards["level"] if "level" in cards else None)
        second = (f" It is better off without {_cards(len(worse))} ({family}; {levels}), most "
                  f"of all {_card(low)}.")  # fmt: skip
    short = [f"{_cards(len(weak))} within ±{100 * margin:g} pt"] if len(weak) else []
    short += [f"better without {worse.iloc[0]['card']}"] if len(worse) else []
    found = pd.concat([weak["card"], worse["card"]])
    named = cards[cards["card"].isin(found if len(found) else [close["card"]])]
    return Verdict(WEAK, meta["players"], bool(len(found)), first + second,
                   key=found.iloc[0] if len(found) else None, accepts=frozenset(found),
                   short=" · ".join(short), family=len(eq), effects=effects,
                   deals=int(named["deals"].min()))  # fmt: skip


def _doubled(cards: pd.DataFrame) -> str:
    """On a time budget: each test Bonferroni-corrected over the two sources of a card's figures
    (`reports.restrict.equivalence`, `best_set`)."""
    return (", each p-value doubled for the two sources a card's figures may come from on a "
            "time budget (the looks' deals or fresh ones)") if "fresh" in cards else ""


def _per_card(meta: dict) -> str:
    """How many deals stand behind each card: a fixed number, or each its own on a budget."""
    if "looks" not in meta:
        return f" ({meta['blocks']:,} deals per card)"
    return (" (on a time budget: each card on its own deals, a card decided early on as many "
            "fresh deals)")


def _card(r, tost: bool = False) -> str:
    """A card with its value, interval (the equivalence test's with `tost`) and, on a time
    budget (`fresh` in the frame: each card its own number), its deals."""
    lo, hi = (r["tost_lo"], r["tost_hi"]) if tost else (r["lo"], r["hi"])
    deals = f", {int(r['deals']):,} {'fresh ' if r['fresh'] else ''}deals" if "fresh" in r else ""
    return f"{r['card']} ({pts(r['value'])} points of win rate [{pts(lo)}, {pts(hi)}]{deals})"


def _family(df: pd.DataFrame) -> str:
    """The restrictions Holm's correction ran over: every row of the impact frame; on a time
    budget, in looks, then the decided ones on fresh deals."""
    rules = int((df["kind"] == "rule").sum())
    cards = len(df) - rules
    if not rules:
        over = f"{the(cards, 'card')} tested"
    else:
        questions = "1 rules question" if rules == 1 else f"{rules} rules questions"
        over = f"the {len(df)} restrictions tested: {_cards(cards)} and {questions}"
    if "fresh" not in df:
        return f"Holm's correction over {over}"
    from reports.budget import LOOKS

    decided = int(df["fresh"].sum())
    return (f"decided in looks by Holm's correction over {over} at 5%/{LOOKS} a look, then "
            f"confirmed on fresh deals by a one-sided test in the direction found, Holm's "
            f"correction over {the(decided, 'decided row')}")  # fmt: skip


def _tested(what: str, level) -> str:
    """Says at which level an interval of restricted play is (`level`: a number, a column, or
    None for the card values of a run made before the intervals matched the correction)."""
    if level is None:
        return f"{what} at 95% for that row alone, from an older run"
    if isinstance(level, pd.Series):
        return f"{what} at the level at which that correction tested it"
    return f"{what} at the {level_text(level)} level at which that correction tested it"


def _cards(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


def rule_verdict(r, who: str, n_players: int, family: str, m: int) -> Verdict:
    """A rules question of restricted play (e.g. "no Leviathan fights"): what the strategy loses
    (or gains) when it plays under that rule against copies of itself that do not (`m`: the
    rows Holm's correction ran over)."""
    deals = f"{int(r['deals']):,} {'fresh ' if r.get('fresh', False) else ''}deals"
    cost = (f"{pts(r['value'])} points of win rate [{pts(r['lo'])}, {pts(r['hi'])}] lost "
            f"by {who} playing by it, {deals} ({family}; "
            f"{_tested('the interval', r.get('level'))})")  # fmt: skip
    topic = f"rules question: {r['card']}"
    told = dict(effects={r["card"]: Effect(float(r["value"]), float(r["se"]))},
                deals=int(r["deals"]), words=("gains", "costs"), family=m)  # fmt: skip
    if r["finding"] == "cannot tell":
        return Verdict(topic, n_players, False, f"The data cannot tell what \"{r['card']}\" "
                       f"changes: {cost}.", **told)  # fmt: skip
    word = "costs" if r["value"] > 0 else "gains"
    return Verdict(topic, n_players, True, f"\"{cap(r['card'])}\" {word} a player: "
                   f"{cost}.", key=word,
                   short=f"{word} {100 * abs(r['value']):.1f} pts", **told)  # fmt: skip
