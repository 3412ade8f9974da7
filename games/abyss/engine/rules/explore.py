"""Rulebook, Explore the Depths and Request Support from the Council: the reference engine's
actions that bring Allies in (mixed into `games.abyss.engine.rules.game.Game`)."""

from __future__ import annotations

from games.abyss.engine.cards.constants import MONSTER, N_RACES, Power, Stream
from games.abyss.engine.rules.base import Decision, Player


class ExploreMixin:
    """Explore the Depths (the Exploration Track, buying, Monsters) and Request Support."""

    def reveal(self) -> int | None:
        """The top Exploration card; an empty deck is rebuilt by shuffling the discard pile."""
        if not self.exploration_deck:
            if not self.exploration_discard:
                return None
            self.exploration_deck = self.exploration_discard
            self.exploration_discard = []
            self.rng.shuffle(self.exploration_deck, Stream.EXPLORATION_DECK)
            self.log("reshuffle", n=len(self.exploration_deck))
        return self.exploration_deck.pop()

    def explore(self, p: Player) -> None:
        """Rulebook, Explore the Depths."""
        purchases = 0
        taken: int | None = None
        reshuffled = False
        while True:
            if not self.exploration_deck and reshuffled:
                # Every card left has been revealed in this exploration (only Monsters discarded
                # without effect remain): it ends as if the explorer had stopped.
                self.log("deck_exhausted")
                break
            reshuffled = reshuffled or not self.exploration_deck
            card = self.reveal()
            if card is None:
                self.log("deck_exhausted")
                break
            self.track.append(card)
            slot = len(self.track)
            last = slot >= self.t.track_length
            self.log("reveal", card=card, slot=slot)
            if self.race(card) == MONSTER and self.leviathan:
                if self.leviathan_monster(p, card):
                    break
                continue
            if self.race(card) == MONSTER:
                if last:
                    # "If a Monster is revealed on the last space ... you must fight it. You receive
                    # the Threat Track reward plus one Pearl."
                    self.fight_monster(p, bonus_pearl=True)
                    break
                if self.choose(p.seat, Decision.FIGHT_MONSTER, [0, 1]) == 1:
                    self.fight_monster(p, bonus_pearl=False)
                    break
                # "KEEP EXPLORING: Move the Threat token one space up the track"
                self.threat = min(self.threat + 1, len(self.t.threat_n_options) - 1)
                self.log("keep_exploring", threat=self.threat)
                continue
            buyer = self.offer_to_opponents(p, card, purchases + 1)
            if buyer is not None:
                purchases += 1
                continue
            if last:
                # "If all spaces ... are filled and no one buys the last Ally, you must add it to
                # your hand and gain one Pearl."
                taken = self.take_from_track(p)
                self.gain_pearls(p, 1, "last_space")
                break
            if self.choose(p.seat, Decision.TAKE_ALLY, [0, 1]) == 1:
                taken = self.take_from_track(p)
                break
        self.end_exploration(p, taken)

    def offer_to_opponents(self, p: Player, card: int, cost: int) -> int | None:
        """ "You must first offer other players the chance to buy it (clockwise)."

        The first buyer pays `cost` Pearls to the explorer; an opponent buys at most once per turn.
        A bought Ally leaves the track, so its space is free for the next card.
        """
        for seat in self.opponents(p.seat):
            q = self.players[seat]
            if q.bought_this_turn or q.pearls < cost:
                continue
            if self.choose(seat, Decision.BUY, [0, 1]) == 1:
                q.pearls -= cost
                p.pearls += cost
                q.bought_this_turn = True
                self.track.pop()
                q.hand.append(card)
                self.log("buy", who=seat, card=card, cost=cost)
                return seat
        return None

    def take_from_track(self, p: Player) -> int:
        card = self.track.pop()
        p.hand.append(card)
        self.log("take", who=p.seat, card=card)
        return card

    def fight_monster(self, p: Player, bonus_pearl: bool) -> None:
        """Rulebook: "FIGHT THE MONSTER: Victory is automatic ... you win the reward shown"."""
        space = self.threat
        tamed = any(self.has_power(self.players[s], Power.TAMER) for s in self.opponents(p.seat))
        if tamed and not self.protected(p):
            # Tamer: "they earn the reward from the previous Monster Track space"
            space = max(0, space - 1)
        options = self.threat_options(space)
        self.pending_reward_space = space
        k = self.choose(p.seat, Decision.THREAT_REWARD, options)
        pearls, monsters, keys = (int(x) for x in self.t.threat_options[space, k])
        self.log("fight_monster", who=p.seat, space=space, option=k, tamed=tamed)
        self.gain_pearls(p, pearls, "monster")
        for _ in range(monsters):
            self.draw_monster_token(p)
        self.gain_keys(p, keys, "monster")
        if bonus_pearl:
            self.gain_pearls(p, 1, "last_space")
        self.threat = 0

    def threat_options(self, space: int) -> list[int]:
        """Reward options of a space, except those needing more Monster tokens than remain."""
        n = int(self.t.threat_n_options[space])
        ok = [k for k in range(n) if self.t.threat_options[space, k, 1] <= len(self.monster_tokens)]
        return ok or list(range(n))

    def draw_monster_token(self, p: Player) -> None:
        if self.monster_tokens:
            token = self.monster_tokens.pop()
            p.tokens.append(token)
            self.log(
                "monster_token", who=p.seat, token=token, ip=int(self.t.monster_token_ip[token])
            )

    def end_exploration(self, p: Player, taken: int | None) -> None:
        """ "Remaining Allies on the track are placed face down in the Council by Race. Monsters are
        placed in the Exploration discard pile." """
        races = {self.race(c) for c in self.track if self.race(c) != MONSTER}
        if self.has_power(p, Power.SHIP_MASTER) and races:
            # Ship Master: "Gain 1 Pearl for each different Race that you send to the Council."
            self.gain_pearls(p, len(races), "ship_master")
        for card in self.track:
            if self.race(card) == MONSTER:
                self.exploration_discard.append(card)
            else:
                self.council[self.race(card)].append(card)
        self.log("end_exploration", to_council=[c for c in self.track if self.race(c) != MONSTER])
        self.track = []

    # ---------------------------------------------------------- request support
    def request_support(self, p: Player) -> None:
        """ "Take all cards from one stack in the Council ... and add them to your hand."

        The Alchemist: "add 2 stacks to your hand instead of 1".
        """
        n_stacks = 2 if self.has_power(p, Power.ALCHEMIST) else 1
        for _ in range(n_stacks):
            stacks = [r for r in range(N_RACES) if self.council[r]]
            if not stacks:
                break
            self.take_council_stack(p, self.choose(p.seat, Decision.COUNCIL_STACK, stacks))

    def take_council_stack(self, p: Player, race: int) -> None:
        cards = self.council[race]
        self.council[race] = []
        p.hand.extend(cards)
        self.log("council", who=p.seat, race=race, n=len(cards))
