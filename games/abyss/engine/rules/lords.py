"""The Lords' powers in the reference engine: those applied once upon recruitment (an arrow) and
the Commander's lasting limit (mixed into `games.abyss.engine.rules.game.Game`)."""

from __future__ import annotations

from games.abyss.engine.cards.constants import N_RACES, Power, Stream
from games.abyss.engine.rules.base import AMBASSADOR_DRAWS, DECLINE, Decision, Player


class LordPowersMixin:
    """Lord powers applied on recruitment, and the Lords they bring in or discard."""

    def military_targets(self, p: Player) -> list[Player]:
        """Opponents hit by a Military (Soldier) power: all but those protected by a Shaman."""
        return [
            self.players[s] for s in self.opponents(p.seat) if not self.protected(self.players[s])
        ]

    def apply_recruit_power(self, p: Player, lord: int) -> None:
        """Powers marked with an arrow "are applied once upon recruitment"."""
        power = self.lord_power(lord)
        if power == Power.JAILER:
            # "Each of your opponents must discard 1 Ally from their hand."
            for q in self.military_targets(p):
                if q.hand:
                    self.choose_discard(q, "jailer")
        elif power == Power.SEEKER:
            # "Each of your opponents must return 2 Pearls to the Treasury."
            for q in self.military_targets(p):
                self.pay_treasury(q, 2, "seeker")
        elif power == Power.ASSASSIN:
            # "Disable 1 Lord from each opponent. That Lord counts only for points."
            for q in self.military_targets(p):
                targets = [lord2 for lord2 in q.free_lords() if lord2 not in q.disabled]
                if targets:
                    victim = self.choose(p.seat, Decision.ASSASSIN_TARGET, targets)
                    q.disabled.add(victim)
                    self.log("assassinate", who=p.seat, victim=q.seat, lord=victim)
        elif power == Power.COMMANDER:
            # "Your opponents can no longer hold more than 6 Allies ... discard any extras."
            for q in self.military_targets(p):
                self.discard_to_limit(q, 6, "commander")
        elif power == Power.HUNTER:
            self.hunter(p)
        elif power == Power.TRADER:
            self.gain_pearls(p, 3, "trader")
        elif power == Power.PEDDLER:
            self.gain_pearls(p, 2, "peddler")
        elif power == Power.SHOPKEEPER:
            self.gain_pearls(p, 1, "shopkeeper")
        elif power == Power.LANDLORD and self.rules.landlord_immediate_pearl:
            self.gain_pearls(p, 1, "landlord")
        elif power == Power.INVOKER:
            self.extra_turn = True  # "Take an extra turn after this one."
        elif power == Power.APPRENTICE:
            stacks = [r for r in range(N_RACES) if self.council[r]]
            if stacks:  # "Add 1 stack of cards from the Council to your hand."
                self.take_council_stack(p, self.choose(p.seat, Decision.COUNCIL_STACK, stacks))
        elif power == Power.ILLUSIONIST:
            self.illusionist(p)
        elif power == Power.CORRUPTOR:
            self.corruptor(p)
        elif power == Power.TRAITOR:
            self.traitor(p, lord)
        elif power == Power.SCHEMER:
            self.schemer(p, lord)
        elif power in AMBASSADOR_DRAWS and self.rules.ambassador_mode == "draw":
            self.ambassador(p, lord, AMBASSADOR_DRAWS[Power(power)])
        elif self.leviathan:
            self.leviathan_lord_power(p, power)

    def hunter(self, p: Player) -> None:
        """The Hunter: "Steal a random Monster token from the opponent of your choice." With
        Leviathan the victim's face-down Leviathan Monster tokens (held, not yet revealed) count
        too: one draw over the base tokens, then the held ones (docs/rules-notes.md)."""
        victims = [q.seat for q in self.military_targets(p) if q.tokens or q.held_tokens]
        if not victims:
            return
        q = self.players[self.choose(p.seat, Decision.TARGET_OPPONENT, victims)]
        k = self.rng.below(Stream.HUNTER, len(q.tokens) + len(q.held_tokens))
        if k < len(q.tokens):
            token = q.tokens.pop(k)
            p.tokens.append(token)
            self.log("hunt", who=p.seat, victim=q.seat, token=token)
        else:
            token = q.held_tokens.pop(k - len(q.tokens))
            self.log("hunt", who=p.seat, victim=q.seat, leviathan_token=token)
            self.hold_token(p, token)

    def discard_to_limit(self, q: Player, limit: int, why: str) -> None:
        while len(q.hand) > limit:
            self.choose_discard(q, why)

    def enforce_commander(self, p: Player) -> None:
        """Commander: opponents "must discard any extras", re-checked at the end of their turns."""
        if self.protected(p):
            return
        if any(self.has_power(self.players[s], Power.COMMANDER) for s in self.opponents(p.seat)):
            self.discard_to_limit(p, 6, "commander")

    def illusionist(self, p: Player) -> None:
        """ "You can exchange one of your Locations for a different available one." """
        if not p.locations or not self.locations_available:
            return
        give = self.choose(p.seat, Decision.ILLUSIONIST_GIVE, [DECLINE, *p.locations])
        if give == DECLINE:
            return
        take = self.choose(p.seat, Decision.ILLUSIONIST_TAKE, list(self.locations_available))
        self.locations_available.remove(take)
        self.locations_available.append(give)
        take = self.black_smokers(p, take)  # a Location acquired: Black Smokers may be swapped
        i = p.locations.index(give)
        p.locations[i] = take
        p.location_lords[take] = p.location_lords.pop(give)
        self.log("illusionist", who=p.seat, gave=give, took=take)

    def corruptor(self, p: Player) -> None:
        """Corruptor: "You can recruit a second Lord from the Court by paying 5 Pearls"."""
        if p.pearls < 5 or not self.court:
            return
        lord = self.choose(p.seat, Decision.COURT_LORD, [DECLINE, *self.court])
        if lord == DECLINE:
            return
        self.pay_treasury(p, 5, "corruptor")
        self.court.remove(lord)
        self.log("recruit", who=p.seat, lord=lord, allies=[], pearls=5, cost=5, by="corruptor")
        self.gain_lord(p, lord)
        self.refill_court(p)

    def traitor(self, p: Player, traitor: int) -> None:
        """Traitor: "You can discard one of your other free Lords and replace it with any Lord
        from the Court."

        Clarification (components 1.4 / publisher FAQ): the replacement's power applies at once.
        """
        old = self.lord_to_replace(p, traitor, bool(self.court))
        if old == DECLINE:
            return
        new = self.choose(p.seat, Decision.COURT_LORD, list(self.court))
        self.discard_lord(p, old)
        self.court.remove(new)
        self.log("traitor", who=p.seat, discarded=old, lord=new)
        self.gain_lord(p, new)
        self.refill_court(p)

    def schemer(self, p: Player, schemer: int) -> None:
        """Schemer: "You may discard one of your other free Lords and replace it with the top one
        from the deck." """
        old = self.lord_to_replace(p, schemer, bool(self.lord_deck))
        if old == DECLINE:
            return
        self.discard_lord(p, old)
        new = self.lord_deck.pop()
        self.log("schemer", who=p.seat, discarded=old, lord=new)
        self.gain_lord(p, new)

    def lord_to_replace(self, p: Player, lord: int, replaceable: bool) -> int:
        """Traitor, Schemer: the other free Lord the player discards, or DECLINE (also when no
        replacement is at hand or no other Lord is free)."""
        mine = [other for other in p.free_lords() if other != lord]
        if not mine or not replaceable:
            return DECLINE
        return self.choose(p.seat, Decision.OWN_LORD, [DECLINE, *mine])

    def discard_lord(self, p: Player, lord: int) -> None:
        p.lords.remove(lord)
        p.disabled.discard(lord)
        self.lord_discard.append(lord)

    def ambassador(self, p: Player, lord: int, n: int) -> None:
        """Hermit/Sage/Elder: draw n Locations, control one (the Ambassador slides under it),
        the others become available (components 1.4, BGA behaviour)."""
        drawn = [self.location_deck.pop() for _ in range(min(n, len(self.location_deck)))]
        if not drawn:
            return
        keep = self.choose(p.seat, Decision.LOCATION_KEEP, drawn)
        drawn.remove(keep)
        self.locations_available.extend(drawn)
        self.log("ambassador", who=p.seat, lord=lord, location=keep, revealed=drawn)
        self.place_location(p, keep, [lord])
