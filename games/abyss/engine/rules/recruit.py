"""Rulebook, Recruit a Lord: its cost, the payment with Allies and Pearls, the affiliation, the
Lord gained and the Court refilled (mixed into `games.abyss.engine.rules.game.Game`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from games.abyss.engine.cards.constants import Guild, Power
from games.abyss.engine.rules.base import FINISH, Decision, Player

if TYPE_CHECKING:
    from games.abyss.engine.cards.tables import CardTables


class RecruitMixin:
    """Recruit a Lord from the Court."""

    def lord_cost(self, p: Player, lord: int) -> int:
        """Printed cost, +2 per opponent's Recruiter, -2 for your Treasurer, at least 0."""
        cost = int(self.t.lord_cost[lord])
        if not self.protected(p):
            for s in self.opponents(p.seat):
                q = self.players[s]
                cost += 2 * sum(
                    1
                    for lord2 in q.free_lords()
                    if self.lord_power(lord2) == Power.RECRUITER and lord2 not in q.disabled
                )
        if self.has_power(p, Power.TREASURER):
            cost -= 2
        return max(0, cost)

    def payment_rule(self, p: Player, lord: int) -> PaymentRule:
        guild = int(self.t.lord_guild[lord])
        # Ambassadors have no required race; the Diplomat "may use any Races of your choice".
        required = -1 if guild == Guild.AMBASSADOR or self.has_power(p, Power.DIPLOMAT) else guild
        return PaymentRule(
            cost=self.lord_cost(p, lord), n_races=int(self.t.lord_races[lord]), required=required
        )

    def affordable_lords(self, p: Player) -> list[int]:
        return [
            lord
            for lord in self.court
            if payment_feasible(self.t, p.hand, [], p.pearls, self.payment_rule(p, lord))
        ]

    def recruit(self, p: Player) -> None:
        """Rulebook, Recruit a Lord."""
        lord = self.choose(p.seat, Decision.RECRUIT_LORD, self.affordable_lords(p))
        rule = self.payment_rule(p, lord)
        used: list[int] = []
        self.pending_payment = (rule.cost, used)  # observation for policies
        while True:
            options = payment_options(self.t, p.hand, used, p.pearls, rule)
            ally = self.choose(p.seat, Decision.PAY_ALLY, options)
            if ally == FINISH:
                break
            used.append(ally)
            p.hand.remove(ally)
        pearls = max(0, rule.cost - sum(self.value(a) for a in used))
        self.pay_treasury(p, pearls, "recruit")
        self.log("recruit", who=p.seat, lord=lord, allies=list(used), pearls=pearls, cost=rule.cost)
        self.affiliate(p, used)
        self.court.remove(lord)  # "Slide remaining Lords"
        self.gain_lord(p, lord)
        self.refill_court(p)

    def affiliate(self, p: Player, used: list[int]) -> None:
        """ "All Allies used to recruit are discarded except for the one with the lowest value,
        which becomes affiliated ... If there is a tie for the lowest value, you choose which one."

        The Master of Magic: "affiliate the Ally of your choice from among those used".
        """
        if not used:
            return
        if self.has_power(p, Power.MASTER_OF_MAGIC):
            candidates = distinct_allies(self.t, used)
        else:
            low = min(self.value(a) for a in used)
            candidates = distinct_allies(self.t, [a for a in used if self.value(a) == low])
        keep = self.choose(p.seat, Decision.AFFILIATE, candidates)
        p.affiliated.append(keep)
        for ally in used:
            if ally != keep:
                self.exploration_discard.append(ally)
        self.log("affiliate", who=p.seat, ally=keep)

    def gain_lord(self, p: Player, lord: int) -> None:
        """Place the Lord face up; arrow powers apply now; the 7th Lord triggers the end."""
        p.lords.append(lord)
        if lord not in p.recruited:
            p.recruited.append(lord)
        self.log("gain_lord", who=p.seat, lord=lord)
        self.apply_recruit_power(p, lord)
        if len(p.lords) >= 7:
            self.trigger_end("seventh_lord")

    def refill_court(self, p: Player) -> None:
        """ "If only two Lords remain, you gain two Pearls and must refill the Court from the deck."

        The end is triggered "when a Lord is recruited and the Court cannot be completely refilled".
        """
        if len(self.court) > 2:
            return
        self.gain_pearls(p, 2, "court_refill")
        while len(self.court) < self.t.court_size and self.lord_deck:
            self.court.append(self.lord_deck.pop())
        self.log("court_refill", court=list(self.court))
        if len(self.court) < self.t.court_size and self.rules.court_end == "refill":
            self.trigger_end("court_empty")


# ----------------------------------------------------------------------------- payment
@dataclass(frozen=True)
class PaymentRule:
    """What a Lord costs this player: value, exact number of races, required race (-1: any)."""

    cost: int
    n_races: int
    required: int


def distinct_allies(t: CardTables, allies: list[int]) -> list[int]:
    """One representative (the lowest id) per (race, value, effect), ascending: choices that
    differ. The effect matters with the Leviathan expansion: a plain Squid 1 and a Squid 1 that
    adds Pearls are different cards to keep for a fight (components 2.6)."""
    seen: dict[tuple[int, int, int], int] = {}
    for a in allies:
        key = (int(t.ally_race[a]), int(t.ally_value[a]), int(t.ally_effect[a]))
        if key not in seen or a < seen[key]:
            seen[key] = a
    return sorted(seen.values())


def _race_sets(races_held: set[int], chosen: set[int], rule: PaymentRule):
    """Every set of exactly `n_races` races held that contains `chosen` and the required race."""
    from itertools import combinations

    need = rule.n_races - len(chosen)
    if need < 0:
        return
    free = sorted(races_held - chosen)
    for extra in combinations(free, need):
        full = chosen | set(extra)
        if rule.required < 0 or rule.required in full:
            yield full


def payment_feasible(
    t: CardTables, hand: list[int], used: list[int], pearls: int, rule: PaymentRule
) -> bool:
    """Can the Allies `used` so far be completed into a legal payment?

    "You must play the exact number of different Races required ... The total value must meet the
    required number ... You may spend one Pearl for each missing point, but you must still play at
    least one Ally from each required Race."
    """
    chosen = {int(t.ally_race[a]) for a in used}
    remaining = [a for a in hand if a not in used]
    held = chosen | {int(t.ally_race[a]) for a in remaining}
    paid = sum(int(t.ally_value[a]) for a in used)
    for races in _race_sets(held, chosen, rule):
        extra = sum(int(t.ally_value[a]) for a in remaining if int(t.ally_race[a]) in races)
        if paid + extra + pearls >= rule.cost:
            return True
    return False


def payment_complete(t: CardTables, used: list[int], pearls: int, rule: PaymentRule) -> bool:
    races = {int(t.ally_race[a]) for a in used}
    if len(races) != rule.n_races or (rule.required >= 0 and rule.required not in races):
        return False
    return sum(int(t.ally_value[a]) for a in used) + pearls >= rule.cost


def payment_options(
    t: CardTables, hand: list[int], used: list[int], pearls: int, rule: PaymentRule
) -> list[int]:
    """FINISH (when `used` is a complete payment), then each distinct Ally keeping it payable."""
    options = [FINISH] if payment_complete(t, used, pearls, rule) else []
    for a in distinct_allies(t, hand):
        if payment_feasible(t, hand, [*used, a], pearls, rule):
            options.append(a)
    return options
