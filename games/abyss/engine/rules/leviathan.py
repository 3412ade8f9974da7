"""The Leviathan expansion's rules, mixed into the reference engine's `Game`.

Specification: `shared/seeds/000_e41d5a114fc236c8.txt` (quoted as "Leviathan" below); card data:
`shared/reference/components.md` section 2. Readings are recorded in `docs/rules-notes.md`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from games.abyss.engine.cards.constants import (
    AllyEffect,
    LeviathanToken,
    Penalty,
    Power,
    Race,
    Stream,
)
from games.abyss.engine.rules.base import Decision, Player


class LevDecision(IntEnum):
    """Decisions added by the expansion (numbered after the base game's `Decision`)."""

    MONSTER_CHOICE = 30  # MonsterChoice.*
    LEVIATHAN_TARGET = 31  # border zone of the Leviathan to fight
    ATTACK_ALLY = 32  # ally id discarded for the attack
    ADD_PEARLS = 33  # Pearls added after the roll (0..n)
    ATTACK_AGAIN = 34  # 0 = stop, 1 = attack the same Leviathan again
    TOKEN_DECK = 35  # 0 = a base Monster token, 1 = a Leviathan token
    REVEAL_TOKEN = 36  # 0 = keep for later, else 1 + index of the held token to reveal now
    MARTIAL_LAW = 37  # 0 = discard an extra Ally, 1 = pay 1 Pearl to keep it
    LOSE_LORD = 38  # the free lord id discarded to a Leviathan's attack
    BORDER_ZONE = 39  # free border zone chosen (Breeder)
    USE_POWER = 40  # 0 = no, 1 = yes (Sorcerer's fight)
    FIGHT_ANOTHER = 41  # Intrepid after a kill: 0 = stop, 1 = fight a second Leviathan


class MonsterChoice(IntEnum):
    CONTINUE = 0  # add a Leviathan, then keep exploring
    FIGHT = 1
    IGNORE = 2  # the Coward: the Monster is discarded


@dataclass(frozen=True)
class Fork:
    """A forked rollout (`games.abyss.engine.fork`): at the `at`-th decision point (1-based) play
    `choice` (-1: the strategy's own), after re-keying the streams with `keys` (None: keep)."""

    at: int
    choice: int = -1
    keys: np.ndarray | None = None
    rule: dict[int, int] | None = None  # a rule rollout: {parameter slot: value}


def switched(policy, rule: dict[int, int]):
    """A copy of a compiled policy with some parameter slots changed (`Fork.rule`)."""
    import copy

    new = copy.copy(policy)
    params = policy.params().copy()
    for slot, value in rule.items():
        params[slot] = value
    new._params = params
    return new


class LeviathanMixin:
    """Methods of `Game` used only when the Leviathan expansion is on."""

    fork: Fork | None = None  # a forked rollout (`games.abyss.engine.fork`)
    fork_count = 0  # fight-or-explore decision points met so far (not part of the state)

    # ------------------------------------------------------------------ setup
    def setup_leviathan(self) -> None:
        """Leviathan, Setup 2-5."""
        t, rng = self.t, self.rng
        self.border = [-1] * t.n_border_zones  # leviathan id per zone, -1 = free
        self.life = [0] * t.n_border_zones  # index of the Life token's space
        self.leviathan_deck = list(range(len(t.leviathan_number)))
        rng.shuffle(self.leviathan_deck, Stream.LEVIATHAN_DECK)
        self.leviathan_discard: list[int] = []
        self.leviathan_tokens = list(range(len(t.leviathan_token_kind)))
        rng.shuffle(self.leviathan_tokens, Stream.LEVIATHAN_TOKENS)
        self.leviathan_token_discard: list[int] = []
        self.scourge = -1  # seat holding the Scourge of the Abyss
        for p in self.players:
            p.wounds = 0
            p.killed = []
            p.held_tokens = []  # Leviathan tokens not yet revealed
        # "Roll two dice, reveal the first Leviathan, and place it face up in the Border zone".
        self.add_leviathan(None, why="setup")

    def starting_crabs(self) -> list[int]:
        """ "Deal one value 1 crab Ally from the base game to each player." (the spare Crab 1 of
        the expansion serves the fifth player)."""
        t = self.t
        crabs = [
            a
            for a in range(t.n_allies)
            if t.ally_race[a] == Race.CRAB
            and t.ally_value[a] == 1
            and t.ally_effect[a] == AllyEffect.NONE
        ]
        crabs.sort(key=lambda a: (int(t.ally_expansion[a]), a))
        return crabs[: self.n_players]

    # ------------------------------------------------------------- the Border
    def roll_zone(self) -> tuple[int, int, int]:
        d1, d2 = self.rng.die(), self.rng.die()
        return d1, d2, int(self.t.border_zone_of_sum[d1 + d2])

    def add_leviathan(self, p: Player | None, why: str) -> None:
        """ "Reveal the top card of the Leviathan deck, then roll the 2 dice. The sum of the
        results obtained indicates the Border zone where the Leviathan will position itself." """
        if not self.leviathan_deck:
            self.log("leviathan_deck_empty_on_add", why=why)
            return
        new = self.leviathan_deck.pop()
        d1, d2, zone = self.roll_zone()
        resident = self.border[zone]
        self.log(
            "leviathan_arrives", leviathan=new, dice=[d1, d2], zone=zone, why=why, resident=resident
        )
        if resident >= 0:
            # "The Leviathan already present in the zone attacks you before being removed by the
            # newcomer; you cannot avoid this attack."
            if p is not None:
                self.leviathan_attack(p, resident)
            self.leviathan_discard.append(resident)
        self.place_leviathan(new, zone)

    def place_leviathan(self, leviathan: int, zone: int) -> None:
        self.border[zone] = leviathan
        self.life[zone] = 0  # "Place a Life Point token on the top space"

    def leviathan_attack(self, p: Player, leviathan: int) -> None:
        """Apply the penalty in the bottom right corner of the Leviathan card."""
        kind = int(self.t.leviathan_penalty[leviathan])
        n = int(self.t.leviathan_penalty_n[leviathan])
        self.log("leviathan_attack", who=p.seat, leviathan=leviathan, penalty=kind, n=n)
        self.n_leviathan_attacks += 1
        if kind == Penalty.WOUNDS:
            # "Receive as many Wound tokens as indicated on the Leviathan."
            p.wounds += n
        elif kind == Penalty.PEARLS:
            # "Discard three Pearls. If you have fewer than three Pearls, discard all you have."
            self.pay_treasury(p, n, "leviathan")
        elif kind == Penalty.ALLIES:
            # "Discard three Allies. If you have fewer than three Allies, discard all of them."
            if len(p.hand) <= n:
                for ally in list(p.hand):
                    self.discard_ally_from_hand(p, ally, "leviathan")
            else:
                for _ in range(n):
                    self.choose_discard(p, "leviathan")
        else:
            # "Discard one of your free Lords (those that were previously used to take control of
            # a Location are protected)."
            for _ in range(n):
                free = p.free_lords()
                if not free:
                    break
                lord = self.choose(p.seat, LevDecision.LOSE_LORD, free)
                self.discard_lord(p, lord)
                self.log("lose_lord", who=p.seat, lord=lord)

    def border_zones(self) -> list[int]:
        return [z for z in range(len(self.border)) if self.border[z] >= 0]

    # ------------------------------------------------------ Monsters revealed
    def leviathan_monster(self, p: Player, card: int) -> bool:
        """A Monster revealed while exploring; returns True when the exploration ends (a fight)."""
        self.track.remove(card)
        self.exploration_discard.append(card)
        if self.end_reason in ("leviathan_deck_empty", "monster_tokens_empty"):
            # "during which Monsters that are revealed during Exploration are discarded without
            # effect"
            self.log("monster_discarded", why="last_turns")
            return False
        options = [MonsterChoice.CONTINUE]
        if self.fightable_zones(p):
            options.append(MonsterChoice.FIGHT)
        if self.has_power(p, Power.COWARD):
            options.append(MonsterChoice.IGNORE)
        choice = self.choose(p.seat, LevDecision.MONSTER_CHOICE, [int(o) for o in options])
        if MonsterChoice.FIGHT in options:  # a fight-or-explore decision point
            self.fork_count += 1
            if self.fork is not None and self.fork_count == self.fork.at:
                choice = self.fork_here(p.seat, choice, [int(o) for o in options])
        if choice == MonsterChoice.IGNORE:
            self.log("monster_discarded", why="coward")
            return False
        if choice == MonsterChoice.CONTINUE:
            # "Important: if you do not have an Ally of the requested Race, you CANNOT fight. You
            # must then continue your Exploration and add a new Leviathan."
            self.n_continues += 1
            self.add_leviathan(p, why="explore")
            return False
        self.n_fights += 1
        self.fight(p)
        return True

    # ------------------------------------------------------------ forked rollouts
    def fork_here(self, seat: int, choice: int, options: list[int]) -> int:
        """At the fork point (`Fork`, `games.abyss.engine.fork`): re-key every stream, reshuffle the
        face-down decks, and play the forced choice, or switch the seat's strategy parameters
        (a rule rollout) and let it choose again. Returns the choice to play."""
        fork = self.fork
        self.log("fork", at=fork.at, choice=fork.choice, own_choice=choice)
        if fork.keys is not None:
            self.rng.keys[:] = fork.keys
            self.rng.counters[:] = 0
            for deck, stream in (
                (self.exploration_deck, Stream.EXPLORATION_DECK),
                (self.lord_deck, Stream.LORD_DECK),
                (self.location_deck, Stream.LOCATION_DECK),
                (self.monster_tokens, Stream.MONSTER_TOKENS),
                (self.leviathan_deck, Stream.LEVIATHAN_DECK),
                (self.leviathan_tokens, Stream.LEVIATHAN_TOKENS),
            ):
                self.rng.shuffle(deck, stream)
        if fork.rule:
            self.policies[seat] = switched(self.policies[seat], fork.rule)
            return self.choose(seat, LevDecision.MONSTER_CHOICE, options)
        return choice if fork.choice < 0 else fork.choice

    # ------------------------------------------------------------- fighting
    def can_attack_with(self, p: Player, ally: int, leviathan: int) -> bool:
        """ "A Crab Ally always allows you to fight"; the Metamorph lets any race fight."""
        race = int(self.t.ally_race[ally])
        if race < 0:
            return False
        return (
            race == Race.CRAB
            or race == int(self.t.leviathan_race[leviathan])
            or self.has_power(p, Power.METAMORPH)
        )

    def attack_allies(self, p: Player, leviathan: int) -> list[int]:
        """Eligible Allies, one per distinct (race, value, effect)."""
        seen: dict[tuple[int, int, int], int] = {}
        for a in sorted(p.hand):
            if self.can_attack_with(p, a, leviathan):
                key = (
                    int(self.t.ally_race[a]),
                    int(self.t.ally_value[a]),
                    int(self.t.ally_effect[a]),
                )
                seen.setdefault(key, a)
        return sorted(seen.values())

    def fightable_zones(self, p: Player) -> list[int]:
        return [z for z in self.border_zones() if self.attack_allies(p, self.border[z])]

    def fight(self, p: Player) -> None:
        """Leviathan, Fight a Leviathan: one Leviathan per turn, attacked as often as you like."""
        max_kills = 2 if self.has_power(p, Power.INTREPID) else 1
        kills = 0
        while True:
            zones = self.fightable_zones(p)
            if not zones:
                return
            zone = self.choose(p.seat, LevDecision.LEVIATHAN_TARGET, zones)
            killed = self.fight_one(p, zone)
            if not killed:
                return
            kills += 1
            # "The death of a Leviathan ends your turn." The Intrepid: "If you slay a Leviathan,
            # you can fight a second one."
            if kills >= max_kills or not self.fightable_zones(p):
                return
            if self.choose(p.seat, LevDecision.FIGHT_ANOTHER, [0, 1]) == 0:
                return

    def fight_one(self, p: Player, zone: int) -> bool:
        """Attack the Leviathan in `zone` until it dies or the player stops; True if killed."""
        leviathan = self.border[zone]
        self.fight_zone = zone  # observation for policies
        try:
            while True:
                allies = self.attack_allies(p, leviathan)
                ally = self.choose(p.seat, LevDecision.ATTACK_ALLY, allies)
                if self.attack(p, zone, ally):
                    return True
                if not self.attack_allies(p, leviathan):
                    return False
                if self.choose(p.seat, LevDecision.ATTACK_AGAIN, [0, 1]) == 0:
                    return False
        finally:
            self.fight_zone = -1

    def attack(self, p: Player, zone: int, ally: int) -> bool:
        """One attack: "Your Attack Power = the die result + the value of the discarded Ally."

        Returns True when the Leviathan dies.
        """
        t = self.t
        leviathan = self.border[zone]
        p.hand.remove(ally)
        self.exploration_discard.append(ally)
        effect = int(t.ally_effect[ally])
        die = self.rng.die()
        if effect == AllyEffect.TWO_DICE:
            # "roll BOTH dice and only take into account the higher of the two values"
            die = max(die, self.rng.die())
        power = die + int(t.ally_value[ally])
        added = 0
        if effect == AllyEffect.ADD_PEARLS and p.pearls > 0:
            # "After rolling the die, you can spend as many Pearls as you wish ... +1 per Pearl."
            self.pending_attack = (zone, power)  # observation for policies
            added = self.choose(p.seat, LevDecision.ADD_PEARLS, list(range(p.pearls + 1)))
            self.pay_treasury(p, added, "attack")
            power += added
        removed = life_points_removed(t, leviathan, self.life[zone], power)
        self.log(
            "attack",
            who=p.seat,
            leviathan=leviathan,
            zone=zone,
            ally=ally,
            die=die,
            pearls_added=added,
            power=power,
            life_removed=removed,
        )
        if removed == 0:
            # "Your Ally is discarded, but you still gain 1 Pearl"
            self.gain_pearls(p, 1, "failed_attack")
            return False
        return self.remove_life(p, zone, removed)

    def remove_life(self, p: Player, zone: int, n: int) -> bool:
        """Each Life Point lost pays its Monster tokens; the last one kills. True if killed."""
        t = self.t
        leviathan = self.border[zone]
        for _ in range(n):
            space = self.life[zone]
            n_tokens = int(t.leviathan_tokens[leviathan, space])
            if self.has_power(p, Power.ALTRUIST):
                n_tokens += 1  # "Win 1 extra Monster token for each Health point you remove"
            if self.has_power(p, Power.TAXIDERMIST):
                self.gain_pearls(p, 2, "taxidermist")
            for _ in range(n_tokens):
                self.take_reward_token(p)
            self.life[zone] = space + 1
            if self.life[zone] >= int(t.leviathan_n_spaces[leviathan]):
                self.kill(p, zone)
                return True
        return False

    def kill(self, p: Player, zone: int) -> None:
        """ "When a Leviathan loses its last Life Point, it is dead ... take the Leviathan"."""
        leviathan = self.border[zone]
        self.border[zone] = -1
        p.killed.append(leviathan)
        self.n_kills += 1
        self.log("kill", who=p.seat, leviathan=leviathan, zone=zone)
        holder = self.scourge
        # "As soon as an opponent reaches or exceeds the number of Leviathans killed by the most
        # valiant defender, they take the statue"
        if holder < 0 or (holder != p.seat and len(p.killed) >= len(self.players[holder].killed)):
            self.scourge = p.seat
            self.log("scourge", who=p.seat)
        if not self.border_zones():
            # "each time a player kills the last Leviathan present on the Border, they
            # automatically add a new one"
            self.add_leviathan(None, why="empty_border")

    # --------------------------------------------------------------- tokens
    def take_reward_token(self, p: Player) -> None:
        """ "You can choose your Monster tokens from those of this expansion, those of the base
        game, or a mix of both." """
        options = []
        if self.monster_tokens:
            options.append(0)
        if self.leviathan_tokens:
            options.append(1)
        if not options:
            return
        deck = self.choose(p.seat, LevDecision.TOKEN_DECK, options)
        if deck == 0:
            self.draw_monster_token(p)
            return
        token = self.leviathan_tokens.pop()
        self.log("leviathan_token", who=p.seat, token=token)
        self.hold_token(p, token)

    def hold_token(self, p: Player, token: int) -> None:
        """A Leviathan Monster token taken (a reward, or stolen by the Hunter): "If you take the
        new Monster tokens, you have the option, after consulting them, to reveal them immediately
        or reveal them at the start of one of your next turns." """
        p.held_tokens.append(token)
        if self.choose(p.seat, LevDecision.REVEAL_TOKEN, [0, len(p.held_tokens)]) != 0:
            self.reveal_token(p, len(p.held_tokens) - 1)

    def reveal_held_tokens(self, p: Player) -> None:
        """At the start of a turn the player may reveal held Leviathan tokens, one at a time."""
        while p.held_tokens:
            k = self.choose(p.seat, LevDecision.REVEAL_TOKEN, list(range(len(p.held_tokens) + 1)))
            if k == 0:
                return
            self.reveal_token(p, k - 1)

    def reveal_token(self, p: Player, index: int) -> None:
        """ "Once revealed, apply their effect and then discard them." """
        token = p.held_tokens.pop(index)
        kind = int(self.t.leviathan_token_kind[token])
        amount = int(self.t.leviathan_token_amount[token])
        self.leviathan_token_discard.append(token)
        self.log("reveal_token", who=p.seat, token=token, token_kind=kind, amount=amount)
        if kind == LeviathanToken.PEARLS:
            self.gain_pearls(p, amount, "leviathan_token")
        elif kind == LeviathanToken.KEY:
            self.gain_keys(p, amount, "leviathan_token")
        else:
            for _ in range(amount):
                stacks = [r for r in range(len(self.council)) if self.council[r]]
                if stacks:
                    self.take_council_stack(p, self.choose(p.seat, Decision.COUNCIL_STACK, stacks))

    # ------------------------------------------------------------ end of turn
    def martial_law(self, p: Player) -> None:
        """ "If you wish to keep more than 12 Allies in hand at the end of your turn, you must
        pay one Pearl for each extra Ally. Otherwise, you must discard each extra Ally"."""
        limit = self.t.hand_limit
        paid = 0
        while len(p.hand) > limit + paid:
            options = [0, 1] if p.pearls > 0 else [0]
            if self.choose(p.seat, LevDecision.MARTIAL_LAW, options) == 1:
                self.pay_treasury(p, 1, "martial_law")
                paid += 1
            else:
                self.choose_discard(p, "martial_law")

    def leviathan_end_check(self) -> None:
        """ "At the end of a player's turn, if the Leviathan deck OR any of the Monster token decks
        are empty, each opponent has one last turn"."""
        if not self.rules.leviathan_end_trigger:
            return
        if not self.leviathan_deck:
            self.trigger_end("leviathan_deck_empty")
        elif not self.monster_tokens or not self.leviathan_tokens:
            self.trigger_end("monster_tokens_empty")

    # ------------------------------------------------------------- new Lords
    def leviathan_lord_power(self, p: Player, power: int) -> None:
        if power == Power.BORDER_GUARD:
            # "The opponent of your choice adds a new Leviathan to the Border" (Military: the
            # Shaman protects).
            targets = [q.seat for q in self.military_targets(p)]
            if targets:
                q = self.players[self.choose(p.seat, Decision.TARGET_OPPONENT, targets)]
                self.add_leviathan(q, why="border_guard")
        elif power == Power.ARMS_DEALER:
            # "Earn 1 Pearl for each Leviathan present at the Border."
            self.gain_pearls(p, len(self.border_zones()), "arms_dealer")
        elif power == Power.SORCERER:
            # "You can immediately fight a Leviathan."
            if self.fightable_zones(p) and self.choose(p.seat, LevDecision.USE_POWER, [0, 1]):
                self.n_fights += 1
                self.fight(p)
        elif power == Power.REBEL:
            # "Remove 1 Health point from a Leviathan at the Border, as if you had succeeded with
            # an attack."
            zones = self.border_zones()
            if zones:
                zone = self.choose(p.seat, LevDecision.LEVIATHAN_TARGET, zones)
                self.log("rebel", who=p.seat, leviathan=self.border[zone], zone=zone)
                self.remove_life(p, zone, 1)
        elif power == Power.BREEDER:
            # "Draw a Leviathan and place it on any free space of the Border."
            free = [z for z in range(len(self.border)) if self.border[z] < 0]
            if free and self.leviathan_deck:
                zone = self.choose(p.seat, LevDecision.BORDER_ZONE, free)
                new = self.leviathan_deck.pop()
                self.place_leviathan(new, zone)
                self.log("breeder", who=p.seat, leviathan=new, zone=zone)


def life_points_removed(t, leviathan: int, life: int, power: int) -> int:
    """Life Points an Attack Power removes, from the Life space `life` on.

    "If your Attack Power is equal to or greater than the sum of multiple Leviathan Resistance
    levels, it loses as many Life Points as levels are surpassed."
    """
    removed = 0
    for space in range(life, int(t.leviathan_n_spaces[leviathan])):
        resistance = int(t.leviathan_resistance[leviathan, space])
        if power < resistance:
            break
        power -= resistance
        removed += 1
    return removed
