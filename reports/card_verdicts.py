"""Card values as verdicts: the most and least valuable cards of one play strength's restricted
play (`reports.restrict`, `reports.sequential`) and its rules questions, each Holm-corrected over
every restriction tested, each interval at the level that correction tested it."""

from __future__ import annotations

import pandas as pd

from reports.verdicts import Verdict, cap, level_text, pts, the

CARD_NOTE = (
    "What a card is worth is not measured in this report: its card sections show how often "
    "winners recruited each Lord or took each Location, a correlation (strong players recruit "
    "more), not a value."
)


# --- card values (restricted play) ---------------------------------------------------------
def _family(df: pd.DataFrame) -> str:
    """The restrictions Holm's correction ran over: every row of the impact frame."""
    rules = int((df["kind"] == "rule").sum())
    cards = len(df) - rules
    if not rules:
        return f"Holm's correction over {the(cards, 'card')} tested"
    questions = "1 rules question" if rules == 1 else f"{rules} rules questions"
    return (f"Holm's correction over the {len(df)} restrictions tested: {_cards(cards)} and "
            f"{questions}")  # fmt: skip


def card_verdicts(df: pd.DataFrame, meta: dict) -> list[Verdict]:
    """The most and least valuable cards of one play strength's restricted play
    (`reports.restrict.impact_frame`: value, lo, hi, finding per card, Holm-corrected over every
    row, each interval at the level that correction tested it)."""
    who = f"`{meta['strategy']}` at {meta['players']} players ({meta['blocks']:,} deals per card)"
    family = _family(df)
    rules = [rule_verdict(r, who, meta["players"], family)
             for _, r in df[df["kind"] == "rule"].iterrows()]  # fmt: skip
    df = df[(df["kind"] != "rule") & (df["finding"] != "never taken")]  # restrict.NEVER
    worth = df[df["finding"] == "worth something"].sort_values("value", ascending=False)
    worse = df[df["finding"] == "better without"].sort_values("value")

    def card(r) -> str:
        return (f"{r['card']} ({pts(r['value'])} points of win rate [{pts(r['lo'])}, "
                f"{pts(r['hi'])}])")  # fmt: skip

    levels = _tested("each interval", df["level"] if "level" in df else None)
    includes = ", so it includes 0" if "level" in df else ""
    if len(worth):
        top = worth.iloc[0]
        more = f"; then {', '.join(card(r) for _, r in worth.iloc[1:3].iterrows())}" \
            if len(worth) > 1 else ""  # fmt: skip
        most = Verdict("most valuable card", meta["players"], True,
                       f"The most valuable card to {who}: {card(top)} lost when it may not take "
                       f"it{more}; {len(worth)} of the {len(df)} cards it takes "
                       f"{'is' if len(worth) == 1 else 'are'} worth something "
                       f"(restricted play; {family}; {levels}).", key=top["card"],
                       accepts=frozenset(worth["card"]),
                       short=f"{top['card']} ({pts(top['value'])} pts)")  # fmt: skip
    else:
        top = df.sort_values("value", ascending=False).iloc[0]
        most = Verdict("most valuable card", meta["players"], False,
                       f"The data cannot tell a valuable card to {who}: the highest, "
                       f"{card(top)}, is not told from 0 after {family} ({levels}"
                       f"{includes}).")  # fmt: skip
    if len(worse):
        low = worse.iloc[0]
        least = Verdict("least valuable card", meta["players"], True,
                        f"{who[0].upper() + who[1:]} is better off without "
                        f"{_cards(len(worse))}, most of all {card(low)} ({family}; "
                        f"{levels}).", key=low["card"], accepts=frozenset(worse["card"]),
                        short=f"{low['card']} ({pts(low['value'])} pts)")  # fmt: skip
    else:
        low = df.sort_values("value").iloc[0]
        least = Verdict("least valuable card", meta["players"], False,
                        f"The data cannot tell a card that {who} is better off without: the "
                        f"lowest, {card(low)}, is not told from 0 after {family} ({levels}"
                        f"{includes}).")  # fmt: skip
    return [most, least, *rules]


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


def rule_verdict(r, who: str, n_players: int, family: str) -> Verdict:
    """A rules question of restricted play (e.g. "no Leviathan fights"): what the strategy loses
    (or gains) when it plays under that rule against copies of itself that do not."""
    cost = (f"{pts(r['value'])} points of win rate [{pts(r['lo'])}, {pts(r['hi'])}] lost "
            f"by {who} playing by it ({family}; "
            f"{_tested('the interval', r.get('level'))})")  # fmt: skip
    topic = f"rules question: {r['card']}"
    if r["finding"] == "cannot tell":
        return Verdict(topic, n_players, False, f"The data cannot tell what \"{r['card']}\" "
                       f"changes: {cost}.")  # fmt: skip
    word = "costs" if r["value"] > 0 else "gains"
    return Verdict(topic, n_players, True, f"\"{cap(r['card'])}\" {word} a player: "
                   f"{cost}.", key=word,
                   short=f"{word} {100 * abs(r['value']):.1f} pts")  # fmt: skip
