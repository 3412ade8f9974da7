"""Card values as verdicts: one play strength's restricted play (`reports.restrict`,
`reports.sequential`) and its rules questions.

- The most valuable card: Holm's correction over every restriction tested, each interval at the
  level that correction tested it.
- Cards too weak to matter: the cards shown worth less than a margin either way (Schuirmann's
  two one-sided tests, `reports.restrict.equivalence`, Holm over the cards taken), and the cards
  the strategy is better off without (Holm, as the most valuable).
- Each rules question: what playing by it costs (or gains).

Every card is stated with its own deals. On a time budget the looks only choose which cards are
decided; a decided card's figures are from as many fresh deals (`reports.sequential`)."""

from __future__ import annotations

import pandas as pd

from reports.restrict import MARGIN, NEVER, equivalence, standard_errors
from reports.verdicts import Effect, Verdict, cap, level_text, pts, the

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
    `reports.sequential.impact_frame`; `meta`: `reports.strengths.save_card_values`'s, its
    `margin` the margin of "too weak", MARGIN if absent). Every verdict carries every card's
    value (`effects`, the deal the unit) for the comparison across play strengths."""
    who = f"`{meta['strategy']}` at {meta['players']} players"
    per = _per_card(meta)
    family = _family(df)
    se, deals = standard_errors(df)  # (a frame saved before they were stored: from its intervals)
    df = df.assign(se=se, deals=deals)
    cards = df[(df["kind"] != "rule") & (df["finding"] != NEVER)]
    told = dict(effects={r.card: Effect(float(r.value), float(r.se)) for r in cards.itertuples()},
                deals=int(meta["blocks"]))  # fmt: skip
    rules = [rule_verdict(r, who, meta["players"], family, len(df))
             for _, r in df[df["kind"] == "rule"].iterrows()]  # fmt: skip
    return [most_valuable(cards, who + per, meta["players"], family, len(df), told),
            too_weak(cards, who + per, meta, family, told), *rules]


def most_valuable(cards: pd.DataFrame, who: str, n_players: int, family: str, m: int,
                  told: dict) -> Verdict:  # fmt: skip
    """The card whose value is highest among those worth something (Holm over the `m` rows)."""
    worth = cards[cards["finding"] == "worth something"].sort_values("value", ascending=False)
    levels = _tested("each interval", cards["level"] if "level" in cards else None)
    if len(worth):
        top = worth.iloc[0]
        more = f"; then {', '.join(_card(r) for _, r in worth.iloc[1:3].iterrows())}" \
            if len(worth) > 1 else ""  # fmt: skip
        return Verdict("most valuable card", n_players, True,
                       f"The most valuable card to {who}: {_card(top)} lost when it may not "
                       f"take it{more}; {len(worth)} of the {len(cards)} cards it takes "
                       f"{'is' if len(worth) == 1 else 'are'} worth something (restricted "
                       f"play; {family}; {levels}).", key=top["card"],
                       accepts=frozenset(worth["card"]), family=m, names=frozenset([top["card"]]),
                       short=f"{top['card']} ({pts(top['value'])} pts)", **told)  # fmt: skip
    top = cards.sort_values("value", ascending=False).iloc[0]
    includes = ", so it includes 0" if "level" in cards else ""
    return Verdict("most valuable card", n_players, False,
                   f"The data cannot tell a valuable card to {who}: the highest, {_card(top)}, "
                   f"is not told from 0 after {family} ({levels}{includes}).", family=m,
                   names=frozenset([top["card"]]), **told)  # fmt: skip


def too_weak(cards: pd.DataFrame, who: str, meta: dict, family: str, told: dict) -> Verdict:
    """The cards shown worth less than the margin either way (TOST, Holm over the cards taken),
    and those the strategy is better off without: a finding when there is either."""
    margin = float(meta.get("margin", MARGIN))
    eq = equivalence(cards, margin)
    weak = eq[eq["negligible"]].sort_values("p_tost")
    worse = cards[cards["finding"] == "better without"].sort_values("value")
    within = f"±{100 * margin:g} point{'' if 100 * margin == 1 else 's'}"
    test = (f"Schuirmann's two one-sided tests against {within}, Holm's correction over "
            f"{the(len(eq), 'card')} it takes; each interval at the level at which that correction "
            "tested it")  # fmt: skip
    if len(weak):
        more = f", and {len(weak) - 3} more" if len(weak) > 3 else ""
        first = (f"Too weak to matter to {who}: {_cards(len(weak))} shown worth less than "
                 f"{within} of win rate either way ({test}, inside {within}), most clearly "
                 f"{', '.join(_card(r, tost=True) for _, r in weak.iloc[:3].iterrows())}{more}.")
    else:
        close = eq.sort_values("p_tost").iloc[0]
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
    return Verdict(WEAK, meta["players"], bool(len(found)), first + second,
                   key=found.iloc[0] if len(found) else None, accepts=frozenset(found),
                   short=" · ".join(short), family=len(eq),
                   **told)  # fmt: skip


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
    from reports.sequential import LOOKS

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
